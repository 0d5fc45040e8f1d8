// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-report - the kernel benchmark's tables and plot, from its results
 * (tests/bench/bench-kernel.sh).
 *
 * Usage: bench-report [--baseline NAME] [--calib-insns N [--calib-max-error PCT]]
 *                     [--builds FILE] [--header TEXT]... [-o REPORT.md]
 *                     [--svg RATIOS.svg] [--medians MEDIANS.tsv] RESULTS.tsv
 *
 * RESULTS.tsv: a header line, then one line per result of one workload in
 * one boot, tab-separated:
 *
 *   mode round kernel mix workload ops seconds accel
 *
 * mode is "wall" (seconds of the guest's CLOCK_MONOTONIC) or "icount"
 * (QEMU -icount shift=0: the guest's clock advances 1 ns per guest
 * instruction, so seconds x 1e9 / ops is instructions per operation); accel
 * is how QEMU ran (kvm, tcg). The mix "calib" holds the calibration loop
 * (wl-micro -t calib), of --calib-insns instructions per operation.
 *
 * The cache mode's rows (tests/bench/cachesim.c, the QEMU plugin) have the
 * modes cache-insns, cache-l1i, cache-l1d, cache-l2 (instructions, L1i,
 * L1d and L2 misses) and cache-cycles (modelled cycles); for them the
 * "seconds" column holds the count of those events over ops operations
 * (zero allowed), and they read like icount: lower is better, the ratio is
 * baseline / kernel. The mode ctxsw is the same kind of count: the guest's
 * context switches while the program ran (a check that both kernels
 * scheduled the program alike; not plotted).
 *
 * For each mode, mix, workload and kernel: the median, minimum and maximum
 * over the rounds, and the ratio of the medians to the baseline kernel's,
 * always "above 1 is better": wall, kernel ops/s / baseline ops/s; icount,
 * baseline instructions / kernel instructions. Per mix, the geometric mean
 * of the ratios. Writes markdown to REPORT.md (default stdout) and, with
 * --svg, a bar chart of the ratios (hand-written SVG).
 *
 * --calib-max-error PCT: after writing, fail when the calibration loop's
 * median in mode icount is more than PCT % off --calib-insns.
 *
 * --medians FILE: every cell's median, minimum and maximum as a
 * tab-separated table (mode mix workload kernel n median min max; icount's
 * values in instructions per operation), for decay-report.
 *
 * --builds FILE: a tab-separated table with a header line (kernel, release,
 * sizes, profile...), copied into the report as it is.
 *
 * Exit 0 written, 1 bad input or write error (one line says why), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

#define BENCH_TOOL "bench-report"
#include "bench-util.h"

#define MAX_INPUT (64u << 20)
#define NFIELDS 8

struct row {
	char *mode, *kernel, *mix, *workload, *accel;
	unsigned long round;
	uint64_t ops;
	double seconds;
};

/* Summary of one (mode, mix, workload, kernel) cell over the rounds. */
struct cell {
	size_t n;
	double median, min, max;
};

static struct row *rows;
static size_t nrows;
static const char *input_name;
static const char *baseline = "baseline";

/* --- input ---------------------------------------------------------------- */

static bool is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-_.+:", *s)))
			return false;
	return true;
}

/* The cache modes and what they count; NULL for another mode. */
static const struct {
	const char *mode, *what, *unit;
} cache_modes[] = {
	{ "cache-insns", "Instructions per operation (cache mode's plugin)", "instr." },
	{ "cache-l1i", "L1 instruction cache misses per operation (cache model)", "L1i misses" },
	{ "cache-l1d", "L1 data cache misses per operation (cache model)", "L1d misses" },
	{ "cache-l2", "L2 cache misses per operation (cache model)", "L2 misses" },
	{ "cache-cycles", "Modelled cycles per operation (cache model)", "modelled cycles" },
	{ "ctxsw", "Context switches per operation (the whole guest's, /proc/stat)",
	  "context switches" },
};

static const char *cache_label(const char *mode)
{
	size_t i;

	for (i = 0; i < sizeof(cache_modes) / sizeof(cache_modes[0]); i++)
		if (!strcmp(mode, cache_modes[i].mode))
			return cache_modes[i].what;
	return NULL;
}

static const char *cache_unit(const char *mode)
{
	size_t i;

	for (i = 0; i < sizeof(cache_modes) / sizeof(cache_modes[0]); i++)
		if (!strcmp(mode, cache_modes[i].mode))
			return cache_modes[i].unit;
	return NULL;
}

/* Counts per operation, lower is better: icount and the cache modes. */
static bool is_count_mode(const char *mode)
{
	return !strcmp(mode, "icount") || cache_label(mode);
}

static void parse_row(char **f, const char *path, size_t lineno, void *arg)
{
	static const char *names[] = { "mode", "round", "kernel", "mix", "workload" };
	struct row r = { 0 };
	uint64_t round;
	char *end;
	size_t i;

	(void)arg;
	for (i = 0; i < 5; i++)
		if (!is_name(f[i]))
			die("'%s' line %zu: bad %s '%s'", path, lineno, names[i], f[i]);
	if (!is_name(f[7]))
		die("'%s' line %zu: bad accel '%s'", path, lineno, f[7]);
	if (strcmp(f[0], "wall") && strcmp(f[0], "icount") && !cache_label(f[0]))
		die("'%s' line %zu: unknown mode '%s' (wall, icount or cache-*)", path, lineno,
		    f[0]);
	if (kpgo_parse_u64(f[1], &round) || round == 0 || round > 1000000)
		die("'%s' line %zu: bad round '%s'", path, lineno, f[1]);
	if (kpgo_parse_u64(f[5], &r.ops) || r.ops == 0)
		die("'%s' line %zu: bad operation count '%s'", path, lineno, f[5]);
	errno = 0;
	r.seconds = strtod(f[6], &end);
	if (errno || end == f[6] || *end || !isfinite(r.seconds) || r.seconds < 0 ||
	    (r.seconds == 0 && !cache_label(f[0])))
		die("'%s' line %zu: bad seconds '%s'", path, lineno, f[6]);
	r.mode = xstrdup(f[0]);
	r.round = (unsigned long)round;
	r.kernel = xstrdup(f[2]);
	r.mix = xstrdup(f[3]);
	r.workload = xstrdup(f[4]);
	r.accel = xstrdup(f[7]);
	rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
	rows[nrows++] = r;
}

static void read_results(const char *path)
{
	static const char header[] = "mode\tround\tkernel\tmix\tworkload\tops\tseconds\taccel";

	input_name = path;
	read_tsv(path, MAX_INPUT, header, NFIELDS, parse_row, NULL);
	if (nrows == 0)
		die("'%s' has no results", path);
}

static void free_rows(void)
{
	size_t i;

	for (i = 0; i < nrows; i++) {
		free(rows[i].mode);
		free(rows[i].kernel);
		free(rows[i].mix);
		free(rows[i].workload);
		free(rows[i].accel);
	}
	free(rows);
	rows = NULL;
	nrows = 0;
}

/* --- grouping and statistics ---------------------------------------------- */

/* The distinct values of a field in first-seen order (restricted by @match). */
static void distinct(struct kpgo_strlist *l, size_t field_off,
		     bool (*match)(const struct row *, const void *), const void *arg)
{
	size_t i, j;

	for (i = 0; i < nrows; i++) {
		const char *v = *(char **)((char *)&rows[i] + field_off);

		if (match && !match(&rows[i], arg))
			continue;
		for (j = 0; j < l->n; j++)
			if (!strcmp(l->items[j], v))
				break;
		if (j == l->n && kpgo_strlist_add(l, v))
			die("out of memory");
	}
}

struct key {
	const char *mode, *mix, *workload, *kernel;
};

static bool match_key(const struct row *r, const void *arg)
{
	const struct key *k = arg;

	return (!k->mode || !strcmp(r->mode, k->mode)) && (!k->mix || !strcmp(r->mix, k->mix)) &&
	       (!k->workload || !strcmp(r->workload, k->workload)) &&
	       (!k->kernel || !strcmp(r->kernel, k->kernel));
}

/* What one row measures: ops/s (wall) or instructions per operation (icount). */
static double metric(const struct row *r)
{
	if (!strcmp(r->mode, "icount"))
		return r->seconds * 1e9 / (double)r->ops;
	if (cache_label(r->mode))
		return r->seconds / (double)r->ops;
	return (double)r->ops / r->seconds;
}

static struct cell summarize(const struct key *k)
{
	struct cell c = { 0 };
	double *v = NULL;
	size_t i;

	for (i = 0; i < nrows; i++) {
		if (!match_key(&rows[i], k))
			continue;
		v = xrealloc(v, (c.n + 1) * sizeof(*v));
		v[c.n++] = metric(&rows[i]);
	}
	if (!c.n)
		return c;
	qsort(v, c.n, sizeof(*v), cmp_double);
	c.min = v[0];
	c.max = v[c.n - 1];
	c.median = c.n % 2 ? v[c.n / 2] : (v[c.n / 2 - 1] + v[c.n / 2]) / 2;
	free(v);
	return c;
}

/* Above 1 is better, in every mode; NAN where a count is zero. */
static double ratio(const char *mode, double kernel, double base)
{
	if (kernel <= 0 || base <= 0)
		return NAN;
	return is_count_mode(mode) ? base / kernel : kernel / base;
}

/* The rounds the baseline has in @mode: how many boots each median is of. */
static size_t rounds_of(const char *mode)
{
	struct kpgo_strlist l = { 0 };
	size_t i, n = 0;

	for (i = 0; i < nrows; i++) {
		char buf[32];
		size_t j;

		if (strcmp(rows[i].mode, mode) || strcmp(rows[i].kernel, baseline))
			continue;
		snprintf(buf, sizeof(buf), "%lu", rows[i].round);
		for (j = 0; j < l.n; j++)
			if (!strcmp(l.items[j], buf))
				break;
		if (j == l.n && kpgo_strlist_add(&l, buf))
			die("out of memory");
	}
	n = l.n;
	kpgo_strlist_clear(&l);
	return n;
}

/* --- markdown ------------------------------------------------------------- */

static void fmt_value(struct strbuf *sb, double v)
{
	if (v >= 100)
		out(sb, "%.0f", v);
	else if (v >= 10)
		out(sb, "%.1f", v);
	else
		out(sb, "%.2f", v);
}

static void md_cell(struct strbuf *sb, const struct cell *c, size_t rounds)
{
	fmt_value(sb, c->median);
	out(sb, " [");
	fmt_value(sb, c->min);
	out(sb, "–");
	fmt_value(sb, c->max);
	out(sb, "]");
	if (c->n != rounds)
		out(sb, " (n=%zu)", c->n);
}

static void md_ratio(struct strbuf *sb, double r, const char *mode)
{
	double pct = is_count_mode(mode) ? (1 / r - 1) * 100 : (r - 1) * 100;
	const char *unit = !strcmp(mode, "icount") ? "instr." : cache_unit(mode);

	if (isnan(r)) {
		out(sb, "—");
		return;
	}
	out(sb, "%.3f (%+.1f%%%s%s)", r, pct, unit ? " " : "", unit ? unit : "");
}

static bool is_mode_mix(const struct row *r, const void *arg)
{
	const struct key *k = arg;

	return !strcmp(r->mode, k->mode) && (!k->mix || !strcmp(r->mix, k->mix));
}

static const char *accel_of(const char *mode)
{
	const char *a = NULL;
	size_t i;

	for (i = 0; i < nrows; i++) {
		if (strcmp(rows[i].mode, mode))
			continue;
		if (a && strcmp(a, rows[i].accel))
			return "mixed (see the results file)";
		a = rows[i].accel;
	}
	return a ? a : "?";
}

static void md_mode_intro(struct strbuf *sb, const char *mode, size_t rounds)
{
	if (!strcmp(mode, "ctxsw")) {
		out(sb,
		    "%s while the program ran (its start and exit included), from the "
		    "icount boots: where two kernels differ here, they scheduled the program "
		    "differently, and its instruction counts differ for that reason too. Cells: "
		    "median [min–max] of %zu boots per kernel; ratio: baseline / kernel.\n\n",
		    cache_label(mode), rounds);
		return;
	}
	if (cache_label(mode)) {
		out(sb,
		    "%s, of the measured loops only: each program ran at two operation "
		    "counts, and the counts are the difference of the two runs over the "
		    "difference of their operations. QEMU TCG with -icount and the cache-model "
		    "plugin (tests/bench/cachesim.c); lower is better. Cells: median [min–max] "
		    "of %zu boots per kernel. Ratio: baseline's median / the kernel's, above 1 "
		    "means fewer than baseline (in brackets: the change).\n\n",
		    cache_label(mode), rounds);
		return;
	}
	if (!strcmp(mode, "icount")) {
		out(sb,
		    "Guest instructions per operation, user and kernel, counted by QEMU "
		    "(`-accel tcg -icount shift=0,sleep=off`: the guest's clock advances 1 ns "
		    "per instruction); lower is better. Cells: median [min–max] of %zu boots "
		    "per kernel. Ratio: baseline's median / the kernel's, above 1 means fewer "
		    "instructions than baseline (in brackets: the change in instructions).\n\n",
		    rounds);
		return;
	}
	if (!strcmp(accel_of(mode), "kvm"))
		out(sb, "Wall-clock operations per second under KVM (the host's CPU, "
			"virtualised), from the guest's CLOCK_MONOTONIC; higher is better. ");
	else
		out(sb,
		    "Wall-clock operations per second under %s (emulated CPU; not "
		    "hardware speed), from the guest's CLOCK_MONOTONIC; higher is better. ",
		    !strcmp(accel_of(mode), "tcg") ? "TCG" : accel_of(mode));
	out(sb,
	    "Cells: median [min–max] of %zu boots per kernel. Ratio: the kernel's median "
	    "/ baseline's, above 1 means faster than baseline.\n\n",
	    rounds);
}

static void md_table(struct strbuf *sb, const char *mode, const char *mix,
		     const struct kpgo_strlist *kernels, size_t rounds)
{
	struct kpgo_strlist workloads = { 0 };
	struct key k = { .mode = mode, .mix = mix };
	double *logsum = xrealloc(NULL, kernels->n * sizeof(double));
	size_t *nlog = xrealloc(NULL, kernels->n * sizeof(size_t));
	size_t w, j;

	memset(logsum, 0, kernels->n * sizeof(double));
	memset(nlog, 0, kernels->n * sizeof(size_t));
	distinct(&workloads, offsetof(struct row, workload), is_mode_mix, &k);
	out(sb, "| workload |");
	for (j = 0; j < kernels->n; j++) {
		out(sb, " %s |", kernels->items[j]);
		if (strcmp(kernels->items[j], baseline))
			out(sb, " %s ratio |", kernels->items[j]);
	}
	out(sb, "\n|---|");
	for (j = 0; j < kernels->n; j++)
		out(sb, strcmp(kernels->items[j], baseline) ? "---:|---:|" : "---:|");
	out(sb, "\n");
	for (w = 0; w < workloads.n; w++) {
		struct key kb = { mode, mix, workloads.items[w], baseline };
		struct cell b = summarize(&kb);

		out(sb, "| %s |", workloads.items[w]);
		for (j = 0; j < kernels->n; j++) {
			struct key kk = { mode, mix, workloads.items[w], kernels->items[j] };
			struct cell c = summarize(&kk);
			bool is_base = !strcmp(kernels->items[j], baseline);

			out(sb, " ");
			if (c.n)
				md_cell(sb, &c, rounds);
			else
				out(sb, "—");
			out(sb, " |");
			if (is_base)
				continue;
			if (c.n && b.n) {
				double r = ratio(mode, c.median, b.median);

				out(sb, " ");
				md_ratio(sb, r, mode);
				out(sb, " |");
				if (!isnan(r)) {
					logsum[j] += log(r);
					nlog[j]++;
				}
			} else {
				out(sb, " — |");
			}
		}
		out(sb, "\n");
	}
	out(sb, "| **geometric mean** |");
	for (j = 0; j < kernels->n; j++) {
		if (!strcmp(kernels->items[j], baseline)) {
			out(sb, " |");
			continue;
		}
		out(sb, " | ");
		if (nlog[j]) {
			out(sb, "**");
			md_ratio(sb, exp(logsum[j] / (double)nlog[j]), mode);
			out(sb, "**");
		} else {
			out(sb, "—");
		}
		out(sb, " |");
	}
	out(sb, "\n\n");
	free(logsum);
	free(nlog);
	kpgo_strlist_clear(&workloads);
}

/*
 * The calibration section; returns the icount median's deviation from
 * @calib_insns in % (NAN when there is nothing to compare).
 */
static double md_calibration(struct strbuf *sb, uint64_t calib_insns)
{
	double dev = NAN;
	struct key k = { .mode = "icount", .mix = "calib" };
	struct kpgo_strlist w = { 0 };
	struct cell c;

	distinct(&w, offsetof(struct row, workload), is_mode_mix, &k);
	if (w.n == 1) {
		k.workload = w.items[0];
		c = summarize(&k);
		out(sb, "### Calibration of the instruction count\n\n");
		out(sb, "`%s` (mode icount, all kernels, %zu boots): ", w.items[0], c.n);
		fmt_value(sb, c.median);
		out(sb, " guest ns per operation, median [");
		fmt_value(sb, c.min);
		out(sb, "–");
		fmt_value(sb, c.max);
		out(sb, "]");
		if (calib_insns) {
			dev = (c.median / (double)calib_insns - 1) * 100;
			out(sb,
			    ", for a loop of %" PRIu64 " instructions per operation: %+.2f%% "
			    "(the rest: the guest's timer interrupts while it runs, and the "
			    "loop's own few instructions)",
			    calib_insns, dev);
		}
		out(sb, ".\n\n");
	}
	kpgo_strlist_clear(&w);
	k.mode = "wall";
	k.workload = NULL;
	distinct(&w, offsetof(struct row, workload), is_mode_mix, &k);
	if (w.n == 1 && calib_insns) {
		k.workload = w.items[0];
		c = summarize(&k);
		out(sb,
		    "The same loop in mode wall: %.0f million guest instructions per second "
		    "(median; %.0f–%.0f), the speed of the emulated or virtualised CPU.\n\n",
		    c.median * (double)calib_insns / 1e6, c.min * (double)calib_insns / 1e6,
		    c.max * (double)calib_insns / 1e6);
	}
	kpgo_strlist_clear(&w);
	return dev;
}

static void md_builds(struct strbuf *sb, const char *path)
{
	struct strbuf in = STRBUF_INIT;
	char *line;
	size_t lineno = 0, ncols = 0;
	int r;

	r = kpgo_read_file(path, &in, 1u << 20);
	if (r)
		die("cannot read '%s': %s", path, strerror(-r));
	out(sb, "### Kernels\n\n");
	line = in.buf;
	while (*line) {
		char *nl = strchr(line, '\n'), *p;
		size_t cols = 1;

		if (!nl)
			die("'%s' line %zu: no newline at the end", path, lineno + 1);
		*nl = '\0';
		lineno++;
		for (p = line; *p; p++) {
			if (*p == '\t')
				cols++;
			else if (*p == '|' || (unsigned char)*p < ' ')
				die("'%s' line %zu: '|' or a control character", path, lineno);
		}
		if (lineno == 1)
			ncols = cols;
		else if (cols != ncols)
			die("'%s' line %zu: %zu fields, the header has %zu", path, lineno, cols,
			    ncols);
		out(sb, "| ");
		for (p = line; *p; p++)
			out(sb, *p == '\t' ? " | " : "%c", *p);
		out(sb, " |\n");
		if (lineno == 1) {
			size_t j;

			out(sb, "|");
			for (j = 0; j < ncols; j++)
				out(sb, "---|");
			out(sb, "\n");
		}
		line = nl + 1;
	}
	if (lineno < 2)
		die("'%s': no kernels", path);
	out(sb, "\n");
	strbuf_release(&in);
}

/* --- SVG ------------------------------------------------------------------ */

static const char *colors[] = { "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02" };

struct panel {
	const char *mode;
	char *mix;
	struct kpgo_strlist workloads;
};

#define BAR_W 12
#define GROUP_GAP 14
#define PLOT_H 220
#define LEFT 70
#define TOP_TITLE 34
#define LABEL_H 120
#define MIN_WIDTH 820

static void svg_panel(struct strbuf *sb, const struct panel *p, const struct kpgo_strlist *kernels,
		      size_t nother, double y0, double lo, double hi)
{
	double group_w = (double)(nother * BAR_W + GROUP_GAP);
	double top = y0 + TOP_TITLE;
	double t, step = tick_step(lo, hi);
	size_t w, j, bar;

#define Y(v) (top + (hi - (v)) / (hi - lo) * PLOT_H)
	out(sb, "<text x=\"%d\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">", LEFT, y0 + 20);
	if (!strcmp(p->mode, "icount"))
		out(sb, "Guest instructions per operation (QEMU -icount), %s mix: baseline / kernel",
		    p->mix);
	else if (cache_label(p->mode))
		out(sb, "%s, %s mix: baseline / kernel", cache_label(p->mode), p->mix);
	else
		out(sb, "Wall-clock ops/s under %s, %s mix: kernel / baseline",
		    !strcmp(accel_of(p->mode), "kvm") ? "KVM" : "TCG (emulated CPU)", p->mix);
	out(sb, "</text>\n");
	/* grid and axis labels */
	for (t = ceil(lo / step - 1e-9) * step; t <= hi + 1e-9; t += step) {
		out(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		    LEFT, Y(t), LEFT + group_w * (double)p->workloads.n, Y(t));
		out(sb,
		    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.2f</text>\n",
		    LEFT - 6, Y(t) + 4, t);
	}
	for (w = 0; w < p->workloads.n; w++) {
		struct key kb = { p->mode, p->mix, p->workloads.items[w], baseline };
		struct cell b = summarize(&kb);
		double gx = LEFT + group_w * (double)w + GROUP_GAP / 2.0;

		for (j = 0, bar = 0; j < kernels->n; j++) {
			struct key kk = { p->mode, p->mix, p->workloads.items[w],
					  kernels->items[j] };
			struct cell c;
			double r, rmin, rmax, x, ya, yb;

			if (!strcmp(kernels->items[j], baseline))
				continue;
			c = summarize(&kk);
			x = gx + (double)(bar * BAR_W);
			if (c.n && b.n && !isnan(ratio(p->mode, c.median, b.median))) {
				r = ratio(p->mode, c.median, b.median);
				rmin = ratio(p->mode, c.min, b.median);
				rmax = ratio(p->mode, c.max, b.median);
				if (isnan(rmin))
					rmin = r;
				if (isnan(rmax))
					rmax = r;
				ya = Y(r > 1 ? r : 1);
				yb = Y(r > 1 ? 1 : r);
				out(sb,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
				    "fill=\"%s\"><title>",
				    x, ya, BAR_W - 2, yb - ya < 0.5 ? 0.5 : yb - ya,
				    colors[bar % (sizeof(colors) / sizeof(colors[0]))]);
				svg_text(sb, kernels->items[j]);
				out(sb, " ");
				svg_text(sb, p->workloads.items[w]);
				out(sb, ": %.3f (range %.3f–%.3f)</title></rect>\n", r,
				    rmin < rmax ? rmin : rmax, rmin < rmax ? rmax : rmin);
				/* the kernel's range over the rounds, against the baseline's median */
				out(sb,
				    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#333\"/>\n",
				    x + (BAR_W - 2) / 2.0,
				    Y(rmin < lo ? lo :
				      rmin > hi ? hi :
						  rmin),
				    x + (BAR_W - 2) / 2.0,
				    Y(rmax < lo ? lo :
				      rmax > hi ? hi :
						  rmax));
			}
			bar++;
		}
		out(sb,
		    "<text transform=\"translate(%.1f,%.1f) rotate(-50)\" font-size=\"11\" "
		    "text-anchor=\"end\">",
		    gx + group_w / 2 - GROUP_GAP / 2.0, top + PLOT_H + 14);
		svg_text(sb, p->workloads.items[w]);
		out(sb, "</text>\n");
	}
	out(sb,
	    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
	    "stroke-width=\"1.5\"/>\n",
	    LEFT, Y(1.0), LEFT + group_w * (double)p->workloads.n, Y(1.0));
	out(sb, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>\n", LEFT, top,
	    LEFT, top + PLOT_H);
#undef Y
}

/*
 * One y scale for the panels of a mode (the wall mode under TCG scatters
 * far more than icount): the ratios and their ranges, at least 0.95-1.05,
 * rounded out to the grid step.
 */
static void scale_of(const struct panel *panels, size_t np, const char *mode,
		     const struct kpgo_strlist *kernels, double *lo, double *hi)
{
	double step;
	size_t i, j, m;

	*lo = 0.95;
	*hi = 1.05;
	for (i = 0; i < np; i++) {
		if (strcmp(panels[i].mode, mode))
			continue;
		for (j = 0; j < panels[i].workloads.n; j++) {
			struct key kb = { mode, panels[i].mix, panels[i].workloads.items[j],
					  baseline };
			struct cell b = summarize(&kb);

			for (m = 0; m < kernels->n && b.n; m++) {
				struct key kk = { mode, panels[i].mix, panels[i].workloads.items[j],
						  kernels->items[m] };
				struct cell c = summarize(&kk);
				double v[2];
				size_t q;

				if (!c.n)
					continue;
				v[0] = ratio(mode, c.min, b.median);
				v[1] = ratio(mode, c.max, b.median);
				for (q = 0; q < 2; q++) {
					*lo = v[q] < *lo ? v[q] : *lo;
					*hi = v[q] > *hi ? v[q] : *hi;
				}
			}
		}
	}
	step = tick_step(*lo, *hi);
	*lo = floor(*lo / step - 1e-9) * step;
	*hi = ceil(*hi / step + 1e-9) * step;
	if (*lo < 0)
		*lo = 0;
}

static void write_svg(const char *path, struct panel *panels, size_t np,
		      const struct kpgo_strlist *kernels)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nother = kernels->n - 1, i, j, maxw = 0;
	double width, height, lo, hi;

	for (i = 0; i < np; i++)
		if (panels[i].workloads.n > maxw)
			maxw = panels[i].workloads.n;
	width = LEFT + (double)maxw * (double)(nother * BAR_W + GROUP_GAP) + 160;
	if (width < MIN_WIDTH)
		width = MIN_WIDTH;
	height = (double)np * (TOP_TITLE + PLOT_H + LABEL_H) + 10;
	out(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	out(&sb,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
	    width, height, width, height);
	out(&sb, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	for (i = 0; i < np; i++) {
		scale_of(panels, np, panels[i].mode, kernels, &lo, &hi);
		svg_panel(&sb, &panels[i], kernels, nother,
			  (double)i * (TOP_TITLE + PLOT_H + LABEL_H), lo, hi);
	}
	/* legend, top right */
	for (j = 0, i = 0; j < kernels->n; j++) {
		double y = 40 + 18 * (double)i;

		if (!strcmp(kernels->items[j], baseline))
			continue;
		out(&sb, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
		    width - 140, y, colors[i % (sizeof(colors) / sizeof(colors[0]))]);
		out(&sb, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"12\">", width - 122, y + 10);
		svg_text(&sb, kernels->items[j]);
		out(&sb, "</text>\n");
		i++;
	}
	out(&sb, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">", width - 140, 44 + 18 * (double)i);
	svg_text(&sb, baseline);
	out(&sb, " = 1.0</text>\n");
	out(&sb, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">above 1: better</text>\n",
	    width - 140, 60 + 18 * (double)i);
	out(&sb, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">line: min–max</text>\n", width - 140,
	    76 + 18 * (double)i);
	out(&sb, "</svg>\n");
	write_out(path, &sb);
	strbuf_release(&sb);
}

/* --- medians -------------------------------------------------------------- */

/*
 * Every cell's median, minimum and maximum, as data for another tool (the
 * decay benchmark's decay-report): a header line, then
 * mode mix workload kernel n median min max, tab-separated.
 */
static void write_medians(const char *path, const struct kpgo_strlist *kernels)
{
	struct kpgo_strlist modes = { 0 }, mixes = { 0 }, workloads = { 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, w, k;

	out(&sb, "mode\tmix\tworkload\tkernel\tn\tmedian\tmin\tmax\n");
	distinct(&modes, offsetof(struct row, mode), NULL, NULL);
	for (i = 0; i < modes.n; i++) {
		struct key key = { .mode = modes.items[i] };

		kpgo_strlist_clear(&mixes);
		distinct(&mixes, offsetof(struct row, mix), match_key, &key);
		for (j = 0; j < mixes.n; j++) {
			key.mix = mixes.items[j];
			kpgo_strlist_clear(&workloads);
			distinct(&workloads, offsetof(struct row, workload), match_key, &key);
			for (w = 0; w < workloads.n; w++) {
				key.workload = workloads.items[w];
				for (k = 0; k < kernels->n; k++) {
					struct cell c;

					key.kernel = kernels->items[k];
					c = summarize(&key);
					if (c.n)
						out(&sb, "%s\t%s\t%s\t%s\t%zu\t%.6g\t%.6g\t%.6g\n",
						    key.mode, key.mix, key.workload, key.kernel,
						    c.n, c.median, c.min, c.max);
				}
				key.kernel = NULL;
			}
			key.workload = NULL;
		}
	}
	write_out(path, &sb);
	strbuf_release(&sb);
	kpgo_strlist_clear(&modes);
	kpgo_strlist_clear(&mixes);
	kpgo_strlist_clear(&workloads);
}

/* --- main ----------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: bench-report [--baseline NAME] [--calib-insns N [--calib-max-error PCT]]\n"
	      "                    [--builds FILE] [--header TEXT]... [-o REPORT.md]\n"
	      "                    [--svg RATIOS.svg] [--medians MEDIANS.tsv] RESULTS.tsv\n",
	      f);
}

static bool is_not_calib(const struct row *r, const void *arg)
{
	(void)arg;
	return strcmp(r->mix, "calib") != 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "calib-insns", required_argument, NULL, 'c' },
		{ "calib-max-error", required_argument, NULL, 'C' },
		{ "builds", required_argument, NULL, 'B' },
		{ "header", required_argument, NULL, 'H' },
		{ "svg", required_argument, NULL, 's' },
		{ "medians", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_strlist headers = { 0 }, kernels = { 0 }, modes = { 0 }, mixes = { 0 };
	const char *output = NULL, *svg = NULL, *builds = NULL, *medians = NULL;
	struct strbuf md = STRBUF_INIT;
	struct panel *panels = NULL;
	uint64_t calib_insns = 0, calib_max = 0;
	double dev;
	size_t i, j, np = 0;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': baseline = optarg; break;
		case 'c':
			if (kpgo_parse_u64(optarg, &calib_insns) || !calib_insns) {
				fprintf(stderr, "bench-report: bad --calib-insns '%s'\n", optarg);
				return 2;
			}
			break;
		case 'C':
			if (kpgo_parse_u64(optarg, &calib_max) || calib_max > 100) {
				fprintf(stderr, "bench-report: bad --calib-max-error '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'B': builds = optarg; break;
		case 'H':
			if (kpgo_strlist_add(&headers, optarg))
				die("out of memory");
			break;
		case 'o': output = optarg; break;
		case 's': svg = optarg; break;
		case 'M': medians = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	read_results(argv[optind]);

	distinct(&kernels, offsetof(struct row, kernel), is_not_calib, NULL);
	for (i = 0; i < kernels.n && strcmp(kernels.items[i], baseline); i++)
		;
	if (i == kernels.n)
		die("'%s' has no results of the baseline kernel '%s'", input_name, baseline);
	/* baseline first, the others as they came */
	for (; i > 0; i--) {
		char *t = kernels.items[i];

		kernels.items[i] = kernels.items[i - 1];
		kernels.items[i - 1] = t;
	}
	if (kernels.n < 2)
		die("'%s' has results of the baseline kernel only", input_name);
	distinct(&modes, offsetof(struct row, mode), NULL, NULL);

	out(&md, "## Kernel benchmark results\n\n");
	for (i = 0; i < headers.n; i++)
		out(&md, "- %s\n", headers.items[i]);
	if (headers.n)
		out(&md, "\n");
	if (builds)
		md_builds(&md, builds);
	dev = md_calibration(&md, calib_insns);
	for (i = 0; i < modes.n; i++) {
		struct key k = { .mode = modes.items[i] };
		size_t rounds = rounds_of(modes.items[i]);

		kpgo_strlist_clear(&mixes);
		distinct(&mixes, offsetof(struct row, mix), is_mode_mix, &k);
		for (j = 0; j < mixes.n; j++) {
			if (!strcmp(mixes.items[j], "calib"))
				continue;
			out(&md, "### %s, %s mix\n\n",
			    cache_label(modes.items[i]) ? cache_label(modes.items[i]) :
			    !strcmp(modes.items[i], "icount") ?
							  "Instructions per operation (icount)" :
							  "Wall-clock throughput (wall)",
			    mixes.items[j]);
			md_mode_intro(&md, modes.items[i], rounds);
			md_table(&md, modes.items[i], mixes.items[j], &kernels, rounds);
			/* the plot: of the cache model, the modelled cycles alone */
			if (cache_label(modes.items[i]) && strcmp(modes.items[i], "cache-cycles"))
				continue; /* ctxsw too */
			panels = xrealloc(panels, (np + 1) * sizeof(*panels));
			memset(&panels[np], 0, sizeof(panels[np]));
			panels[np].mode = modes.items[i];
			panels[np].mix = xstrdup(mixes.items[j]);
			k.mix = mixes.items[j];
			distinct(&panels[np].workloads, offsetof(struct row, workload), is_mode_mix,
				 &k);
			np++;
		}
	}
	if (!np)
		die("'%s' has calibration results only", input_name);
	if (svg)
		write_svg(svg, panels, np, &kernels);
	if (medians)
		write_medians(medians, &kernels);
	write_out(output, &md);
	for (i = 0; i < np; i++) {
		free(panels[i].mix);
		kpgo_strlist_clear(&panels[i].workloads);
	}
	free(panels);
	strbuf_release(&md);
	kpgo_strlist_clear(&headers);
	kpgo_strlist_clear(&kernels);
	kpgo_strlist_clear(&mixes);
	free_rows();
	kpgo_strlist_clear(&modes);
	if (calib_max && !isnan(dev) && fabs(dev) > (double)calib_max)
		die("the calibration loop measured %+.2f%% against its %" PRIu64
		    " instructions (more than %" PRIu64 "%%): icount's ns are not instructions here",
		    dev, calib_insns, calib_max);
	return 0;
}
