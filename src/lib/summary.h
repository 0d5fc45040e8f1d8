/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_SUMMARY_H
#define KPGO_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "gcda.h"
#include "manifest.h"
#include "profile.h"
#include "strbuf.h"

/**
 * struct kpgo_hot - one of the hottest objects or functions
 * @path: the object's path (".gcda")
 * @ident, @lineno_checksum: the function's (0 for an object)
 * @count: sum of its arc counters
 */
struct kpgo_hot {
	char *path;
	uint32_t ident;
	uint32_t lineno_checksum;
	uint64_t count;
};

/**
 * struct kpgo_summary - what `kpgo info` shows of a profile, gathered while
 * its objects stream past
 * @top: how many of the hottest objects and functions to keep
 * @totals: of every object added
 * @objs, @n_objs: the hottest objects, descending by count
 * @fns, @n_fns: the hottest functions, descending by count
 *
 * Only counts above zero make the lists; a tie keeps the one added first.
 */
struct kpgo_summary {
	size_t top;
	struct kpgo_totals totals;
	size_t n_objs;
	size_t n_fns;
	struct kpgo_hot *objs;
	struct kpgo_hot *fns;
};

int kpgo_summary_init(struct kpgo_summary *s, size_t top);
void kpgo_summary_release(struct kpgo_summary *s);
/* Adds object @path's counters to the totals and the lists. */
int kpgo_summary_add(struct kpgo_summary *s, const char *path, const struct kpgo_gcda *g);

/*
 * Appends the text `kpgo info FILE` prints: "file: @file", the manifest, the
 * totals and the hottest objects and functions.
 */
int kpgo_summary_format(const struct kpgo_summary *s, const char *file,
			const struct kpgo_manifest *m, struct strbuf *out);

#endif
