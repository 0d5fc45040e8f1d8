// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <zstd.h>

#include "profile-archive.h"
#include "profile-writer.h"
#include "profile.h"
#include "sha256.h"
#include "records.h"

/*
 * The archive's zstd stream is made here rather than by libarchive, whose
 * writer (3.6) cannot bound the window: a merge keeps a decoder per open
 * input, and each decoder holds a window, so a small window keeps the
 * merge's memory small.
 * Level 9 with a 128 KiB window compresses kernel profiles better than
 * libarchive's default (level 3, 2 MiB window) did.
 */
#define ZSTD_LEVEL 9
#define ZSTD_WINDOW_LOG KPGO_ZSTD_WINDOW_LOG

struct zsink {
	ZSTD_CCtx *cctx;
	int fd;
	int err; /* errno of the first failure */
	unsigned char out[1 << 16];
};

struct kpgo_profile_writer {
	struct strbuf path;
	struct kpgo_records *spool;
	struct strbuf data; /* one object, serialised */
	struct strbuf name; /* its entry name */
	struct strbuf prev; /* the previous object's path */
	struct kpgo_sha256 *hash;
	struct kpgo_totals totals;
	uint32_t version;
};

static int zsink_flush(struct zsink *z, ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
	for (;;) {
		ZSTD_outBuffer out = { z->out, sizeof(z->out), 0 };
		size_t left = ZSTD_compressStream2(z->cctx, &out, in, mode);
		int r;

		if (ZSTD_isError(left))
			return -EIO;
		r = kpgo_write_all(z->fd, z->out, out.pos);
		if (r)
			return r;
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

int kpgo_profile_writer_open(struct kpgo_profile_writer **wp, const char *path,
			     struct kpgo_error *err)
{
	struct kpgo_profile_writer *w = calloc(1, sizeof(*w));
	int r;

	*wp = NULL;
	if (!w)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	strbuf_init(&w->path);
	strbuf_init(&w->data);
	strbuf_init(&w->name);
	strbuf_init(&w->prev);
	w->hash = kpgo_sha256_new();
	if (!w->hash || strbuf_addstr(&w->path, path)) {
		kpgo_profile_writer_free(w);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	r = kpgo_records_open(&w->spool, path, err);
	if (r) {
		kpgo_profile_writer_free(w);
		return r;
	}
	*wp = w;
	return 0;
}

int kpgo_profile_writer_add(struct kpgo_profile_writer *w, const char *rel,
			    const struct kpgo_gcda *g, struct kpgo_error *err)
{
	int r;

	if (!kpgo_object_path_ok(rel))
		return kpgo_error_set(err, -EINVAL, "bad object path '%s'", rel);
	if (w->totals.objects) {
		int c = strcmp(w->prev.buf, rel);

		if (c == 0)
			return kpgo_error_set(err, -EINVAL, "object '%s' twice", rel);
		if (c > 0)
			return kpgo_error_set(err, -EINVAL, "object '%s' out of order", rel);
		if (g->version != w->version)
			return kpgo_error_set(err, -EINVAL, "objects of different gcov versions");
	}
	/* Never write what a reader refuses. */
	r = kpgo_gcda_check_caps(g, err);
	if (r) {
		kpgo_error_prefix(err, "'%s'", rel);
		return r;
	}
	if (g->n_ctrs > KPGO_PROFILE_MAX_COUNTERS - w->totals.counters)
		return kpgo_error_set(err, -E2BIG,
				      "more than %llu counters in the profile (at '%s')",
				      (unsigned long long)KPGO_PROFILE_MAX_COUNTERS, rel);
	strbuf_reset(&w->prev);
	strbuf_reset(&w->data);
	strbuf_reset(&w->name);
	if (strbuf_addstr(&w->prev, rel) || strbuf_addf(&w->name, "gcda/%s", rel) ||
	    kpgo_gcda_write(g, 0, &w->data))
		return kpgo_error_set(err, -ENOMEM, "cannot serialise '%s'", rel);
	kpgo_payload_hash_entry(w->hash, w->name.buf, w->data.buf, w->data.len);
	kpgo_totals_add(&w->totals, g);
	w->version = g->version;
	r = kpgo_records_add(w->spool, w->name.buf, w->data.buf, w->data.len);
	if (r)
		return kpgo_error_set(err, r, "cannot write '%s': %s", w->path.buf, strerror(-r));
	return 0;
}

/* The manifest's totals and hash, as kpgo_profile_save() documents. */
static int finish_manifest(struct kpgo_profile_writer *w, struct kpgo_manifest *m,
			   struct kpgo_error *err)
{
	const struct kpgo_totals *t = &w->totals;
	char hex[KPGO_SHA256_HEX], v[5];
	uint64_t sum_max = 0;

	kpgo_sha256_final_hex(w->hash, hex);
	w->hash = NULL;
	kpgo_manifest_get_u64(m, MF_SUM_MAX, &sum_max);
	if (sum_max < t->max)
		sum_max = t->max;
	/*
	 * A run's largest counter is one of its counters, so the sum over runs
	 * is at most the sum of all (SUM_ALL saturates, so this holds with
	 * saturated counters too). Inputs left out of a merge (--allow-mismatch)
	 * can leave less: readers refuse a SUM_MAX above SUM_ALL.
	 */
	if (sum_max > t->sum_all)
		sum_max = t->sum_all;
	if (!kpgo_manifest_get(m, MF_FORMAT))
		kpgo_manifest_set_u64(m, MF_FORMAT, KPGO_FORMAT_VERSION);
	if (t->objects) {
		kpgo_gcc_version_str(w->version, v);
		kpgo_manifest_set(m, MF_GCOV_VERSION, v);
	}
	if (!kpgo_manifest_get(m, MF_RUNS))
		kpgo_manifest_set_u64(m, MF_RUNS, 1);
	if (kpgo_manifest_set_u64(m, MF_OBJECTS, t->objects) ||
	    kpgo_manifest_set_u64(m, MF_FUNCTIONS, t->functions) ||
	    kpgo_manifest_set_u64(m, MF_COUNTERS, t->counters) ||
	    kpgo_manifest_set_u64(m, MF_SUM_ALL, t->sum_all) ||
	    kpgo_manifest_set_u64(m, MF_SUM_MAX, sum_max) || kpgo_manifest_set(m, MF_PAYLOAD, hex))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	if (!kpgo_manifest_get(m, MF_GCOV_VERSION))
		return kpgo_error_set(err, -EINVAL, "the profile has no objects");
	return 0;
}

/* Writes MANIFEST (@mf, formatted) and the spooled objects into @ar. */
static int write_entries(struct kpgo_profile_writer *w, struct archive *ar, const struct strbuf *mf,
			 struct kpgo_error *err)
{
	uint64_t i;
	int r;

	r = write_entry(ar, "MANIFEST", mf->buf, mf->len, err);
	for (i = 0; !r && i < w->totals.objects; i++) {
		const char *name;
		const void *data;
		size_t len;

		r = kpgo_records_next(w->spool, &name, &data, &len);
		if (r == 1)
			r = write_entry(ar, name, data, len, err);
		else
			r = kpgo_error_set(err, r ? r : -EIO,
					   "cannot read back the objects spooled for '%s': %s",
					   w->path.buf, strerror(r ? -r : EIO));
	}
	return r;
}

int kpgo_profile_writer_commit(struct kpgo_profile_writer *w, struct kpgo_manifest *m,
			       struct kpgo_error *err)
{
	struct strbuf tmp = STRBUF_INIT, mf = STRBUF_INIT;
	const char *path = w->path.buf;
	struct archive *ar = NULL;
	struct zsink *z = NULL;
	int fd = -1, r;

	if (!w->hash)
		return kpgo_error_set(err, -EINVAL, "'%s' was committed already", path);
	r = finish_manifest(w, m, err);
	if (r)
		return r;
	/* Never write what the reader would refuse: parse our own manifest. */
	r = kpgo_manifest_format(m, &mf);
	if (r) {
		r = kpgo_error_set(err, r, "out of memory");
		goto out;
	} else {
		struct kpgo_manifest check;

		r = kpgo_manifest_parse(mf.buf, mf.len, &check, err);
		kpgo_manifest_release(&check);
		if (r)
			goto out;
	}
	r = kpgo_records_rewind(w->spool);
	if (r) {
		r = kpgo_error_set(err, r, "cannot write '%s': %s", path, strerror(-r));
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
	r = write_entries(w, ar, &mf, err);
	if (!r && archive_write_close(ar) != ARCHIVE_OK)
		r = kpgo_error_set(err, -EIO, "cannot write '%s': %s", path,
				   archive_error_string(ar));
	/*
	 * libarchive (3.6) ignores what the close callback returns: a failed
	 * final flush (a full disk, with the whole archive in its last block)
	 * would otherwise leave an empty file reported as written.
	 */
	if (!r && z->err)
		r = kpgo_error_set(err, -z->err, "cannot write '%s': %s", path, strerror(z->err));
	if (!r && fchmod(fd, 0644) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s': %s", path, strerror(errno));
	if (!r && fsync(fd) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s': %s", path, strerror(errno));
	if (!r) {
		r = kpgo_tmpfile_commit(fd, &tmp, path);
		if (r)
			r = kpgo_error_set(err, r, "cannot write '%s': %s", path, strerror(-r));
	}
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
	strbuf_release(&mf);
	return r;
}

void kpgo_profile_writer_free(struct kpgo_profile_writer *w)
{
	if (!w)
		return;
	kpgo_records_free(w->spool);
	kpgo_sha256_free(w->hash);
	strbuf_release(&w->path);
	strbuf_release(&w->data);
	strbuf_release(&w->name);
	strbuf_release(&w->prev);
	free(w);
}
