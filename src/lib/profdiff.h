/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PROFDIFF_H
#define KPGO_PROFDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "profstat.h"

/*
 * The difference of two profiles, A and B, of the same kernel (or of two
 * builds of nearly the same source): which functions and subsystems gained
 * or lost share, what ran in one only, and one similarity figure.
 *
 * Functions are joined by object path and ident (GCC's ident is a checksum
 * of the function's name, and for a static one its file, so it survives a
 * rebuild; the checksums tell whether the function changed). Each side's
 * counts are normalised by its own sum: shares, so that a profile of a
 * longer run or of many merged machines compares with a short one.
 *
 * Similarity is the overlap of the two share distributions,
 * sum over functions of min(share in A, share in B): the part of the work
 * that both profiles put on the same functions. 1 means the same shape
 * (one profile a multiple of the other), 0 nothing in common; 1 - overlap
 * is the share of the work that would have to move to turn one profile
 * into the other (the total variation distance). Unlike a correlation it is
 * dominated neither by the single hottest function nor by the thousands of
 * cold ones: each function weighs what it weighs in the work, as it does in
 * GCC's hot/cold decisions.
 */

/**
 * struct kpgo_pdiff_fn - one function of either profile
 * @a, @b: the function in A and in B; NULL in the profile that lacks it
 * @share_a, @share_b: its shares (0 where absent)
 */
struct kpgo_pdiff_fn {
	const struct kpgo_pstat_fn *a;
	const struct kpgo_pstat_fn *b;
	double share_a;
	double share_b;
};

/**
 * struct kpgo_pdiff_group - one subsystem of either profile
 * @dir: its directory
 * @a, @b: as in A and in B; NULL in the profile without it
 * @share_a, @share_b: its shares
 */
struct kpgo_pdiff_group {
	const char *dir;
	const struct kpgo_pstat_group *a;
	const struct kpgo_pstat_group *b;
	double share_a;
	double share_b;
};

/**
 * struct kpgo_pdiff - A against B
 * @fns, @n_fns: every function of either, by object path then ident
 * @groups, @n_groups: every subsystem of either, by directory
 * @similarity: the overlap of the functions' shares, 0..1
 * @subsystem_similarity: the same over subsystems
 * @fns_both, @fns_only_a, @fns_only_b: functions with a record in both, A, B
 * @fns_changed: of @fns_both, those whose checksums differ
 * @run_both, @run_only_a, @run_only_b: functions with a count above zero
 *	in both, in A only (absent or zero in B), in B only
 * @share_run_only_a: A's share in the functions that ran in A only
 * @share_run_only_b: B's share in those that ran in B only
 * @objs_both, @objs_only_a, @objs_only_b: objects in both, in A only, in B only
 */
struct kpgo_pdiff {
	size_t n_fns;
	struct kpgo_pdiff_fn *fns;
	size_t n_groups;
	struct kpgo_pdiff_group *groups;
	double similarity;
	double subsystem_similarity;
	size_t fns_both, fns_only_a, fns_only_b, fns_changed;
	size_t run_both, run_only_a, run_only_b;
	double share_run_only_a, share_run_only_b;
	size_t objs_both, objs_only_a, objs_only_b;
};

/*
 * Compares @a and @b (both loaded with the same depth: -EINVAL otherwise;
 * they must outlive @d). Returns 0 or -ENOMEM.
 */
int kpgo_pdiff_compute(struct kpgo_pdiff *d, const struct kpgo_pstat *a, const struct kpgo_pstat *b);
void kpgo_pdiff_release(struct kpgo_pdiff *d);

/*
 * Indices into @d->fns of the functions whose share grew (@gained) or
 * shrank most, by how much, largest change first; at most @max (0: all).
 * Returns how many (the array malloc'ed in *@out, NULL for none) or -ENOMEM.
 */
ssize_t kpgo_pdiff_movers(const struct kpgo_pdiff *d, bool gained, size_t max, size_t **out);

/*
 * Indices into @d->groups by the size of their change, largest first (ties:
 * by the larger share); at most @max (0: all). As above.
 */
ssize_t kpgo_pdiff_group_movers(const struct kpgo_pdiff *d, size_t max, size_t **out);

/*
 * Indices into @d->fns of the functions that ran in A only (@in_a) or in B
 * only, hottest first; at most @max (0: all). As above.
 */
ssize_t kpgo_pdiff_run_only(const struct kpgo_pdiff *d, bool in_a, size_t max, size_t **out);

/*
 * Only the similarity of @a and @b (as &kpgo_pdiff.similarity), without
 * keeping the joined table. 0 or -ENOMEM.
 */
int kpgo_pdiff_similarity(const struct kpgo_pstat *a, const struct kpgo_pstat *b, double *sim);

#endif
