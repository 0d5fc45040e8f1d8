/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PROFILE_H
#define KPGO_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcda.h"
#include "manifest.h"
#include "util.h"

/**
 * struct kpgo_object - one object file's profile
 * @path: relative to the instrumented build root, ending in ".gcda"
 *        (e.g. "kernel/fork.gcda"); the archive stores it under "gcda/"
 * @gcda: its counters
 */
struct kpgo_object {
	char *path;
	struct kpgo_gcda gcda;
};

/**
 * struct kpgo_profile - a whole profile in memory
 * @manifest: identity and totals
 * @objs: objects; kpgo_profile_sort() orders them by path, as archives are
 */
struct kpgo_profile {
	struct kpgo_manifest manifest;
	size_t n;
	size_t alloc;
	struct kpgo_object *objs;
};

struct kpgo_totals {
	uint64_t objects;
	uint64_t functions;
	uint64_t counters;
	uint64_t sum_all;
	uint64_t max;
};

void kpgo_profile_init(struct kpgo_profile *p);
void kpgo_profile_release(struct kpgo_profile *p);
/* Takes over @path (malloc'ed) and @g (its arrays) on success only. */
int kpgo_profile_add(struct kpgo_profile *p, char *path, struct kpgo_gcda *g);
void kpgo_profile_sort(struct kpgo_profile *p);
const struct kpgo_object *kpgo_profile_find(const struct kpgo_profile *p, const char *path);
void kpgo_profile_totals(const struct kpgo_profile *p, struct kpgo_totals *t);
void kpgo_totals_add(struct kpgo_totals *t, const struct kpgo_gcda *g);

/*
 * Checks an entry name from an archive or a directory walk: a safe relative
 * path ending in ".gcda", at most 4096 bytes.
 */
bool kpgo_object_path_ok(const char *p);

/**
 * kpgo_profile_save() - write @p as a .kpgo archive, atomically
 *
 * Sorts the objects, sets the totals (OBJECTS, FUNCTIONS, COUNTERS,
 * SUM_ALL) and PAYLOAD_SHA256 in the manifest, raises SUM_MAX to at least
 * the largest counter, and writes MANIFEST then gcda/<path> entries
 * (kernel layout, no summary) to a temporary file that is renamed to
 * @path only when complete.
 */
int kpgo_profile_save(struct kpgo_profile *p, const char *path, struct kpgo_error *err);

/* Reads and verifies a whole archive. */
int kpgo_profile_load(struct kpgo_profile *p, const char *path, struct kpgo_error *err);

#endif
