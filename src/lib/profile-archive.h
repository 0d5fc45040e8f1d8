/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PROFILE_ARCHIVE_H
#define KPGO_PROFILE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "gcda.h"
#include "manifest.h"
#include "util.h"

/*
 * Reading .kpgo archives (tar + zstd): MANIFEST first, then gcda/<path>
 * entries in strictly increasing byte order of their names. Everything in
 * an archive is untrusted: only regular files with clean relative names are
 * accepted, sizes and counts are bounded (the caps below and in gcda.h,
 * the manifest's totals checked as they are reached), a zstd stream may
 * not use a window larger than the writer's, and the payload is checked
 * against the manifest at the end. Nothing is ever written to disk here.
 */
#define KPGO_ARCHIVE_ENTRY_MAX (16u << 20)
#define KPGO_ARCHIVE_ENTRIES_MAX 200000u
#define KPGO_ARCHIVE_TOTAL_MAX (4ull << 30)
/*
 * Arc counters of a whole profile (the caps of one object are in gcda.h).
 * Debian's 6.1 amd64 kernel has about 4.5 million (docs/BENCHMARKS.md);
 * readers refuse more, and writers never write more.
 */
#define KPGO_PROFILE_MAX_COUNTERS (1ull << 25)
/*
 * The zstd window the writer uses, and the largest a reader accepts: each
 * open input of a merge holds one window.
 */
#define KPGO_ZSTD_WINDOW_LOG 17

_Static_assert(KPGO_GCDA_MAX_BYTES <= KPGO_ARCHIVE_ENTRY_MAX,
	       "an object within the caps fits an archive entry");

struct kpgo_archive;

int kpgo_archive_open(struct kpgo_archive **ap, const char *path, struct kpgo_error *err);
/* Same over a buffer that must outlive the handle (fuzzing, tests). */
int kpgo_archive_open_memory(struct kpgo_archive **ap, const void *buf, size_t len,
			     struct kpgo_error *err);
const struct kpgo_manifest *kpgo_archive_manifest(const struct kpgo_archive *a);

/**
 * kpgo_archive_next() - the next object
 * @path: set to the object's path (without "gcda/"), valid until the next call
 * @gcda: set to its parsed counters, valid until the next call; the caller
 *        may take the arrays (then it must kpgo_gcda_init() it)
 *
 * Returns 1 for an object, 0 at the end once the payload has been checked
 * against the manifest (hash, totals, compiler), or a negative errno. A
 * caller must not act on the objects it was handed until it got 0.
 */
int kpgo_archive_next(struct kpgo_archive *a, const char **path, struct kpgo_gcda **gcda,
		      struct kpgo_error *err);

/**
 * kpgo_archive_peek() - the next object's path, without reading the object
 * @path: set to the path the next kpgo_archive_next() will return, valid
 *        until then; not checked yet (kpgo_archive_next() checks it), so
 *        only fit for ordering
 *
 * Reads only the next entry's header, so that a reader of many archives
 * holds no object of those it is not reading. Releases the object the
 * previous kpgo_archive_next() handed out. Returns 1, 0 at the end once
 * the payload has been checked, or a negative errno.
 */
int kpgo_archive_peek(struct kpgo_archive *a, const char **path, struct kpgo_error *err);

/*
 * Makes @a read entries' bytes into @buf, which several archives can share
 * when they are read one at a time (a merge); @buf must outlive @a.
 */
void kpgo_archive_share_buffer(struct kpgo_archive *a, struct strbuf *buf);
void kpgo_archive_close(struct kpgo_archive *a);

/* Hashing of the payload, shared by reader and writer. */
struct kpgo_sha256;
void kpgo_payload_hash_entry(struct kpgo_sha256 *h, const char *name, const void *data, size_t len);

#endif
