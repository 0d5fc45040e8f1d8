// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * payload-streams - split the payload of a .kpgo archive into streams of
 * like data, to measure how small a lossless archive could get
 * (tests/bench/bench-archive-size.sh compresses the streams).
 *
 * Usage: payload-streams ARCHIVE DIR
 *
 * The archive is read and verified with the library's reader; each object
 * is serialised again in the kernel's layout and its bytes are checked
 * against the manifest's PAYLOAD_SHA256, so the streams hold exactly the
 * archive's payload. Every byte of it goes to one stream:
 *
 *   names            object paths, one per line (the tar headers' part)
 *   structure        per object its size (32-bit word), then the header
 *                    words and every record's tag and length, as in the file
 *   identity         per FUNCTION record ident, lineno_checksum,
 *                    cfg_checksum, 32-bit words as in the file (rows)
 *   identity.ident, identity.lineno, identity.cfg
 *                    the same three as columns
 *   counters         every arc counter as an unsigned LEB128 varint
 *   counters.zero, counters.nonzero
 *                    the same as a bitmap (bit i set: counter i is not 0,
 *                    least significant bit first) and the varints of the
 *                    non-zero counters only
 *   identity.never-ran
 *                    the identity rows of the functions whose counters are
 *                    all zero (not needed to rebuild; for their share)
 *
 * Counters are not split by kind: the library accepts arc counters only
 * (the kernel is built with -fprofile-arcs, which has no value profiles),
 * so "by kind" and "together" are the same stream.
 *
 * Both layouts (identity rows + counters, identity columns + bitmap) are
 * decoded again and the payload they rebuild is checked against
 * PAYLOAD_SHA256: the split is lossless by test, not by argument.
 *
 * Prints "KEY VALUE" lines on stdout: totals (non-zero counters too), the
 * raw size of every stream, never-run functions, idents with the top bit
 * set, how many objects have k functions (objects_with_functions.k), and
 * how often identity values repeat (distinct values, functions whose value
 * another function of the profile shares, and the number of functions with
 * the most common value).
 * Exit 0, 1 on failure, 2 for a usage error.
 *
 * Words are written in host order, as the .gcda files have them: little
 * endian on the machines this runs on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcda.h"
#include "manifest.h"
#include "profile-archive.h"
#include "sha256.h"
#include "strbuf.h"
#include "util.h"

enum stream_id {
	S_NAMES,
	S_STRUCTURE,
	S_IDENTITY,
	S_ID_IDENT,
	S_ID_LINENO,
	S_ID_CFG,
	S_COUNTERS,
	S_CTR_ZERO,
	S_CTR_NONZERO,
	S_NEVER_RAN,
	N_STREAMS
};

static const char *const stream_name[N_STREAMS] = {
	[S_NAMES] = "names",
	[S_STRUCTURE] = "structure",
	[S_IDENTITY] = "identity",
	[S_ID_IDENT] = "identity.ident",
	[S_ID_LINENO] = "identity.lineno",
	[S_ID_CFG] = "identity.cfg",
	[S_COUNTERS] = "counters",
	[S_CTR_ZERO] = "counters.zero",
	[S_CTR_NONZERO] = "counters.nonzero",
	[S_NEVER_RAN] = "identity.never-ran",
};

struct ident3 {
	uint32_t v[3]; /* ident, lineno_checksum, cfg_checksum */
};

struct split {
	struct strbuf s[N_STREAMS];
	uint64_t n_bits; /* counters in the bitmap so far */
	/* where the raw bytes went, to show that every byte is accounted for */
	uint64_t raw, raw_structure, raw_identity, raw_counters;
	uint64_t objects, functions, counters, nonzero, never_ran, no_counters, ident_high_bit;
	/* objects by their number of functions: per_object[k] (k < alloc_per) */
	size_t alloc_per;
	uint64_t *per_object;
	size_t n_ids, alloc_ids;
	struct ident3 *ids;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("payload-streams: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void add(struct split *sp, enum stream_id id, const void *data, size_t len)
{
	if (strbuf_add(&sp->s[id], data, len))
		die("out of memory");
}

static void add_leb128(struct split *sp, enum stream_id id, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	add(sp, id, b, n);
}

static void add_bit(struct split *sp, bool set)
{
	struct strbuf *z = &sp->s[S_CTR_ZERO];

	if (sp->n_bits % 8 == 0)
		add(sp, S_CTR_ZERO, "", 1);
	if (set)
		z->buf[z->len - 1] |= (char)(1u << (sp->n_bits % 8));
	sp->n_bits++;
}

static uint32_t word_at(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

/*
 * Splits one object's bytes (@data, @len, as kpgo_gcda_write() made them)
 * into the streams. The record walk is generic: a payload that is neither
 * a 12-byte FUNCTION record nor arc counters goes to "structure" verbatim.
 */
static void split_object(struct split *sp, const char *path, const unsigned char *data, size_t len)
{
	struct kpgo_gcc_version v;
	uint32_t size32 = (uint32_t)len;
	size_t pos, hdr;

	if (len < 12 || len > UINT32_MAX || kpgo_gcc_version_decode(word_at(data + 4), &v))
		die("'%s': not a gcda image this tool understands", path);
	add(sp, S_NAMES, path, strlen(path));
	add(sp, S_NAMES, "\n", 1);
	add(sp, S_STRUCTURE, &size32, 4);
	hdr = v.has_checksum ? 16 : 12;
	if (len < hdr)
		die("'%s': truncated header", path);
	add(sp, S_STRUCTURE, data, hdr);
	sp->raw_structure += hdr;
	for (pos = hdr; pos < len;) {
		uint32_t tag, length;
		uint64_t bytes, i;

		if (len - pos < 8)
			die("'%s': truncated record at offset %zu", path, pos);
		tag = word_at(data + pos);
		length = word_at(data + pos + 4);
		add(sp, S_STRUCTURE, data + pos, 8);
		sp->raw_structure += 8;
		pos += 8;
		bytes = v.byte_lengths ? length : (uint64_t)length * 4;
		if (bytes > len - pos)
			die("'%s': record at offset %zu runs past the end", path, pos - 8);
		if (tag == KPGO_TAG_FUNCTION && bytes == 12) {
			add(sp, S_IDENTITY, data + pos, 12);
			add(sp, S_ID_IDENT, data + pos, 4);
			add(sp, S_ID_LINENO, data + pos + 4, 4);
			add(sp, S_ID_CFG, data + pos + 8, 4);
			sp->raw_identity += 12;
		} else if (tag == KPGO_TAG_ARCS && bytes % 8 == 0) {
			for (i = 0; i < bytes; i += 8) {
				uint64_t c = word_at(data + pos + i) |
					     (uint64_t)word_at(data + pos + i + 4) << 32;

				add_leb128(sp, S_COUNTERS, c);
				add_bit(sp, c != 0);
				if (c) {
					add_leb128(sp, S_CTR_NONZERO, c);
					sp->nonzero++;
				}
			}
			sp->raw_counters += bytes;
		} else {
			add(sp, S_STRUCTURE, data + pos, bytes);
			sp->raw_structure += bytes;
		}
		pos += bytes;
	}
	sp->raw += len;
}

/* Per-function figures from the parsed object. */
static void count_functions(struct split *sp, const struct kpgo_gcda *g)
{
	size_t i;

	if (g->n_fns >= sp->alloc_per) {
		size_t n = g->n_fns + 64;
		uint64_t *p = realloc(sp->per_object, n * sizeof(*p));

		if (!p)
			die("out of memory");
		memset(p + sp->alloc_per, 0, (n - sp->alloc_per) * sizeof(*p));
		sp->per_object = p;
		sp->alloc_per = n;
	}
	sp->per_object[g->n_fns]++;
	for (i = 0; i < g->n_fns; i++) {
		const struct kpgo_gcda_fn *fn = &g->fns[i];
		struct ident3 id = { { fn->ident, fn->lineno_checksum, fn->cfg_checksum } };

		if (sp->n_ids == sp->alloc_ids) {
			size_t n = sp->alloc_ids ? 2 * sp->alloc_ids : 4096;
			struct ident3 *p = realloc(sp->ids, n * sizeof(*p));

			if (!p)
				die("out of memory");
			sp->ids = p;
			sp->alloc_ids = n;
		}
		sp->ids[sp->n_ids++] = id;
		sp->functions++;
		sp->counters += fn->n_arcs;
		sp->ident_high_bit += fn->ident >> 31;
		if (fn->n_arcs == 0)
			sp->no_counters++;
		else if (kpgo_gcda_fn_sum(g, fn) == 0) {
			sp->never_ran++;
			add(sp, S_NEVER_RAN, id.v, sizeof(id.v));
		}
	}
}

/* --- decoding the streams again ------------------------------------------ */

struct cursor {
	const unsigned char *p;
	size_t len, pos;
};

static struct cursor cursor_of(const struct strbuf *sb)
{
	return (struct cursor){ (const unsigned char *)sb->buf, sb->len, 0 };
}

static int take(struct cursor *c, void *dst, size_t n)
{
	if (c->len - c->pos < n)
		return -EINVAL;
	memcpy(dst, c->p + c->pos, n);
	c->pos += n;
	return 0;
}

static int take_leb128(struct cursor *c, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 64; shift += 7) {
		unsigned char b;

		if (take(c, &b, 1))
			return -EINVAL;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -EINVAL;
}

static void put(struct strbuf *out, const void *data, size_t len)
{
	if (strbuf_add(out, data, len))
		die("out of memory");
}

/*
 * Rebuilds the payload from names + structure and either identity rows +
 * counter varints or identity columns + bitmap and non-zero varints, and
 * compares its hash with @want. Returns 0 when it matches.
 */
static int rebuild(const struct split *sp, bool columns, const char *want)
{
	struct cursor names = cursor_of(&sp->s[S_NAMES]), st = cursor_of(&sp->s[S_STRUCTURE]);
	struct cursor rows = cursor_of(&sp->s[S_IDENTITY]), ctrs = cursor_of(&sp->s[S_COUNTERS]);
	struct cursor col[3] = { cursor_of(&sp->s[S_ID_IDENT]), cursor_of(&sp->s[S_ID_LINENO]),
				 cursor_of(&sp->s[S_ID_CFG]) };
	struct cursor nz = cursor_of(&sp->s[S_CTR_NONZERO]);
	const unsigned char *bits = (const unsigned char *)sp->s[S_CTR_ZERO].buf;
	struct strbuf out = STRBUF_INIT, name = STRBUF_INIT;
	struct kpgo_sha256 *h = kpgo_sha256_new();
	char hex[KPGO_SHA256_HEX];
	uint64_t bit = 0;
	int r = -EINVAL;

	if (!h)
		die("out of memory");
	while (names.pos < names.len) {
		const unsigned char *nl = memchr(names.p + names.pos, '\n', names.len - names.pos);
		struct kpgo_gcc_version v;
		uint32_t size, w[4];

		if (!nl)
			goto out;
		strbuf_reset(&name);
		put(&name, "gcda/", 5);
		put(&name, names.p + names.pos, (size_t)(nl - names.p) - names.pos);
		names.pos = (size_t)(nl - names.p) + 1;
		strbuf_reset(&out);
		if (take(&st, &size, 4) || take(&st, w, 8) || kpgo_gcc_version_decode(w[1], &v) ||
		    take(&st, w + 2, v.has_checksum ? 8 : 4))
			goto out;
		put(&out, w, v.has_checksum ? 16 : 12);
		while (out.len < size) {
			uint32_t tl[2];
			uint64_t bytes, i;

			if (take(&st, tl, 8))
				goto out;
			put(&out, tl, 8);
			bytes = v.byte_lengths ? tl[1] : (uint64_t)tl[1] * 4;
			if (bytes > size - out.len)
				goto out;
			if (tl[0] == KPGO_TAG_FUNCTION && bytes == 12) {
				uint32_t id[3];

				if (!columns && take(&rows, id, 12))
					goto out;
				for (i = 0; columns && i < 3; i++)
					if (take(&col[i], &id[i], 4))
						goto out;
				put(&out, id, 12);
			} else if (tl[0] == KPGO_TAG_ARCS && bytes % 8 == 0) {
				for (i = 0; i < bytes; i += 8) {
					uint64_t c = 0;
					uint32_t lo, hi;

					if (!columns && take_leb128(&ctrs, &c))
						goto out;
					if (columns) {
						if (bit / 8 >= sp->s[S_CTR_ZERO].len)
							goto out;
						if (bits[bit / 8] >> (bit % 8) & 1)
							if (take_leb128(&nz, &c) || !c)
								goto out;
						bit++;
					}
					lo = (uint32_t)c;
					hi = (uint32_t)(c >> 32);
					put(&out, &lo, 4);
					put(&out, &hi, 4);
				}
			} else {
				if (strbuf_grow(&out, bytes))
					die("out of memory");
				if (take(&st, out.buf + out.len, bytes))
					goto out;
				out.len += bytes;
				out.buf[out.len] = '\0';
			}
		}
		if (out.len != size)
			goto out;
		kpgo_payload_hash_entry(h, name.buf, out.buf, out.len);
	}
	if (st.pos != st.len || (columns ? nz.pos != nz.len || bit != sp->n_bits :
					   rows.pos != rows.len || ctrs.pos != ctrs.len))
		goto out;
	for (int i = 0; columns && i < 3; i++)
		if (col[i].pos != col[i].len)
			goto out;
	kpgo_sha256_final_hex(h, hex);
	h = NULL;
	r = strcmp(hex, want) ? -EBADMSG : 0;
out:
	kpgo_sha256_free(h);
	strbuf_release(&out);
	strbuf_release(&name);
	return r;
}

/* --- how often identity values repeat ------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ident3(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct ident3));
}

/*
 * Prints, for field @f (0..2) or the whole triple (@f == 3): distinct
 * values, functions whose value another function also has, and how many
 * functions share the most common value. For a field also how uniform its
 * distinct values are: the least and the most often set of bits 0-30, in
 * per cent of the distinct values, and how often bit 31 is set (GCC's
 * idents are 31-bit).
 */
static void print_repeats(const struct split *sp, int f, const char *key)
{
	size_t n = sp->n_ids, i, distinct = 0, shared = 0, run = 0, top = 0;
	size_t width = f == 3 ? sizeof(struct ident3) : sizeof(uint32_t);
	unsigned char *a = malloc(n ? n * width : 1);
	uint64_t set[32] = { 0 }, lo = UINT64_MAX, hi = 0;
	int b;

	if (!a)
		die("out of memory");
	for (i = 0; i < n; i++) {
		if (f == 3)
			memcpy(a + i * width, &sp->ids[i], width);
		else
			memcpy(a + i * width, &sp->ids[i].v[f], width);
	}
	qsort(a, n, width, f == 3 ? cmp_ident3 : cmp_u32);
	for (i = 0; i < n; i++) {
		if (i == 0 || memcmp(a + i * width, a + (i - 1) * width, width)) {
			uint32_t w;

			distinct++;
			run = 1;
			memcpy(&w, a + i * width, 4);
			for (b = 0; f < 3 && b < 32; b++)
				set[b] += w >> b & 1;
		} else {
			run++;
			shared += run == 2 ? 2 : 1;
		}
		top = run > top ? run : top;
	}
	printf("%s.distinct %zu\n%s.shared %zu\n%s.most_common %zu\n", key, distinct, key, shared,
	       key, top);
	if (f < 3 && distinct) {
		for (b = 0; b < 31; b++) {
			lo = set[b] < lo ? set[b] : lo;
			hi = set[b] > hi ? set[b] : hi;
		}
		printf("%s.bits_set_min_pct %.1f\n%s.bits_set_max_pct %.1f\n%s.bit31_set_pct %.1f\n",
		       key, 100.0 * (double)lo / (double)distinct, key,
		       100.0 * (double)hi / (double)distinct, key,
		       100.0 * (double)set[31] / (double)distinct);
	}
	free(a);
}

static void write_streams(const struct split *sp, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	int i, r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("cannot create '%s': %s", dir, strerror(errno));
	for (i = 0; i < N_STREAMS; i++) {
		strbuf_reset(&path);
		if (strbuf_addf(&path, "%s/%s", dir, stream_name[i]))
			die("out of memory");
		r = kpgo_write_file_atomic(path.buf, sp->s[i].buf, sp->s[i].len, 0644);
		if (r)
			die("cannot write '%s': %s", path.buf, strerror(-r));
		printf("stream.%s %zu\n", stream_name[i], sp->s[i].len);
	}
	strbuf_release(&path);
}

int main(int argc, char **argv)
{
	struct kpgo_archive *a;
	struct kpgo_error err;
	struct kpgo_sha256 *h;
	struct strbuf bytes = STRBUF_INIT, name = STRBUF_INIT;
	struct split sp = { .n_bits = 0 };
	struct kpgo_gcda *g;
	const char *path, *want;
	char hex[KPGO_SHA256_HEX];
	size_t i;
	int r;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: payload-streams ARCHIVE DIR");
		return 0;
	}
	if (argc != 3) {
		fputs("usage: payload-streams ARCHIVE DIR\n", stderr);
		return 2;
	}
	for (i = 0; i < N_STREAMS; i++)
		strbuf_init(&sp.s[i]);
	r = kpgo_archive_open(&a, argv[1], &err);
	if (r)
		die("cannot read '%s': %s", argv[1], err.msg);
	h = kpgo_sha256_new();
	if (!h)
		die("out of memory");
	while ((r = kpgo_archive_next(a, &path, &g, &err)) == 1) {
		strbuf_reset(&bytes);
		strbuf_reset(&name);
		if (kpgo_gcda_write(g, 0, &bytes) || strbuf_addf(&name, "gcda/%s", path))
			die("'%s': cannot serialise it again", path);
		kpgo_payload_hash_entry(h, name.buf, bytes.buf, bytes.len);
		split_object(&sp, path, (const unsigned char *)bytes.buf, bytes.len);
		count_functions(&sp, g);
		sp.objects++;
	}
	if (r < 0)
		die("cannot read '%s': %s", argv[1], err.msg);
	want = kpgo_manifest_get(kpgo_archive_manifest(a), MF_PAYLOAD);
	kpgo_sha256_final_hex(h, hex);
	if (strcmp(hex, want))
		die("'%s': the objects written again differ from the archive's payload", argv[1]);
	if (sp.raw != sp.raw_structure + sp.raw_identity + sp.raw_counters)
		die("internal error: %" PRIu64 " raw bytes, %" PRIu64 " accounted for", sp.raw,
		    sp.raw_structure + sp.raw_identity + sp.raw_counters);
	if (rebuild(&sp, false, want) || rebuild(&sp, true, want))
		die("the streams do not rebuild the payload");

	printf("objects %" PRIu64 "\nfunctions %" PRIu64 "\ncounters %" PRIu64
	       "\nnonzero_counters %" PRIu64 "\n",
	       sp.objects, sp.functions, sp.counters, sp.nonzero);
	printf("raw %" PRIu64 "\nraw.structure %" PRIu64 "\nraw.identity %" PRIu64
	       "\nraw.counters %" PRIu64 "\n",
	       sp.raw, sp.raw_structure, sp.raw_identity, sp.raw_counters);
	write_streams(&sp, argv[2]);
	printf("never_ran.functions %" PRIu64 "\nnever_ran.identity_bytes %zu\n"
	       "no_counters.functions %" PRIu64 "\n",
	       sp.never_ran, sp.s[S_NEVER_RAN].len, sp.no_counters);
	printf("ident.high_bit_set %" PRIu64 "\n", sp.ident_high_bit);
	for (i = 0; i < sp.alloc_per; i++)
		if (sp.per_object[i])
			printf("objects_with_functions.%zu %" PRIu64 "\n", i, sp.per_object[i]);
	print_repeats(&sp, 0, "ident");
	print_repeats(&sp, 1, "lineno");
	print_repeats(&sp, 2, "cfg");
	print_repeats(&sp, 3, "triple");
	puts("rebuilt payload_sha256");

	kpgo_archive_close(a);
	for (i = 0; i < N_STREAMS; i++)
		strbuf_release(&sp.s[i]);
	strbuf_release(&bytes);
	strbuf_release(&name);
	free(sp.ids);
	free(sp.per_object);
	return 0;
}
