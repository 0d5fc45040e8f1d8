/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STAGE_SUMMARY_H
#define KPGO_STAGE_SUMMARY_H

#include <stdint.h>

#include "sha256.h"
#include "stage.h"
#include "strbuf.h"
#include "util.h"

/*
 * What kpgo stage did, as data: its --json and --summary document, which
 * kpgo report --stage-summary reads back, and the text of its --report
 * (which the report includes).
 */

/**
 * struct kpgo_stage_summary - a staging's summary
 * @profile: the archive staged, as it was named
 * @payload_sha256: its PAYLOAD_SHA256
 * @staged, @runs, @sum_max, @scale, @missing, @unprofiled, @removed: as in
 *	struct kpgo_stage_result
 */
struct kpgo_stage_summary {
	char *profile;
	char payload_sha256[KPGO_SHA256_HEX];
	uint64_t staged;
	uint64_t runs;
	uint64_t sum_max;
	uint64_t scale;
	struct kpgo_strlist missing;
	struct kpgo_strlist unprofiled;
	struct kpgo_strlist removed;
};

void kpgo_stage_summary_init(struct kpgo_stage_summary *s);
void kpgo_stage_summary_release(struct kpgo_stage_summary *s);

/*
 * The summary of staging @profile (whose manifest gives @payload_sha256):
 * @res's counts and lists, which are moved here (@res's lists are left
 * empty).
 */
int kpgo_stage_summary_take(struct kpgo_stage_summary *s, const char *profile,
			    const char *payload_sha256, struct kpgo_stage_result *res);

/* The summary as a JSON document. */
int kpgo_stage_summary_json(const struct kpgo_stage_summary *s, struct strbuf *out);

/*
 * Reads a summary back from its JSON (untrusted: every member checked,
 * text without control characters), at most 64 MiB. -EINVAL with what is
 * wrong in @err; @s is released first.
 */
int kpgo_stage_summary_parse(struct kpgo_stage_summary *s, const char *text, size_t len,
			     struct kpgo_error *err);
int kpgo_stage_summary_read(struct kpgo_stage_summary *s, const char *path, struct kpgo_error *err);

/*
 * The three lists as kpgo stage prints them: "TITLE: N", then at most
 * @max items ("  ITEM"), then "  ... N more (see --report or -v)".
 */
int kpgo_stage_summary_lists(const struct kpgo_stage_summary *s, size_t max, struct strbuf *out);

/* kpgo stage --report's text: the profile, its checksum, the count staged and the lists whole. */
int kpgo_stage_summary_report(const struct kpgo_stage_summary *s, struct strbuf *out);

#endif
