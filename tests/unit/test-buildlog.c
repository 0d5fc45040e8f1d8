// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * buildlog.h: GCC's profile warnings read from a build log (untrusted
 * text, cut anywhere); the counts made of them are test-report.c's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildlog.h"
#include "tap.h"

static const char *const objtree[] = { "/build/pgo" };

/* A log of each kind of warning, in both quote styles, with repeats. */
static const char sample[] =
	"make[1]: Entering directory '/build/pgo'\n"
	"  CC      kernel/fork.o\n"
	"/src/kernel/fork.c: In function \xe2\x80\x98"
	"copy_process\xe2\x80\x99:\n"
	"/src/kernel/fork.c:10:5: warning: number of counters in profile data for function "
	"\xe2\x80\x98"
	"copy_process\xe2\x80\x99 does not match its profile data (counter "
	"\xe2\x80\x98"
	"arcs\xe2\x80\x99, expected 5 and have 4) [-Wcoverage-mismatch]\n"
	"   10 | static struct task_struct *copy_process(\n"
	"/src/kernel/fork.c:10:5: warning: source locations for function 'copy_process' have "
	"changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:20:5: warning: source locations for function 'dup_mm' have "
	"changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:21:5: warning: source locations for function 'dup_mm' have "
	"changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:30:1: warning: the control flow of function 'kernel_clone' does "
	"not match its profile data (counter 'arcs') [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:40:1: warning: profile for function \xe2\x80\x98new_fn\xe2\x80\x99 "
	"not found in profile data [-Wmissing-profile]\n"
	"/src/kernel/fork.c:40:1: warning: profile for function 'new_fn' not found in profile "
	"data [-Wmissing-profile]\n"
	"/src/kernel/fork.c:50:1: warning: something new [-Wmissing-profile]\n"
	"  CC [M]  drivers/foo/bar.o\n"
	"/src/drivers/foo/bar.c:1:1: warning: \xe2\x80\x98/build/pgo/drivers/foo/bar.gcda"
	"\xe2\x80\x99 profile count data file not found [-Wmissing-profile]\r\n"
	"/src/drivers/foo/bar.c:2:1: warning: profile for function 'probe' not found in "
	"profile data [-Wmissing-profile]\n"
	"/src/drivers/foo/bar.c:3:1: error: profile for function 'x' not found in profile "
	"data [-Werror=missing-profile]\n"
	"  HOSTCC  scripts/kallsyms.o\n"
	"  CC      arch/x86/entry/vdso/vma.o\n"
	"/src/vma.c:458:1: warning: '/build/pgo/arch/x86/entry/vdso/vma.gcda' profile count "
	"data file not found [-Wmissing-profile]";

static int parse(struct kpgo_buildlog *log, const char *text, size_t len, size_t chunk)
{
	struct kpgo_error err;
	size_t off;
	int r = 0;

	if (kpgo_buildlog_init(log, objtree, 1))
		return -ENOMEM;
	for (off = 0; !r && off < len; off += chunk)
		r = kpgo_buildlog_feed(log, text + off, len - off < chunk ? len - off : chunk, &err);
	return r ? r : kpgo_buildlog_finish(log, &err);
}

static size_t count(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind)
{
	size_t n = 0;

	if (kpgo_buildlog_count(log, kind, &n))
		return SIZE_MAX;
	return n;
}

/* The warnings as "kind|obj|where|fn|msg" lines. */
static void dump(const struct kpgo_buildlog *log, struct strbuf *out)
{
	size_t i;

	strbuf_reset(out);
	for (i = 0; i < log->n; i++)
		strbuf_addf(out, "%d|%s|%s|%s|%s\n", (int)log->w[i].kind, log->w[i].obj,
			    log->w[i].where, log->w[i].fn, log->w[i].msg);
}

static void test_kinds(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct kpgo_buildlog log;

	is_int(parse(&log, sample, sizeof(sample) - 1, sizeof(sample)), 0, "the sample parses");
	is_int(log.cc_lines, 3, "three compiler lines (not HOSTCC)");
	is_int(log.in.lines, 19, "every line counted, the last without a newline too");
	is_int(count(&log, KPGO_WARN_DROPPED), 2, "dropped: copy_process, kernel_clone");
	is_int(count(&log, KPGO_WARN_LINES), 1, "stale: dup_mm once; copy_process is dropped");
	is_int(count(&log, KPGO_WARN_NOFUNC), 2,
	       "no profile: new_fn once (both quote styles), probe");
	is_int(count(&log, KPGO_WARN_NOOBJ), 2, "objects without profile: bar.o, vma.o");
	is_int(count(&log, KPGO_WARN_OTHER), 1, "other: one, errors are not warnings");
	ok(kpgo_buildlog_has(&log, KPGO_WARN_DROPPED, "kernel/fork.o", "copy_process"),
	   "copy_process of kernel/fork.o is dropped (UTF-8 quotes)");
	ok(!kpgo_buildlog_has(&log, KPGO_WARN_DROPPED, "kernel/fork.o", "dup_mm"), "dup_mm is not");
	ok(kpgo_buildlog_has(&log, KPGO_WARN_NOOBJ, "drivers/foo/bar.o", "-"),
	   "the .gcda GCC names becomes its object, with CR LF and UTF-8 quotes");
	ok(kpgo_buildlog_has(&log, KPGO_WARN_NOOBJ, "arch/x86/entry/vdso/vma.o", "-"),
	   "the last line without a newline is read");
	ok(kpgo_buildlog_has(&log, KPGO_WARN_NOFUNC, "drivers/foo/bar.o", "probe"),
	   "a warning belongs to the last CC [M] line's object");
	dump(&log, &a);
	ok(strstr(a.buf, "4|kernel/fork.o|/src/kernel/fork.c:50:1|-|something new\n") != NULL,
	   "other warnings keep their text");
	kpgo_buildlog_release(&log);

	/* Cut anywhere, even inside a UTF-8 quote, it reads the same. */
	is_int(parse(&log, sample, sizeof(sample) - 1, 1), 0, "fed a byte at a time");
	dump(&log, &b);
	is_str(b.buf, a.buf, "the same warnings");
	kpgo_buildlog_release(&log);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_hostile(void)
{
	struct kpgo_buildlog log;
	struct kpgo_error err;
	struct strbuf text = STRBUF_INIT;
	size_t i;

	/* A line far over the limit is skipped; the object before it stays. */
	strbuf_addstr(&text, "  CC      mm/memory.o\n");
	for (i = 0; i < 3 * KPGO_BUILDLOG_LINE_MAX; i++)
		strbuf_addch(&text, 'x');
	strbuf_addstr(&text, " [-Wmissing-profile]\n");
	strbuf_addstr(&text, "m.c:1:1: warning: profile for function 'f' not found in profile data "
			     "[-Wmissing-profile]\n");
	is_int(parse(&log, text.buf, text.len, 4096), 0, "a 192 KiB line does not stop it");
	is_int(log.in.long_lines, 1, "it is counted as skipped");
	ok(kpgo_buildlog_has(&log, KPGO_WARN_NOFUNC, "mm/memory.o", "f"),
	   "the warning after it has its object");
	is_int(count(&log, KPGO_WARN_OTHER), 0, "the long line is no warning");
	kpgo_buildlog_release(&log);

	kpgo_buildlog_init(&log, objtree, 1);
	is_int(kpgo_buildlog_feed(&log, "  CC      a.o\nb\0c\n", 18, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "and said where");
	kpgo_buildlog_release(&log);

	/* Control characters never reach the report; quotes without an end name nothing. */
	strbuf_reset(&text);
	strbuf_addstr(&text,
		      "  CC      a\033[31m.o\n"
		      "x.c: warning: profile for function 'unterminated [-Wmissing-profile]\n"
		      "x.c: warning: 'no-end profile count data file not found [-Wmissing-profile]\n");
	is_int(parse(&log, text.buf, text.len, text.len), 0, "odd warnings parse");
	ok(log.n == 2 && !strcmp(log.w[0].obj, "a?[31m.o"), "escape sequences are made harmless");
	ok(log.n == 2 && log.w[0].kind == KPGO_WARN_NOOBJ && !strcmp(log.w[0].obj, "a?[31m.o"),
	   "a .gcda name without its closing quote leaves the CC object");
	ok(log.n == 2 && log.w[1].kind == KPGO_WARN_OTHER && !strcmp(log.w[1].fn, "-"),
	   "an unterminated function name is none");
	kpgo_buildlog_release(&log);
	strbuf_release(&text);
}

int main(void)
{
	test_kinds();
	test_hostile();
	return done_testing();
}
