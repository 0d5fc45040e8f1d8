// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A profile's statistics (profstat.h), the difference of two (profdiff.h)
 * and the HTML escaper (html-report.h), on profiles built here function by
 * function so that every number can be worked out by hand.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html-report.h"
#include "profdiff.h"
#include "profstat.h"
#include "tap.h"

struct fn_def {
	uint32_t ident;
	uint64_t count; /* spread over two counters */
};

/* One object @path with functions @f[0..n) into @ps. */
static void add(struct kpgo_pstat *ps, const char *path, const struct fn_def *f, size_t n)
{
	struct kpgo_gcda g;
	size_t i;

	kpgo_gcda_init(&g);
	g.fns = calloc(n + 1, sizeof(*g.fns));
	g.ctrs = calloc(2 * n + 1, sizeof(*g.ctrs));
	if (!g.fns || !g.ctrs)
		bail_out("out of memory");
	for (i = 0; i < n; i++) {
		g.fns[i].ident = f[i].ident;
		g.fns[i].lineno_checksum = f[i].ident * 3;
		g.fns[i].cfg_checksum = f[i].ident * 5;
		g.fns[i].n_arcs = 2;
		g.fns[i].arcs = 2 * i;
		g.ctrs[2 * i] = f[i].count / 2;
		g.ctrs[2 * i + 1] = f[i].count - f[i].count / 2;
	}
	g.n_fns = n;
	g.n_ctrs = 2 * n;
	if (kpgo_pstat_add(ps, path, &g))
		bail_out("kpgo_pstat_add failed");
	kpgo_gcda_release(&g);
}

static void finish(struct kpgo_pstat *ps)
{
	struct kpgo_manifest m;

	kpgo_manifest_init(&m);
	if (kpgo_manifest_set(&m, MF_WORKLOAD, "unit") || kpgo_pstat_finish(ps, &m))
		bail_out("kpgo_pstat_finish failed");
	kpgo_manifest_release(&m);
}

/*
 * A: fs/read_write (10: 600, 11: 200), fs/ext4/inode (20: 100),
 *    net/ipv4/tcp (30: 100, 31: 0), main (40: 0): sum 1000.
 */
static void profile_a(struct kpgo_pstat *ps, unsigned depth)
{
	static const struct fn_def rw[] = { { 10, 600 }, { 11, 200 } };
	static const struct fn_def ext4[] = { { 20, 100 } };
	static const struct fn_def tcp[] = { { 30, 100 }, { 31, 0 } };
	static const struct fn_def top[] = { { 40, 0 } };

	kpgo_pstat_init(ps);
	if (kpgo_pstat_begin(ps, depth))
		bail_out("kpgo_pstat_begin failed");
	add(ps, "fs/ext4/inode.gcda", ext4, 1);
	add(ps, "fs/read_write.gcda", rw, 2);
	add(ps, "main.gcda", top, 1);
	add(ps, "net/ipv4/tcp.gcda", tcp, 2);
	finish(ps);
}

/*
 * B: fs/read_write (10: 100, 11: 100), net/ipv4/tcp (30: 600, 31: 200),
 *    net/core/dev (50: 0), main (40: 0): sum 1000; no fs/ext4.
 */
static void profile_b(struct kpgo_pstat *ps)
{
	static const struct fn_def rw[] = { { 10, 100 }, { 11, 100 } };
	static const struct fn_def tcp[] = { { 30, 600 }, { 31, 200 } };
	static const struct fn_def dev[] = { { 50, 0 } };
	static const struct fn_def top[] = { { 40, 0 } };

	kpgo_pstat_init(ps);
	if (kpgo_pstat_begin(ps, 2))
		bail_out("kpgo_pstat_begin failed");
	add(ps, "fs/read_write.gcda", rw, 2);
	add(ps, "main.gcda", top, 1);
	add(ps, "net/core/dev.gcda", dev, 1);
	add(ps, "net/ipv4/tcp.gcda", tcp, 2);
	finish(ps);
}

static const struct kpgo_pstat_group *group(const struct kpgo_pstat *ps, const char *dir)
{
	size_t i;

	for (i = 0; i < ps->n_groups; i++)
		if (!strcmp(ps->groups[i].dir, dir))
			return &ps->groups[i];
	return NULL;
}

static bool near(double a, double b)
{
	return a - b < 1e-12 && b - a < 1e-12;
}

static void test_stats(void)
{
	const struct kpgo_pstat_group *g;
	struct kpgo_pstat ps;
	size_t *idx;
	ssize_t n;

	profile_a(&ps, 2);
	ok(ps.sum == 1000 && ps.n_objs == 4 && ps.n_fns == 6 && ps.counters == 12 && ps.max == 300,
	   "totals: sum 1000, 4 objects, 6 functions, 12 counters, largest 300");
	ok(ps.objs_run == 3 && ps.fns_run == 4, "coverage: 3 objects and 4 functions ran");
	is_int(ps.n_groups, 4, "four subsystems at depth 2");
	g = group(&ps, "fs");
	ok(g && g->count == 800 && g->n_objs == 1 && g->n_fns == 2 && g->n_fns_run == 2,
	   "fs: read_write's 800 (fs/ext4 is its own at depth 2)");
	g = group(&ps, "fs/ext4");
	ok(g && g->count == 100, "fs/ext4: 100");
	g = group(&ps, "net/ipv4");
	ok(g && g->count == 100 && g->n_fns == 2 && g->n_fns_run == 1, "net/ipv4: 100, 1 of 2 ran");
	g = group(&ps, ".");
	ok(g && g->count == 0 && g->n_objs == 1 && g->n_objs_run == 0, "the top: main, no counts");
	ok(near(kpgo_pstat_share(&ps, 600), 0.6), "share of 600 is 0.6");

	n = kpgo_pstat_hottest_fns(&ps, 0, &idx);
	ok(n == 4 && ps.fns[idx[0]].ident == 10 && ps.fns[idx[1]].ident == 11 &&
		   ps.fns[idx[2]].ident == 20 && ps.fns[idx[3]].ident == 30,
	   "hottest functions: 10, 11, then the tie of 20 and 30 by object path");
	free(idx);
	n = kpgo_pstat_hottest_fns(&ps, 2, &idx);
	ok(n == 2 && ps.fns[idx[1]].ident == 11, "--top 2 keeps two");
	free(idx);
	n = kpgo_pstat_hottest_groups(&ps, 0, &idx);
	ok(n == 3 && !strcmp(ps.groups[idx[0]].dir, "fs") &&
		   !strcmp(ps.groups[idx[1]].dir, "fs/ext4"),
	   "hottest subsystems: fs, then fs/ext4 and net/ipv4; none without counts");
	free(idx);
	kpgo_pstat_release(&ps);

	profile_a(&ps, 1);
	g = group(&ps, "fs");
	ok(ps.n_groups == 3 && g && g->count == 900 && g->n_objs == 2, "depth 1: fs holds fs/ext4");
	kpgo_pstat_release(&ps);

	kpgo_pstat_init(&ps);
	is_int(kpgo_pstat_begin(&ps, 0), -EINVAL, "depth 0 refused");
	is_int(kpgo_pstat_begin(&ps, KPGO_PSTAT_DEPTH_MAX + 1), -EINVAL, "depth 17 refused");
	kpgo_pstat_release(&ps);
}

static void test_diff(void)
{
	struct kpgo_pstat a, b, a2;
	struct kpgo_pdiff d;
	size_t *idx;
	ssize_t n;
	double sim;

	profile_a(&a, 2);
	profile_b(&b);
	is_int(kpgo_pdiff_compute(&d, &a, &b), 0, "diff computed");
	/* min(.6,.1) + min(.2,.1) + min(.1,0) + min(.1,.6) + 0 + ... = .1 + .1 + .1 */
	ok(near(d.similarity, 0.3), "similarity: 0.1 + 0.1 + 0 + 0.1 = 0.3 (got %f)", d.similarity);
	/* fs .8/.2, fs/ext4 .1/0, net/ipv4 .1/.8, net/core 0/0, . 0/0 */
	ok(near(d.subsystem_similarity, 0.3), "subsystem similarity: 0.2 + 0 + 0.1 = 0.3");
	ok(d.fns_both == 5 && d.fns_only_a == 1 && d.fns_only_b == 1 && d.fns_changed == 0,
	   "functions: 5 in both, ext4's only in a, dev's only in b");
	ok(d.run_both == 3 && d.run_only_a == 1 && d.run_only_b == 1,
	   "run: 10, 11, 30 in both; 20 in a only; 31 in b only");
	ok(near(d.share_run_only_a, 0.1) && near(d.share_run_only_b, 0.2),
	   "shares of what ran in one only: 0.1 of a, 0.2 of b");
	ok(d.objs_both == 3 && d.objs_only_a == 1 && d.objs_only_b == 1, "objects: 3, 1, 1");

	n = kpgo_pdiff_movers(&d, true, 0, &idx);
	ok(n == 2 && d.fns[idx[0]].b->ident == 30 && d.fns[idx[1]].b->ident == 31,
	   "gained: 30 (+0.5), then 31 (+0.2)");
	free(idx);
	n = kpgo_pdiff_movers(&d, false, 0, &idx);
	ok(n == 3 && d.fns[idx[0]].a->ident == 10 && d.fns[idx[1]].a->ident == 20 &&
		   d.fns[idx[2]].a->ident == 11,
	   "lost: 10 (-0.5), then the tie of 20 and 11 (-0.1) in object order");
	free(idx);
	n = kpgo_pdiff_run_only(&d, false, 0, &idx);
	ok(n == 1 && d.fns[idx[0]].b->ident == 31 && !d.fns[idx[0]].a->count, "ran in b only: 31");
	free(idx);
	n = kpgo_pdiff_group_movers(&d, 0, &idx);
	ok(n == 3 && !strcmp(d.groups[idx[0]].dir, "net/ipv4") &&
		   !strcmp(d.groups[idx[1]].dir, "fs") && !strcmp(d.groups[idx[2]].dir, "fs/ext4"),
	   "subsystems by change: net/ipv4 +0.7, fs -0.6, fs/ext4 -0.1");
	free(idx);
	kpgo_pdiff_release(&d);

	is_int(kpgo_pdiff_similarity(&b, &a, &sim), 0, "similarity alone");
	ok(near(sim, 0.3), "symmetric: b against a is 0.3 too");
	is_int(kpgo_pdiff_similarity(&a, &a, &sim), 0, "a against itself");
	ok(near(sim, 1.0), "a against itself: 1");

	profile_a(&a2, 1);
	is_int(kpgo_pdiff_compute(&d, &a, &a2), -EINVAL, "profiles of different depths refused");
	kpgo_pdiff_release(&d);
	kpgo_pstat_release(&a);
	kpgo_pstat_release(&a2);
	kpgo_pstat_release(&b);
}

static void check_escape(const char *in, size_t len, const char *want, const char *what)
{
	struct strbuf out = STRBUF_INIT;

	is_int(kpgo_html_escape(&out, in, len), 0, "%s: escaped", what);
	is_str(out.buf, want, "%s", what);
	strbuf_release(&out);
}

static void test_escape(void)
{
	struct strbuf out = STRBUF_INIT;

	check_escape("<a href=\"x\">&'</a>", 18, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;",
		     "markup characters");
	check_escape("tab\tnl\n", 7, "tab\tnl\n", "tab and newline stay");
	check_escape("\x01\x1b\x7f", 3, "\\x01\\x1b\\x7f", "control characters as \\xNN");
	check_escape("a\0b", 3, "a\\x00b", "a NUL byte");
	check_escape("caf\xc3\xa9 \xe2\x80\xaf \xf0\x9f\x90\xa7", 14,
		     "caf\xc3\xa9 \xe2\x80\xaf \xf0\x9f\x90\xa7",
		     "valid UTF-8 of 2, 3 and 4 bytes stays");
	check_escape("\xff\xfe", 2, "\\xff\\xfe", "bytes that never start UTF-8");
	check_escape("\xc0\xaf", 2, "\\xc0\\xaf", "an overlong '/'");
	check_escape("\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf", "an overlong 3-byte form");
	check_escape("\xed\xa0\x80", 3, "\\xed\\xa0\\x80", "a surrogate");
	check_escape("\xef\xbf\xbe", 3, "\\xef\\xbf\\xbe", "U+FFFE, not an XML character");
	check_escape("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80", "past U+10FFFF");
	check_escape("\xe2\x80", 2, "\\xe2\\x80", "a sequence cut short at the end");
	check_escape("\xe2(\xa1", 3, "\\xe2(\\xa1", "a sequence broken by ASCII");

	is_int(kpgo_strbuf_add_utf8(&out, "a\\b\x1b\xc3\xa9\xff\xed\xa0\x80~"), 0, "for JSON");
	is_str(out.buf, "a\\b\x1b\xc3\xa9\\xff\\xed\\xa0\\x80~",
	       "for JSON: UTF-8 and ASCII kept, other bytes as the text \\xNN");
	strbuf_reset(&out);
	is_int(kpgo_strbuf_add_printable(&out, "a\\b\x1b\xc3\xa9~"), 0, "printable");
	is_str(out.buf, "a\\\\b\\x1b\\xc3\\xa9~",
	       "for a terminal: backslash doubled, the rest \\xNN");
	strbuf_release(&out);
}

static void test_labels(void)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_pstat ps;
	struct kpgo_pstat_fn *f;

	profile_a(&ps, 2);
	f = &ps.fns[1]; /* read_write's ident 10 */
	is_int(kpgo_pstat_fn_label(&ps, f, &out), 0, "label of an unnamed function");
	is_str(out.buf, "fs/read_write.gcda ident 10", "unnamed: object and ident");
	f->state = KPGO_NAME_EXACT;
	f->name = "ksys_read";
	f->file = "fs/read_write.c";
	strbuf_reset(&out);
	kpgo_pstat_fn_label(&ps, f, &out);
	is_str(out.buf, "fs/read_write.c:ksys_read", "named: file:name");
	f->file = "";
	f->name = "evil\x1b[2J";
	strbuf_reset(&out);
	kpgo_pstat_fn_label(&ps, f, &out);
	is_str(out.buf, "evil\\x1b[2J", "no file: the name alone, escaped");
	f->state = KPGO_NAME_NONE;
	f->name = f->file = NULL;
	strbuf_release(&out);
	kpgo_pstat_release(&ps);
}

static void test_html(void)
{
	struct kpgo_html_input in = {
		.file = "a<b>.kpgo", .sha256 = "00", .top = 3, .generator = "kpgo test"
	};
	static const char report[] =
		"kpgo profile report for kernel 6.1\nprofile: a.kpgo\n"
		"profile sha256: 00\n\nDefinitions. Words.\nMore words.\n\n"
		"profile functions: 6\nverdict: ok: 50.0% applied\n\n== dropped\nx\ty\n\n"
		"== empty\n";
	struct strbuf out = STRBUF_INIT;
	struct kpgo_pstat ps;

	profile_a(&ps, 2);
	in.pgo_report = report;
	in.pgo_report_len = sizeof(report) - 1;
	in.pgo_report_name = "pgo-report";
	is_int(kpgo_html_report(&ps, &in, &out), 0, "report made");
	ok(!strncmp(out.buf, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"", 57),
	   "an XHTML page");
	ok(strstr(out.buf, "a&lt;b&gt;.kpgo") && !strstr(out.buf, "a<b>"), "the file name escaped");
	ok(strstr(out.buf, "<tr><th>profile functions</th><td>6</td></tr>") != NULL,
	   "a count line as a table row");
	ok(strstr(out.buf, "<span class=\"ok\" id=\"verdict\">ok: 50.0% applied</span>") != NULL,
	   "the verdict, marked ok");
	ok(strstr(out.buf, "<span class=\"ok\" id=\"same-profile\">this profile</span>") != NULL,
	   "the report names this profile");
	ok(strstr(out.buf, "<pre>Definitions. Words.\nMore words.\n</pre>") != NULL,
	   "a paragraph of prose folded as a note");
	ok(strstr(out.buf, "<summary>dropped — 1 line</summary>\n<pre>x\ty\n</pre>") != NULL,
	   "a section with its line");
	ok(strstr(out.buf, "<summary>empty — 0 lines</summary>\n</details>") != NULL,
	   "an empty section");
	ok(strstr(out.buf, "other (") == NULL && strstr(out.buf, ">fs/ext4</text>") != NULL,
	   "three subsystems with counts: three bars, no 'other'");
	ok(strstr(out.buf, "<script") == NULL, "no script");
	strbuf_release(&out);
	kpgo_pstat_release(&ps);
}

int main(void)
{
	test_stats();
	test_diff();
	test_escape();
	test_labels();
	test_html();
	return done_testing();
}
