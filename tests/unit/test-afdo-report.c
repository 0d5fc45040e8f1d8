// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-report.h: the text sample profile reader, clang's coverage
 * warnings read from a build log (untrusted text, cut anywhere), and the
 * counts of the Clang report.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "afdo.h"
#include "buildlog.h"
#include "tap.h"

/* --- the profile --------------------------------------------------------- */

static int text(const char *s, struct kpgo_afdo_text *t, struct kpgo_error *err)
{
	memset(t, 0, sizeof(*t));
	err->msg[0] = '\0';
	return kpgo_afdo_text_parse(t, s, strlen(s), NULL, err);
}

static void test_text_good(void)
{
	struct kpgo_afdo_text t;
	struct kpgo_error err;

	/* As kpgo afdo writes it. */
	is_int(text("clamp:3100:3100\n 1: 1600\n 2: 1500\n"
		    "main:6404:1\n 0: 1\n 3: 1601\n 4: 1600\n 5: 100\n 7: 1500\n"
		    "unused:0:7\n 0: 0\n",
		    &t, &err),
	       0, "kpgo afdo's text reads");
	is_int(t.functions, 3, "three functions");
	is_int(t.records, 8, "eight records");
	is_int(t.samples, 3100 + 4802, "samples: the records' counts, not the TOTALs");
	is_int(t.zero_total, 1, "one with TOTAL 0");
	is_int(t.lines, 11, "eleven lines");

	/* LLVM's other shapes: discriminators, call targets, inlined callsites, comments. */
	is_int(text("# a comment\n"
		    "\n"
		    "foo:2300:10\n"
		    " 0: 10\n"
		    " 1.2: 100 bar:60 baz:40\n"
		    " 3: 200 _M_construct<char*>:1000 a::b:7\n"
		    " 5: callee:1000\n"
		    "  0: 500\n"
		    "  1.1: 500 x:1\n"
		    "  2: deeper:10\n"
		    "   0: 10\n"
		    "  4: 3\n"
		    " 6: 1990\n"
		    "   # an indented comment\n"
		    "_ZN3fooEv.llvm.123:5:5\n"
		    " 65535.4294967295: 18446744073709551615",
		    &t, &err),
	       0, "inlined blocks, discriminators and call targets read; no newline at the end");
	is_str(err.msg, "", "no message");
	is_int(t.functions, 2, "two functions");
	is_int(t.records, 5, "records directly under a head only");
	is_int(t.samples, UINT64_MAX, "samples saturate");
	is_int(t.inlined_lines, 6, "six lines of inlined callsites");
	is_int(t.lines, 16, "every line counted, the last without a newline too");
}

static void test_text_bad(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "no function in it: not a sample profile" },
		{ "# only\n\n", "no function in it: not a sample profile" },
		{ "foo\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo::1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:x:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:-1:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:2 \n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:2\r\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ ":1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "a b:1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "a\tb:1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "foo:18446744073709551616:1\n", "line 1: a count over 2^64-1" },
		{ "foo:1:99999999999999999999999\n", "line 1: a count over 2^64-1" },
		{ " 0: 1\nfoo:1:1\n", "line 1: an indented line before the first function head" },
		{ "foo:1:1\n 0:1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				   "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 0: \n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				   "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 0\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				 "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n x: 1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				    "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1.: 1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				     "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1: 5x\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				     "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 65536: 1\n", "line 2: a line offset over 65535" },
		{ "foo:1:1\n 1.4294967296: 1\n", "line 2: a discriminator over 2^32-1" },
		{ "foo:1:1\n 1: 18446744073709551616\n", "line 2: a count over 2^64-1" },
		{ "foo:1:1\n 1: 1 \n", "line 2: blanks at the end of the line" },
		{ "foo:1:1\n 1: 1 bar\n",
		  "line 2: expected call targets 'NAME:COUNT' after the count" },
		{ "foo:1:1\n 1: 1 bar:\n",
		  "line 2: expected call targets 'NAME:COUNT' after the count" },
		{ "foo:1:1\n 1: 1 :5\n",
		  "line 2: a name that is empty or has blanks or control characters" },
		{ "foo:1:1\n 1: callee\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
					 "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1: callee:1 more\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' "
						  "or ' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n  0: 1\n", "line 2: indented deeper than an inlined callsite's lines" },
		{ "foo:1:1\n 1: bar:1\n  0: 1\n   0: 1\n",
		  "line 4: indented deeper than an inlined callsite's lines" },
		{ "foo:1:1\n !CFGChecksum: 12\n",
		  "line 2: a metadata line ('!...'), which kpgo does not read" },
		{ "foo:1:1\n   \n", "line 2: a line of blanks only" },
		{ "foo:1:1\nbar:1:1\nbaz:1:1\nbar:2:2\nfoo:3:3\n",
		  "line 4: function 'bar' again (first on line 2)" },
	};
	struct kpgo_afdo_text t;
	struct kpgo_error err;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is_int(text(cases[i].text, &t, &err), -EINVAL, "refused: %s", cases[i].msg);
		is_str(err.msg, cases[i].msg, "  with its message");
	}
	is_int(kpgo_afdo_text_parse(&t, "foo:1:1\n\0 0: 1\n", 15, NULL, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "  and said where");
	strbuf_addstr(&sb, "foo:1:1\n 0: 1");
	while (sb.len < KPGO_BUILDLOG_LINE_MAX + 100)
		strbuf_addstr(&sb, " t:1");
	is_int(kpgo_afdo_text_parse(&t, sb.buf, sb.len, NULL, &err), -EINVAL, "a long line is refused");
	is_str(err.msg, "line 2: longer than 65536 bytes", "  and said where");
	strbuf_release(&sb);
	is_int(kpgo_afdo_text_read(&t, "/nonexistent/p.txt", NULL, &err), -ENOENT, "a missing file");
	is_str(err.msg, "No such file or directory", "  says so");
}

/* --- coverage lines ------------------------------------------------------ */

static int cov(const char *s, struct kpgo_afdo_cov *c)
{
	memset(c, 0, sizeof(*c));
	return kpgo_afdo_cov_parse(s, strlen(s), c);
}

static bool file_is(const struct kpgo_afdo_cov *c, const char *f)
{
	return c->file && c->file_len == strlen(f) && !memcmp(c->file, f, c->file_len);
}

static void test_cov_parse(void)
{
	static const char *const other[] = {
		"",
		"  CC      kernel/fork.o",
		"warning: something else [-Wbackend-plugin]",
		"kernel/fork.c:10:5: warning: unused variable 'x' [-Wunused-variable]",
		"ld.lld: warning: t.c:9: 1 of 6 available profile records (16%) were applied",
		"ld.lld-16: warning: t.c:9: 0 of 2007 available profile samples (0%) were applied",
		" warning: t.c:9: 1 of 6 available profile records (16%) were applied",
		"4 warnings generated.",
	};
	static const char *const malformed[] = {
		"warning: t.c:9: 7 of 6 available profile records (116%) were applied [-Wbackend-plugin]",
		"warning: t.c:0: 1 of 6 available profile records (16%) were applied [-Wbackend-plugin]",
		"warning: t.c:4294967296: 1 of 6 available profile records (16%) were applied",
		"warning: t.c:9: 1 of 4294967296 available profile records (0%) were applied",
		"warning: t.c:9: 1 of 18446744073709551616 available profile samples (0%) were applied",
		"warning: t.c:9: 01 of 6 available profile records (16%) were applied",
		"warning: t.c:9: -1 of 6 available profile records (16%) were applied",
		"warning: t.c:9: x of 6 available profile records (16%) were applied",
		"warning: t.c:9: 1 of available profile records (16%) were applied",
		"warning: t.c:9: 1 of 6 available profile records (%) were applied",
		"warning: t.c:9: 1 of 6 available profile records (16) were applied",
		"warning: t.c:9: 1 of 6 available profile records (16%) were applied [-Wother]",
		"warning: t.c:9: 1 of 6 available profile records (16%) were applied and more",
		"warning: t.c: 1 of 6 available profile records (16%) were applied",
		"warning: :9: 1 of 6 available profile records (16%) were applied",
		"warning: t.c:9 1 of 6 available profile records (16%) were applied",
		"warning: t\033[31m.c:9: 1 of 6 available profile records (16%) were applied",
		"warning: 1 of 6 available profile records (16%) were applied",
		"warning:  available profile samples (",
		"warning: t.c:9: 1 of 6 profile bytes (16%) were applied, available profile records (",
	};
	struct kpgo_afdo_cov c;
	size_t i;

	is_int(cov("warning: ../kernel/fork.c:2626: 3 of 3 available profile records (100%) "
		   "were applied [-Wbackend-plugin]", &c),
	       1, "a records warning");
	ok(c.kind == KPGO_AFDO_COV_RECORDS && file_is(&c, "../kernel/fork.c") && c.line == 2626 &&
	   c.applied == 3 && c.available == 3, "  its file, line, N and M");
	is_int(cov("warning: t.c:8: 1001 of 2002 available profile samples (50%) were applied "
		   "[-Wbackend-plugin]", &c),
	       1, "a samples warning");
	ok(c.kind == KPGO_AFDO_COV_SAMPLES && file_is(&c, "t.c") && c.line == 8 &&
	   c.applied == 1001 && c.available == 2002, "  its file, line, N and M");
	is_int(cov("warning: t.c:8: 0 of 0 available profile records (100%) were applied", &c), 1,
	       "without the flag name (-fno-diagnostics-show-option), 0 of 0");
	ok(c.applied == 0 && c.available == 0, "  0 of 0");
	is_int(cov("warning: a: b:7: c.h:12: 18446744073709551615 of 18446744073709551615 "
		   "available profile samples (4294967295%) were applied [-Wbackend-plugin]", &c),
	       1, "a file name with ': ' in it, the largest counts, a wrapped percentage");
	ok(file_is(&c, "a: b:7: c.h") && c.line == 12 && c.applied == UINT64_MAX,
	   "  read from the end");
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		is_int(cov(other[i], &c), 0, "not a coverage warning: '%s'", other[i]);
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
		is_int(cov(malformed[i], &c), -EINVAL, "malformed: '%s'", malformed[i]);
}

/* --- the log ------------------------------------------------------------- */

#define REC(f, l, n, m)                                                                    \
	"warning: " f ":" #l ": " #n " of " #m " available profile records (0%) were applied " \
	"[-Wbackend-plugin]\n"
#define SMP(f, l, n, m)                                                                    \
	"warning: " f ":" #l ": " #n " of " #m " available profile samples (0%) were applied " \
	"[-Wbackend-plugin]\n"

/*
 * Three objects: a header's inline function (list.h:10) in all three, with
 * different coverage; two functions of one macro line (sys.c:5) in one
 * object; a samples warning without its records one; noise in between.
 */
static const char sample[] =
	"make[1]: Entering directory '/build'\n"
	"  CC      kernel/sys.o\n"
	REC("../include/linux/list.h", 10, 1, 4) SMP("../include/linux/list.h", 10, 10, 40)
	REC("../kernel/sys.c", 5, 2, 2) SMP("../kernel/sys.c", 5, 20, 20)
	"../kernel/sys.c:7:1: warning: unused function 'x' [-Wunused-function]\n"
	REC("../kernel/sys.c", 5, 3, 3) SMP("../kernel/sys.c", 5, 30, 30)
	REC("../kernel/sys.c", 40, 1, 9)
	"4 warnings generated.\n"
	"  CC [M]  drivers/a.o\n"
	REC("../include/linux/list.h", 10, 3, 4) SMP("../include/linux/list.h", 10, 30, 40)
	"warning: ../drivers/a.c:1: 9 of 8 available profile records (112%) were applied "
	"[-Wbackend-plugin]\n"
	"  HOSTCC  scripts/x.o\n"
	"  CC      mm/b.o\r\n"
	REC("../include/linux/list.h", 10, 2, 4) SMP("../include/linux/list.h", 10, 20, 40)
	SMP("../mm/b.c", 3, 5, 6)
	"ld.lld: warning: ../mm/b.c:3: 5 of 6 available profile samples (83%) were applied\n"
	"warning: ../mm/b.c:9: 1 of 1 available profile records (100%) were applied";

static int parse(struct kpgo_afdo_cov_log *log, const char *s, size_t len, size_t chunk)
{
	struct kpgo_error err;
	size_t off;
	int r = 0;

	kpgo_afdo_cov_log_init(log);
	for (off = 0; !r && off < len; off += chunk)
		r = kpgo_afdo_cov_log_feed(log, s + off, len - off < chunk ? len - off : chunk, &err);
	return r ? r : kpgo_afdo_cov_log_finish(log, &err);
}

static void dump(const struct kpgo_afdo_cov_log *log, struct strbuf *out)
{
	size_t i;

	strbuf_reset(out);
	for (i = 0; i < log->n; i++) {
		const struct kpgo_afdo_site *s = &log->sites[i];

		strbuf_addf(out, "%s:%u#%u obj %zu", s->file, s->line, s->ordinal, s->object);
		if (s->has_records)
			strbuf_addf(out, " r %llu/%llu", (unsigned long long)s->records_applied,
				    (unsigned long long)s->records);
		if (s->has_samples)
			strbuf_addf(out, " s %llu/%llu", (unsigned long long)s->samples_applied,
				    (unsigned long long)s->samples);
		strbuf_addch(out, '\n');
	}
}

static void test_log(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct kpgo_afdo_cov_log log;
	struct kpgo_error err;

	is_int(parse(&log, sample, sizeof(sample) - 1, sizeof(sample)), 0, "the sample parses");
	is_int(log.cc_lines, 3, "three compiler lines (not HOSTCC), one with CR LF");
	is_int(log.in.lines, 22, "every line counted, the last without a newline too");
	is_int(log.records_warnings, 7, "seven records warnings");
	is_int(log.samples_warnings, 6, "six samples warnings (not lld's)");
	is_int(log.malformed, 1, "one malformed (N > M)");
	is_int(log.first_malformed, 15, "  on line 15");
	is_int(log.repeats, 2, "list.h:10 twice more, merged");
	is_int(log.unpaired, 3, "sys.c:40, b.c:3 and b.c:9 have one warning each");
	dump(&log, &a);
	is_str(a.buf,
	       "../include/linux/list.h:10#1 obj 2 r 3/4 s 30/40\n"
	       "../kernel/sys.c:5#1 obj 1 r 2/2 s 20/20\n"
	       "../kernel/sys.c:5#2 obj 1 r 3/3 s 30/30\n"
	       "../kernel/sys.c:40#1 obj 1 r 1/9\n"
	       "../mm/b.c:3#1 obj 3 s 5/6\n"
	       "../mm/b.c:9#1 obj 3 r 1/1\n",
	       "one site per FILE:LINE and ordinal, the one with the most records applied");
	kpgo_afdo_cov_log_release(&log);

	/* Cut anywhere, it reads the same. */
	is_int(parse(&log, sample, sizeof(sample) - 1, 1), 0, "fed a byte at a time");
	dump(&log, &b);
	is_str(b.buf, a.buf, "  the same sites");
	kpgo_afdo_cov_log_release(&log);

	kpgo_afdo_cov_log_init(&log);
	is_int(kpgo_afdo_cov_log_feed(&log, "  CC      a.o\nb\0c\n", 18, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "  and said where");
	kpgo_afdo_cov_log_release(&log);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_log_hostile(void)
{
	struct strbuf text = STRBUF_INIT;
	struct kpgo_afdo_cov_log log;
	size_t i;

	/* A line far over the limit is skipped and counted; the lines around it are read. */
	strbuf_addstr(&text, "  CC      mm/memory.o\nwarning: x.c:1: 1 of 2 available profile records (");
	for (i = 0; i < 3 * KPGO_BUILDLOG_LINE_MAX; i++)
		strbuf_addch(&text, '9');
	strbuf_addstr(&text, "%) were applied\n" REC("x.c", 2, 1, 2));
	is_int(parse(&log, text.buf, text.len, 4096), 0, "a 192 KiB line does not stop it");
	is_int(log.in.long_lines, 1, "it is counted as skipped");
	is_int(log.malformed, 0, "  not as malformed (unread)");
	ok(log.n == 1 && log.sites[0].line == 2, "the warning after it is read");
	kpgo_afdo_cov_log_release(&log);

	/* The same FILE:LINE again and again in one object: ordinals, never a wrap. */
	strbuf_reset(&text);
	strbuf_addstr(&text, "  CC      a.o\n");
	for (i = 0; i < 1000; i++)
		strbuf_addstr(&text, REC("h.h", 1, 1, 1));
	strbuf_addstr(&text, "  CC      b.o\n");
	for (i = 0; i < 10; i++)
		strbuf_addstr(&text, REC("h.h", 1, 1, 1));
	is_int(parse(&log, text.buf, text.len, text.len), 0, "1010 reports of one FILE:LINE");
	is_int(log.n, 1000, "1000 sites: the most one object reported");
	is_int(log.repeats, 10, "the other object's 10 merged");
	kpgo_afdo_cov_log_release(&log);

	/* The last line, without a newline, read when the sites must grow for it. */
	strbuf_reset(&text);
	for (i = 1; i <= 256; i++)
		strbuf_addf(&text, "warning: f.c:%zu: 1 of 1 available profile records (100%%) were "
				   "applied\n", i);
	strbuf_addstr(&text, "warning: f.c:999: 1 of 1 available profile records (100%) were applied");
	is_int(parse(&log, text.buf, text.len, text.len), 0, "257 warnings, the last without a newline");
	ok(log.n == 257 && log.sites[256].line == 999, "  all read");
	kpgo_afdo_cov_log_release(&log);

	/* Empty, and without any compiler line. */
	is_int(parse(&log, "", 0, 1), 0, "an empty log parses");
	ok(log.n == 0 && log.cc_lines == 0 && log.in.lines == 0, "  to nothing");
	kpgo_afdo_cov_log_release(&log);
	strbuf_release(&text);
}

/* --- the counts ---------------------------------------------------------- */

static void test_counts(void)
{
	struct kpgo_afdo_report r;
	struct strbuf out = STRBUF_INIT;
	size_t i;

	kpgo_afdo_report_init(&r);
	is_int(parse(&r.log, sample, sizeof(sample) - 1, 64), 0, "sample again");
	r.prof.functions = 12;
	r.prof.records = 40;
	r.prof.samples = 0;
	r.head.min_applied = 50;
	kpgo_afdo_report_count(&r);
	is_int(r.c.sites, 6, "six sites");
	is_int(r.c.applied, 6, "six applied");
	ok(!r.c.capped, "not capped");
	is_int(r.c.not_applied, 6, "six not applied");
	is_str(r.c.pct_applied, "50.0", "50.0%%");
	ok(r.c.ok, "50.0 is at least 50");
	is_int(r.c.records_applied, 10, "records applied 3+2+3+1+0+1");
	is_int(r.c.records, 19, "of 4+2+3+9+0+1");
	is_str(r.c.pct_records, "52.6", "  52.6%%");
	is_str(r.c.pct_records_all, "25.0", "  25.0%% of the profile's 40");
	is_int(r.c.samples_applied, 85, "samples applied 30+20+30+5");
	is_str(r.c.pct_samples_all, "0.0", "a profile without samples: 0.0, no division by zero");

	/* More sites than functions: capped, and said. */
	r.prof.functions = 4;
	kpgo_afdo_report_count(&r);
	ok(r.c.capped && r.c.applied == 4 && r.c.not_applied == 0, "capped at the functions");
	is_str(r.c.pct_applied, "100.0", "100.0%%");
	kpgo_afdo_report_format_counts(&r, &out);
	ok(strstr(out.buf, "clang reported 6 distinct FILE:LINE, more than the profile has "
			   "functions") != NULL, "the report says so");
	ok(strstr(out.buf, "coverage lines skipped as malformed: 1 (the first on line 15 of "
			   "the log)\n") != NULL, "and names the first malformed line");

	/* 0 functions (not from the reader, which refuses that): no division by zero. */
	r.prof.functions = 0;
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "0.0", "0 functions: 0.0%%");
	ok(!r.c.ok, "  not ok");
	kpgo_afdo_cov_log_release(&r.log);

	/* The percentage as printed is what is checked: 1999 of 4000 is 49.975, printed 50.0. */
	r.prof.functions = 4000;
	strbuf_reset(&out);
	strbuf_addstr(&out, "  CC      a.o\n");
	for (i = 1; i <= 1999; i++)
		strbuf_addf(&out, "warning: f.c:%zu: 1 of 1 available profile records (100%%) were "
				  "applied\n", i);
	is_int(parse(&r.log, out.buf, out.len, out.len), 0, "1999 functions");
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "50.0", "1999 of 4000 printed as 50.0");
	ok(r.c.ok, "  which is at least 50");
	r.prof.functions = 4006;
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "49.9", "1999 of 4006 printed as 49.9");
	ok(!r.c.ok, "  which is below 50");
	strbuf_release(&out);
	kpgo_afdo_report_release(&r);
}

/* --- the counts with a definitions table -------------------------------- */

/*
 * Two objects: f, h (a header's, named two ways), two functions of one
 * macro line (a.c:20, the profile's m1 and a weak m2), a weak w, and two
 * reports the table does not hold as the profile's: x.c:7 (not in it) and
 * c.c:9 (a left-out static s there; the report is of another function).
 */
static const char defs_log[] =
	"  CC      kernel/a.o\n"
	REC("../kernel/a.c", 10, 1, 2) SMP("../kernel/a.c", 10, 10, 20)
	REC("../include/h.h", 5, 1, 1) SMP("../include/h.h", 5, 5, 5)
	REC("../kernel/a.c", 20, 2, 4) SMP("../kernel/a.c", 20, 30, 40)
	REC("../kernel/a.c", 20, 100, 100) SMP("../kernel/a.c", 20, 1000, 1000)
	"  CC      kernel/b.o\n"
	REC("./../include/h.h", 5, 0, 1) SMP("./../include/h.h", 5, 0, 5)
	REC("../kernel/b.c", 3, 7, 7) SMP("../kernel/b.c", 3, 70, 70)
	REC("../drivers/x.c", 7, 9, 9) SMP("../drivers/x.c", 7, 90, 90)
	REC("../kernel/c.c", 9, 8, 8) SMP("../kernel/c.c", 9, 80, 80);

static const char defs_table[] =
	KPGO_AFDO_DEFS_HEAD "\n"
	"f\tprofile\t../kernel/a.c\t10\n"
	"h\tprofile\t../include/h.h\t5\n"
	"m1\tprofile\t../kernel/a.c\t20\n"
	"m2\tprofile\t../kernel/m.c\t1\n"
	"m2\tweak\t../kernel/a.c\t20\n"
	"s\tleft-out\t../kernel/c.c\t9\n"
	"s\tleft-out\t../kernel/d.c\t9\n"
	"w\tprofile\t../kernel/w.c\t2\n"
	"w\tweak\t../kernel/b.c\t3\n";

static void test_counts_defs(void)
{
	static const char *const kinds[] = { "profile", "weak", "outside" };
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_report r;
	struct kpgo_error err;
	size_t i;

	kpgo_afdo_report_init(&r);
	is_int(parse(&r.log, defs_log, sizeof(defs_log) - 1, 7), 0, "the log parses");
	is_int(r.log.repeats, 1, "h.h:5, named two ways, is one site");
	is_int(kpgo_afdo_defs_parse(&r.defs, defs_table, sizeof(defs_table) - 1, &err), 0,
	       "the table parses");
	r.defs_file = "defs";
	r.prof.functions = 5;
	r.prof.records = 20;
	r.prof.samples = 200;
	r.head.min_applied = 60;
	kpgo_afdo_report_count(&r);
	for (i = 0; i < r.log.n; i++)
		strbuf_addf(&out, "%s:%u#%u %s\n", r.log.sites[i].file, r.log.sites[i].line,
			    r.log.sites[i].ordinal, kinds[r.log.sites[i].kind]);
	is_str(out.buf,
	       "../drivers/x.c:7#1 outside\n"
	       "../include/h.h:5#1 profile\n"
	       "../kernel/a.c:10#1 profile\n"
	       "../kernel/a.c:20#1 profile\n"
	       "../kernel/a.c:20#2 weak\n"
	       "../kernel/b.c:3#1 weak\n"
	       "../kernel/c.c:9#1 outside\n",
	       "each site told apart by the table");
	is_int(r.c.sites, 7, "seven sites");
	is_int(r.c.applied, 3, "three applied");
	ok(!r.c.capped, "not capped");
	is_int(r.c.weak_sites, 2, "two weak");
	is_int(r.c.outside_sites, 2, "two outside the profile");
	is_int(r.c.not_applied, 2, "two not applied");
	is_str(r.c.pct_applied, "60.0", "60.0%%");
	ok(r.c.ok, "60.0 is at least 60");
	ok(r.c.records_applied == 1 + 1 + 2 && r.c.records == 2 + 1 + 4,
	   "records of the profile sites only");
	ok(r.c.samples_applied == 10 + 5 + 30 && r.c.samples == 20 + 5 + 40,
	   "samples of the profile sites only");
	strbuf_reset(&out);
	is_int(kpgo_afdo_report_format_counts(&r, &out), 0, "formatted");
	ok(strstr(out.buf, "definitions table: 5 profile, 2 weak, 2 left out\n") != NULL,
	   "the table's lines by role");
	ok(strstr(out.buf, "functions applied: 3 (60.0%): clang reported coverage at their "
			   "definition (a profile line of the definitions table)\n") != NULL,
	   "the applied ones");
	ok(strstr(out.buf, "weak definitions compiled with the strong one's profile (dropped by "
			   "the linker): 2\n") != NULL,
	   "the weak ones");
	ok(strstr(out.buf, "definitions outside the profile that took a profile by name: 2: "
			   "each shares its name with a profile function but is another function") !=
		   NULL && strstr(out.buf, "two functions of one name mixed\n"
					   "  ../drivers/x.c:7\n  ../kernel/c.c:9\nrecords applied:"),
	   "the outside ones, listed");
	ok(!strstr(out.buf, "more\n") && !strstr(out.buf, "relative"), "all listed, no hint");
	kpgo_afdo_report_release(&r);

	/* Only sites outside: 25, 20 listed; none applied, which hints at file names. */
	strbuf_reset(&out);
	strbuf_addstr(&out, "  CC      a.o\n");
	for (i = 1; i <= 25; i++)
		strbuf_addf(&out, "warning: /src/a.c:%zu: 1 of 1 available profile records (100%%) "
				  "were applied\n", i);
	strbuf_addstr(&out, REC("/src/a.c", 5, 1, 1));
	kpgo_afdo_report_init(&r);
	is_int(parse(&r.log, out.buf, out.len, out.len), 0, "26 reports");
	is_int(kpgo_afdo_defs_parse(&r.defs, defs_table, sizeof(defs_table) - 1, &err), 0,
	       "the table again");
	r.defs_file = "defs";
	r.prof.functions = 5;
	kpgo_afdo_report_count(&r);
	ok(r.c.applied == 0 && r.c.outside_sites == 26 && r.c.not_applied == 5,
	   "none applied, 26 outside");
	strbuf_reset(&out);
	kpgo_afdo_report_format_counts(&r, &out);
	ok(strstr(out.buf, "  /src/a.c:5\n  /src/a.c:5 (report 2 of that line in one object)\n") !=
		   NULL, "a second report of one line says so");
	ok(strstr(out.buf, "  /src/a.c:19\n  and 6 more\n") != NULL, "20 listed, and 6 more");
	ok(strstr(out.buf, "  (no report is at a profile definition of the table: were the two "
			   "builds given the source files by other names, one relative, one "
			   "absolute?)\n") != NULL,
	   "the hint");
	kpgo_afdo_report_release(&r);
	strbuf_release(&out);
}

int main(void)
{
	test_text_good();
	test_text_bad();
	test_cov_parse();
	test_log();
	test_log_hostile();
	test_counts();
	test_counts_defs();
	return done_testing();
}
