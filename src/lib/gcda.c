// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .gcda format, as GCC's gcov-io.h defines it and as the kernel's
 * kernel/gcov/gcc_4_7.c writes it: 32-bit host-endian words; a header of
 * magic, version stamp, stamp (and from GCC 12 an object checksum); then
 * records of tag, length, payload. Lengths count words before GCC 12 and
 * bytes from GCC 12 on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcda.h"

#define ERR_AT(err, off, ...) kpgo_error_at(err, (size_t)(off), __VA_ARGS__)

int kpgo_gcc_version_decode(uint32_t stamp, struct kpgo_gcc_version *v)
{
	unsigned c0 = stamp >> 24, c1 = (stamp >> 16) & 0xff, c2 = (stamp >> 8) & 0xff;
	unsigned c3 = stamp & 0xff;

	if (c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9' || c2 < '0' || c2 > '9' || c3 < 0x20 ||
	    c3 > 0x7e)
		return -EINVAL;
	v->major = (c0 - 'A') * 10 + (c1 - '0');
	v->minor = c2 - '0';
	v->byte_lengths = v->major >= 12;
	v->has_checksum = v->major >= 12;
	if (v->major < 8 || v->major > 14)
		return -EPROTONOSUPPORT;
	return 0;
}

void kpgo_gcc_version_str(uint32_t stamp, char out[5])
{
	int i;

	for (i = 0; i < 4; i++) {
		unsigned c = (stamp >> (24 - 8 * i)) & 0xff;

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[4] = '\0';
}

int kpgo_gcc_version_parse(const char *s, uint32_t *stamp)
{
	uint32_t w = 0;
	int i;

	if (strlen(s) != 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e)
			return -EINVAL;
		w = w << 8 | c;
	}
	*stamp = w;
	return 0;
}

void kpgo_gcda_init(struct kpgo_gcda *g)
{
	memset(g, 0, sizeof(*g));
}

void kpgo_gcda_release(struct kpgo_gcda *g)
{
	free(g->fns);
	free(g->ctrs);
	kpgo_gcda_init(g);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	/* A 64-bit counter is two words, low word first. */
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A function's @n counters after @nc others of its file, against the caps. */
static int check_counters(struct kpgo_error *err, size_t rec, uint64_t n, size_t nc)
{
	if (n > KPGO_GCDA_MAX_FN_COUNTERS)
		return ERR_AT(err, rec, "too many counters (%llu in one function, at most %u)",
			      (unsigned long long)n, KPGO_GCDA_MAX_FN_COUNTERS);
	if (n > KPGO_GCDA_MAX_COUNTERS - nc)
		return ERR_AT(err, rec, "too many counters (more than %u in one file)",
			      KPGO_GCDA_MAX_COUNTERS);
	return 0;
}

/*
 * One pass over the records. With @g->fns == NULL it only validates and
 * counts; with the arrays allocated it fills them.
 */
static int parse_records(const unsigned char *d, size_t len, size_t pos,
			 const struct kpgo_gcc_version *v, struct kpgo_gcda *g, size_t *offs,
			 size_t *n_fns, size_t *n_ctrs, struct kpgo_error *err)
{
	bool fill = g->fns != NULL, in_fn = false, fn_has_arcs = false, summary = false;
	size_t nf = 0, nc = 0;
	int r;

	while (pos < len) {
		size_t rec = pos, bytes;
		uint32_t tag, rawlen;
		int32_t slen;

		if (len - pos == 4 && get32(d + pos) == 0)
			break; /* GCC's runtime ends its files with a zero word. */
		if (len - pos < 8)
			return ERR_AT(err, rec, "truncated record header");
		tag = get32(d + pos);
		rawlen = get32(d + pos + 4);
		slen = (int32_t)rawlen;
		pos += 8;
		if (tag == KPGO_TAG_ARCS && slen < 0) {
			/*
			 * GCC >= 11 runtime: "n counters, all zero, none stored",
			 * the length in the file's unit (bytes from GCC 12, words
			 * before).
			 */
			uint64_t n, unit = v->byte_lengths ? 8 : 2;

			if (!in_fn || fn_has_arcs)
				return ERR_AT(err, rec, "counter record outside a function");
			n = (uint64_t)(-(int64_t)slen);
			if (n % unit)
				return ERR_AT(err, rec,
					      "counter length %d not a whole number of counters",
					      slen);
			n /= unit;
			r = check_counters(err, rec, n, nc);
			if (r)
				return r;
			if (fill) {
				g->fns[nf - 1].arcs = nc;
				g->fns[nf - 1].n_arcs = (uint32_t)n;
				memset(g->ctrs + nc, 0, (size_t)n * 8);
			}
			nc += (size_t)n;
			fn_has_arcs = true;
			continue;
		}
		if (v->byte_lengths) {
			bytes = rawlen;
		} else {
			if (rawlen > (len - pos) / 4)
				return ERR_AT(err, rec,
					      "record length %u past the end of the file (%zu bytes left)",
					      rawlen, len - pos);
			bytes = (size_t)rawlen * 4;
		}
		if (bytes > len - pos)
			return ERR_AT(err, rec,
				      "record length %u past the end of the file (%zu bytes left)",
				      rawlen, len - pos);
		if (tag == KPGO_TAG_FUNCTION) {
			if (bytes == 0) {
				/* A placeholder for a function another object holds. */
				in_fn = false;
				pos += bytes;
				continue;
			}
			if (bytes != 12)
				return ERR_AT(err, rec, "function record of %zu bytes, expected 12",
					      bytes);
			if (nf >= KPGO_GCDA_MAX_FUNCTIONS)
				return ERR_AT(err, rec,
					      "too many functions (more than %u in one file)",
					      KPGO_GCDA_MAX_FUNCTIONS);
			if (fill) {
				struct kpgo_gcda_fn *f = &g->fns[nf];

				f->ident = get32(d + pos);
				f->lineno_checksum = get32(d + pos + 4);
				f->cfg_checksum = get32(d + pos + 8);
				f->n_arcs = 0;
				f->arcs = nc;
				offs[nf] = rec;
			}
			nf++;
			in_fn = true;
			fn_has_arcs = false;
		} else if (tag == KPGO_TAG_ARCS) {
			size_t n;

			if (!in_fn || fn_has_arcs)
				return ERR_AT(err, rec, "counter record outside a function");
			if (bytes % 8)
				return ERR_AT(err, rec,
					      "counter record of %zu bytes, not whole counters",
					      bytes);
			n = bytes / 8;
			r = check_counters(err, rec, n, nc);
			if (r)
				return r;
			if (fill) {
				size_t i;

				g->fns[nf - 1].arcs = nc;
				g->fns[nf - 1].n_arcs = (uint32_t)n;
				for (i = 0; i < n; i++)
					g->ctrs[nc + i] = get64(d + pos + 8 * i);
			}
			nc += n;
			fn_has_arcs = true;
		} else if ((tag & 0xffe1ffffu) == KPGO_TAG_COUNTER_BASE) {
			return ERR_AT(err, rec,
				      "unsupported counter type %u (value profiles; the kernel writes arcs only)",
				      (tag - KPGO_TAG_COUNTER_BASE) >> 17);
		} else if (tag == KPGO_TAG_OBJECT_SUMMARY && v->major >= 9) {
			if (summary)
				return ERR_AT(err, rec, "second summary record");
			if (bytes != 8)
				return ERR_AT(err, rec, "summary record of %zu bytes, expected 8",
					      bytes);
			summary = true;
			if (fill) {
				g->has_summary = true;
				g->runs = get32(d + pos);
				g->sum_max = get32(d + pos + 4);
			}
		} else if ((tag == KPGO_TAG_OBJECT_SUMMARY || tag == KPGO_TAG_PROGRAM_SUMMARY) &&
			   v->major == 8) {
			/*
			 * GCC 8 summaries carry a histogram; kpgo recomputes what it
			 * needs from the counters, so the record is skipped.
			 */
		} else {
			return ERR_AT(err, rec, "unknown record tag 0x%08x", tag);
		}
		pos += bytes;
	}
	*n_fns = nf;
	*n_ctrs = nc;
	return 0;
}

/* GCC's files never repeat an ident; a repeat would make merging ambiguous. */
static int check_duplicates(const struct kpgo_gcda *g, size_t nf, const size_t *offs,
			    struct kpgo_error *err)
{
	uint32_t *ids, dup;
	bool seen = false;
	size_t i, j;

	if (nf < 2)
		return 0;
	ids = malloc(nf * sizeof(*ids));
	if (!ids)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < nf; i++)
		ids[i] = g->fns[i].ident;
	qsort(ids, nf, sizeof(*ids), cmp_u32);
	for (i = 1; i < nf && ids[i] != ids[i - 1]; i++)
		;
	dup = i < nf ? ids[i] : 0;
	free(ids);
	if (i == nf)
		return 0;
	for (j = 0; j < nf; j++) {
		if (g->fns[j].ident != dup)
			continue;
		if (seen)
			return ERR_AT(err, offs[j], "function ident %u appears twice", dup);
		seen = true;
	}
	return 0;
}

int kpgo_gcda_parse(const void *data, size_t len, struct kpgo_gcda *g, struct kpgo_error *err)
{
	const unsigned char *d = data;
	struct kpgo_gcc_version v;
	size_t hdr, nf = 0, nc = 0, *offs;
	uint32_t magic, version;
	char vs[5];
	int r;

	kpgo_gcda_init(g);
	if (len < 4)
		return ERR_AT(err, len, "truncated header (%zu bytes)", len);
	magic = get32(d);
	if (magic != KPGO_GCDA_MAGIC) {
		if (magic == __builtin_bswap32(KPGO_GCDA_MAGIC))
			return ERR_AT(err, 0, "written on a machine of the other byte order");
		if (magic == 0x67636e6fu)
			return ERR_AT(err, 0, "a .gcno notes file, not a .gcda data file");
		return ERR_AT(err, 0, "bad magic 0x%08x, not a .gcda file", magic);
	}
	if (len < 12)
		return ERR_AT(err, len, "truncated header (%zu bytes)", len);
	version = get32(d + 4);
	r = kpgo_gcc_version_decode(version, &v);
	kpgo_gcc_version_str(version, vs);
	if (r == -EINVAL)
		return ERR_AT(err, 4, "bad version stamp 0x%08x", version);
	if (r)
		return kpgo_error_set(err, -EPROTONOSUPPORT,
				      "unsupported gcov version '%s' (GCC %u.%u) at offset 4; kpgo reads GCC 8 to 14",
				      vs, v.major, v.minor);
	hdr = v.has_checksum ? 16 : 12;
	if (len < hdr)
		return ERR_AT(err, len, "truncated header (%zu bytes)", len);
	r = parse_records(d, len, hdr, &v, g, NULL, &nf, &nc, err);
	if (r)
		return r;
	g->version = version;
	g->stamp = get32(d + 8);
	g->checksum = v.has_checksum ? get32(d + 12) : 0;
	g->fns = calloc(nf ? nf : 1, sizeof(*g->fns));
	g->ctrs = calloc(nc ? nc : 1, sizeof(*g->ctrs));
	offs = calloc(nf ? nf : 1, sizeof(*offs));
	if (!g->fns || !g->ctrs || !offs) {
		free(offs);
		kpgo_gcda_release(g);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	r = parse_records(d, len, hdr, &v, g, offs, &nf, &nc, err);
	if (!r)
		r = check_duplicates(g, nf, offs, err);
	free(offs);
	if (r) {
		kpgo_gcda_release(g);
		return r;
	}
	g->n_fns = nf;
	g->n_ctrs = nc;
	return 0;
}

static int put32(struct strbuf *out, uint32_t v)
{
	return strbuf_add(out, &v, 4);
}

int kpgo_gcda_write(const struct kpgo_gcda *g, unsigned flags, struct strbuf *out)
{
	struct kpgo_gcc_version v;
	uint32_t unit;
	size_t i, j, need;
	int r;

	r = kpgo_gcc_version_decode(g->version, &v);
	if (r)
		return r;
	if ((flags & KPGO_GCDA_SUMMARY) && (v.major < 9))
		return -EPROTONOSUPPORT;
	if ((flags & KPGO_GCDA_SUMMARY) && g->sum_max > UINT32_MAX)
		return -ERANGE;
	unit = v.byte_lengths ? 4 : 1;
	need = 16 + 16 + g->n_fns * 28 + g->n_ctrs * 8;
	if (strbuf_grow(out, need))
		return -ENOMEM;
	put32(out, KPGO_GCDA_MAGIC);
	put32(out, g->version);
	put32(out, g->stamp);
	if (v.has_checksum)
		put32(out, g->checksum);
	if (flags & KPGO_GCDA_SUMMARY) {
		put32(out, KPGO_TAG_OBJECT_SUMMARY);
		put32(out, 2 * unit);
		put32(out, g->runs);
		/* GCC's reader takes sum_max as one 32-bit word. */
		put32(out, (uint32_t)g->sum_max);
	}
	for (i = 0; i < g->n_fns; i++) {
		const struct kpgo_gcda_fn *f = &g->fns[i];

		put32(out, KPGO_TAG_FUNCTION);
		put32(out, 3 * unit);
		put32(out, f->ident);
		put32(out, f->lineno_checksum);
		put32(out, f->cfg_checksum);
		put32(out, KPGO_TAG_ARCS);
		put32(out, f->n_arcs * 2 * unit);
		for (j = 0; j < f->n_arcs; j++) {
			uint64_t c = g->ctrs[f->arcs + j];

			put32(out, (uint32_t)c);
			put32(out, (uint32_t)(c >> 32));
		}
	}
	return 0;
}

int kpgo_gcda_check_caps(const struct kpgo_gcda *g, struct kpgo_error *err)
{
	size_t i;

	if (g->n_fns > KPGO_GCDA_MAX_FUNCTIONS)
		return kpgo_error_set(err, -E2BIG, "too many functions (%zu, at most %u)", g->n_fns,
				      KPGO_GCDA_MAX_FUNCTIONS);
	if (g->n_ctrs > KPGO_GCDA_MAX_COUNTERS)
		return kpgo_error_set(err, -E2BIG, "too many counters (%zu, at most %u)", g->n_ctrs,
				      KPGO_GCDA_MAX_COUNTERS);
	for (i = 0; i < g->n_fns; i++)
		if (g->fns[i].n_arcs > KPGO_GCDA_MAX_FN_COUNTERS)
			return kpgo_error_set(err, -E2BIG,
					      "too many counters (%u in one function, at most %u)",
					      g->fns[i].n_arcs, KPGO_GCDA_MAX_FN_COUNTERS);
	return 0;
}

uint64_t kpgo_gcda_max(const struct kpgo_gcda *g)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < g->n_ctrs; i++)
		if (g->ctrs[i] > m)
			m = g->ctrs[i];
	return m;
}

uint64_t kpgo_gcda_sum(const struct kpgo_gcda *g)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < g->n_ctrs; i++)
		s = kpgo_sat_add(s, g->ctrs[i]);
	return s;
}

uint64_t kpgo_gcda_fn_sum(const struct kpgo_gcda *g, const struct kpgo_gcda_fn *fn)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < fn->n_arcs; i++)
		s = kpgo_sat_add(s, g->ctrs[fn->arcs + i]);
	return s;
}

int kpgo_gcda_copy(struct kpgo_gcda *dst, const struct kpgo_gcda *src)
{
	*dst = *src;
	dst->fns = malloc((src->n_fns ? src->n_fns : 1) * sizeof(*dst->fns));
	dst->ctrs = malloc((src->n_ctrs ? src->n_ctrs : 1) * sizeof(*dst->ctrs));
	if (!dst->fns || !dst->ctrs) {
		kpgo_gcda_release(dst);
		return -ENOMEM;
	}
	if (src->n_fns)
		memcpy(dst->fns, src->fns, src->n_fns * sizeof(*dst->fns));
	if (src->n_ctrs)
		memcpy(dst->ctrs, src->ctrs, src->n_ctrs * sizeof(*dst->ctrs));
	return 0;
}

void kpgo_gcda_scale(struct kpgo_gcda *g, uint64_t div)
{
	size_t i;

	if (div <= 1)
		return;
	for (i = 0; i < g->n_ctrs; i++)
		if (g->ctrs[i])
			g->ctrs[i] = (g->ctrs[i] - 1) / div + 1;
}

const struct kpgo_gcda_fn *kpgo_gcda_find(const struct kpgo_gcda *g, uint32_t ident, size_t hint)
{
	size_t i;

	if (hint < g->n_fns && g->fns[hint].ident == ident)
		return &g->fns[hint];
	for (i = 0; i < g->n_fns; i++)
		if (g->fns[i].ident == ident)
			return &g->fns[i];
	return NULL;
}
