/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_GCDA_H
#define KPGO_GCDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

#define KPGO_GCDA_MAGIC 0x67636461u /* "gcda" */
#define KPGO_TAG_FUNCTION 0x01000000u
#define KPGO_TAG_COUNTER_BASE 0x01a10000u
#define KPGO_TAG_ARCS KPGO_TAG_COUNTER_BASE
#define KPGO_TAG_OBJECT_SUMMARY 0xa1000000u
#define KPGO_TAG_PROGRAM_SUMMARY 0xa3000000u /* GCC 8 and older */

/*
 * Caps on what one object's data may hold, applied by every reader
 * (kpgo_gcda_parse(), before anything is allocated) and every writer
 * (kpgo_profile_writer_add()), so that a profile kpgo writes is one kpgo
 * reads. They are set from what a kernel really produces, with room to
 * spare: Debian's 6.1 amd64 kernel has 29 functions of 11.5 arc counters
 * per object on average (docs/BENCHMARKS.md), its largest functions a few
 * thousand counters. The caps stop a few bytes of hostile input (GCC >= 11's
 * negative "all zero" length) from asking for gigabytes: at most 8 MiB of
 * counters per object. docs/FORMAT.md, "Limits", lists them.
 */
#define KPGO_GCDA_MAX_FN_COUNTERS (1u << 18) /* arc counters of one function */
#define KPGO_GCDA_MAX_COUNTERS (1u << 20)    /* arc counters of one object */
#define KPGO_GCDA_MAX_FUNCTIONS (1u << 16)   /* functions of one object */
/* The largest .gcda kpgo writes for an object within the caps (with summary). */
#define KPGO_GCDA_MAX_BYTES                                                                        \
	(32u + 16u + 28u * KPGO_GCDA_MAX_FUNCTIONS + 8u * KPGO_GCDA_MAX_COUNTERS)

/**
 * struct kpgo_gcda_fn - one function's record
 * @ident: GCC's function ident (its number within the object)
 * @lineno_checksum: checksum of the source location (changes with file names)
 * @cfg_checksum: checksum of the control flow graph
 * @n_arcs: number of arc counters
 * @arcs: index of the first counter in &kpgo_gcda.ctrs
 */
struct kpgo_gcda_fn {
	uint32_t ident;
	uint32_t lineno_checksum;
	uint32_t cfg_checksum;
	uint32_t n_arcs;
	size_t arcs;
};

/**
 * struct kpgo_gcda - one object's profile, parsed
 * @version: the four-character version stamp as a word, e.g. 'B22*'
 * @stamp: the compile-time stamp that ties it to its .gcno
 * @checksum: the object checksum (GCC >= 12; the kernel writes 0)
 * @has_summary: an OBJECT_SUMMARY record was present (GCC's runtime writes
 *               one, the kernel does not)
 * @runs: summary runs, when @has_summary
 * @sum_max: summary sum_max, when @has_summary
 * @fns: functions, in file order (GCC's "function placeholder" records of
 *       length 0 carry no data and are dropped)
 * @ctrs: all arc counters of all functions, function after function
 */
struct kpgo_gcda {
	uint32_t version;
	uint32_t stamp;
	uint32_t checksum;
	bool has_summary;
	uint32_t runs;
	uint64_t sum_max;
	size_t n_fns;
	struct kpgo_gcda_fn *fns;
	size_t n_ctrs;
	uint64_t *ctrs;
	size_t fns_alloc, ctrs_alloc; /* capacities, while merged into; 0: as read */
};

/**
 * struct kpgo_gcc_version - what a version stamp says
 * @major, @minor: the GCC release
 * @byte_lengths: record lengths are in bytes (GCC >= 12), else in words
 * @has_checksum: the header has an object checksum word (GCC >= 12)
 */
struct kpgo_gcc_version {
	unsigned major, minor;
	bool byte_lengths;
	bool has_checksum;
};

/*
 * Decodes a version stamp. Returns 0, or -EPROTONOSUPPORT for a release
 * outside GCC 8..14 and -EINVAL for something that is no stamp at all.
 */
int kpgo_gcc_version_decode(uint32_t stamp, struct kpgo_gcc_version *v);
/* "B22*" from the word, for messages and manifests (@out: 5 bytes). */
void kpgo_gcc_version_str(uint32_t stamp, char out[5]);
/* The word from "B22*"; -EINVAL unless four printable characters. */
int kpgo_gcc_version_parse(const char *s, uint32_t *stamp);

void kpgo_gcda_init(struct kpgo_gcda *g);
void kpgo_gcda_release(struct kpgo_gcda *g);

/**
 * kpgo_gcda_parse() - parse and validate a .gcda image
 * @data, @len: the bytes (not trusted)
 * @g: filled on success; left initialised (empty) on failure
 * @err: on failure "<problem> at offset N"
 *
 * Accepts GCC 8..14 files, as GCC's runtime or the kernel writes them.
 * Every length is checked against the bytes that remain, and every count
 * against the caps above, before anything is allocated. Only arc counters are accepted: the kernel is built with
 * -fprofile-arcs, which has no value profiles.
 */
int kpgo_gcda_parse(const void *data, size_t len, struct kpgo_gcda *g, struct kpgo_error *err);

enum kpgo_gcda_write_flags {
	/* Write an OBJECT_SUMMARY record from @runs and @sum_max. */
	KPGO_GCDA_SUMMARY = 1 << 0,
};

/*
 * Serialises @g in @g->version's layout, the way the kernel writes it
 * (every counter stored, no summary) unless KPGO_GCDA_SUMMARY is given.
 * A summary needs GCC >= 9 (-EPROTONOSUPPORT before: GCC 8's summary had
 * a histogram), and @g->sum_max must fit 32 bits (-ERANGE; see
 * kpgo_gcda_scale()).
 */
int kpgo_gcda_write(const struct kpgo_gcda *g, unsigned flags, struct strbuf *out);

/*
 * Checks @g against the caps above: 0, or -E2BIG with @err saying which
 * (for writers: what kpgo_gcda_parse() would refuse).
 */
int kpgo_gcda_check_caps(const struct kpgo_gcda *g, struct kpgo_error *err);

/* Largest arc counter and (saturating) sum of all. */
uint64_t kpgo_gcda_max(const struct kpgo_gcda *g);
uint64_t kpgo_gcda_sum(const struct kpgo_gcda *g);
/* Sum of one function's counters (saturating). */
uint64_t kpgo_gcda_fn_sum(const struct kpgo_gcda *g, const struct kpgo_gcda_fn *fn);

/* Deep copy. */
int kpgo_gcda_copy(struct kpgo_gcda *dst, const struct kpgo_gcda *src);

/*
 * Divides every counter by @div, rounding up, so that no count that was
 * non-zero becomes zero (GCC tells "never executed" from zero).
 */
void kpgo_gcda_scale(struct kpgo_gcda *g, uint64_t div);

/* Function with @ident, or NULL. Linear for small files, so cheap enough. */
const struct kpgo_gcda_fn *kpgo_gcda_find(const struct kpgo_gcda *g, uint32_t ident, size_t hint);

#endif
