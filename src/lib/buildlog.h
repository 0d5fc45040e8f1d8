/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_BUILDLOG_H
#define KPGO_BUILDLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "lines.h"
#include "strbuf.h"
#include "util.h"

/*
 * The profile warnings GCC gave in a kernel build's log: `make` output with
 * --output-sync, so a compiler's messages follow its own "  CC      x.o"
 * (or "  CC [M]  x.o") line. The log is untrusted text.
 */

/*
 * Longer lines are skipped and counted: no compiler line or profile warning
 * is that long (paths are at most 4096 bytes), and a log of any size is
 * read with a bounded buffer.
 */
#define KPGO_BUILDLOG_LINE_MAX 65536

/* What a -Wcoverage-mismatch or -Wmissing-profile warning says. */
enum kpgo_warn_kind {
	KPGO_WARN_DROPPED, /* "the control flow of function", "number of counters in
			      profile data for function": the counts are not used */
	KPGO_WARN_LINES,   /* "source locations for function ... have changed": used */
	KPGO_WARN_NOFUNC,  /* "profile for function ... not found in profile data" */
	KPGO_WARN_NOOBJ,   /* "'x.gcda' profile count data file not found" */
	KPGO_WARN_OTHER,
	KPGO_WARN_KINDS,
};

/**
 * struct kpgo_warning - one profile warning
 * @obj: the object of the last "  CC" line before it, relative to the object
 *       tree ("kernel/fork.o"); for %KPGO_WARN_NOOBJ the object of the .gcda
 *       GCC names (the object tree's prefix removed, .gcda turned into .o)
 * @where: "file.c:12:5", what precedes ": warning: "
 * @fn: the function GCC names, "-" when none
 * @msg: the warning's text for %KPGO_WARN_OTHER, "" for the others
 *
 * GCC quotes with UTF-8 quotation marks or ASCII apostrophes, depending on
 * the locale; both are read as apostrophes. Control characters in the
 * strings are replaced by '?'.
 */
struct kpgo_warning {
	enum kpgo_warn_kind kind;
	char *obj;
	char *where;
	char *fn;
	char *msg;
};

/**
 * struct kpgo_buildlog - a parsed build log
 * @w: the warnings; after kpgo_buildlog_finish() sorted by kind, object,
 *     where, function and message, each once
 * @in: the lines: @in.lines read, @in.long_lines longer than
 *      %KPGO_BUILDLOG_LINE_MAX and skipped
 * @cc_lines: compiler lines ("  CC" and "  CC [M]")
 */
struct kpgo_buildlog {
	size_t n;
	size_t alloc;
	struct kpgo_warning *w;
	struct kpgo_lines in;
	size_t cc_lines;
	/* parser state */
	struct kpgo_strlist prefixes;
	struct strbuf obj;
};

/*
 * Whether the line @s (@len bytes, no newline) is kbuild's compiler line,
 * "  CC      x.o" or "  CC [M]  x.o" (not "  HOSTCC"); the object's offset
 * in @s goes to @obj.
 */
bool kpgo_buildlog_cc_line(const char *s, size_t len, size_t *obj);

/*
 * @objtrees: the absolute object tree paths GCC may name a .gcda by (the
 * object tree as kbuild saw it: its real path); @n may be 0.
 */
int kpgo_buildlog_init(struct kpgo_buildlog *log, const char *const *objtrees, size_t n);
void kpgo_buildlog_release(struct kpgo_buildlog *log);

/*
 * Parses @len more bytes of the log, cut anywhere. A NUL byte fails with
 * -EBADMSG ("not a text file"): build logs have none.
 */
int kpgo_buildlog_feed(struct kpgo_buildlog *log, const void *data, size_t len,
		       struct kpgo_error *err);
/* The last line (without a newline), then sorts and removes repeats. */
int kpgo_buildlog_finish(struct kpgo_buildlog *log, struct kpgo_error *err);
/* Init must have been done; feeds the whole file at @path and finishes. */
int kpgo_buildlog_read(struct kpgo_buildlog *log, const char *path, struct kpgo_error *err);

/*
 * Warnings of @kind, one per (object, function), as the shell report counted
 * them. A function with both a %KPGO_WARN_DROPPED and a %KPGO_WARN_LINES
 * warning counts as dropped only. Needs a finished log.
 */
int kpgo_buildlog_count(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind, size_t *count);

/* Whether the finished log has a warning of @kind for @fn in @obj. */
bool kpgo_buildlog_has(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind, const char *obj,
		       const char *fn);

#endif
