/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STAGE_H
#define KPGO_STAGE_H

#include "profile.h"

/**
 * struct kpgo_stage_opts - where a profile goes
 * @objtree: the optimized build's object tree (where `make` runs and the
 *           .o files appear); required unless @profile_dir is given
 * @profile_dir: write GCC's mangled names for -fprofile-use=DIR here
 *               instead of <objtree>/<obj>.gcda
 * @srctree: the source tree, to tell which profiled objects have no source
 *           (default @objtree)
 */
struct kpgo_stage_opts {
	const char *objtree;
	const char *profile_dir;
	const char *srctree;
};

/**
 * struct kpgo_stage_result - what staging did and found
 * @staged: files written
 * @scale: counters and runs were divided by this to fit GCC's 32-bit
 *         sum_max (1: not scaled)
 * @runs, @sum_max: the summary written into every file
 * @missing: profiled objects whose source (.c) and object (.o) are both
 *           absent from the trees (empty when no tree was given)
 * @unprofiled: C objects (.o with a .c source) in @objtree without profile
 * @removed: stale .gcda files removed (an earlier staging's leftovers)
 */
struct kpgo_stage_result {
	size_t staged;
	uint64_t scale;
	uint32_t runs;
	uint32_t sum_max;
	struct kpgo_strlist missing;
	struct kpgo_strlist unprofiled;
	struct kpgo_strlist removed;
};

void kpgo_stage_result_release(struct kpgo_stage_result *r);

/*
 * GCC's name for DIR/<mangled>.gcda: the absolute object path without
 * ".o", '/' turned into '#' and a ".." component into '^'
 * (gcc/coverage.cc, coverage_init, GCC >= 9).
 */
int kpgo_mangle_path(const char *abs_obj_base, struct strbuf *out);

/**
 * kpgo_stage() - write @p's objects where GCC's -fprofile-use reads them
 *
 * Every file gets the OBJECT_SUMMARY GCC's own runtime would have written
 * for the whole program: runs = RUNS and sum_max = SUM_MAX of the
 * manifest, the same in every object. The kernel's own files have no
 * summary, and without one GCC optimises quite differently (see
 * docs/gcov-summary.md). Files are written atomically (unnamed until
 * complete) but not fsync'ed (a build a crash interrupts stages again),
 * never through a symbolic link; on failure the files already written are
 * removed.
 * *.gcda files in the target that the profile does not have are removed.
 */
int kpgo_stage(const struct kpgo_profile *p, const struct kpgo_stage_opts *o,
	       struct kpgo_stage_result *res, struct kpgo_error *err);

/**
 * kpgo_stage_file() - kpgo_stage() of an archive, streamed
 * @m: set to the archive's manifest on success (kpgo_manifest_release())
 *
 * Reads @file twice, one object at a time: once to check all of it (the
 * reader's caps and the payload against the manifest) before anything is
 * written, then to write. Memory does not grow with the profile's counters,
 * only with its number of objects (their names). Every written file is
 * removed again when anything fails, including a second pass that does not
 * read as the first did.
 */
int kpgo_stage_file(const char *file, const struct kpgo_stage_opts *o, struct kpgo_manifest *m,
		    struct kpgo_stage_result *res, struct kpgo_error *err);

/*
 * The summary staged from the manifest's RUNS and SUM_MAX: @scale divides
 * counters, runs and sum_max so that sum_max fits GCC's 32 bits, each
 * rounded up (for any 64-bit input, without overflow).
 */
void kpgo_stage_summary_of(uint64_t runs, uint64_t sum_max, uint64_t *scale, uint32_t *runs32,
			   uint32_t *sum_max32);

#endif
