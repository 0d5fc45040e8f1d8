/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PROFILE_WRITER_H
#define KPGO_PROFILE_WRITER_H

#include "gcda.h"
#include "manifest.h"
#include "util.h"

/*
 * Writing a .kpgo archive one object at a time, without holding the
 * profile in memory. The format puts the MANIFEST, which carries the
 * payload's hash and totals, before the objects, so the objects are first
 * serialised into a spool: an unlinked temporary file in the output's
 * directory (the output's file system, not a tmpfs that would hold it in
 * memory; unlinked, so that nothing is left behind whatever happens). The
 * hash and totals are taken while spooling; the commit writes the archive
 * from the manifest and the spool. Only the serialised bytes of one
 * object and the compressor are in memory at any time.
 */
struct kpgo_profile_writer;

/**
 * kpgo_profile_writer_open() - start an archive that will become @path
 *
 * Creates the spool next to @path; nothing appears at @path before
 * kpgo_profile_writer_commit() succeeds.
 */
int kpgo_profile_writer_open(struct kpgo_profile_writer **wp, const char *path,
			     struct kpgo_error *err);

/**
 * kpgo_profile_writer_add() - the next object
 * @rel: its path relative to the build root, ending in ".gcda"; each must
 *       sort strictly after the previous one (byte order), as in the archive
 * @g: its counters, written the kernel's way (no summary); all objects must
 *     have the same gcov version
 */
int kpgo_profile_writer_add(struct kpgo_profile_writer *w, const char *rel,
			    const struct kpgo_gcda *g, struct kpgo_error *err);

/**
 * kpgo_profile_writer_commit() - write the archive and rename it into place
 * @m: the manifest; completed here as kpgo_profile_save() describes
 *     (totals, PAYLOAD_SHA256, GCOV_VERSION, SUM_MAX at least the largest
 *     counter, KPGO_FORMAT and RUNS when absent)
 *
 * The archive is written to a temporary file next to the output, fsync'ed
 * and renamed over it. On failure nothing is left at the output's path
 * but what was there before. Only one commit per writer, which must still
 * be freed afterwards.
 */
int kpgo_profile_writer_commit(struct kpgo_profile_writer *w, struct kpgo_manifest *m,
			       struct kpgo_error *err);

/* Frees @w, discarding everything not committed. NULL is fine. */
void kpgo_profile_writer_free(struct kpgo_profile_writer *w);

#endif
