/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_AFDO_REPORT_H
#define KPGO_AFDO_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * FILE:LINE is the line of the function's name. Both inputs are untrusted.
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
 * byte), or -ENOMEM. @t is filled only on success.
 */
int kpgo_afdo_text_parse(struct kpgo_afdo_text *t, const char *text, size_t len,
			 struct kpgo_error *err);

/* The file at @path, at most %KPGO_AFDO_TEXT_MAX bytes (-EFBIG past it). */
int kpgo_afdo_text_read(struct kpgo_afdo_text *t, const char *path, struct kpgo_error *err);

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

/**
 * struct kpgo_afdo_site - one function clang reported coverage for
 * @file, @line: its FILE:LINE
 * @object: the compiler line ("  CC      x.o") before it, counted from 1
 *	(0: none yet)
 * @ordinal: 1 for the first report of FILE:LINE in its object, 2 for the
 *	second (two functions one macro defines on one line), ...; set by
 *	kpgo_afdo_cov_log_finish()
 * @seq: its place among the reports in the log
 * @has_records, @has_samples: which of the two warnings it had
 * @records_applied, @records, @samples_applied, @samples: their N and M
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
};

/**
 * struct kpgo_afdo_cov_log - the coverage warnings of a build log
 * @sites: before kpgo_afdo_cov_log_finish() every report in the log's order,
 *	a samples warning joined to the records warning it follows (the last
 *	coverage warning before it, same FILE:LINE); after it one per
 *	(FILE, LINE, ordinal), the one with the most records applied, sorted
 * @lines: lines read
 * @cc_lines: compiler lines ("  CC" and "  CC [M]")
 * @long_lines: lines longer than %KPGO_BUILDLOG_LINE_MAX, skipped unread
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
	size_t lines;
	size_t cc_lines;
	size_t long_lines;
	size_t records_warnings;
	size_t samples_warnings;
	size_t malformed;
	size_t first_malformed;
	size_t unpaired;
	size_t repeats;
	/* parser state */
	struct strbuf line;
	bool overlong;
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
int kpgo_afdo_cov_log_read(struct kpgo_afdo_cov_log *log, const char *path,
			   struct kpgo_error *err);

/* --- the report (afdo-report.c) ------------------------------------------ */

/**
 * struct kpgo_afdo_report_counts - the numbers of the report
 * @sites: distinct (FILE, LINE, ordinal) clang reported coverage for
 * @applied: @sites, but at most the profile's functions (@capped: it was
 *	more, which only a profile and a build that do not belong together,
 *	or static functions of one name, give)
 * @not_applied: profile functions - @applied
 * @records_applied, @records: the sites' N and M of their records warnings
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
 * The caller sets the strings (which it owns; @headers hold complete
 * "KEY: VALUE" lines), @min_applied, @prof (kpgo_afdo_text_read()) and
 * @log (kpgo_afdo_cov_log_read()); kpgo_afdo_report_count() fills @c.
 */
struct kpgo_afdo_report {
	const char *release;
	const char *profile;
	const char *profile_sha256;
	const struct kpgo_strlist *headers;
	unsigned min_applied;
	struct kpgo_afdo_text prof;
	struct kpgo_afdo_cov_log log;
	struct kpgo_afdo_report_counts c;
};

void kpgo_afdo_report_init(struct kpgo_afdo_report *r);
void kpgo_afdo_report_release(struct kpgo_afdo_report *r);
/* Fills @r->c from @r->prof and the finished @r->log. */
void kpgo_afdo_report_count(struct kpgo_afdo_report *r);
/* The lines from "compiler lines in the build log" to "verdict:". */
int kpgo_afdo_report_format_counts(const struct kpgo_afdo_report *r, struct strbuf *out);
/* The whole report: head, definitions, counts. */
int kpgo_afdo_report_format(const struct kpgo_afdo_report *r, struct strbuf *out);

#endif
