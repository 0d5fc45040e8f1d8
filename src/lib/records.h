/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_RECORDS_H
#define KPGO_RECORDS_H

#include <stddef.h>

#include "util.h"

/*
 * Records: named byte records written one after the other to a temporary
 * file, then read back in the same order. The file is created in the
 * directory of a given path (the output's: its file system, rather than a
 * /tmp that may be a tmpfs and so held in memory) and unlinked at once, so
 * it never outlives the process. Reads and writes go through one 64 KiB
 * buffer; the records themselves are never all in memory.
 */
struct kpgo_records;

/*
 * Creates an empty records file next to @near, the file that is being
 * made; a failure says "cannot create '@near'".
 */
int kpgo_records_open(struct kpgo_records **rp, const char *near, struct kpgo_error *err);

/* Appends a record. Returns 0 or a negative errno. */
int kpgo_records_add(struct kpgo_records *s, const char *name, const void *data, size_t len);

/* Ends writing and starts reading at the first record. */
int kpgo_records_rewind(struct kpgo_records *s);

/*
 * The next record: @name and @data stay valid until the next call.
 * Returns 1, 0 after the last record, or a negative errno (-EIO for a
 * file that ends inside a record).
 */
int kpgo_records_next(struct kpgo_records *s, const char **name, const void **data, size_t *len);

void kpgo_records_free(struct kpgo_records *s);

#endif
