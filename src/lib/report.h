/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_REPORT_H
#define KPGO_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildlog.h"
#include "manifest.h"
#include "sha256.h"
#include "stage-summary.h"
#include "strbuf.h"
#include "profstat.h"
#include "util.h"

/*
 * The report of an optimized build: how much of its profile the compiler
 * applied, and why not the rest. What GCC's report (--profile, below) and
 * Clang's (--afdo, afdo-report.h) share comes first.
 */

/**
 * struct kpgo_report_head - what both reports begin and end with
 * @release: the kernel release
 * @profile: the profile the build used, as named; @profile_sha256 its
 *	sha256
 * @headers: complete "KEY: VALUE" lines for the head, or NULL
 * @min_applied: the verdict's minimum, percent of the profile's functions
 */
struct kpgo_report_head {
	struct strbuf release;
	const char *profile;
	char profile_sha256[KPGO_SHA256_HEX];
	const struct kpgo_strlist *headers;
	unsigned min_applied;
};

void kpgo_report_head_init(struct kpgo_report_head *h);
void kpgo_report_head_release(struct kpgo_report_head *h);

/*
 * Fills @h's @release (@release, else the object tree's
 * include/config/kernel.release, else "unknown"), @profile and its
 * sha256. -errno with "cannot read 'PROFILE': ..." in @err.
 */
int kpgo_report_head_set(struct kpgo_report_head *h, const char *objtree, const char *release,
			 const char *profile, struct kpgo_error *err);

/* The verdict's minimum without one given: kpgo report's, the packages' default. */
#define KPGO_REPORT_MIN_APPLIED 50

/**
 * kpgo_report_policy_line() - what the store's freshness policy said of the
 * profile, as a head line
 * @spec: "VERDICT,AGE,BEHIND" as kpgo plan gives them (PROFILE_POLICY,
 *	PROFILE_AGE_DAYS, PROFILE_RELEASES_BEHIND): VERDICT none, ok, warn or
 *	overridden; AGE days and BEHIND releases, digits or empty (unknown)
 * @out: "profile policy: ok (3 days old, 1 releases behind; the store's
 *	policy accepted it)"; left empty for "none" (no store chose it)
 *
 * Returns 0, or -EINVAL for a @spec of another shape.
 */
int kpgo_report_policy_line(const char *spec, struct strbuf *out);

/* Printable text, no control characters: a head line, a release. */
bool kpgo_report_text_ok(const char *s);

/* @part of @whole as the reports print percentages ("99.8"). */
void kpgo_report_pct(char out[16], double part, double whole);
/* The verdict: the percentage applied, as printed, is at least the minimum. */
bool kpgo_report_pct_ok(const struct kpgo_report_head *h, const char *pct_applied);
/* The last lines of both reports: "min applied: M%" and the verdict on @pct_applied. */
int kpgo_report_verdict(const struct kpgo_report_head *h, const char *pct_applied, bool ok,
			struct strbuf *out);

/*
 * GCC's report, from the profile, the object tree and the build log's
 * profile warnings. The definitions are in the report's own text
 * (kpgo_report_format()).
 */

/**
 * struct kpgo_report_object - one object of the profile
 * @path: as in the archive ("kernel/fork.gcda")
 * @functions: its FUNCTION records
 * @sum: the sum of its arc counters (saturating)
 * @applied: its object (OBJTREE/kernel/fork.o) exists: it was compiled in
 *           the build, and GCC read the .gcda staged next to it
 */
struct kpgo_report_object {
	char *path;
	uint64_t functions;
	uint64_t sum;
	bool applied;
};

/**
 * struct kpgo_report_counts - the numbers of the report
 * @at_most: @functions - @functions_unbuilt - @dropped (never below 0)
 * @applied: @at_most - @nofunc (never below 0)
 * @pct_*: percentages as printed ("99.8"): objects applied of all,
 *         weighted by the objects' counter sums, @at_most and @applied of
 *         @functions
 * @ok: @pct_applied, as printed, is at least the minimum
 */
struct kpgo_report_counts {
	uint64_t objects;
	uint64_t objects_applied;
	uint64_t functions;
	uint64_t functions_unbuilt;
	uint64_t dropped;
	uint64_t stale;
	uint64_t at_most;
	uint64_t applied;
	uint64_t noobj;
	uint64_t nofunc;
	uint64_t other;
	double sum_all;
	double sum_applied;
	char pct_objects[16];
	char pct_weighted[16];
	char pct_at_most[16];
	char pct_applied[16];
	bool ok;
};

/**
 * struct kpgo_report - inputs and results
 *
 * The caller sets @head (kpgo_report_head_set(), and its @min_applied and
 * @headers), @stage (kpgo stage's summary, or NULL) and, through
 * kpgo_buildlog_read(), @log; kpgo_report_load_profile() fills @manifest,
 * @stat and @objs; kpgo_report_count() fills @c.
 */
struct kpgo_report {
	struct kpgo_report_head head;
	const struct kpgo_stage_summary *stage;
	struct kpgo_buildlog log;
	struct kpgo_manifest manifest;
	struct kpgo_pstat stat;
	size_t n_objs;
	size_t alloc;
	struct kpgo_report_object *objs;
	struct kpgo_report_counts c;
};

/* @objtrees as for kpgo_buildlog_init(). */
int kpgo_report_init(struct kpgo_report *r, const char *const *objtrees, size_t n);
void kpgo_report_release(struct kpgo_report *r);

/*
 * Reads and verifies the archive at @path (its whole payload, before
 * anything of it is trusted) and checks for each object whether its .o
 * exists below the directory @objtree_fd.
 */
int kpgo_report_load_profile(struct kpgo_report *r, const char *path, int objtree_fd,
			     struct kpgo_error *err);

/* Fills @r->c from the objects and the finished log. */
int kpgo_report_count(struct kpgo_report *r);

/*
 * Checks that @r->stage is the summary of staging the profile loaded:
 * -EINVAL with "it is the stage summary of another profile ..." in @err.
 */
int kpgo_report_check_stage(const struct kpgo_report *r, struct kpgo_error *err);

/* The lines from "profile objects:" to "verdict:". */
int kpgo_report_format_counts(const struct kpgo_report *r, struct strbuf *out);
/* The whole report. */
int kpgo_report_format(const struct kpgo_report *r, struct strbuf *out);

#endif
