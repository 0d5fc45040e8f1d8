// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "profile-archive.h"
#include "profile.h"
#include "sha256.h"

/*
 * The bytes libarchive reads: a file or a buffer, decompressed here when
 * they are zstd (kpgo's own decoder, whose window can be bounded, rather
 * than libarchive's, which takes any window up to 2 GiB), else handed on
 * as they are (an uncompressed tar).
 */
struct source {
	int fd; /* or -1: read from @mem */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	ZSTD_DCtx *dctx; /* set once the stream is known to be zstd */
	bool sniffed;
	bool eof;
	size_t frame_left; /* ZSTD_decompressStream's last hint: 0 = at a frame's end */
	ZSTD_inBuffer in;
	unsigned char inbuf[1 << 16];
	unsigned char outbuf[1 << 17];
};

struct kpgo_archive {
	struct archive *ar;
	struct source src;
	struct kpgo_manifest manifest;
	struct kpgo_sha256 *hash;
	struct strbuf own;   /* entry bytes, unless a shared buffer is used */
	struct strbuf *data; /* &own, or the shared buffer */
	struct strbuf name;
	struct strbuf prev;
	struct kpgo_gcda gcda;
	struct kpgo_totals totals;
	uint32_t version;
	uint64_t entries;
	uint64_t total_bytes;
	uint64_t claimed_counters; /* the manifest's COUNTERS, bounded */
	la_int64_t size;	   /* of the entry whose header was read */
	bool pending;		   /* a header was read, its bytes not yet */
	bool done;
};

void kpgo_payload_hash_entry(struct kpgo_sha256 *h, const char *name, const void *data, size_t len)
{
	unsigned char sz[8];
	uint64_t n = len;
	int i;

	for (i = 0; i < 8; i++)
		sz[i] = (unsigned char)(n >> (8 * i));
	kpgo_sha256_update(h, name, strlen(name) + 1);
	kpgo_sha256_update(h, sz, sizeof(sz));
	kpgo_sha256_update(h, data, len);
}

/* The next raw bytes into src->inbuf: 0, or -1 with the error set. */
static int source_fill(struct archive *ar, struct source *src)
{
	ssize_t n;

	if (src->fd < 0) {
		n = (ssize_t)(src->mem_len - src->mem_pos);
		if (n > (ssize_t)sizeof(src->inbuf))
			n = sizeof(src->inbuf);
		memcpy(src->inbuf, src->mem + src->mem_pos, (size_t)n);
		src->mem_pos += (size_t)n;
	} else {
		do
			n = read(src->fd, src->inbuf, sizeof(src->inbuf));
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			archive_set_error(ar, errno, "cannot read: %s", strerror(errno));
			return -1;
		}
	}
	src->in.src = src->inbuf;
	src->in.size = (size_t)n;
	src->in.pos = 0;
	src->eof = n == 0;
	return 0;
}

/* A zstd frame or skippable frame starts here (RFC 8878's magic numbers). */
static bool is_zstd(const unsigned char *p)
{
	uint32_t m = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;

	return m == 0xfd2fb528u || (m & 0xfffffff0u) == 0x184d2a50u;
}

static la_ssize_t source_read(struct archive *ar, void *data, const void **buf)
{
	struct source *src = data;

	if (!src->sniffed) {
		src->sniffed = true;
		if (source_fill(ar, src))
			return -1;
		if (src->in.size >= 4 && is_zstd(src->inbuf)) {
			src->dctx = ZSTD_createDCtx();
			if (!src->dctx ||
			    ZSTD_isError(ZSTD_DCtx_setParameter(src->dctx, ZSTD_d_windowLogMax,
								KPGO_ZSTD_WINDOW_LOG))) {
				archive_set_error(ar, ENOMEM, "out of memory");
				return -1;
			}
		} else {
			*buf = src->inbuf;
			return (la_ssize_t)src->in.size;
		}
	} else if (!src->dctx) {
		if (source_fill(ar, src))
			return -1;
		*buf = src->inbuf;
		return (la_ssize_t)src->in.size;
	}
	for (;;) {
		ZSTD_outBuffer out = { src->outbuf, sizeof(src->outbuf), 0 };
		size_t r;

		if (src->in.pos == src->in.size) {
			if (!src->eof && source_fill(ar, src))
				return -1;
			if (src->eof) {
				if (src->frame_left) {
					archive_set_error(ar, EINVAL,
							  "Zstd decompression failed: truncated zstd stream");
					return -1;
				}
				return 0;
			}
		}
		r = ZSTD_decompressStream(src->dctx, &out, &src->in);
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
				archive_set_error(ar, EINVAL,
						  "a zstd frame needs a window over %u KiB, more than the format allows",
						  (1u << KPGO_ZSTD_WINDOW_LOG) >> 10);
			else
				archive_set_error(ar, EINVAL, "Zstd decompression failed: %s",
						  ZSTD_getErrorName(r));
			return -1;
		}
		src->frame_left = r;
		if (out.pos) {
			*buf = src->outbuf;
			return (la_ssize_t)out.pos;
		}
	}
}

static int source_close(struct archive *ar, void *data)
{
	struct source *src = data;

	(void)ar;
	ZSTD_freeDCtx(src->dctx);
	src->dctx = NULL;
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	return ARCHIVE_OK;
}

static int ar_fail(struct kpgo_archive *a, struct kpgo_error *err, const char *what)
{
	const char *s = archive_error_string(a->ar);

	return kpgo_error_set(err, -EINVAL, "%s: %s", what, s ? s : "unknown libarchive error");
}

/*
 * Reads the next header, refusing anything but a regular file of bounded
 * size. Returns 1, 0 at EOF, or an error.
 */
static int read_header(struct kpgo_archive *a, struct kpgo_error *err)
{
	struct archive_entry *e;
	const char *name;
	la_int64_t size;
	int r;

	r = archive_read_next_header(a->ar, &e);
	if (r == ARCHIVE_EOF)
		return 0;
	if (r != ARCHIVE_OK)
		return ar_fail(a, err, "bad archive");
	if (++a->entries > KPGO_ARCHIVE_ENTRIES_MAX + 1)
		return kpgo_error_set(err, -E2BIG, "archive has more than %u entries",
				      KPGO_ARCHIVE_ENTRIES_MAX);
	name = archive_entry_pathname(e);
	if (!name)
		return kpgo_error_set(err, -EINVAL, "archive entry %llu has no name",
				      (unsigned long long)a->entries);
	strbuf_reset(&a->name);
	if (strbuf_addstr(&a->name, name))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	if (archive_entry_hardlink(e))
		return kpgo_error_set(err, -EINVAL, "archive entry '%s' is a hard link", name);
	if (archive_entry_filetype(e) != AE_IFREG)
		return kpgo_error_set(err, -EINVAL, "archive entry '%s' is not a regular file",
				      name);
	if (!archive_entry_size_is_set(e))
		return kpgo_error_set(err, -EINVAL, "archive entry '%s' has no size", name);
	size = archive_entry_size(e);
	if (size < 0 || (uint64_t)size > KPGO_ARCHIVE_ENTRY_MAX)
		return kpgo_error_set(err, -EFBIG, "archive entry '%s' is too large (%lld bytes)",
				      name, (long long)size);
	a->total_bytes += (uint64_t)size;
	if (a->total_bytes > KPGO_ARCHIVE_TOTAL_MAX)
		return kpgo_error_set(err, -EFBIG, "archive unpacks to more than %llu bytes",
				      (unsigned long long)KPGO_ARCHIVE_TOTAL_MAX);
	a->size = size;
	return 1;
}

/* Reads the bytes of the entry whose header was just read into a->data. */
static int read_data(struct kpgo_archive *a, struct kpgo_error *err)
{
	struct strbuf *d = a->data;
	const char *name = a->name.buf;
	size_t size = (size_t)a->size;

	strbuf_reset(d);
	if (strbuf_grow(d, size))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (;;) {
		la_ssize_t n = archive_read_data(a->ar, d->buf + d->len, d->alloc - d->len - 1);

		if (n < 0)
			return ar_fail(a, err, "bad archive");
		if (n == 0)
			break;
		d->len += (size_t)n;
		d->buf[d->len] = '\0';
		if (d->len > size)
			return kpgo_error_set(err, -EINVAL,
					      "archive entry '%s' is longer than its header says",
					      name);
		if (d->len == d->alloc - 1 && strbuf_grow(d, 4096))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (d->len != size)
		return kpgo_error_set(err, -EINVAL, "archive entry '%s' is truncated", name);
	return 1;
}

/* The next entry, header and bytes: 1, 0 at EOF, or an error. */
static int read_entry(struct kpgo_archive *a, struct kpgo_error *err)
{
	int r = read_header(a, err);

	return r == 1 ? read_data(a, err) : r;
}

static int finish_open(struct kpgo_archive *a, struct kpgo_error *err)
{
	const char *gv;
	int r;

	r = read_entry(a, err);
	if (r == 0)
		return kpgo_error_set(err, -EINVAL, "empty archive, no MANIFEST");
	if (r < 0)
		return r;
	if (strcmp(a->name.buf, "MANIFEST"))
		return kpgo_error_set(err, -EINVAL, "first entry is '%s', not MANIFEST",
				      a->name.buf);
	r = kpgo_manifest_parse(a->data->buf, a->data->len, &a->manifest, err);
	if (r)
		return r;
	gv = kpgo_manifest_get(&a->manifest, MF_GCOV_VERSION);
	if (kpgo_gcc_version_parse(gv, &a->version))
		return kpgo_error_set(err, -EINVAL, "manifest has a bad GCOV_VERSION '%s'", gv);
	/* The claims bound what the payload may expand to: checked first. */
	if (kpgo_manifest_get_u64(&a->manifest, MF_COUNTERS, &a->claimed_counters))
		a->claimed_counters = KPGO_PROFILE_MAX_COUNTERS; /* refused at the end */
	else if (a->claimed_counters > KPGO_PROFILE_MAX_COUNTERS)
		return kpgo_error_set(err, -E2BIG, "manifest says COUNTERS=%llu, more than %llu",
				      (unsigned long long)a->claimed_counters,
				      (unsigned long long)KPGO_PROFILE_MAX_COUNTERS);
	a->hash = kpgo_sha256_new();
	if (!a->hash)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static struct kpgo_archive *archive_alloc(void)
{
	struct kpgo_archive *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	strbuf_init(&a->own);
	a->data = &a->own;
	strbuf_init(&a->name);
	strbuf_init(&a->prev);
	a->ar = archive_read_new();
	if (!a->ar) {
		free(a);
		return NULL;
	}
	/* Only what kpgo writes: tar, zstd-compressed (by source_read) or not. */
	archive_read_support_format_tar(a->ar);
	a->src.fd = -1;
	return a;
}

/* Opens @a on its source and reads the manifest; closes @a on failure. */
static int open_source(struct kpgo_archive **ap, struct kpgo_archive *a, struct kpgo_error *err)
{
	int r;

	if (archive_read_open2(a->ar, &a->src, NULL, source_read, NULL, source_close) != ARCHIVE_OK)
		r = ar_fail(a, err, "cannot open");
	else
		r = finish_open(a, err);
	if (r) {
		kpgo_archive_close(a);
		return r;
	}
	*ap = a;
	return 0;
}

int kpgo_archive_open(struct kpgo_archive **ap, const char *path, struct kpgo_error *err)
{
	struct kpgo_archive *a = archive_alloc();
	int r;

	*ap = NULL;
	if (!a)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	a->src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (a->src.fd < 0) {
		r = kpgo_error_set(err, -errno, "cannot open: %s", strerror(errno));
		kpgo_archive_close(a);
		return r;
	}
	return open_source(ap, a, err);
}

int kpgo_archive_open_memory(struct kpgo_archive **ap, const void *buf, size_t len,
			     struct kpgo_error *err)
{
	struct kpgo_archive *a = archive_alloc();

	*ap = NULL;
	if (!a)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	a->src.mem = buf;
	a->src.mem_len = len;
	return open_source(ap, a, err);
}

const struct kpgo_manifest *kpgo_archive_manifest(const struct kpgo_archive *a)
{
	return &a->manifest;
}

static int check_totals(struct kpgo_archive *a, struct kpgo_error *err)
{
	const struct {
		const char *key;
		uint64_t have;
	} t[] = {
		{ MF_OBJECTS, a->totals.objects },
		{ MF_FUNCTIONS, a->totals.functions },
		{ MF_COUNTERS, a->totals.counters },
		{ MF_SUM_ALL, a->totals.sum_all },
	};
	char hex[KPGO_SHA256_HEX];
	uint64_t v;
	size_t i;

	kpgo_sha256_final_hex(a->hash, hex);
	a->hash = NULL;
	if (strcmp(hex, kpgo_manifest_get(&a->manifest, MF_PAYLOAD)))
		return kpgo_error_set(err, -EBADMSG,
				      "payload does not match the manifest's PAYLOAD_SHA256");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* SUM_ALL is informative: checked when present. */
		if (!strcmp(t[i].key, MF_SUM_ALL) && !kpgo_manifest_get(&a->manifest, MF_SUM_ALL))
			continue;
		if (kpgo_manifest_get_u64(&a->manifest, t[i].key, &v) || v != t[i].have)
			return kpgo_error_set(err, -EBADMSG,
					      "manifest says %s=%s, the payload has %llu", t[i].key,
					      kpgo_manifest_get(&a->manifest, t[i].key),
					      (unsigned long long)t[i].have);
	}
	if (kpgo_manifest_get_u64(&a->manifest, MF_SUM_MAX, &v) || v < a->totals.max)
		return kpgo_error_set(err, -EBADMSG,
				      "manifest's SUM_MAX is below the largest counter (%llu)",
				      (unsigned long long)a->totals.max);
	if (v > a->totals.sum_all)
		return kpgo_error_set(err, -EBADMSG,
				      "manifest's SUM_MAX=%llu is above the sum of all counters (%llu)",
				      (unsigned long long)v, (unsigned long long)a->totals.sum_all);
	if (kpgo_manifest_get_u64(&a->manifest, MF_RUNS, &v) || v == 0)
		return kpgo_error_set(err, -EBADMSG, "manifest has no valid RUNS");
	return 0;
}

void kpgo_archive_share_buffer(struct kpgo_archive *a, struct strbuf *buf)
{
	strbuf_release(&a->own);
	a->data = buf;
}

/* The entry name's object path, for ordering only: checked when it is read. */
static const char *peek_path(const struct kpgo_archive *a)
{
	return strncmp(a->name.buf, "gcda/", 5) ? a->name.buf : a->name.buf + 5;
}

/* Reads the next header unless one is pending: 1, or 0 once the end is checked. */
static int next_header(struct kpgo_archive *a, struct kpgo_error *err)
{
	int r;

	if (a->pending)
		return 1;
	if (a->done)
		return 0;
	r = read_header(a, err);
	if (r < 0)
		return r;
	if (r == 0) {
		r = check_totals(a, err);
		if (r)
			return r;
		a->done = true;
		return 0;
	}
	a->pending = true;
	return 1;
}

int kpgo_archive_peek(struct kpgo_archive *a, const char **path, struct kpgo_error *err)
{
	int r;

	kpgo_gcda_release(&a->gcda);
	r = next_header(a, err);
	if (r == 1)
		*path = peek_path(a);
	return r;
}

int kpgo_archive_next(struct kpgo_archive *a, const char **path, struct kpgo_gcda **gcda,
		      struct kpgo_error *err)
{
	const char *rel;
	int r;

	kpgo_gcda_release(&a->gcda);
	r = next_header(a, err);
	if (r <= 0)
		return r;
	a->pending = false;
	r = read_data(a, err);
	if (r < 0)
		return r;
	if (strncmp(a->name.buf, "gcda/", 5))
		return kpgo_error_set(err, -EINVAL, "unexpected archive entry '%s'", a->name.buf);
	rel = a->name.buf + 5;
	if (!kpgo_object_path_ok(rel))
		return kpgo_error_set(err, -EINVAL, "unsafe or bad archive entry name '%s'",
				      a->name.buf);
	if (a->prev.len && strcmp(a->prev.buf, a->name.buf) >= 0)
		return kpgo_error_set(err, -EINVAL,
				      "archive entry '%s' is out of order or repeated", a->name.buf);
	strbuf_reset(&a->prev);
	if (strbuf_addstr(&a->prev, a->name.buf))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	r = kpgo_gcda_parse(a->data->buf, a->data->len, &a->gcda, err);
	if (r) {
		kpgo_error_prefix(err, "'%s'", rel);
		return r;
	}
	if (a->gcda.version != a->version) {
		char v[5];

		kpgo_gcc_version_str(a->gcda.version, v);
		return kpgo_error_set(err, -EBADMSG,
				      "'%s' has gcov version '%s', the manifest says '%s'", rel, v,
				      kpgo_manifest_get(&a->manifest, MF_GCOV_VERSION));
	}
	kpgo_payload_hash_entry(a->hash, a->name.buf, a->data->buf, a->data->len);
	kpgo_totals_add(&a->totals, &a->gcda);
	if (a->totals.counters > a->claimed_counters)
		return kpgo_error_set(err, -EBADMSG,
				      "'%s': the payload has more counters than the manifest's COUNTERS=%llu",
				      rel, (unsigned long long)a->claimed_counters);
	*path = rel;
	*gcda = &a->gcda;
	return 1;
}

void kpgo_archive_close(struct kpgo_archive *a)
{
	if (!a)
		return;
	archive_read_free(a->ar);
	kpgo_manifest_release(&a->manifest);
	kpgo_sha256_free(a->hash);
	kpgo_gcda_release(&a->gcda);
	strbuf_release(&a->own);
	strbuf_release(&a->name);
	strbuf_release(&a->prev);
	free(a);
}
