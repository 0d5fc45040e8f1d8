// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A profile's report as one HTML page: inline CSS and SVG, no script, XHTML
 * syntax so that it is well-formed XML too. Everything that comes from a
 * profile, a .gcno or a pgo-report is escaped here, byte by byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html-report.h"

/* Bars of the subsystem chart; the rest become one "other" bar. */
#define CHART_BARS 15

int kpgo_html_escape(struct strbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	int r = 0;

	while (i < len && !r) {
		unsigned char c = p[i];

		switch (c) {
		case '&': r = strbuf_addstr(out, "&amp;"); break;
		case '<': r = strbuf_addstr(out, "&lt;"); break;
		case '>': r = strbuf_addstr(out, "&gt;"); break;
		case '"': r = strbuf_addstr(out, "&quot;"); break;
		case '\'': r = strbuf_addstr(out, "&#39;"); break;
		case '\n':
		case '\t': r = strbuf_addch(out, (char)c); break;
		default:
			if (c >= 0x20 && c < 0x7f) {
				r = strbuf_addch(out, (char)c);
			} else if (c >= 0x80 && (n = kpgo_utf8_len(p + i, len - i))) {
				r = strbuf_add(out, p + i, n);
				i += n;
				continue;
			} else {
				r = strbuf_addf(out, "\\x%02x", c);
			}
		}
		i++;
	}
	return r;
}

static int esc(struct strbuf *out, const char *s)
{
	return kpgo_html_escape(out, s, strlen(s));
}

/* @v with its digits in groups of three, narrow no-break spaces between. */
static const char *num(uint64_t v, char buf[40])
{
	char digits[24];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0) {
			memcpy(buf + o, "\xe2\x80\xaf", 3);
			o += 3;
		}
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0.0;
}

static const char style[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232a;"
	"background:#f5f6f8}"
	"main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}"
	"h1{font-size:26px;margin:8px 0 2px}h2{font-size:19px;margin:34px 0 10px;"
	"border-bottom:2px solid #d8dde3;padding-bottom:4px}"
	".sub{color:#5a6570;margin:0 0 18px}"
	".cards{display:flex;flex-wrap:wrap;gap:12px}"
	".card{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:10px 14px;"
	"min-width:150px;flex:1}"
	".card b{display:block;font-size:22px}.card span{color:#5a6570;font-size:13px}"
	"table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}"
	"th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e6e9ed;vertical-align:top}"
	"th{background:#eef1f4}td.n{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}"
	"code{font:13px ui-monospace,'DejaVu Sans Mono',monospace;word-break:break-all}"
	".bar{height:10px;background:#3b7dd8;border-radius:2px;min-width:1px}"
	".barcell{width:140px}"
	".ok{color:#17753a;font-weight:bold}.bad{color:#b3261e;font-weight:bold}"
	".note{color:#5a6570;font-size:13px}"
	"pre{background:#fff;border:1px solid #d8dde3;padding:8px;overflow-x:auto;font-size:12px}"
	"details{margin:6px 0}summary{cursor:pointer}";

static int head(const struct kpgo_pstat *ps, const struct kpgo_html_input *in, struct strbuf *out)
{
	const char *rel = kpgo_manifest_get(&ps->manifest, MF_RELEASE);
	const char *wl = kpgo_manifest_get(&ps->manifest, MF_WORKLOAD);
	const char *merged = kpgo_manifest_get(&ps->manifest, MF_MERGED);
	const char *end = kpgo_manifest_get(&ps->manifest, MF_WINDOW_END);
	int r = 0;

	r |= strbuf_addstr(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
				"lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
				"<meta name=\"generator\" content=\"");
	r |= esc(out, in->generator);
	r |= strbuf_addstr(out, "\"/>\n<title>kpgo profile report: ");
	r |= esc(out, rel ? rel : in->file);
	r |= strbuf_addf(out,
			 "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n"
			 "<h1>Kernel profile <code>",
			 style);
	r |= esc(out, rel ? rel : "(no release)");
	r |= strbuf_addstr(out, "</code></h1>\n<p class=\"sub\">");
	r |= esc(out, in->file);
	if (wl) {
		r |= strbuf_addstr(out, " · workload <b>");
		r |= esc(out, wl);
		r |= strbuf_addstr(out, "</b>");
	}
	if (merged && !strcmp(merged, "1")) {
		r |= strbuf_addstr(out, " · one collection");
	} else if (merged) {
		r |= strbuf_addstr(out, " · ");
		r |= esc(out, merged);
		r |= strbuf_addstr(out, " collections merged");
	}
	if (end) {
		r |= strbuf_addstr(out, " · collected until ");
		r |= esc(out, end);
	}
	r |= strbuf_addstr(out, "<br/>sha256 <code>");
	r |= esc(out, in->sha256);
	r |= strbuf_addstr(out, "</code> · made by ");
	r |= esc(out, in->generator);
	r |= strbuf_addstr(out, "</p>\n");
	return r;
}

static int card(struct strbuf *out, const char *id, const char *big, const char *small)
{
	int r = strbuf_addf(out, "<div class=\"card\" id=\"%s\"><b>", id);

	r |= esc(out, big);
	r |= strbuf_addstr(out, "</b><span>");
	r |= esc(out, small);
	return r | strbuf_addstr(out, "</span></div>\n");
}

/* How many of the hottest functions hold @frac of all counts. */
static size_t fns_for_share(const struct kpgo_pstat *ps, const size_t *idx, size_t n, double frac)
{
	double want = frac * (double)ps->sum, have = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		have += (double)ps->fns[idx[i]].count;
		if (have >= want)
			return i + 1;
	}
	return n;
}

static int summary(const struct kpgo_pstat *ps, const struct kpgo_html_input *in, struct strbuf *out)
{
	char big[64], small[160], nb[40], nb2[40];
	size_t *idx = NULL;
	ssize_t n;
	int r = 0;

	n = kpgo_pstat_hottest_fns(ps, 0, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addstr(out, "<h2 id=\"summary\">Summary</h2>\n<div class=\"cards\">\n");
	snprintf(big, sizeof(big), "%s", num(ps->sum, nb));
	snprintf(small, sizeof(small), "arc counts in %s objects, %s functions",
		 num(ps->n_objs, nb), num(ps->n_fns, nb2));
	r |= card(out, "sum", big, small);
	snprintf(big, sizeof(big), "%.1f%%", pct((double)ps->fns_run, (double)ps->n_fns));
	snprintf(small, sizeof(small), "of the functions ran (%s of %s)", num(ps->fns_run, nb),
		 num(ps->n_fns, nb2));
	r |= card(out, "cov-fns", big, small);
	snprintf(big, sizeof(big), "%.1f%%", pct((double)ps->objs_run, (double)ps->n_objs));
	snprintf(small, sizeof(small), "of the objects ran (%s of %s)", num(ps->objs_run, nb),
		 num(ps->n_objs, nb2));
	r |= card(out, "cov-objs", big, small);
	snprintf(big, sizeof(big), "%zu", fns_for_share(ps, idx, (size_t)n, 0.5));
	snprintf(small, sizeof(small), "functions hold half of all counts; %s hold 90%%",
		 num(fns_for_share(ps, idx, (size_t)n, 0.9), nb));
	r |= card(out, "concentration", big, small);
	if (ps->named) {
		snprintf(big, sizeof(big), "%.1f%%",
			 100.0 * kpgo_pstat_share(ps, ps->names.count_named));
		snprintf(small, sizeof(small),
			 "of counts in named functions (%zu of %zu .gcno read)",
			 ps->names.objects_gcno, ps->n_objs);
		r |= card(out, "named", big, small);
	}
	r |= strbuf_addstr(out, "</div>\n");
	if (!ps->named)
		r |= strbuf_addstr(out,
				   "<p class=\"note\">Functions are not named: the report was made "
				   "without the instrumented build's .gcno files (kpgo info --objtree).</p>\n");
	else if (in->objtree) {
		r |= strbuf_addstr(out, "<p class=\"note\">Names from <code>");
		r |= esc(out, in->objtree);
		r |= strbuf_addf(out,
				 "</code>: %zu functions named exactly, %zu whose source changed since "
				 "(name kept), %zu not named.</p>\n",
				 ps->names.fns_exact, ps->names.fns_changed, ps->names.fns_none);
	}
	free(idx);
	return r;
}

static const char *const palette[] = { "#3b7dd8", "#e8833a", "#3aa55d", "#c94f7c",
				       "#8a63d2", "#2aa1b3", "#c7a22a", "#6d7f8f" };

/* Horizontal bars, one per subsystem, the rest as one. */
static int chart(const struct kpgo_pstat *ps, struct strbuf *out)
{
	const int label_w = 230, bar_w = 600, row_h = 26, top = 8;
	size_t *idx = NULL, bars, i;
	uint64_t rest = 0;
	double max_share;
	ssize_t n;
	int r = 0, h;

	n = kpgo_pstat_hottest_groups(ps, 0, &idx);
	if (n < 0)
		return -ENOMEM;
	bars = (size_t)n > CHART_BARS ? CHART_BARS : (size_t)n;
	for (i = bars; i < (size_t)n; i++)
		rest = kpgo_sat_add(rest, ps->groups[idx[i]].count);
	max_share = n ? kpgo_pstat_share(ps, ps->groups[idx[0]].count) : 0;
	if (kpgo_pstat_share(ps, rest) > max_share)
		max_share = kpgo_pstat_share(ps, rest);
	h = top * 2 + row_h * (int)(bars + (rest ? 1 : 0));
	r |= strbuf_addf(out,
			 "<h2 id=\"subsystems\">Where the counts are: subsystems</h2>\n"
			 "<p class=\"note\">Share of all arc counts by the objects' first %u directory "
			 "levels.</p>\n"
			 "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"subsystem-chart\" width=\"%d\" "
			 "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
			 "font-family=\"system-ui,sans-serif\" font-size=\"13\">\n"
			 "<title>subsystem shares</title>\n",
			 ps->depth, label_w + bar_w + 80, h, label_w + bar_w + 80, h);
	for (i = 0; i < bars + (rest ? 1 : 0); i++) {
		bool other = i == bars;
		uint64_t count = other ? rest : ps->groups[idx[i]].count;
		double share = kpgo_pstat_share(ps, count);
		int y = top + row_h * (int)i;
		double w = max_share > 0 ? bar_w * share / max_share : 0;

		r |= strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
				 y + 17);
		if (other)
			r |= strbuf_addf(out, "other (%zu)", (size_t)n - bars);
		else
			r |= esc(out, ps->groups[idx[i]].dir);
		r |= strbuf_addf(out,
				 "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				 "fill=\"%s\" rx=\"2\"/>\n<text x=\"%.1f\" y=\"%d\">%.1f%%</text>\n",
				 label_w, y + 4, w < 1 ? 1 : w, row_h - 8,
				 other ? "#9aa5b1" :
					 palette[i % (sizeof(palette) / sizeof(*palette))],
				 label_w + (w < 1 ? 1 : w) + 6, y + 17, 100.0 * share);
	}
	r |= strbuf_addstr(out, "</svg>\n");
	free(idx);
	return r;
}

static int bar_cell(struct strbuf *out, double share, double max_share)
{
	return strbuf_addf(out,
			   "<td class=\"barcell\"><div class=\"bar\" style=\"width:%.1f%%\"></div></td>",
			   max_share > 0 ? 100.0 * share / max_share : 0);
}

static int functions(const struct kpgo_pstat *ps, size_t top, struct strbuf *out)
{
	char nb[40];
	size_t *idx = NULL;
	double max_share;
	ssize_t n, i;
	int r = 0;

	n = kpgo_pstat_hottest_fns(ps, top, &idx);
	if (n < 0)
		return -ENOMEM;
	max_share = n ? kpgo_pstat_share(ps, ps->fns[idx[0]].count) : 0;
	r |= strbuf_addf(out,
			 "<h2 id=\"functions\">Hottest functions</h2>\n"
			 "<table id=\"hottest-functions\">\n<tr><th>#</th><th>share</th><th></th>"
			 "<th>count</th><th>function</th><th>source</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct kpgo_pstat_fn *f = &ps->fns[idx[i]];
		double share = kpgo_pstat_share(ps, f->count);

		r |= strbuf_addf(out, "<tr><td class=\"n\">%zd</td><td class=\"n\">%.2f%%</td>",
				 i + 1, 100.0 * share);
		r |= bar_cell(out, share, max_share);
		r |= strbuf_addf(out, "<td class=\"n\">%s</td><td><code class=\"fn\">",
				 num(f->count, nb));
		if (f->name) {
			r |= esc(out, f->name);
			r |= strbuf_addstr(out, "</code>");
			if (f->state == KPGO_NAME_CHANGED)
				r |= strbuf_addstr(out,
						   " <span class=\"note\">(changed since)</span>");
			r |= strbuf_addstr(out, "</td><td><code>");
			r |= esc(out, f->file);
			r |= strbuf_addf(out, ":%" PRIu32 "</code>", f->line);
			if (f->elsewhere) {
				r |= strbuf_addstr(out, " <span class=\"note\">in ");
				r |= kpgo_html_escape(out, ps->objs[f->obj].path,
						      strlen(ps->objs[f->obj].path) - 5);
				r |= strbuf_addstr(out, ".o</span>");
			}
			r |= strbuf_addstr(out, "</td></tr>\n");
		} else {
			r |= strbuf_addf(out, "ident %" PRIu32 "</code></td><td><code>", f->ident);
			r |= esc(out, ps->objs[f->obj].path);
			r |= strbuf_addstr(out, "</code></td></tr>\n");
		}
	}
	r |= strbuf_addstr(out, "</table>\n");
	free(idx);
	return r;
}

static int objects(const struct kpgo_pstat *ps, size_t top, struct strbuf *out)
{
	char nb[40];
	size_t *idx = NULL;
	double max_share;
	ssize_t n, i;
	int r = 0;

	n = kpgo_pstat_hottest_objs(ps, top, &idx);
	if (n < 0)
		return -ENOMEM;
	max_share = n ? kpgo_pstat_share(ps, ps->objs[idx[0]].count) : 0;
	r |= strbuf_addstr(out,
			   "<h2 id=\"objects\">Hottest objects</h2>\n<table id=\"hottest-objects\">\n"
			   "<tr><th>#</th><th>share</th><th></th><th>count</th>"
			   "<th>functions run</th><th>object</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct kpgo_pstat_obj *o = &ps->objs[idx[i]];
		double share = kpgo_pstat_share(ps, o->count);

		r |= strbuf_addf(out, "<tr><td class=\"n\">%zd</td><td class=\"n\">%.2f%%</td>",
				 i + 1, 100.0 * share);
		r |= bar_cell(out, share, max_share);
		r |= strbuf_addf(out,
				 "<td class=\"n\">%s</td><td class=\"n\">%zu of %zu</td>"
				 "<td><code>",
				 num(o->count, nb), o->n_run, o->n_fns);
		r |= esc(out, o->path);
		r |= strbuf_addstr(out, "</code></td></tr>\n");
	}
	r |= strbuf_addstr(out, "</table>\n");
	free(idx);
	return r;
}

static int group_row(const struct kpgo_pstat *ps, const struct kpgo_pstat_group *g,
		     struct strbuf *out)
{
	char nb[40];
	int r = strbuf_addstr(out, "<tr><td><code>");

	r |= esc(out, g->dir);
	r |= strbuf_addf(out,
			 "</code></td><td class=\"n\">%.2f%%</td><td class=\"n\">%s"
			 "</td><td class=\"n\">%zu of %zu</td><td class=\"n\">%zu of %zu</td>",
			 100.0 * kpgo_pstat_share(ps, g->count), num(g->count, nb), g->n_objs_run,
			 g->n_objs, g->n_fns_run, g->n_fns);
	r |= bar_cell(out, pct((double)g->n_fns_run, (double)g->n_fns) / 100.0, 1.0);
	return r | strbuf_addstr(out, "</tr>\n");
}

static const char group_head[] = "<tr><th>subsystem</th><th>share</th><th>count</th>"
				 "<th>objects run</th><th>functions run</th><th></th></tr>\n";

/*
 * Every subsystem, hottest first, then those without counts by name: the
 * first @top (at least CHART_BARS) in a table, the rest in a folded one.
 */
static int coverage(const struct kpgo_pstat *ps, size_t top, struct strbuf *out)
{
	size_t *idx = NULL, i, shown = 0;
	ssize_t n;
	int r = 0;

	if (top < CHART_BARS)
		top = CHART_BARS;
	n = kpgo_pstat_hottest_groups(ps, 0, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out,
			 "<h2 id=\"coverage\">Subsystems and coverage</h2>\n"
			 "<table id=\"subsystem-table\">\n%s",
			 group_head);
	for (i = 0; i < ps->n_groups + (size_t)n; i++) {
		const struct kpgo_pstat_group *g;

		if (i < (size_t)n)
			g = &ps->groups[idx[i]];
		else if (!ps->groups[i - (size_t)n].count)
			g = &ps->groups[i - (size_t)n];
		else
			continue;
		if (shown++ == top)
			r |= strbuf_addf(out,
					 "</table>\n<details><summary>%zu more subsystems</summary>\n"
					 "<table id=\"subsystem-table-rest\">\n%s",
					 ps->n_groups - top, group_head);
		r |= group_row(ps, g, out);
	}
	r |= strbuf_addstr(out, shown > top ? "</table>\n</details>\n" : "</table>\n");
	r |= strbuf_addstr(out,
			   "<p class=\"note\">The bar: the subsystem's functions that ran.</p>\n");
	free(idx);
	return r;
}

static int manifest(const struct kpgo_pstat *ps, struct strbuf *out)
{
	size_t i;
	int r = 0;

	r |= strbuf_addstr(out,
			   "<h2 id=\"manifest\">Manifest</h2>\n<table id=\"manifest-table\">\n");
	for (i = 0; i < ps->manifest.n; i++) {
		r |= strbuf_addstr(out, "<tr><th>");
		r |= esc(out, ps->manifest.e[i].key);
		r |= strbuf_addstr(out, "</th><td><code>");
		r |= esc(out, ps->manifest.e[i].value);
		r |= strbuf_addstr(out, "</code></td></tr>\n");
	}
	return r | strbuf_addstr(out, "</table>\n");
}

int kpgo_html_report(const struct kpgo_pstat *ps, const struct kpgo_html_input *in,
		     struct strbuf *out)
{
	int r = 0;

	r |= head(ps, in, out);
	r |= summary(ps, in, out);
	r |= chart(ps, out);
	r |= functions(ps, in->top, out);
	r |= objects(ps, in->top, out);
	r |= coverage(ps, in->top, out);
	if (in->pgo_report)
		r |= kpgo_html_pgo_report(in, out);
	r |= manifest(ps, out);
	r |= strbuf_addstr(out, "</main>\n</body>\n</html>\n");
	return r ? -ENOMEM : 0;
}
