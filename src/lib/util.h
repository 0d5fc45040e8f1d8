/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_UTIL_H
#define KPGO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "strbuf.h"
#include "banned.h"

/**
 * struct kpgo_error - what went wrong, for the one message a command prints
 * @msg: a complete lowercase sentence without the "kpgo: " prefix, e.g.
 *       "cannot read 'kernel/fork.gcda': truncated record at offset 412"
 *
 * The library never prints: it fills this and returns a negative errno.
 */
struct kpgo_error {
	char msg[1024];
};

/* Fills @err (if not NULL) and returns @errnum (a negative errno). */
int kpgo_error_set(struct kpgo_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Fills @err (if not NULL) with the message and " at offset @off", as the
 * parsers of binary formats report a bad byte; returns -EINVAL.
 */
int kpgo_error_at(struct kpgo_error *err, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Puts "PREFIX: " in front of the message already in @err. */
void kpgo_error_prefix(struct kpgo_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The ranking of a list: sorts the @n indices @idx (from calloc()) with @cmp
 * (qsort_r()'s, given @arg) and hands the first @max of them (0: all) to
 * *@out, or frees @idx and hands out NULL when there are none. Returns how
 * many.
 */
ssize_t kpgo_index_rank(size_t *idx, size_t n, int (*cmp)(const void *, const void *, void *),
			void *arg, size_t max, size_t **out);

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

/*
 * Reads all of @fd with read() until EOF: debugfs gcov files report size 0
 * and are generated on read, so stat() sizes mean nothing. Fails with
 * -EFBIG past @max bytes.
 */
int kpgo_read_fd(int fd, struct strbuf *out, size_t max);
int kpgo_read_file(const char *path, struct strbuf *out, size_t max);

/* write(2) until all of @data is written (or an error other than EINTR). */
int kpgo_write_all(int fd, const void *data, size_t len);

/*
 * Writes @len bytes to @path atomically: a temporary file in the same
 * directory, fsync, rename, fsync of the directory. Either the old file or
 * the complete new one is there afterwards, never a part.
 */
int kpgo_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* Same, relative to directory fd @dirfd; @name is a single path component. */
int kpgo_write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len,
			      unsigned mode);

/*
 * renameat(2) that never replaces: -EEXIST when @to exists. Falls back to
 * link(2) and unlink(2) where the filesystem lacks RENAME_NOREPLACE.
 */
int kpgo_rename_noreplace_at(int fromfd, const char *from, int tofd, const char *to);

/*
 * Sets a bad input aside: moves @name from directory @fromfd to @tofd under
 * the same name, or NAME.1, NAME.2, ... when that is taken (never
 * replacing anything), then writes @reason and a newline to
 * "<new name>.reason" beside it. The new name goes to @newname (@len bytes)
 * when not NULL. Returns 0 or a negative errno.
 */
int kpgo_move_aside_at(int fromfd, const char *name, int tofd, const char *reason, char *newname,
		       size_t len);

/*
 * Creates a temporary file next to @path: an unnamed one (O_TMPFILE), which
 * nothing has to clean up if the process dies, with @tmp left empty; where
 * the file system lacks O_TMPFILE, a named "PATH.XXXXXX", its name in @tmp.
 * kpgo_tmpfile_commit() gives it @path's name; on failure the caller
 * unlinks @tmp when it is not empty.
 */
int kpgo_tmpfile_for(const char *path, struct strbuf *tmp);
/* Puts the file @fd from kpgo_tmpfile_for() at @path, replacing what was there. */
int kpgo_tmpfile_commit(int fd, const struct strbuf *tmp, const char *path);

/*
 * The same relative to directory @dirfd, @name a single component: an
 * unnamed file (or ".NAME.PID.N.tmp", its name in @tmp), and its commit.
 */
int kpgo_tmpfile_at(int dirfd, const char *name, unsigned mode, struct strbuf *tmp);
int kpgo_tmpfile_commit_at(int fd, int dirfd, const char *name, const struct strbuf *tmp);

/*
 * kpgo_write_file_atomic_at() without the fsyncs when @durable is false
 * (a caller that syncs the file system once at the end, as stage does).
 */
int kpgo_write_file_replace_at(int dirfd, const char *name, const void *data, size_t len,
			       unsigned mode, bool durable);
/* fsync()s the directory that holds @path. */
int kpgo_fsync_parent(const char *path);

/*
 * True when @p is a clean relative path: not empty, not absolute, no empty,
 * "." or ".." components, no backslashes or control characters.
 */
bool kpgo_path_is_safe(const char *p);

/*
 * Opens (creating as needed, with mode 0755) the directory @rel below
 * @rootfd without ever following a symbolic link. @rel must satisfy
 * kpgo_path_is_safe(). Returns a directory fd or a negative errno.
 */
int kpgo_mkdirs_at(int rootfd, const char *rel, bool create);

/*
 * A word as labels and names are kept: 1 to 64 bytes of [A-Za-z0-9._-] (a
 * workload label, a weights label, a host name in HOSTS).
 */
bool kpgo_label_okn(const char *s, size_t n);

/**
 * KPGO_ALLOC_GROW() - make room for @nr items in the array @x
 * @x: the array (NULL, or while @alloc is 0 a malloc'd array of exactly the
 *     items in use); reallocated when it is too small, its items kept
 * @nr: how many items it must hold
 * @alloc: its capacity in items, updated with it
 *
 * git's ALLOC_GROW: the capacity grows by half again (and 16), at least to
 * @nr, so that appending one item at a time costs amortized O(1):
 *
 *	if (KPGO_ALLOC_GROW(l->items, l->n + 1, l->alloc))
 *		return -ENOMEM;
 *	l->items[l->n++] = item;
 *
 * Returns 0, or -ENOMEM with @x and @alloc unchanged when memory runs out
 * or the size in bytes would not fit a size_t.
 */
#define KPGO_ALLOC_GROW(x, nr, alloc) kpgo_alloc_grow(&(x), sizeof(*(x)), (nr), &(alloc))
/* KPGO_ALLOC_GROW()'s work: @arrayp points at the array pointer. */
int kpgo_alloc_grow(void *arrayp, size_t size, size_t nr, size_t *alloc);

/**
 * kpgo_walk_files() - the regular files named *@suffix below the directory @top
 * @prune: names left out at the top (NULL-terminated; NULL for none)
 * @path: kept up to date for @fn: the file's path relative to @top
 * @fn: called for each file with its directory's fd and its name there; a
 *	non-zero return stops the walk and is returned
 *
 * Depth first, never through a symbolic link, at most 64 directories
 * deep. Entries that vanish meanwhile (a module unloaded under debugfs)
 * are skipped. Returns 0, @fn's return, or a negative errno with "cannot
 * open 'TOP/PATH': ..." (or list) in @err.
 */
int kpgo_walk_files(const char *top, const char *suffix, const char *const *prune,
		    struct strbuf *path, int (*fn)(void *ctx, int dirfd, const char *name),
		    void *ctx, struct kpgo_error *err);

/* A list of strings that owns them. */
struct kpgo_strlist {
	size_t n;
	size_t alloc;
	char **items;
};

int kpgo_strlist_add(struct kpgo_strlist *l, const char *s);
void kpgo_strlist_clear(struct kpgo_strlist *l);
void kpgo_strlist_sort(struct kpgo_strlist *l);

/* Lower-case hex of @len bytes into @out (2*@len+1 bytes). */
void kpgo_hex(const unsigned char *in, size_t len, char *out);

/* Saturating arithmetic for counters. */
static inline uint64_t kpgo_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t kpgo_sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

/* Parses a decimal unsigned number that must fill all of @s. */
int kpgo_parse_u64(const char *s, uint64_t *out);

/* Seconds since the epoch as "YYYY-MM-DDTHH:MM:SSZ". */
void kpgo_format_time(int64_t t, char out[32]);

#endif
