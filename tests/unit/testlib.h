/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What several unit tests build by hand: .gcda files word by word
 * (independently of kpgo's writer, so that a reader and writer sharing one
 * mistake cannot agree on it), comparisons of parsed files, and snapshots
 * of a directory tree (to show that a reader wrote nothing). Header-only,
 * after tap.h.
 */
#ifndef KPGO_TESTLIB_H
#define KPGO_TESTLIB_H

#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gcda.h"
#include "strbuf.h"
#include "tap.h"

static inline uint32_t stamp_of(const char *s)
{
	return (uint32_t)(unsigned char)s[0] << 24 | (uint32_t)(unsigned char)s[1] << 16 |
	       (uint32_t)(unsigned char)s[2] << 8 | (uint32_t)(unsigned char)s[3];
}

static inline void w32(struct strbuf *b, uint32_t v)
{
	if (strbuf_add(b, &v, 4))
		bail_out("out of memory");
}

static inline void w64(struct strbuf *b, uint64_t v)
{
	w32(b, (uint32_t)v);
	w32(b, (uint32_t)(v >> 32));
}

/* Magic, version, stamp, and the checksum word from GCC 12 on. */
static inline void header(struct strbuf *b, const char *ver, uint32_t stamp, uint32_t checksum)
{
	w32(b, KPGO_GCDA_MAGIC);
	w32(b, stamp_of(ver));
	w32(b, stamp);
	if (ver[0] > 'B' || (ver[0] == 'B' && ver[1] >= '2'))
		w32(b, checksum);
}

/* @unit: 4 when lengths count bytes (GCC >= 12), 1 when they count words. */
static inline void fn_rec(struct strbuf *b, uint32_t unit, uint32_t ident, uint32_t lck,
			  uint32_t cfg)
{
	w32(b, KPGO_TAG_FUNCTION);
	w32(b, 3 * unit);
	w32(b, ident);
	w32(b, lck);
	w32(b, cfg);
}

static inline void arcs_rec(struct strbuf *b, uint32_t unit, size_t n, const uint64_t *v)
{
	size_t i;

	w32(b, KPGO_TAG_ARCS);
	w32(b, (uint32_t)(n * 2 * unit));
	for (i = 0; i < n; i++)
		w64(b, v[i]);
}

static inline void summary_rec(struct strbuf *b, uint32_t unit, uint32_t runs, uint32_t sum_max)
{
	w32(b, KPGO_TAG_OBJECT_SUMMARY);
	w32(b, 2 * unit);
	w32(b, runs);
	w32(b, sum_max);
}

static inline void rec(struct strbuf *b, uint32_t tag, uint32_t len)
{
	w32(b, tag);
	w32(b, len);
}

/* Field by field; tells the first difference. */
static inline bool gcda_same(const struct kpgo_gcda *a, const struct kpgo_gcda *b, bool summary)
{
	size_t i;

	if (a->version != b->version || a->stamp != b->stamp || a->checksum != b->checksum) {
		diag("header differs");
		return false;
	}
	if (summary &&
	    (a->has_summary != b->has_summary || a->runs != b->runs || a->sum_max != b->sum_max)) {
		diag("summary differs");
		return false;
	}
	if (a->n_fns != b->n_fns || a->n_ctrs != b->n_ctrs) {
		diag("%zu/%zu functions, %zu/%zu counters", a->n_fns, b->n_fns, a->n_ctrs,
		     b->n_ctrs);
		return false;
	}
	for (i = 0; i < a->n_fns; i++) {
		const struct kpgo_gcda_fn *x = &a->fns[i], *y = &b->fns[i];

		if (x->ident != y->ident || x->lineno_checksum != y->lineno_checksum ||
		    x->cfg_checksum != y->cfg_checksum || x->n_arcs != y->n_arcs ||
		    x->arcs != y->arcs) {
			diag("function %zu differs", i);
			return false;
		}
	}
	for (i = 0; i < a->n_ctrs; i++) {
		if (a->ctrs[i] != b->ctrs[i]) {
			diag("counter %zu: %" PRIu64 " vs %" PRIu64, i, a->ctrs[i], b->ctrs[i]);
			return false;
		}
	}
	return true;
}

static inline bool bytes_same(const struct strbuf *a, const struct strbuf *b)
{
	size_t i;

	if (a->len != b->len) {
		diag("%zu bytes, expected %zu", a->len, b->len);
		return false;
	}
	for (i = 0; i < a->len; i++) {
		if (a->buf[i] != b->buf[i]) {
			diag("first difference at byte %zu", i);
			return false;
		}
	}
	return true;
}

static inline void check_fn(const struct kpgo_gcda *g, size_t i, uint32_t ident, uint32_t lck,
			    uint32_t cfg, uint32_t n_arcs, size_t arcs)
{
	const struct kpgo_gcda_fn *f = i < g->n_fns ? &g->fns[i] : NULL;

	ok(f && f->ident == ident && f->lineno_checksum == lck && f->cfg_checksum == cfg &&
		   f->n_arcs == n_arcs && f->arcs == arcs,
	   "function %zu: ident %u, checksums 0x%x/0x%x, %u counters from %zu", i, ident, lck, cfg,
	   n_arcs, arcs);
}

static inline void check_ctrs(const struct kpgo_gcda *g, const uint64_t *want, size_t n,
			      const char *what)
{
	bool same = g->n_ctrs == n;
	size_t i;

	for (i = 0; same && i < n; i++)
		same = g->ctrs[i] == want[i];
	ok(same, "%s: counters as stored", what);
}

struct fnspec {
	uint32_t ident, lck, cfg;
	size_t n;
	uint64_t c[4];
};

static inline void make_gcda(struct kpgo_gcda *g, const char *ver, const struct fnspec *f, size_t n)
{
	struct strbuf b = STRBUF_INIT;
	struct kpgo_error err;
	uint32_t unit = ver[0] > 'B' || (ver[0] == 'B' && ver[1] >= '2') ? 4 : 1;
	size_t i;

	header(&b, ver, 0x5555, 0);
	for (i = 0; i < n; i++) {
		fn_rec(&b, unit, f[i].ident, f[i].lck, f[i].cfg);
		arcs_rec(&b, unit, f[i].n, f[i].c);
	}
	if (kpgo_gcda_parse(b.buf, b.len, g, &err))
		bail_out(err.msg);
	strbuf_release(&b);
}

/* A one-function object in the kernel's layout: stamp 0x1234, checksums from @ident. */
static inline void gcda_one_fn(struct strbuf *b, const char *ver, uint32_t ident, const uint64_t *c,
			       size_t n)
{
	uint32_t unit = ver[0] == 'B' && ver[1] >= '2' ? 4 : 1;

	strbuf_reset(b);
	header(b, ver, 0x1234, 0);
	fn_rec(b, unit, ident, ident * 3, ident * 7);
	arcs_rec(b, unit, n, c);
}

/* Lists @dir recursively below @rel: "path mode size mtime" lines. */
static inline void snapshot_dir(const char *dir, const char *rel, struct strbuf *out, int depth)
{
	struct strbuf p = STRBUF_INIT, r2 = STRBUF_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d || depth > 8) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, de->d_name);
		if (lstat(p.buf, &st))
			continue;
		strbuf_addf(out, "%s/%s %o %lld %lld.%09ld\n", rel, de->d_name, st.st_mode,
			    (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		if (S_ISDIR(st.st_mode)) {
			strbuf_reset(&r2);
			strbuf_addf(&r2, "%s/%s", rel, de->d_name);
			snapshot_dir(p.buf, r2.buf, out, depth + 1);
		}
	}
	closedir(d);
	strbuf_release(&p);
	strbuf_release(&r2);
}

/* Names in @dir, sorted, one per line. */
static inline void listing(const char *dir, struct strbuf *out)
{
	struct kpgo_strlist l = { 0 };
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t i;

	strbuf_reset(out);
	if (!d)
		bail_out("cannot list the test directory");
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			kpgo_strlist_add(&l, de->d_name);
	closedir(d);
	kpgo_strlist_sort(&l);
	for (i = 0; i < l.n; i++)
		strbuf_addf(out, "%s\n", l.items[i]);
	kpgo_strlist_clear(&l);
}

#endif
