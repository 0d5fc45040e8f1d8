/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_COLLECT_H
#define KPGO_COLLECT_H

#include <stdbool.h>

#include "profile.h"

struct kpgo_collect_stats {
	size_t files;	    /* .gcda files read */
	size_t vanished;    /* gone between listing and reading (module unload) */
	size_t outside;	    /* dropped: outside the build root */
	uint64_t raw_bytes; /* bytes read */
};

/**
 * kpgo_collect_dir() - read every .gcda below @dir into @p
 *
 * @dir mirrors /sys/kernel/debug/gcov: object paths below it are the
 * absolute paths of the instrumented build's objects. Each file is read
 * with read() to EOF (debugfs reports size 0), opened without following
 * symbolic links (the .gcno entries are links into the build tree), and
 * validated. A file or directory that vanishes meanwhile is counted, not an
 * error. Object paths in @p are relative to @dir.
 */
int kpgo_collect_dir(const char *dir, struct kpgo_profile *p, struct kpgo_collect_stats *st,
		     struct kpgo_error *err);

/**
 * kpgo_collect_set_root() - find the build root and make paths relative to it
 * @root_override: a directory below @dir's mirror ("/build/linux"), or NULL
 * @root: set to the absolute root, e.g. "/build/linux" (caller frees)
 *
 * Without an override the root is the directory holding init/main.gcda
 * (every kernel has init/main.o), else the deepest directory common to all
 * objects. Objects outside the root are dropped and counted in @st.
 */
int kpgo_collect_set_root(struct kpgo_profile *p, const char *root_override, char **root,
			  struct kpgo_collect_stats *st, struct kpgo_error *err);

/**
 * struct kpgo_collect_request - what kpgo_collect_profile() reads, and how
 * it names it
 * @gcov_dir: laid out like /sys/kernel/debug/gcov
 * @workload: the label of what ran ([A-Za-z0-9._-], 1-64)
 * @build_root: the instrumented build's root, NULL to find it
 * @release, @build_id: NULL for the running kernel's when @live, else none
 * @live: @gcov_dir is the running kernel's: its identity and collection
 *	window go into the manifest
 */
struct kpgo_collect_request {
	const char *gcov_dir;
	const char *workload;
	const char *build_root;
	const char *release;
	const char *build_id;
	bool live;
};

/*
 * Checks @rq's label and ids, which come from the command line or the
 * settings: -EINVAL with "bad workload label 'x' (...)" and the like.
 */
int kpgo_collect_request_check(const struct kpgo_collect_request *rq, struct kpgo_error *err);

/**
 * kpgo_collect_profile() - a gcov directory as a profile with its manifest
 * @p: initialised here; released again on failure
 *
 * kpgo_collect_dir() and kpgo_collect_set_root(), then the manifest: the
 * kernel's identity, the host, the workload, the collection window (from
 * the last reset or boot to now, for the running kernel), the compiler of
 * the gcda version. Objects outside the build root are counted in @st.
 * Returns 0 or a negative errno with @err set; -ENOENT when there is no
 * .gcda file at all.
 */
int kpgo_collect_profile(const struct kpgo_collect_request *rq, struct kpgo_profile *p,
			 struct kpgo_collect_stats *st, struct kpgo_error *err);

#endif
