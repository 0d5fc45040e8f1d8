// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-cov.c: clang's coverage warnings, one line at a time and read from
 * a build log (untrusted text, cut anywhere).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-log.h"
#include "afdo-report.h"
#include "tap.h"

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
		   "were applied [-Wbackend-plugin]",
		   &c),
	       1, "a records warning");
	ok(c.kind == KPGO_AFDO_COV_RECORDS && file_is(&c, "../kernel/fork.c") && c.line == 2626 &&
		   c.applied == 3 && c.available == 3,
	   "  its file, line, N and M");
	is_int(cov("warning: t.c:8: 1001 of 2002 available profile samples (50%) were applied "
		   "[-Wbackend-plugin]",
		   &c),
	       1, "a samples warning");
	ok(c.kind == KPGO_AFDO_COV_SAMPLES && file_is(&c, "t.c") && c.line == 8 &&
		   c.applied == 1001 && c.available == 2002,
	   "  its file, line, N and M");
	is_int(cov("warning: t.c:8: 0 of 0 available profile records (100%) were applied", &c), 1,
	       "without the flag name (-fno-diagnostics-show-option), 0 of 0");
	ok(c.applied == 0 && c.available == 0, "  0 of 0");
	is_int(cov("warning: a: b:7: c.h:12: 18446744073709551615 of 18446744073709551615 "
		   "available profile samples (4294967295%) were applied [-Wbackend-plugin]",
		   &c),
	       1, "a file name with ': ' in it, the largest counts, a wrapped percentage");
	ok(file_is(&c, "a: b:7: c.h") && c.line == 12 && c.applied == UINT64_MAX,
	   "  read from the end");
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		is_int(cov(other[i], &c), 0, "not a coverage warning: '%s'", other[i]);
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
		is_int(cov(malformed[i], &c), -EINVAL, "malformed: '%s'", malformed[i]);
}

/* --- the log ------------------------------------------------------------- */

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
	strbuf_addstr(&text,
		      "  CC      mm/memory.o\nwarning: x.c:1: 1 of 2 available profile records (");
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
		strbuf_addf(&text,
			    "warning: f.c:%zu: 1 of 1 available profile records (100%%) were "
			    "applied\n",
			    i);
	strbuf_addstr(&text,
		      "warning: f.c:999: 1 of 1 available profile records (100%) were applied");
	is_int(parse(&log, text.buf, text.len, text.len), 0,
	       "257 warnings, the last without a newline");
	ok(log.n == 257 && log.sites[256].line == 999, "  all read");
	kpgo_afdo_cov_log_release(&log);

	/* Empty, and without any compiler line. */
	is_int(parse(&log, "", 0, 1), 0, "an empty log parses");
	ok(log.n == 0 && log.cc_lines == 0 && log.in.lines == 0, "  to nothing");
	kpgo_afdo_cov_log_release(&log);
	strbuf_release(&text);
}

int main(void)
{
	test_cov_parse();
	test_log();
	test_log_hostile();
	return done_testing();
}
