// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decay-report - how much of a profile's gain survives newer releases: the
 * decay benchmark's table and plot (tests/bench/bench-decay.sh).
 *
 * Usage: decay-report [--header TEXT]... [-o DECAY.md] [--tsv DECAY.tsv]
 *                     [--svg DECAY.svg] PAIRS.tsv
 *
 * PAIRS.tsv: a header line, then one line per (profile, built) pair,
 * tab-separated:
 *
 *   profile profile_date built built_date kernel medians report
 *
 * profile and built are Debian versions of linux-source-SERIES
 * (6.1.170-3, 6.12.118-1~deb12u1): the release whose instrumented kernel
 * made the profile, and the release built with it; the dates are their
 * changelogs' (seconds since the epoch). kernel is the name of the kernel
 * built with that profile in the built release's benchmark, whose medians
 * (bench-report --medians) are in the file medians; the same file has the
 * kernels "baseline" (no profile) and "pgo" (the built release's own fresh
 * profile). report is kpgo report --json of that kernel's build, or "-".
 *
 * For each pair and mix, from the icount medians (instructions per
 * operation) of the workloads that all three kernels ran: the geometric
 * means B (baseline), F (fresh profile) and P (this profile), and
 *
 *   gain kept = (B - P) / (B - F)
 *
 * 1 where P is as good as the fresh profile, 0 where it is no better than
 * no profile, below 0 where it is worse; none where the fresh profile
 * gained nothing (B <= F). Releases apart: the difference of the upstream
 * stable releases (6.1.170 to 6.1.192: 22) within one series; a pair
 * across series has none (it is plotted against days only).
 *
 * Writes markdown to DECAY.md (default stdout), the numbers to DECAY.tsv
 * (one line per pair and mix) and, with --svg, gain kept against releases
 * apart and against days apart (hand-written SVG).
 *
 * Exit 0 written, 1 bad input or write error (one line says why), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"
#include "util.h"

#define BENCH_TOOL "decay-report"
#include "bench-util.h"

#define MAX_INPUT (16u << 20)
#define PAIR_FIELDS 7
#define MEDIAN_FIELDS 8

/* The counts of kpgo report --json that the table shows. */
static const struct {
	const char *key, *label;
} report_keys[] = {
	{ "functions", "functions" },
	{ "functions_applied", "applied" },
	{ "functions_stale", "stale but applied" },
	{ "functions_dropped", "dropped" },
	{ "functions_without_profile", "not found" },
	{ "functions_in_objects_not_compiled", "in objects not compiled" },
};
#define NKEYS (sizeof(report_keys) / sizeof(report_keys[0]))

struct median {
	char *mode, *mix, *workload, *kernel;
	double value;
};

/* One mix of one pair. */
struct gain {
	char *mix;
	size_t workloads;
	double base, fresh, prof; /* geometric means, instructions per operation */
	double kept;		  /* NAN: none */
};

struct pair {
	char *profile, *built, *kernel;
	int64_t profile_date, built_date;
	double days;
	long releases; /* -1: across series */
	bool has_report;
	uint64_t counts[NKEYS];
	struct gain *gains;
	size_t ngains;
};

static struct pair *pairs;
static size_t npairs;

/* --- input ---------------------------------------------------------------- */

/* A Debian version of a kernel source: digits, letters and .+~- */
static bool is_version(const char *s)
{
	if (!*s || !strchr("0123456789", *s))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(".+~-", *s)))
			return false;
	return true;
}

/*
 * The series ("6.1") and stable release (170) of a Debian version
 * (6.1.170-3): the upstream part is before the last '-'. False when it is
 * not MAJOR.MINOR.SUBLEVEL.
 */
static bool upstream_of(const char *version, char *series, size_t size, long *sublevel)
{
	const char *dash = strrchr(version, '-');
	size_t len = dash ? (size_t)(dash - version) : strlen(version);
	char up[64], *dot, *end;

	if (len == 0 || len >= sizeof(up))
		return false;
	memcpy(up, version, len);
	up[len] = '\0';
	dot = strchr(up, '.');
	if (!dot || !(dot = strchr(dot + 1, '.')) || (size_t)(dot - up) >= size)
		return false;
	*dot = '\0';
	errno = 0;
	*sublevel = strtol(dot + 1, &end, 10);
	if (errno || *end || end == dot + 1 || *sublevel < 0)
		return false;
	memcpy(series, up, (size_t)(dot - up) + 1);
	return true;
}

struct medians {
	struct median *m;
	size_t n;
};

static void parse_median(char **f, const char *path, size_t lineno, void *arg)
{
	struct medians *ms = arg;
	struct median *m;
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(f[5], &end);
	if (errno || *end || end == f[5] || !(v >= 0) || isinf(v))
		die("'%s' line %zu: bad median '%s'", path, lineno, f[5]);
	for (i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].mode, f[0]) && !strcmp(ms->m[i].mix, f[1]) &&
		    !strcmp(ms->m[i].workload, f[2]) && !strcmp(ms->m[i].kernel, f[3]))
			die("'%s' line %zu: a second median of %s, %s, %s, %s", path, lineno, f[0],
			    f[1], f[2], f[3]);
	ms->m = xrealloc(ms->m, (ms->n + 1) * sizeof(*ms->m));
	m = &ms->m[ms->n++];
	m->mode = xstrdup(f[0]);
	m->mix = xstrdup(f[1]);
	m->workload = xstrdup(f[2]);
	m->kernel = xstrdup(f[3]);
	m->value = v;
}

static void medians_clear(struct medians *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		free(ms->m[i].mode);
		free(ms->m[i].mix);
		free(ms->m[i].workload);
		free(ms->m[i].kernel);
	}
	free(ms->m);
	ms->m = NULL;
	ms->n = 0;
}

/* The icount median of @kernel on @workload of @mix; NAN when there is none. */
static double median_of(const struct medians *ms, const char *mix, const char *workload,
			const char *kernel)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].mode, "icount") && !strcmp(ms->m[i].mix, mix) &&
		    !strcmp(ms->m[i].workload, workload) && !strcmp(ms->m[i].kernel, kernel))
			return ms->m[i].value;
	return NAN;
}

/* The gains of @p per mix, from the icount medians in @path. */
static void pair_gains(struct pair *p, const char *path)
{
	static const char header[] = "mode\tmix\tworkload\tkernel\tn\tmedian\tmin\tmax";
	struct medians ms = { 0 };
	size_t i, j, k;

	read_tsv(path, MAX_INPUT, header, MEDIAN_FIELDS, parse_median, &ms);
	for (i = 0; i < ms.n; i++) {
		const char *mix = ms.m[i].mix;
		double lb = 0, lf = 0, lp = 0;
		struct gain *g;
		size_t n = 0;

		if (strcmp(ms.m[i].mode, "icount") || !strcmp(mix, "calib"))
			continue;
		for (j = 0; j < p->ngains && strcmp(p->gains[j].mix, mix); j++)
			;
		if (j < p->ngains)
			continue; /* done */
		/* the workloads of the mix: its baseline rows (one each) */
		for (k = i; k < ms.n; k++) {
			const struct median *w = &ms.m[k];
			double f, q;

			if (strcmp(w->mode, "icount") || strcmp(w->mix, mix) ||
			    strcmp(w->kernel, "baseline"))
				continue;
			f = median_of(&ms, mix, w->workload, "pgo");
			q = median_of(&ms, mix, w->workload, p->kernel);
			if (!(w->value > 0) || !(f > 0) || !(q > 0))
				continue;
			lb += log(w->value);
			lf += log(f);
			lp += log(q);
			n++;
		}
		if (!n)
			die("'%s': no workload of the %s mix has icount medians of baseline, pgo and %s",
			    path, mix, p->kernel);
		p->gains = xrealloc(p->gains, (p->ngains + 1) * sizeof(*p->gains));
		g = &p->gains[p->ngains++];
		g->mix = xstrdup(mix);
		g->workloads = n;
		g->base = exp(lb / (double)n);
		g->fresh = exp(lf / (double)n);
		g->prof = exp(lp / (double)n);
		if (!(g->base > g->fresh))
			g->kept = NAN;
		else if (!strcmp(p->kernel, "pgo"))
			g->kept = 1;
		else
			g->kept = (g->base - g->prof) / (g->base - g->fresh);
	}
	if (!p->ngains)
		die("'%s' has no icount results", path);
	medians_clear(&ms);
}

static int report_doc(void *ctx, const struct kpgo_json *doc, struct kpgo_error *err)
{
	struct pair *p = ctx;
	size_t i;
	int r;

	for (i = 0; i < NKEYS; i++) {
		r = kpgo_json_get_u64(doc, report_keys[i].key, &p->counts[i], err);
		if (r)
			return r;
	}
	return 0;
}

static int64_t parse_date(const char *s, const char *path, size_t lineno)
{
	uint64_t v;

	if (kpgo_parse_u64(s, &v) || v > INT64_MAX)
		die("'%s' line %zu: bad date '%s' (seconds since the epoch)", path, lineno, s);
	return (int64_t)v;
}

static void parse_pair(char **f, const char *path, size_t lineno, void *arg)
{
	char sp[32], sb[32];
	long lp, lb;
	struct pair *p;

	(void)arg;
	if (!is_version(f[0]) || !is_version(f[2]))
		die("'%s' line %zu: bad release '%s' or '%s'", path, lineno, f[0], f[2]);
	if (!upstream_of(f[0], sp, sizeof(sp), &lp) || !upstream_of(f[2], sb, sizeof(sb), &lb))
		die("'%s' line %zu: '%s' or '%s' is not MAJOR.MINOR.SUBLEVEL-REVISION", path,
		    lineno, f[0], f[2]);
	if (!*f[4] || strchr(f[4], '/'))
		die("'%s' line %zu: bad kernel name '%s'", path, lineno, f[4]);
	pairs = xrealloc(pairs, (npairs + 1) * sizeof(*pairs));
	p = &pairs[npairs++];
	memset(p, 0, sizeof(*p));
	p->profile = xstrdup(f[0]);
	p->built = xstrdup(f[2]);
	p->kernel = xstrdup(f[4]);
	p->profile_date = parse_date(f[1], path, lineno);
	p->built_date = parse_date(f[3], path, lineno);
	p->days = (double)(p->built_date - p->profile_date) / 86400;
	p->releases = strcmp(sp, sb) ? -1 : lb - lp;
	pair_gains(p, f[5]);
	if (strcmp(f[6], "-")) {
		struct kpgo_error err;

		if (kpgo_json_doc_read(f[6], MAX_INPUT, report_doc, p, &err))
			die("'%s': %s", f[6], err.msg);
		p->has_report = true;
	}
}

static void free_pairs(void)
{
	size_t i, j;

	for (i = 0; i < npairs; i++) {
		for (j = 0; j < pairs[i].ngains; j++)
			free(pairs[i].gains[j].mix);
		free(pairs[i].gains);
		free(pairs[i].profile);
		free(pairs[i].built);
		free(pairs[i].kernel);
	}
	free(pairs);
}

/* --- the table ------------------------------------------------------------ */

/* The mixes of all pairs, in first-seen order. */
static void all_mixes(struct kpgo_strlist *l)
{
	size_t i, j, k;

	for (i = 0; i < npairs; i++)
		for (j = 0; j < pairs[i].ngains; j++) {
			for (k = 0; k < l->n && strcmp(l->items[k], pairs[i].gains[j].mix); k++)
				;
			if (k == l->n && kpgo_strlist_add(l, pairs[i].gains[j].mix))
				die("out of memory");
		}
}

static const struct gain *gain_of(const struct pair *p, const char *mix)
{
	size_t j;

	for (j = 0; j < p->ngains; j++)
		if (!strcmp(p->gains[j].mix, mix))
			return &p->gains[j];
	return NULL;
}

static void fmt_releases(struct strbuf *sb, const struct pair *p)
{
	char sp[32], sbuf[32];
	long l;

	if (p->releases >= 0) {
		out(sb, "%ld", p->releases);
		return;
	}
	upstream_of(p->profile, sp, sizeof(sp), &l);
	upstream_of(p->built, sbuf, sizeof(sbuf), &l);
	out(sb, "%s → %s", sp, sbuf);
}

static void md_table(struct strbuf *sb, const struct kpgo_strlist *mixes)
{
	size_t i, j, k;

	out(sb, "| profile of | built | releases apart | days apart |");
	for (k = 1; k < NKEYS; k++)
		out(sb, " %s |", report_keys[k].label);
	for (j = 0; j < mixes->n; j++)
		out(sb, " %s: instr./op vs baseline (fresh) | %s: gain kept |", mixes->items[j],
		    mixes->items[j]);
	out(sb, "\n|---|---|---:|---:|");
	for (k = 1; k < NKEYS; k++)
		out(sb, "---:|");
	for (j = 0; j < mixes->n; j++)
		out(sb, "---:|---:|");
	out(sb, "\n");
	for (i = 0; i < npairs; i++) {
		const struct pair *p = &pairs[i];

		out(sb, "| %s%s | %s | ", p->profile, strcmp(p->kernel, "pgo") ? "" : " (fresh)",
		    p->built);
		fmt_releases(sb, p);
		out(sb, " | %.0f |", p->days);
		for (k = 1; k < NKEYS; k++) {
			if (!p->has_report)
				out(sb, " – |");
			else if (k == 1 && p->counts[0])
				out(sb, " %" PRIu64 " of %" PRIu64 " (%.1f%%) |", p->counts[1],
				    p->counts[0],
				    100.0 * (double)p->counts[1] / (double)p->counts[0]);
			else
				out(sb, " %" PRIu64 " |", p->counts[k]);
		}
		for (j = 0; j < mixes->n; j++) {
			const struct gain *g = gain_of(p, mixes->items[j]);

			if (!g) {
				out(sb, " – | – |");
				continue;
			}
			out(sb, " %+.2f%% (%+.2f%%) |", (g->prof / g->base - 1) * 100,
			    (g->fresh / g->base - 1) * 100);
			if (isnan(g->kept))
				out(sb, " none (no fresh gain) |");
			else
				out(sb, " %.0f%% |", g->kept * 100);
		}
		out(sb, "\n");
	}
	out(sb, "\n");
}

static void write_tsv(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, k;

	out(&sb, "profile\tbuilt\tkernel\tmix\treleases_apart\tdays_apart\tworkloads\tbaseline\t"
		 "fresh\tprofile_insns\tgain_kept");
	for (k = 0; k < NKEYS; k++)
		out(&sb, "\t%s", report_keys[k].key);
	out(&sb, "\n");
	for (i = 0; i < npairs; i++) {
		const struct pair *p = &pairs[i];

		for (j = 0; j < p->ngains; j++) {
			const struct gain *g = &p->gains[j];

			out(&sb, "%s\t%s\t%s\t%s\t", p->profile, p->built, p->kernel, g->mix);
			if (p->releases >= 0)
				out(&sb, "%ld", p->releases);
			else
				out(&sb, "-");
			out(&sb, "\t%.1f\t%zu\t%.6g\t%.6g\t%.6g\t", p->days, g->workloads, g->base,
			    g->fresh, g->prof);
			if (isnan(g->kept))
				out(&sb, "-");
			else
				out(&sb, "%.4f", g->kept);
			for (k = 0; k < NKEYS; k++) {
				if (p->has_report)
					out(&sb, "\t%" PRIu64, p->counts[k]);
				else
					out(&sb, "\t-");
			}
			out(&sb, "\n");
		}
	}
	write_out(path, &sb);
	strbuf_release(&sb);
}

/* --- the plot ------------------------------------------------------------- */

#define PANEL_W 380
#define PANEL_H 260
#define LEFT 60
#define TOP 50
#define GAP 70

/* One panel: gain kept (%) against releases apart (@days false) or days apart. */
static void svg_panel(struct strbuf *sb, double x0, bool days, const struct kpgo_strlist *mixes,
		      double ylo, double yhi)
{
	static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd" };
	double xhi = 1, step, v;
	size_t i, j;

	for (i = 0; i < npairs; i++) {
		v = days ? pairs[i].days : (double)pairs[i].releases;
		if (v > xhi)
			xhi = v;
	}
	step = tick_step(0, xhi);
	xhi = ceil(xhi / step) * step;
	out(sb,
	    "<text x=\"%.0f\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">gain kept against %s</text>\n",
	    x0, TOP - 18, days ? "days apart" : "stable releases apart");
	for (v = 0; v <= xhi + step / 2; v += step) {
		double x = x0 + v / xhi * PANEL_W;

		out(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x,
		    TOP, x, TOP + PANEL_H);
		out(sb,
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%g</text>\n",
		    x, TOP + PANEL_H + 14, v);
	}
	step = tick_step(ylo, yhi);
	for (v = ylo; v <= yhi + step / 2; v += step) {
		double y = TOP + (yhi - v) / (yhi - ylo) * PANEL_H;

		out(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
		    x0, y, x0 + PANEL_W, y,
		    fabs(v) < 1e-9 || fabs(v - 100) < 1e-9 ? "#888" : "#ddd");
		out(sb,
		    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%g%%</text>\n",
		    x0 - 4, y + 3, v);
	}
	out(sb, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
	    x0 + PANEL_W / 2.0, TOP + PANEL_H + 32,
	    days ? "days between the changelogs" :
		   "upstream stable releases between them (one series)");
	for (j = 0; j < mixes->n; j++) {
		const char *c = colours[j % (sizeof(colours) / sizeof(colours[0]))];

		for (i = 0; i < npairs; i++) {
			const struct pair *p = &pairs[i];
			const struct gain *g = gain_of(p, mixes->items[j]);
			double x, y;

			if (!g || isnan(g->kept) || (!days && p->releases < 0))
				continue;
			x = x0 + (days ? p->days : (double)p->releases) / xhi * PANEL_W;
			y = TOP + (yhi - g->kept * 100) / (yhi - ylo) * PANEL_H;
			if (p->releases < 0)
				out(sb,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\">",
				    x - 4, y - 4, c);
			else
				out(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">", x,
				    y, c);
			out(sb, "<title>");
			svg_text(sb, p->profile);
			out(sb, " profile on ");
			svg_text(sb, p->built);
			out(sb, ", %s mix: %.0f%%</title>", mixes->items[j], g->kept * 100);
			out(sb, "%s\n", p->releases < 0 ? "</rect>" : "</circle>");
		}
	}
}

static void write_svg(const char *path, const struct kpgo_strlist *mixes)
{
	struct strbuf sb = STRBUF_INIT;
	double ylo = 0, yhi = 100, width = LEFT + 2 * PANEL_W + GAP + 150;
	size_t i, j;

	for (i = 0; i < npairs; i++)
		for (j = 0; j < pairs[i].ngains; j++) {
			double k = pairs[i].gains[j].kept * 100;

			if (isnan(k))
				continue;
			if (k < ylo)
				ylo = floor(k / 10) * 10;
			if (k > yhi)
				yhi = ceil(k / 10) * 10;
		}
	out(&sb,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" "
	    "font-family=\"sans-serif\">\n",
	    width, TOP + PANEL_H + 50);
	out(&sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	svg_panel(&sb, LEFT, false, mixes, ylo, yhi);
	svg_panel(&sb, LEFT + PANEL_W + GAP, true, mixes, ylo, yhi);
	for (j = 0; j < mixes->n; j++) {
		static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd" };

		out(&sb, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"4\" fill=\"%s\"/>", width - 130,
		    (double)TOP + 10 + 18 * (double)j,
		    colours[j % (sizeof(colours) / sizeof(colours[0]))]);
		out(&sb, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">", width - 120,
		    (double)TOP + 14 + 18 * (double)j);
		svg_text(&sb, mixes->items[j]);
		out(&sb, " mix</text>\n");
	}
	out(&sb,
	    "<rect x=\"%.0f\" y=\"%.0f\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"#444\" stroke-width=\"2\"/>",
	    width - 134, (double)TOP + 6 + 18 * (double)mixes->n);
	out(&sb, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">across series</text>\n", width - 120,
	    (double)TOP + 14 + 18 * (double)mixes->n);
	out(&sb, "</svg>\n");
	write_out(path, &sb);
	strbuf_release(&sb);
}

/* --- main ----------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: decay-report [--header TEXT]... [-o DECAY.md] [--tsv DECAY.tsv]\n"
	      "                    [--svg DECAY.svg] PAIRS.tsv\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "header", required_argument, NULL, 'H' },
		{ "tsv", required_argument, NULL, 't' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char header[] =
		"profile\tprofile_date\tbuilt\tbuilt_date\tkernel\tmedians\treport";
	struct kpgo_strlist headers = { 0 }, mixes = { 0 };
	const char *output = NULL, *tsv = NULL, *svg = NULL;
	struct strbuf md = STRBUF_INIT;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (kpgo_strlist_add(&headers, optarg))
				die("out of memory");
			break;
		case 'o': output = optarg; break;
		case 't': tsv = optarg; break;
		case 's': svg = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	read_tsv(argv[optind], MAX_INPUT, header, PAIR_FIELDS, parse_pair, NULL);
	if (!npairs)
		die("'%s' has no pairs", argv[optind]);
	all_mixes(&mixes);

	out(&md, "## Profile decay across releases\n\n");
	for (i = 0; i < headers.n; i++)
		out(&md, "- %s\n", headers.items[i]);
	if (headers.n)
		out(&md, "\n");
	out(&md, "Instructions per operation (icount): the geometric mean over a mix's "
		 "workloads, against the built release's own baseline (no profile) and, in "
		 "brackets, its own fresh profile's. Gain kept = (baseline − this profile) / "
		 "(baseline − fresh profile). The profile's counts are kpgo report's, of "
		 "the build with that profile.\n\n");
	md_table(&md, &mixes);
	if (tsv)
		write_tsv(tsv);
	if (svg)
		write_svg(svg, &mixes);
	write_out(output, &md);
	strbuf_release(&md);
	kpgo_strlist_clear(&headers);
	kpgo_strlist_clear(&mixes);
	free_pairs();
	return 0;
}
