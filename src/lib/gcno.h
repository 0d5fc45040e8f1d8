/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_GCNO_H
#define KPGO_GCNO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * The .gcno ("notes") file GCC writes beside each object compiled with
 * -ftest-coverage: for every function its ident and checksums (the same
 * as in the .gcda), its name and where it is in the source. Only that is
 * read here; the control flow records (blocks, arcs, lines) are skipped.
 *
 * Layout (GCC 11 and 12, checked with gcov-dump; GCC 13 and 14 as GCC
 * 12 per gcov-io.h): 32-bit host-endian words; magic "gcno", version
 * stamp, stamp, from GCC 12 a checksum word; the compiler's working
 * directory as a string; a flag word (has unexecuted blocks); then records
 * of tag, length, payload, lengths in bytes from GCC 12 and in words
 * before. A string is a length and its bytes: from GCC 12 the length
 * counts bytes, NUL included, unpadded; before, it counts words of the
 * NUL-terminated, zero-padded string. A FUNCTION record holds ident,
 * lineno_checksum, cfg_checksum, name, artificial, source file, start
 * line, start column, end line (and end column).
 */
#define KPGO_GCNO_MAGIC 0x67636e6fu /* "gcno" */

/* Upper bound on a .gcno file read from disk (the kernel's largest: < 2 MiB). */
#define KPGO_GCNO_FILE_MAX (64u << 20)

/**
 * struct kpgo_gcno_fn - one function of a notes file
 * @ident, @lineno_checksum, @cfg_checksum: as in the .gcda
 * @artificial: made by the compiler, not written in the source
 * @name: the function's (assembler) name, never NULL, may be ""
 * @file: its source file as GCC was given it, never NULL, may be ""
 * @line, @column, @end_line: where it starts and ends (0 when absent)
 *
 * @name and @file point into &kpgo_gcno.strings. Both are hostile input:
 * any bytes but NUL.
 */
struct kpgo_gcno_fn {
	uint32_t ident;
	uint32_t lineno_checksum;
	uint32_t cfg_checksum;
	bool artificial;
	const char *name;
	const char *file;
	uint32_t line;
	uint32_t column;
	uint32_t end_line;
};

/**
 * struct kpgo_gcno - a parsed notes file
 * @version: version stamp as a word ('B22*')
 * @stamp: ties it to the .gcda of the same compilation
 * @checksum: GCC >= 12's header checksum (0 before)
 * @cwd: the compiler's working directory (points into @strings)
 * @fns, @n_fns: functions in file order
 * @by_ident: indices into @fns sorted by ident, for kpgo_gcno_find()
 * @strings: every string of the file, NUL-terminated, one after another
 */
struct kpgo_gcno {
	uint32_t version;
	uint32_t stamp;
	uint32_t checksum;
	const char *cwd;
	size_t n_fns;
	struct kpgo_gcno_fn *fns;
	size_t *by_ident;
	char *strings;
};

void kpgo_gcno_init(struct kpgo_gcno *g);
void kpgo_gcno_release(struct kpgo_gcno *g);

/**
 * kpgo_gcno_parse() - parse a .gcno image
 * @data, @len: the bytes (not trusted; need not be NUL-terminated)
 * @g: filled on success; left initialised (empty) on failure
 * @err: on failure "<problem> at offset N"
 *
 * Accepts the layouts of GCC 11 to 14. Every length is checked against
 * the bytes that remain before anything is read or allocated; strings
 * must end in their NUL and hold no other. Records other than FUNCTION
 * are skipped by their length, so a later GCC's new records do not stop
 * the reader.
 *
 * Returns 0, -EINVAL for a malformed file, -EPROTONOSUPPORT for another
 * byte order or a GCC release outside 11..14, -ENOMEM.
 */
int kpgo_gcno_parse(const void *data, size_t len, struct kpgo_gcno *g, struct kpgo_error *err);

/*
 * Whether @fd is open on a regular file, as a notes file must be: 0,
 * -EISDIR when it is not (a directory, a fifo, a device), or -errno.
 */
int kpgo_gcno_regular_fd(int fd);

/*
 * Reads the notes file open on @fd, from where it stands, into @buf (reset
 * first): 0, -EISDIR when it is not a regular file (a directory, a fifo, a
 * device), -EFBIG past KPGO_GCNO_FILE_MAX, or another negative errno.
 */
int kpgo_gcno_read_fd(int fd, struct strbuf *buf);

/* The function with @ident (the first, should a file repeat one), or NULL. */
const struct kpgo_gcno_fn *kpgo_gcno_find(const struct kpgo_gcno *g, uint32_t ident);

#endif
