// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zstd.h>

#include "profile-archive.h"
#include "profile.h"
#include "sha256.h"

void kpgo_profile_init(struct kpgo_profile *p)
{
	memset(p, 0, sizeof(*p));
	kpgo_manifest_init(&p->manifest);
}

void kpgo_profile_release(struct kpgo_profile *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->objs[i].path);
		kpgo_gcda_release(&p->objs[i].gcda);
	}
	free(p->objs);
	kpgo_manifest_release(&p->manifest);
	kpgo_profile_init(p);
}

int kpgo_profile_add(struct kpgo_profile *p, char *path, struct kpgo_gcda *g)
{
	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 256;
		struct kpgo_object *no = realloc(p->objs, na * sizeof(*no));

		if (!no)
			return -ENOMEM;
		p->objs = no;
		p->alloc = na;
	}
	p->objs[p->n].path = path;
	p->objs[p->n].gcda = *g;
	kpgo_gcda_init(g);
	p->n++;
	return 0;
}

static int cmp_obj(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_object *)a)->path, ((const struct kpgo_object *)b)->path);
}

void kpgo_profile_sort(struct kpgo_profile *p)
{
	if (p->n > 1)
		qsort(p->objs, p->n, sizeof(*p->objs), cmp_obj);
}

const struct kpgo_object *kpgo_profile_find(const struct kpgo_profile *p, const char *path)
{
	struct kpgo_object key = { .path = (char *)path };

	return bsearch(&key, p->objs, p->n, sizeof(*p->objs), cmp_obj);
}

void kpgo_totals_add(struct kpgo_totals *t, const struct kpgo_gcda *g)
{
	uint64_t m = kpgo_gcda_max(g);

	t->objects++;
	t->functions += g->n_fns;
	t->counters += g->n_ctrs;
	t->sum_all = kpgo_sat_add(t->sum_all, kpgo_gcda_sum(g));
	if (m > t->max)
		t->max = m;
}

void kpgo_profile_totals(const struct kpgo_profile *p, struct kpgo_totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < p->n; i++)
		kpgo_totals_add(t, &p->objs[i].gcda);
}

bool kpgo_object_path_ok(const char *p)
{
	size_t n = strlen(p);

	return n > 5 && n <= 4096 && !strcmp(p + n - 5, ".gcda") && kpgo_path_is_safe(p);
}

/*
 * The archive's zstd stream is made here rather than by libarchive, whose
 * writer (3.6) cannot bound the window: a merge keeps one decoder per input
 * open, and each decoder holds a window, so a small window keeps the
 * merge's memory near one profile however many inputs it reads.
 * Level 9 with a 128 KiB window compresses kernel profiles better than
 * libarchive's default (level 3, 2 MiB window) did.
 */
#define ZSTD_LEVEL 9
#define ZSTD_WINDOW_LOG 17

struct zsink {
	ZSTD_CCtx *cctx;
	int fd;
	int err; /* errno of the first failure */
	unsigned char out[1 << 16];
};

static int zsink_flush(struct zsink *z, ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
	for (;;) {
		ZSTD_outBuffer out = { z->out, sizeof(z->out), 0 };
		size_t left = ZSTD_compressStream2(z->cctx, &out, in, mode);
		size_t done = 0;

		if (ZSTD_isError(left))
			return -EIO;
		while (done < out.pos) {
			ssize_t n = write(z->fd, z->out + done, out.pos - done);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			done += (size_t)n;
		}
		if (mode == ZSTD_e_end ? left == 0 : in->pos == in->size)
			return 0;
	}
}

static la_ssize_t zsink_write(struct archive *ar, void *data, const void *buf, size_t len)
{
	struct zsink *z = data;
	ZSTD_inBuffer in = { buf, len, 0 };
	int r = zsink_flush(z, &in, ZSTD_e_continue);

	if (r) {
		z->err = -r;
		archive_set_error(ar, z->err, "cannot write: %s", strerror(z->err));
		return -1;
	}
	return (la_ssize_t)len;
}

static int zsink_close(struct archive *ar, void *data)
{
	struct zsink *z = data;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	int r = zsink_flush(z, &in, ZSTD_e_end);

	if (r) {
		z->err = -r;
		archive_set_error(ar, z->err, "cannot write: %s", strerror(z->err));
		return ARCHIVE_FATAL;
	}
	return ARCHIVE_OK;
}

static int write_entry(struct archive *ar, const char *name, const void *data, size_t len,
		       struct kpgo_error *err)
{
	struct archive_entry *e = archive_entry_new();
	const char *p = data;
	int r = 0;

	if (!e)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	/* Fixed metadata: the same profile gives the same archive bytes. */
	archive_entry_set_mtime(e, 0, 0);
	if (archive_write_header(ar, e) != ARCHIVE_OK) {
		r = kpgo_error_set(err, -EIO, "cannot write archive: %s", archive_error_string(ar));
		goto out_free;
	}
	while (len) {
		la_ssize_t n = archive_write_data(ar, p, len);

		if (n <= 0) {
			r = kpgo_error_set(err, -EIO, "cannot write archive: %s",
					   archive_error_string(ar));
			goto out_free;
		}
		p += n;
		len -= (size_t)n;
	}
out_free:
	archive_entry_free(e);
	return r;
}

static int finish_manifest(struct kpgo_profile *p, struct kpgo_error *err)
{
	struct strbuf buf = STRBUF_INIT, name = STRBUF_INIT;
	struct kpgo_sha256 *h = kpgo_sha256_new();
	char hex[KPGO_SHA256_HEX], v[5];
	struct kpgo_totals t = { 0 };
	uint64_t sum_max = 0;
	size_t i;
	int r = 0;

	if (!h)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < p->n; i++) {
		const struct kpgo_object *o = &p->objs[i];

		if (i && o->gcda.version != p->objs[0].gcda.version) {
			r = kpgo_error_set(err, -EINVAL, "objects of different gcov versions");
			goto out;
		}
		strbuf_reset(&buf);
		strbuf_reset(&name);
		if (strbuf_addf(&name, "gcda/%s", o->path) ||
		    kpgo_gcda_write(&o->gcda, 0, &buf)) {
			r = kpgo_error_set(err, -ENOMEM, "cannot serialise '%s'", o->path);
			goto out;
		}
		kpgo_payload_hash_entry(h, name.buf, buf.buf, buf.len);
		kpgo_totals_add(&t, &o->gcda);
	}
	kpgo_sha256_final_hex(h, hex);
	h = NULL;
	kpgo_manifest_get_u64(&p->manifest, MF_SUM_MAX, &sum_max);
	if (sum_max < t.max)
		sum_max = t.max;
	if (!kpgo_manifest_get(&p->manifest, MF_FORMAT))
		kpgo_manifest_set_u64(&p->manifest, MF_FORMAT, KPGO_FORMAT_VERSION);
	if (p->n) {
		kpgo_gcc_version_str(p->objs[0].gcda.version, v);
		kpgo_manifest_set(&p->manifest, MF_GCOV_VERSION, v);
	}
	if (!kpgo_manifest_get(&p->manifest, MF_RUNS))
		kpgo_manifest_set_u64(&p->manifest, MF_RUNS, 1);
	if (kpgo_manifest_set_u64(&p->manifest, MF_OBJECTS, t.objects) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_FUNCTIONS, t.functions) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_COUNTERS, t.counters) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_SUM_ALL, t.sum_all) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_SUM_MAX, sum_max) ||
	    kpgo_manifest_set(&p->manifest, MF_PAYLOAD, hex))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	if (!r && !kpgo_manifest_get(&p->manifest, MF_GCOV_VERSION))
		r = kpgo_error_set(err, -EINVAL, "the profile has no objects");
out:
	kpgo_sha256_free(h);
	strbuf_release(&buf);
	strbuf_release(&name);
	return r;
}

int kpgo_profile_save(struct kpgo_profile *p, const char *path, struct kpgo_error *err)
{
	struct strbuf tmp = STRBUF_INIT, buf = STRBUF_INIT, name = STRBUF_INIT;
	struct archive *ar = NULL;
	struct zsink *z = NULL;
	size_t i;
	int fd = -1, r;

	kpgo_profile_sort(p);
	for (i = 1; i < p->n; i++)
		if (!strcmp(p->objs[i].path, p->objs[i - 1].path))
			return kpgo_error_set(err, -EINVAL, "object '%s' twice", p->objs[i].path);
	for (i = 0; i < p->n; i++)
		if (!kpgo_object_path_ok(p->objs[i].path))
			return kpgo_error_set(err, -EINVAL, "bad object path '%s'", p->objs[i].path);
	r = finish_manifest(p, err);
	if (r)
		return r;
	/* Never write what the reader would refuse: parse our own manifest. */
	r = kpgo_manifest_format(&p->manifest, &buf);
	if (!r) {
		struct kpgo_manifest check;

		r = kpgo_manifest_parse(buf.buf, buf.len, &check, err);
		kpgo_manifest_release(&check);
		if (r)
			goto out;
	}
	if (r) {
		r = kpgo_error_set(err, r, "out of memory");
		goto out;
	}
	fd = kpgo_tmpfile_for(path, &tmp);
	if (fd < 0) {
		r = kpgo_error_set(err, fd, "cannot create '%s': %s", path, strerror(-fd));
		goto out;
	}
	z = calloc(1, sizeof(*z));
	if (!z || !(z->cctx = ZSTD_createCCtx()) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_windowLog, ZSTD_WINDOW_LOG)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	z->fd = fd;
	ar = archive_write_new();
	if (!ar || archive_write_set_format_pax_restricted(ar) != ARCHIVE_OK ||
	    archive_write_add_filter_none(ar) != ARCHIVE_OK ||
	    archive_write_open2(ar, z, NULL, zsink_write, zsink_close, NULL) != ARCHIVE_OK) {
		r = kpgo_error_set(err, -EIO, "cannot write archive: %s",
				   ar ? archive_error_string(ar) : "out of memory");
		goto out;
	}
	r = write_entry(ar, "MANIFEST", buf.buf, buf.len, err);
	for (i = 0; !r && i < p->n; i++) {
		strbuf_reset(&buf);
		strbuf_reset(&name);
		if (strbuf_addf(&name, "gcda/%s", p->objs[i].path) ||
		    kpgo_gcda_write(&p->objs[i].gcda, 0, &buf))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		else
			r = write_entry(ar, name.buf, buf.buf, buf.len, err);
	}
	if (!r && archive_write_close(ar) != ARCHIVE_OK)
		r = kpgo_error_set(err, -EIO, "cannot write '%s': %s", path,
				   archive_error_string(ar));
	/*
	 * libarchive (3.6) ignores what the close callback returns: a failed
	 * final flush (a full disk, with the whole archive in its last block)
	 * would otherwise leave an empty file reported as written.
	 */
	if (!r && z->err)
		r = kpgo_error_set(err, -z->err, "cannot write '%s': %s", path,
				   strerror(z->err));
	if (!r && fchmod(fd, 0644) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s': %s", path, strerror(errno));
	if (!r && fsync(fd) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s': %s", path, strerror(errno));
	if (!r && rename(tmp.buf, path) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s': %s", path, strerror(errno));
	if (!r)
		kpgo_fsync_parent(path);
out:
	if (ar)
		archive_write_free(ar);
	if (z) {
		ZSTD_freeCCtx(z->cctx);
		free(z);
	}
	if (fd >= 0)
		close(fd);
	if (r && tmp.len)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	strbuf_release(&buf);
	strbuf_release(&name);
	return r;
}

int kpgo_profile_load(struct kpgo_profile *p, const char *path, struct kpgo_error *err)
{
	struct kpgo_archive *a;
	struct kpgo_gcda *g;
	const char *rel;
	int r;

	kpgo_profile_init(p);
	r = kpgo_archive_open(&a, path, err);
	if (r)
		return r;
	r = kpgo_manifest_copy(&p->manifest, kpgo_archive_manifest(a));
	while (!r && (r = kpgo_archive_next(a, &rel, &g, err)) == 1) {
		char *dup = strdup(rel);

		if (!dup || kpgo_profile_add(p, dup, g)) {
			free(dup);
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		} else {
			r = 0;
		}
	}
	kpgo_archive_close(a);
	if (r)
		kpgo_profile_release(p);
	return r;
}
