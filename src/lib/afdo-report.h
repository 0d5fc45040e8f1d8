/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_AFDO_REPORT_H
#define KPGO_AFDO_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afdo.h"
#include "lines.h"
#include "report.h"
#include "strbuf.h"
#include "util.h"

/*
 * The report of a Clang build with a sample profile (-fprofile-sample-use):
 * how much of the profile clang applied, from the profile's text and the
 * coverage warnings clang 16 gives, with
 *	-mllvm -sample-profile-check-record-coverage=101
 *	-mllvm -sample-profile-check-sample-coverage=101,
 * for every function it compiled and found in the profile:
 *	warning: FILE:LINE: N of M available profile records (P%) were applied [-Wbackend-plugin]
 *	warning: FILE:LINE: N of M available profile samples (P%) were applied [-Wbackend-plugin]
 * FILE:LINE is the line of the function's name. The log names no function:
 * with kpgo afdo's definitions table (afdo.h) each FILE:LINE is told apart
 * as the profile's definition, a weak one, or a definition outside the
 * profile that took a profile by name. All inputs are untrusted.
 */

/* --- the sample profile (afdo-text.c) ----------------------------------- */

/*
 * A profile larger than this is refused: kpgo afdo writes a few MiB for a
 * whole kernel.
 */
#define KPGO_AFDO_TEXT_MAX (256u << 20)

/**
 * struct kpgo_afdo_text - what an LLVM sample profile in the text format holds
 * @lines: lines read
 * @functions: top-level functions (head lines "NAME:TOTAL:HEAD")
 * @records: their body records (" OFFSET[.DISC]: COUNT [TARGET:COUNT]..."
 *	lines directly under a head)
 * @samples: the sum of those records' counts (saturating); LLVM's
 *	"available samples" of a function without inlined callsites
 * @zero_total: functions whose TOTAL is 0: Clang's sample loader skips
 *	them, so they never report coverage
 * @inlined_lines: lines of inlined callsites (" OFFSET: CALLEE:TOTAL" and
 *	the deeper-indented lines below it): checked, not counted
 */
struct kpgo_afdo_text {
	size_t lines;
	uint64_t functions;
	uint64_t records;
	uint64_t samples;
	uint64_t zero_total;
	uint64_t inlined_lines;
};

/**
 * kpgo_afdo_text_parse() - check and count a text sample profile
 * @text, @len: the whole profile (need not end in a newline)
 *
 * The grammar is LLVM 16's (SampleProfileReaderText), stricter where
 * LLVM's parser only works by accident: names without blanks or control
 * characters, single ": " separators, no trailing blanks, no metadata
 * ("!CFGChecksum") lines. Empty lines and '#' comments are skipped, as
 * LLVM does. A name given twice is refused (LLVM would keep only one of
 * them), and so is a profile without functions.
 *
 * Returns 0, or -EINVAL with "line N: what" in @err (-EBADMSG for a NUL
 * byte), or -ENOMEM. @t is filled, and the functions' names are added to
 * @names (when not NULL) in byte order, only on success.
 */
int kpgo_afdo_text_parse(struct kpgo_afdo_text *t, const char *text, size_t len,
			 struct kpgo_strlist *names, struct kpgo_error *err);

/* The file at @path, at most %KPGO_AFDO_TEXT_MAX bytes (-EFBIG past it). */
int kpgo_afdo_text_read(struct kpgo_afdo_text *t, const char *path, struct kpgo_strlist *names,
			struct kpgo_error *err);

/* --- kpgo afdo's definitions table (afdo-defs.c) ------------------------- */

/* A table larger than this is refused: a whole kernel's is a few MiB at most. */
#define KPGO_AFDO_DEFS_MAX (64u << 20)

enum kpgo_afdo_role {
	KPGO_AFDO_ROLE_PROFILE,
	KPGO_AFDO_ROLE_WEAK,
	KPGO_AFDO_ROLE_LEFT_OUT,
	KPGO_AFDO_ROLES
};

/* "profile", "weak", "left-out": the role as the table writes it. */
const char *kpgo_afdo_role_name(enum kpgo_afdo_role role);

/**
 * struct kpgo_afdo_def - one line of the table
 * @name, @role, @source, @line: its fields; @source with "." components
 *	and "dir/.." pairs removed (kpgo_afdo_source_key() without a
 *	directory), as clang's file names are read
 * @lineno: its line in the table
 */
struct kpgo_afdo_def {
	const char *name;
	const char *source;
	uint32_t line;
	enum kpgo_afdo_role role;
	size_t lineno;
};

/**
 * struct kpgo_afdo_defs - a definitions table
 * @defs, @n: its lines, in order of (source, line, role, name)
 * @lines: lines read
 * @roles: lines of each role
 * @text: the table's bytes, which the fields point into
 */
struct kpgo_afdo_defs {
	struct kpgo_afdo_def *defs;
	size_t n;
	size_t alloc;
	size_t lines;
	size_t roles[KPGO_AFDO_ROLES];
	struct strbuf text;
};

void kpgo_afdo_defs_init(struct kpgo_afdo_defs *d);
void kpgo_afdo_defs_release(struct kpgo_afdo_defs *d);

/**
 * kpgo_afdo_defs_parse() - read a definitions table
 * @text, @len: the whole table (need not end in a newline)
 *
 * The first line is %KPGO_AFDO_DEFS_HEAD; then lines starting with '#'
 * are skipped, every other one is NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE:
 * NAME without blanks or control characters, ROLE "profile", "weak" or
 * "left-out", SOURCE not empty and without control characters, LINE from
 * 1 to 2^32-1 without leading zeros. One name at one place twice, or a
 * name with two "profile" lines, is refused (the earliest repeat is
 * reported). A table of no definitions parses; kpgo_afdo_defs_check()
 * then refuses it for any profile.
 *
 * Returns 0, or -EINVAL with "line N: what" in @err (-EBADMSG for a NUL
 * byte), or -ENOMEM. @d is released first, and again on failure.
 */
int kpgo_afdo_defs_parse(struct kpgo_afdo_defs *d, const char *text, size_t len,
			 struct kpgo_error *err);

/* The file at @path, at most %KPGO_AFDO_DEFS_MAX bytes (-EFBIG past it). */
int kpgo_afdo_defs_read(struct kpgo_afdo_defs *d, const char *path, struct kpgo_error *err);

/**
 * kpgo_afdo_defs_check() - does the table belong to the profile?
 * @names: the profile's function names, in byte order
 *	(kpgo_afdo_text_parse())
 *
 * kpgo afdo writes the table with the profile, so the two name the same
 * functions: every "profile" and "weak" line's name is in the profile, no
 * "left-out" line's is, and every profile function has its "profile"
 * line. Returns 0, or -EINVAL with "line N: what" (the earliest line that
 * does not fit) or "it has no 'profile' line for the profile's function
 * 'NAME'", or -ENOMEM.
 */
int kpgo_afdo_defs_check(const struct kpgo_afdo_defs *d, const struct kpgo_strlist *names,
			 struct kpgo_error *err);

/*
 * How many definitions of each role the table has at @source (as
 * normalized in the table) and @line: @count[ROLE].
 */
void kpgo_afdo_defs_at(const struct kpgo_afdo_defs *d, const char *source, uint32_t line,
		       size_t count[KPGO_AFDO_ROLES]);

/* --- clang's coverage warnings (afdo-cov.c) ------------------------------ */

enum kpgo_afdo_cov_kind {
	KPGO_AFDO_COV_RECORDS,
	KPGO_AFDO_COV_SAMPLES,
};

/**
 * struct kpgo_afdo_cov - one coverage warning, as read from its line
 * @file, @file_len: FILE, pointing into the line
 * @line: LINE, at least 1
 * @applied, @available: N and M; N <= M, and for records M fits 32 bits
 *	(clang counts them in an unsigned)
 *
 * The percentage is not kept: clang computes it in 32 bits, where large
 * sample counts wrap.
 */
struct kpgo_afdo_cov {
	enum kpgo_afdo_cov_kind kind;
	const char *file;
	size_t file_len;
	uint32_t line;
	uint64_t applied;
	uint64_t available;
};

/*
 * Reads one log line (without its newline). Returns 1 for a coverage
 * warning (in @c), 0 for any other line, -EINVAL for a line that starts
 * like one ("warning: " and "available profile records (" or "... samples
 * (") but is malformed: a bad number, N > M, LINE 0, control characters.
 * The " [-Wbackend-plugin]" at the end is optional.
 */
int kpgo_afdo_cov_parse(const char *s, size_t len, struct kpgo_afdo_cov *c);

enum kpgo_afdo_site_kind {
	KPGO_AFDO_SITE_PROFILE,
	KPGO_AFDO_SITE_WEAK,
	KPGO_AFDO_SITE_OUTSIDE,
};

/**
 * struct kpgo_afdo_site - one function clang reported coverage for
 * @file, @line: its FILE:LINE, FILE with "." components and "dir/.." pairs
 *	removed (clang names a header "./lib.h" or "lib/../lib.h" as it was
 *	included)
 * @object: the compiler line ("  CC      x.o") before it, counted from 1
 *	(0: none yet)
 * @ordinal: 1 for the first report of FILE:LINE in its object, 2 for the
 *	second (two functions one macro defines on one line), ...; set by
 *	kpgo_afdo_cov_log_finish()
 * @seq: its place among the reports in the log
 * @has_records, @has_samples: which of the two warnings it had
 * @records_applied, @records, @samples_applied, @samples: their N and M
 * @kind: what it is; set by kpgo_afdo_report_count(): without a
 *	definitions table every site is taken as a profile function's
 */
struct kpgo_afdo_site {
	char *file;
	uint32_t line;
	uint32_t ordinal;
	size_t object;
	size_t seq;
	bool has_records;
	bool has_samples;
	uint64_t records_applied;
	uint64_t records;
	uint64_t samples_applied;
	uint64_t samples;
	enum kpgo_afdo_site_kind kind;
};

/**
 * struct kpgo_afdo_cov_log - the coverage warnings of a build log
 * @sites: before kpgo_afdo_cov_log_finish() every report in the log's order,
 *	a samples warning joined to the records warning it follows (the last
 *	coverage warning before it, same FILE:LINE); after it one per
 *	(FILE, LINE, ordinal), the one with the most records applied, sorted
 * @in: the lines: @in.lines read, @in.long_lines longer than
 *	%KPGO_BUILDLOG_LINE_MAX and skipped unread
 * @cc_lines: compiler lines ("  CC" and "  CC [M]")
 * @records_warnings, @samples_warnings: coverage warnings read
 * @malformed: lines that start like a coverage warning but are not one,
 *	skipped; @first_malformed the line number of the first
 * @unpaired: reports with only one of the two warnings (set by finish)
 * @repeats: reports of a FILE:LINE already reported in another object (a
 *	header's inline function), merged (set by finish)
 */
struct kpgo_afdo_cov_log {
	size_t n;
	size_t alloc;
	struct kpgo_afdo_site *sites;
	struct kpgo_lines in;
	size_t cc_lines;
	size_t records_warnings;
	size_t samples_warnings;
	size_t malformed;
	size_t first_malformed;
	size_t unpaired;
	size_t repeats;
	/* parser state */
	struct strbuf file;
	size_t pending;
};

void kpgo_afdo_cov_log_init(struct kpgo_afdo_cov_log *log);
void kpgo_afdo_cov_log_release(struct kpgo_afdo_cov_log *log);
/*
 * Parses @len more bytes of the log, cut anywhere. A NUL byte fails with
 * -EBADMSG ("not a text file").
 */
int kpgo_afdo_cov_log_feed(struct kpgo_afdo_cov_log *log, const void *data, size_t len,
			   struct kpgo_error *err);
/* The last line (without a newline), then merges the repeats. */
int kpgo_afdo_cov_log_finish(struct kpgo_afdo_cov_log *log, struct kpgo_error *err);
/* Feeds the whole file at @path and finishes. */
int kpgo_afdo_cov_log_read(struct kpgo_afdo_cov_log *log, const char *path, struct kpgo_error *err);

/* --- the report (afdo-report.c) ------------------------------------------ */

/**
 * struct kpgo_afdo_report_counts - the numbers of the report
 * @sites: distinct (FILE, LINE, ordinal) clang reported coverage for
 * @applied: without a definitions table @sites, but at most the profile's
 *	functions (@capped: it was more, which only a profile and a build
 *	that do not belong together, or static functions of one name, give);
 *	with one the sites at a "profile" definition
 * @weak_sites: with a table, sites at a "weak" definition
 * @outside_sites: with a table, sites at no definition of the profile's
 *	names: another function of a profile function's name
 * @not_applied: profile functions - @applied
 * @records_applied, @records: the applied sites' N and M of their records
 *	warnings
 * @samples_applied, @samples: the same of their samples warnings
 * @pct_*: percentages as printed ("85.5"): @applied of the profile's
 *	functions, records and samples applied of the applied functions'
 *	(@pct_records, @pct_samples) and of the whole profile's
 *	(@pct_records_all, @pct_samples_all)
 * @ok: @pct_applied, as printed, is at least the minimum
 */
struct kpgo_afdo_report_counts {
	uint64_t sites;
	uint64_t applied;
	bool capped;
	uint64_t weak_sites;
	uint64_t outside_sites;
	uint64_t not_applied;
	uint64_t records_applied;
	uint64_t records;
	uint64_t samples_applied;
	uint64_t samples;
	char pct_applied[16];
	char pct_records[16];
	char pct_records_all[16];
	char pct_samples[16];
	char pct_samples_all[16];
	bool ok;
};

/**
 * struct kpgo_afdo_report - inputs and results
 *
 * The caller sets @head (kpgo_report_head_set(), and its @min_applied and
 * @headers), @prof (kpgo_afdo_text_read()) and @log
 * (kpgo_afdo_cov_log_read()), for a definitions table @defs_file and
 * @defs (kpgo_afdo_defs_read(), checked against @prof's names), and for
 * kpgo afdo's summary @summary (kpgo_afdo_summary_read(), checked with
 * kpgo_afdo_report_check_summary()); kpgo_afdo_report_count() fills @c and
 * the sites' kinds.
 */
struct kpgo_afdo_report {
	struct kpgo_report_head head;
	const char *defs_file;
	const struct kpgo_afdo_summary *summary;
	struct kpgo_afdo_text prof;
	struct kpgo_afdo_defs defs;
	struct kpgo_afdo_cov_log log;
	struct kpgo_afdo_report_counts c;
};

/* Sites outside the profile listed in the report; the rest are counted. */
#define KPGO_AFDO_REPORT_OUTSIDE_LIST 20

void kpgo_afdo_report_init(struct kpgo_afdo_report *r);
void kpgo_afdo_report_release(struct kpgo_afdo_report *r);
/* Fills @r->c from @r->prof and the finished @r->log. */
void kpgo_afdo_report_count(struct kpgo_afdo_report *r);
/*
 * Checks that @r->summary is kpgo afdo's summary of the sample profile
 * @r->head.profile (by its sha256): -EINVAL with "it is the summary of
 * another sample profile ..." in @err.
 */
int kpgo_afdo_report_check_summary(const struct kpgo_afdo_report *r, struct kpgo_error *err);
/* The lines from "compiler lines in the build log" to "verdict:". */
int kpgo_afdo_report_format_counts(const struct kpgo_afdo_report *r, struct strbuf *out);
/* The whole report: head (with kpgo afdo's summary lines), definitions, counts. */
int kpgo_afdo_report_format(const struct kpgo_afdo_report *r, struct strbuf *out);

#endif
