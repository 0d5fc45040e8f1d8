/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STORE_INTERNAL_H
#define KPGO_STORE_INTERNAL_H

/*
 * What the files of the store share, and nothing else includes:
 *
 *   store.c          the directory (open, create, lock, tmp/ files) and add
 *   store-index.c    index entries, the index file: parse, format, write, update
 *   store-select.c   kernel release order and series, lookup and select
 *   store-verify.c   checking archives and objects, verify (--repair) and gc
 *   store-ingest.c   ingest: a drop directory into the store, merges per kernel build
 *   store-weights.c  ingest's weights file
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "manifest.h"
#include "store.h"

#define OBJ_NAME_LEN (KPGO_SHA256_HEX - 1 + 5) /* "<sha>.kpgo" */

/* --- store.c: the directory ------------------------------------------------ */

/*
 * Opens the store; with @create makes it first (a writer that has
 * something to write). Without, a directory that has no objects/ is not a
 * store and -ENOENT.
 */
int kpgo_store_open(struct kpgo_store *s, bool create, struct kpgo_error *err);
/* Writers lock exclusively; verify without --repair shares. */
int kpgo_store_lock(struct kpgo_store *s, bool exclusive, struct kpgo_error *err);
void kpgo_store_unlock(struct kpgo_store *s);
/* A new file in tmp/: "<what>.<pid>.<n>.tmp"; its name into @name. */
int kpgo_store_tmp_create(struct kpgo_store *s, const char *what, unsigned mode, char *name,
			  size_t len);

/* --- store-index.c: entries and the index ----------------------------------- */

/* @c is a lowercase hex digit. */
bool kpgo_store_hex_lower(char c);
/* @s is 64 lowercase hex digits. */
bool kpgo_store_sha_ok(const char *s);

/* Fills the manifest's fields; @e->added is left to kpgo_store_entry_set_added(). */
int kpgo_store_entry_from_manifest(struct kpgo_store_entry *e, const char *sha,
				   const struct kpgo_manifest *m);
/* @e->added from @st's mtime. */
int kpgo_store_entry_set_added(struct kpgo_store_entry *e, const struct stat *st);
/* The manifest's fields agree (the added time is the object's mtime). */
bool kpgo_store_entry_same(struct kpgo_store_entry *a, struct kpgo_store_entry *b);

/* Takes over @e's strings (and clears @e) on success only. */
int kpgo_store_index_push(struct kpgo_store_index *idx, struct kpgo_store_entry *e);
/* The entry of @sha in @idx, which must be sorted by sha; NULL when none. */
struct kpgo_store_entry *kpgo_store_index_find(struct kpgo_store_index *idx, const char *sha);
/*
 * Parses index text (NUL-terminated, modified in place) into @idx, sorted
 * by sha: lines of eleven tab-separated fields, '#' comments and
 * empty lines skipped. A bad or repeated line fails the parse (-EBADMSG),
 * or with @bad is described there and skipped. On failure @idx may hold
 * entries: the caller releases it.
 */
int kpgo_store_index_parse(char *text, struct kpgo_store_index *idx, struct kpgo_strlist *bad,
			   struct kpgo_error *err);
/* The index text of @idx (in its order), as kpgo_store_index_parse() reads it. */
int kpgo_store_index_format(const struct kpgo_store_index *idx, struct strbuf *out);
/* Sorts @idx by sha and replaces DIR/index with it (needs the lock). */
int kpgo_store_index_write(struct kpgo_store *s, struct kpgo_store_index *idx,
			   struct kpgo_error *err);
/*
 * The index as written, sorted by sha; a missing index is an empty one.
 * Bad and repeated lines fail the load, or with @bad are described there
 * and skipped.
 */
int kpgo_store_index_load(struct kpgo_store *s, struct kpgo_store_index *idx,
			  struct kpgo_strlist *bad, struct kpgo_error *err);
/*
 * The index update every writer does under the lock: the index as it is,
 * less lines whose object is gone, plus every object it lacks (those of
 * this add in @fresh, already verified, and any an interrupted add left,
 * verified now; bad ones are left to verify to report). Writes it when
 * @write and something changed.
 */
int kpgo_store_index_update_locked(struct kpgo_store *s, struct kpgo_store_index *fresh, bool write,
				   struct kpgo_store_index *out, struct kpgo_error *err);

/* --- store-verify.c: objects ------------------------------------------------- */

/* Every name in objects/: "sha" for well-formed ones, "objects/xx/name" in @strays. */
int kpgo_store_objects_list(struct kpgo_store *s, struct kpgo_strlist *shas,
			    struct kpgo_strlist *strays, struct kpgo_error *err);
/*
 * Opens object @sha and verifies it: its bytes must hash to its name and
 * be a valid archive. Fills @e (added time included). -ENOENT when absent,
 * -EBADMSG (message in @err) when bad.
 */
int kpgo_store_object_check(struct kpgo_store *s, const char *sha, struct kpgo_store_entry *e,
			    struct kpgo_error *err);

#endif
