/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_COLLECT_H
#define KPGO_COLLECT_H

#include "profile.h"

struct kpgo_collect_stats {
	size_t files;	   /* .gcda files read */
	size_t vanished;   /* gone between listing and reading (module unload) */
	size_t outside;	   /* dropped: outside the build root */
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

#endif
