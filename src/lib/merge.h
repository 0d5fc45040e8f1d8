/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_MERGE_H
#define KPGO_MERGE_H

#include "profile.h"

/*
 * Inputs a merge reads at once. Each open input costs a zstd decoder with
 * its window plus libarchive's buffers, about 0.9 MB of heap; more inputs
 * than this are merged in rounds, which bounds the merge's memory however
 * many inputs it has.
 */
#define KPGO_MERGE_OPEN_MAX 32

/**
 * struct kpgo_merge_opts - how to merge
 * @weights: one per input (NULL: all 1); counters are multiplied by them
 * @allow_mismatch: accept inputs from different compilers or kernel builds
 * @open_max: inputs read at once (0: %KPGO_MERGE_OPEN_MAX); the result is
 *            the same whatever it is
 * @set: KEY, VALUE, ..., NULL: further manifest entries of the result
 *       (e.g. the store's MERGE_INPUTS), or NULL
 * @sums: one per input, or NULL: the sum of the input's counters as the
 *        caller counted it (the store, not the manifest's SUM_ALL)
 * @cap: with @sums, the most any input may contribute: an input whose sum
 *       is above it has its counters and SUM_MAX scaled by @cap / sum
 *       (rounded down) before its weight applies, so that no input, however
 *       large its counts, outweighs the others; 0 for none
 */
struct kpgo_merge_opts {
	const uint64_t *weights;
	const uint64_t *sums;
	uint64_t cap;
	bool allow_mismatch;
	size_t open_max;
	const char *const *set;
};

struct kpgo_merge_stats {
	uint64_t mismatched_functions; /* dropped: checksums differ from the first input's */
	uint64_t objects;
};

/**
 * kpgo_merge_files() - merge profile archives into @out in one streaming pass
 *
 * Opens all inputs at once and walks their objects in name order, like a
 * merge join, so only the current object of each input is in memory; each
 * merged object goes to a &struct kpgo_profile_writer as soon as it is
 * complete, and @out is written (atomically) once every input has been
 * read to its end and checked. Counters are added as GCC's gcov-tool does: w1*a + w2*b, per
 * function matched by ident (saturating instead of wrapping on overflow).
 * An object or function that only some inputs have is kept, scaled by its
 * input's weight. A function whose checksums or counter count differ from
 * the version already merged (the first input that had it) is an error,
 * or with @allow_mismatch is left out of the sum and counted.
 * RUNS and SUM_MAX of the result are the weighted sums of the inputs' (as
 * GCC's runtime sums sum_max over runs).
 */
int kpgo_merge_files(const char *const *inputs, size_t n, const struct kpgo_merge_opts *o,
		     const char *out, struct kpgo_merge_stats *st, struct kpgo_error *err);

/*
 * Adds @src times @w into @acc (function by function, matched by ident).
 * @acc empty (no version) takes a scaled copy. Returns the number of
 * functions left out for mismatching checksums, or a negative errno.
 */
long kpgo_gcda_merge(struct kpgo_gcda *acc, const struct kpgo_gcda *src, uint64_t w);

#endif
