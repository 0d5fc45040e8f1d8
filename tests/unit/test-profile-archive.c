// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile .kpgo archives (profile-archive.h); the profile save/load round
 * trip is test-profile.c's.
 *
 * Archives are built in memory with libarchive's own writer, so that every
 * kind of entry tar can describe (links, devices, odd names, lying sizes)
 * can be fed to the reader. Each refused archive is read twice: from
 * memory with kpgo_archive_open_memory()/kpgo_archive_next(), and from a
 * file with kpgo_profile_load(); both must give the same message, and the
 * temporary directory (which is also the working directory) must be
 * unchanged afterwards: the reader never writes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <zstd.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "profile-archive.h"
#include "profile.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-archive.XXXXXX";
static int case_no;

/* --- building archives ------------------------------------------------ */

enum kind { K_FILE, K_SYMLINK, K_HARDLINK, K_CHR, K_BLK, K_FIFO, K_DIR };
enum fmt { TAR_ZSTD, TAR_PLAIN, GNUTAR_PLAIN, TAR_GZIP, CPIO_PLAIN };

struct ent {
	const char *name;
	const void *data;
	size_t len;
	enum kind kind;
	const char *link;
	int64_t size; /* > 0: the header's size, libarchive pads with zeros */
};

static la_ssize_t mem_write(struct archive *a, void *cd, const void *buf, size_t n)
{
	(void)a;
	return strbuf_add(cd, buf, n) ? -1 : (la_ssize_t)n;
}

/*
 * Compresses @buf in place as one zstd frame with a window of 2^@wlog
 * bytes, without a content size (as a stream, so the window is what the
 * frame header says, not the input's size).
 */
static void zstd_window(struct strbuf *buf, int wlog)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct strbuf out = STRBUF_INIT;
	ZSTD_inBuffer in = { buf->buf, buf->len, 0 };
	size_t left;

	if (!c || ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
	    strbuf_grow(&out, ZSTD_compressBound(buf->len) + 64))
		bail_out("zstd setup failed");
	/* Continue first: ending at once would size the window to the input. */
	while (in.pos < in.size) {
		ZSTD_outBuffer o = { out.buf, out.alloc - 1, out.len };

		left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_continue);
		if (ZSTD_isError(left))
			bail_out(ZSTD_getErrorName(left));
		out.len = o.pos;
		if (strbuf_grow(&out, 4096))
			bail_out("out of memory");
	}
	do {
		ZSTD_outBuffer o = { out.buf, out.alloc - 1, out.len };

		left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
		if (ZSTD_isError(left))
			bail_out(ZSTD_getErrorName(left));
		out.len = o.pos;
		if (left && strbuf_grow(&out, left + 4096))
			bail_out("out of memory");
	} while (left);
	ZSTD_freeCCtx(c);
	strbuf_reset(buf);
	strbuf_add(buf, out.buf, out.len);
	strbuf_release(&out);
}

static void build(struct strbuf *out, enum fmt f, const struct ent *e, size_t n)
{
	struct archive *ar = archive_write_new();
	int r = ARCHIVE_OK;
	size_t i;

	strbuf_reset(out);
	if (!ar)
		bail_out("archive_write_new failed");
	switch (f) {
	case TAR_ZSTD: /* compressed below, as kpgo's writer does */
	case TAR_PLAIN:
		if (r == ARCHIVE_OK)
			r = archive_write_set_format_pax_restricted(ar);
		break;
	case GNUTAR_PLAIN: r = archive_write_set_format_gnutar(ar); break;
	case TAR_GZIP:
		r = archive_write_add_filter_gzip(ar);
		if (r == ARCHIVE_OK)
			r = archive_write_set_format_pax_restricted(ar);
		break;
	case CPIO_PLAIN: r = archive_write_set_format_cpio_newc(ar); break;
	}
	if (r == ARCHIVE_OK)
		r = archive_write_set_bytes_in_last_block(ar, 1);
	if (r != ARCHIVE_OK || archive_write_open(ar, out, NULL, mem_write, NULL) != ARCHIVE_OK)
		bail_out(archive_error_string(ar));
	for (i = 0; i < n; i++) {
		struct archive_entry *ae = archive_entry_new();

		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_mtime(ae, 0, 0);
		archive_entry_set_perm(ae, 0644);
		switch (e[i].kind) {
		case K_FILE:
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_size(ae, e[i].size > 0 ? e[i].size : (int64_t)e[i].len);
			break;
		case K_SYMLINK:
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, e[i].link);
			break;
		case K_HARDLINK:
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, e[i].link);
			archive_entry_set_size(ae, 0);
			break;
		case K_CHR:
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_rdev(ae, makedev(1, 3));
			break;
		case K_BLK:
			archive_entry_set_filetype(ae, AE_IFBLK);
			archive_entry_set_rdev(ae, makedev(8, 0));
			break;
		case K_FIFO: archive_entry_set_filetype(ae, AE_IFIFO); break;
		case K_DIR:
			archive_entry_set_filetype(ae, AE_IFDIR);
			archive_entry_set_perm(ae, 0755);
			break;
		}
		if (archive_write_header(ar, ae) != ARCHIVE_OK)
			bail_out(archive_error_string(ar));
		if (e[i].kind == K_FILE && e[i].len &&
		    archive_write_data(ar, e[i].data, e[i].len) != (la_ssize_t)e[i].len)
			bail_out(archive_error_string(ar));
		archive_entry_free(ae);
	}
	if (archive_write_close(ar) != ARCHIVE_OK)
		bail_out(archive_error_string(ar));
	archive_write_free(ar);
	if (f == TAR_ZSTD)
		zstd_window(out, KPGO_ZSTD_WINDOW_LOG);
}

/*
 * The payload hash as profile-archive.c defines it, computed here with
 * libcrypto directly: per gcda/ entry, its name with the NUL, its size as
 * 8 little-endian bytes, its bytes.
 */
static void payload_sha256(const struct ent *e, size_t n, char hex[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE], sz[8];
	unsigned int mdlen = 0;
	size_t i;
	int j;

	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (i = 0; i < n; i++) {
		if (strncmp(e[i].name, "gcda/", 5) || e[i].kind != K_FILE)
			continue;
		for (j = 0; j < 8; j++)
			sz[j] = (unsigned char)((uint64_t)e[i].len >> (8 * j));
		EVP_DigestUpdate(ctx, e[i].name, strlen(e[i].name) + 1);
		EVP_DigestUpdate(ctx, sz, 8);
		EVP_DigestUpdate(ctx, e[i].data, e[i].len);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/*
 * A manifest that tells the truth about the gcda/ entries among @e, then
 * changed by @over: "KEY=VALUE" sets, "-KEY" removes (NULL-terminated).
 */
static void manifest_for(struct strbuf *out, const struct ent *e, size_t n, const char *const *over)
{
	uint64_t objects = 0, functions = 0, counters = 0, max = 0, sum = 0;
	struct kpgo_manifest m;
	char hex[65];
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct kpgo_gcda g;

		if (strncmp(e[i].name, "gcda/", 5) || e[i].kind != K_FILE ||
		    kpgo_gcda_parse(e[i].data, e[i].len, &g, NULL))
			continue;
		objects++;
		functions += g.n_fns;
		counters += g.n_ctrs;
		for (j = 0; j < g.n_ctrs; j++) {
			sum += g.ctrs[j];
			if (g.ctrs[j] > max)
				max = g.ctrs[j];
		}
		kpgo_gcda_release(&g);
	}
	payload_sha256(e, n, hex);
	kpgo_manifest_init(&m);
	kpgo_manifest_set(&m, MF_FORMAT, "1");
	kpgo_manifest_set(&m, MF_RELEASE, "6.1.0-test");
	kpgo_manifest_set(&m, MF_GCOV_VERSION, "B22*");
	kpgo_manifest_set(&m, MF_BUILD_ROOT, "/build/linux");
	kpgo_manifest_set(&m, MF_RUNS, "1");
	kpgo_manifest_set_u64(&m, MF_OBJECTS, objects);
	kpgo_manifest_set_u64(&m, MF_FUNCTIONS, functions);
	kpgo_manifest_set_u64(&m, MF_COUNTERS, counters);
	kpgo_manifest_set_u64(&m, MF_SUM_ALL, sum);
	kpgo_manifest_set_u64(&m, MF_SUM_MAX, max);
	kpgo_manifest_set(&m, MF_PAYLOAD, hex);
	for (i = 0; over && over[i]; i++) {
		const char *eq = strchr(over[i], '=');

		if (over[i][0] == '-') {
			kpgo_manifest_unset(&m, over[i] + 1);
		} else {
			char key[80];

			snprintf(key, sizeof(key), "%.*s", (int)(eq - over[i]), over[i]);
			if (kpgo_manifest_set(&m, key, eq + 1))
				bail_out("bad manifest override");
		}
	}
	strbuf_reset(out);
	kpgo_manifest_format(&m, out);
	kpgo_manifest_release(&m);
}

/* The standard payload: two objects, five counters, the largest 100. */
static const uint64_t fork_ctrs[] = { 5, 0, 12 }, mmap_ctrs[] = { 100, 3 };
static struct strbuf fork_gcda = STRBUF_INIT, mmap_gcda = STRBUF_INIT;

static void std_objects(struct ent *e)
{
	e[0] = (struct ent){ .name = "gcda/kernel/fork.gcda",
			     .data = fork_gcda.buf,
			     .len = fork_gcda.len };
	e[1] = (struct ent){ .name = "gcda/mm/mmap.gcda",
			     .data = mmap_gcda.buf,
			     .len = mmap_gcda.len };
}

/*
 * MANIFEST (true to the standard objects, then @over), the standard
 * objects, then @extra (which the manifest does not count).
 */
static void std_archive(struct strbuf *out, enum fmt f, const char *const *over,
			const struct ent *extra, size_t n_extra)
{
	struct strbuf mf = STRBUF_INIT;
	struct ent e[16];
	size_t i;

	std_objects(e + 1);
	manifest_for(&mf, e + 1, 2, over);
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };
	for (i = 0; i < n_extra; i++)
		e[3 + i] = extra[i];
	build(out, f, e, 3 + n_extra);
	strbuf_release(&mf);
}

/* --- reading ---------------------------------------------------------------- */

static void snapshot(struct strbuf *out)
{
	strbuf_reset(out);
	snapshot_dir(tmpdir, "", out, 0);
}

static void write_file(const char *path, const struct strbuf *data)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data->buf, 1, data->len, f) != data->len || fclose(f))
		bail_out("cannot write a test archive");
}

/*
 * Open from memory and read to the end; *@n counts the objects handed out,
 * @digest (if not NULL) gets their paths and counters.
 */
static int read_all_digest(const struct strbuf *ar, struct kpgo_error *err, size_t *n,
			   struct strbuf *digest)
{
	static char not_null;
	struct kpgo_archive *a = (struct kpgo_archive *)(void *)&not_null;
	struct kpgo_gcda *g;
	const char *path;
	size_t i;
	int r;

	*n = 0;
	err->msg[0] = '\0';
	r = kpgo_archive_open_memory(&a, ar->buf, ar->len, err);
	if (r) {
		if (a)
			diag("open failed but left a handle");
		return r;
	}
	while ((r = kpgo_archive_next(a, &path, &g, err)) == 1) {
		(*n)++;
		if (!digest)
			continue;
		strbuf_addf(digest, "%s:", path);
		for (i = 0; i < g->n_ctrs; i++)
			strbuf_addf(digest, " %" PRIu64, g->ctrs[i]);
		strbuf_addch(digest, '\n');
	}
	if (r == 0 && kpgo_archive_next(a, &path, &g, err) != 0)
		r = 99; /* the end must stay the end */
	kpgo_archive_close(a);
	return r;
}

static int read_all(const struct strbuf *ar, struct kpgo_error *err, size_t *n)
{
	return read_all_digest(ar, err, n, NULL);
}

/*
 * Read as a merge reads: kpgo_archive_peek() at each entry first (twice,
 * to see that it stays put), then kpgo_archive_next(), through a shared
 * buffer; next() must hand out the path peek() showed.
 */
static int read_all_peeking(const struct strbuf *ar, struct kpgo_error *err, size_t *n)
{
	struct strbuf shared = STRBUF_INIT, seen = STRBUF_INIT;
	struct kpgo_archive *a;
	struct kpgo_gcda *g;
	const char *path, *again;
	int r;

	*n = 0;
	err->msg[0] = '\0';
	r = kpgo_archive_open_memory(&a, ar->buf, ar->len, err);
	if (r)
		return r;
	kpgo_archive_share_buffer(a, &shared);
	while ((r = kpgo_archive_peek(a, &path, err)) == 1) {
		strbuf_reset(&seen);
		strbuf_addstr(&seen, path);
		r = kpgo_archive_peek(a, &again, err);
		if (r != 1 || strcmp(again, seen.buf)) {
			r = 98;
			break;
		}
		r = kpgo_archive_next(a, &path, &g, err);
		if (r != 1)
			break;
		if (strcmp(path, seen.buf)) {
			r = 97;
			break;
		}
		(*n)++;
	}
	if (r == 0 &&
	    (kpgo_archive_peek(a, &path, err) != 0 || kpgo_archive_next(a, &path, &g, err) != 0))
		r = 99;
	kpgo_archive_close(a);
	strbuf_release(&shared);
	strbuf_release(&seen);
	return r;
}

static bool msg_matches(const char *got, const char *want, bool prefix)
{
	return prefix ? !strncmp(got, want, strlen(want)) : !strcmp(got, want);
}

/*
 * @ar must be refused with @want_r and @want (or a message starting with
 * @want when @prefix), from memory and by kpgo_profile_load() from a file,
 * which must leave the profile empty and the directory as it was.
 */
static void check_refused_ex(const char *what, const struct strbuf *ar, int want_r,
			     const char *want, bool prefix)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct kpgo_profile p;
	struct kpgo_error err;
	char path[4200];
	size_t n;
	int r;

	r = read_all(ar, &err, &n);
	is_int(r, want_r, "%s: refused", what);
	if (!ok(msg_matches(err.msg, want, prefix), "%s: message", what))
		diag("got '%s', expected %s'%s'", err.msg, prefix ? "a prefix " : "", want);
	r = read_all_peeking(ar, &err, &n);
	is_int(r, want_r, "%s: refused when peeked at", what);
	if (!ok(msg_matches(err.msg, want, prefix), "%s: message when peeked at", what))
		diag("got '%s', expected %s'%s'", err.msg, prefix ? "a prefix " : "", want);

	snprintf(path, sizeof(path), "%s/case-%d.kpgo", tmpdir, ++case_no);
	write_file(path, ar);
	snapshot(&before);
	memset(&p, 0x5a, sizeof(p));
	err.msg[0] = '\0';
	r = kpgo_profile_load(&p, path, &err);
	is_int(r, want_r, "%s: load refused", what);
	if (!ok(msg_matches(err.msg, want, prefix), "%s: load message", what))
		diag("got '%s', expected %s'%s'", err.msg, prefix ? "a prefix " : "", want);
	ok(p.n == 0 && p.objs == NULL && p.manifest.n == 0, "%s: load leaves the profile empty",
	   what);
	if (!r)
		kpgo_profile_release(&p);
	snapshot(&after);
	is_str(after.buf, before.buf, "%s: the reader wrote nothing", what);
	unlink(path);
	strbuf_release(&before);
	strbuf_release(&after);
}

static void check_refused(const char *what, const struct strbuf *ar, int want_r, const char *want)
{
	check_refused_ex(what, ar, want_r, want, false);
}

/* An archive the standard objects plus one @extra entry, refused with @want. */
static void check_extra(const char *what, const struct ent *extra, int want_r, const char *want)
{
	struct strbuf ar = STRBUF_INIT;

	std_archive(&ar, TAR_ZSTD, NULL, extra, 1);
	check_refused(what, &ar, want_r, want);
	strbuf_release(&ar);
}

/* --- the tests ----------------------------------------------------------- */

static void test_good_archives(void)
{
	static const enum fmt fmts[] = { TAR_ZSTD, TAR_PLAIN, GNUTAR_PLAIN };
	static const char *const fmt_names[] = { "pax+zstd", "pax", "gnutar" };
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT;
	struct kpgo_archive *a;
	struct kpgo_gcda *g;
	struct kpgo_error err;
	const char *path;
	struct ent e[3];
	size_t i, n;

	for (i = 0; i < 3; i++) {
		std_archive(&ar, fmts[i], NULL, NULL, 0);
		is_int(read_all(&ar, &err, &n), 0, "%s: a true archive reads to the end",
		       fmt_names[i]);
		is_str(err.msg, "", "%s: no message", fmt_names[i]);
		is_int(n, 2, "%s: two objects", fmt_names[i]);
		is_int(read_all_peeking(&ar, &err, &n), 0, "%s: and when peeked at", fmt_names[i]);
		is_int(n, 2, "%s: two objects when peeked at", fmt_names[i]);
	}

	/* What next() hands out; the caller may take the arrays. */
	std_archive(&ar, TAR_ZSTD, (const char *const[]){ "HOST=h1", NULL }, NULL, 0);
	is_int(kpgo_archive_open_memory(&a, ar.buf, ar.len, &err), 0, "open");
	is_str(kpgo_manifest_get(kpgo_archive_manifest(a), MF_HOST), "h1", "manifest readable");
	is_int(kpgo_archive_next(a, &path, &g, &err), 1, "first object");
	is_str(path, "kernel/fork.gcda", "path without gcda/");
	ok(g->n_fns == 1 && g->fns[0].ident == 1 && g->n_ctrs == 3 && g->ctrs[2] == 12,
	   "first object's counters");
	free(g->fns);
	free(g->ctrs);
	kpgo_gcda_init(g);
	is_int(kpgo_archive_next(a, &path, &g, &err), 1, "second object after taking the arrays");
	is_str(path, "mm/mmap.gcda", "second path");
	ok(g->n_ctrs == 2 && g->ctrs[0] == 100, "second object's counters");
	is_int(kpgo_archive_next(a, &path, &g, &err), 0, "end, payload verified");
	kpgo_archive_close(a);

	/* A manifest-only archive of an empty profile. */
	manifest_for(&mf, NULL, 0, NULL);
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 1);
	is_int(read_all(&ar, &err, &n), 0, "an archive of no objects is read");
	is_int(n, 0, "no objects");

	/*
	 * SUM_MAX may be above the largest counter (a whole-program value), up
	 * to the sum of all counters; above that it is a lie (issue 18: 2^64-1
	 * wrapped stage's rounding).
	 */
	{
		struct strbuf kv = STRBUF_INIT;
		uint64_t sum = 0;

		std_archive(&ar, TAR_ZSTD, NULL, NULL, 0);
		if (kpgo_archive_open_memory(&a, ar.buf, ar.len, &err))
			bail_out(err.msg);
		kpgo_parse_u64(kpgo_manifest_get(kpgo_archive_manifest(a), MF_SUM_ALL), &sum);
		kpgo_archive_close(a);
		ok(sum > 100, "SUM_ALL %llu", (unsigned long long)sum);
		strbuf_addf(&kv, "SUM_MAX=%llu", (unsigned long long)sum);
		std_archive(&ar, TAR_ZSTD, (const char *const[]){ kv.buf, NULL }, NULL, 0);
		is_int(read_all(&ar, &err, &n), 0, "SUM_MAX above the largest counter is fine");
		strbuf_reset(&kv);
		strbuf_addf(&kv, "SUM_MAX=%llu", (unsigned long long)sum + 1);
		std_archive(&ar, TAR_ZSTD, (const char *const[]){ kv.buf, NULL }, NULL, 0);
		is_int(read_all(&ar, &err, &n), -EBADMSG, "SUM_MAX above SUM_ALL is refused");
		std_archive(&ar, TAR_ZSTD,
			    (const char *const[]){ "SUM_MAX=18446744073709551615", NULL }, NULL, 0);
		is_int(read_all(&ar, &err, &n), -EBADMSG, "SUM_MAX=2^64-1 is refused");
		ok(strstr(err.msg,
			  "SUM_MAX=18446744073709551615 is above the sum of all counters") != NULL,
		   "message: %s", err.msg);
		std_archive(&ar, TAR_ZSTD, (const char *const[]){ "SUM_ALL=7", NULL }, NULL, 0);
		is_int(read_all(&ar, &err, &n), -EBADMSG,
		       "a SUM_ALL that is not the payload's is refused");
		strbuf_release(&kv);
	}

	kpgo_archive_close(NULL);
	strbuf_release(&ar);
	strbuf_release(&mf);
}

static void test_names(void)
{
	static const struct {
		const char *name, *msg;
	} bad[] = {
		{ "gcda/../x.gcda", "unsafe or bad archive entry name 'gcda/../x.gcda'" },
		{ "gcda/../../etc/x.gcda",
		  "unsafe or bad archive entry name 'gcda/../../etc/x.gcda'" },
		{ "gcda/a/../x.gcda", "unsafe or bad archive entry name 'gcda/a/../x.gcda'" },
		{ "gcda/./x.gcda", "unsafe or bad archive entry name 'gcda/./x.gcda'" },
		{ "gcda//x.gcda", "unsafe or bad archive entry name 'gcda//x.gcda'" },
		{ "gcda/a//x.gcda", "unsafe or bad archive entry name 'gcda/a//x.gcda'" },
		{ "gcda//etc/x.gcda", "unsafe or bad archive entry name 'gcda//etc/x.gcda'" },
		{ "gcda/a\\..\\x.gcda", "unsafe or bad archive entry name 'gcda/a\\..\\x.gcda'" },
		{ "gcda/x\x01.gcda", "unsafe or bad archive entry name 'gcda/x\x01.gcda'" },
		{ "gcda/x\n.gcda", "unsafe or bad archive entry name 'gcda/x\n.gcda'" },
		{ "gcda/x.gcno", "unsafe or bad archive entry name 'gcda/x.gcno'" },
		{ "gcda/x.gcda.tmp", "unsafe or bad archive entry name 'gcda/x.gcda.tmp'" },
		{ "gcda/.gcda", "unsafe or bad archive entry name 'gcda/.gcda'" },
		{ "/gcda/x.gcda", "unexpected archive entry '/gcda/x.gcda'" },
		{ "/etc/passwd", "unexpected archive entry '/etc/passwd'" },
		{ "./gcda/x.gcda", "unexpected archive entry './gcda/x.gcda'" },
		{ "../gcda/x.gcda", "unexpected archive entry '../gcda/x.gcda'" },
		{ "GCDA/x.gcda", "unexpected archive entry 'GCDA/x.gcda'" },
		{ "gcda", "unexpected archive entry 'gcda'" },
		{ "MANIFEST", "unexpected archive entry 'MANIFEST'" },
		{ "README", "unexpected archive entry 'README'" },
	};
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT, longname = STRBUF_INIT;
	char what[128];
	struct ent e[3];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ent x = { .name = bad[i].name, .data = fork_gcda.buf, .len = fork_gcda.len };

		snprintf(what, sizeof(what), "entry named '%s'", bad[i].name);
		check_extra(what, &x, -EINVAL, bad[i].msg);
	}

	/* A name past 4096 bytes (a pax header carries it). */
	strbuf_addstr(&longname, "gcda/");
	while (longname.len < 4100)
		strbuf_addstr(&longname, "d/");
	strbuf_addstr(&longname, "x.gcda");
	{
		struct ent x = { .name = longname.buf, .data = fork_gcda.buf, .len = fork_gcda.len };
		struct kpgo_error err;
		size_t n;

		/* The message is cut to what struct kpgo_error holds. */
		std_archive(&ar, TAR_ZSTD, NULL, &x, 1);
		check_refused_ex("name of 4107 bytes", &ar, -EINVAL,
				 "unsafe or bad archive entry name 'gcda/d/d/d/", true);
		read_all(&ar, &err, &n);
		is_int(strlen(err.msg), sizeof(err.msg) - 1, "long name: message cut, terminated");
	}

	/* The first entry must be MANIFEST, exactly. */
	manifest_for(&mf, NULL, 0, NULL);
	std_objects(e);
	build(&ar, TAR_ZSTD, e, 2);
	check_refused("no MANIFEST", &ar, -EINVAL,
		      "first entry is 'gcda/kernel/fork.gcda', not MANIFEST");
	e[0] = (struct ent){ .name = "./MANIFEST", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 1);
	check_refused("./MANIFEST", &ar, -EINVAL, "first entry is './MANIFEST', not MANIFEST");
	e[0] = (struct ent){ .name = "/MANIFEST", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 1);
	check_refused("/MANIFEST", &ar, -EINVAL, "first entry is '/MANIFEST', not MANIFEST");
	e[0] = (struct ent){ .name = "manifest", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 1);
	check_refused("lowercase manifest", &ar, -EINVAL, "first entry is 'manifest', not MANIFEST");
	build(&ar, TAR_ZSTD, e, 0);
	check_refused("empty archive", &ar, -EINVAL, "empty archive, no MANIFEST");

	strbuf_release(&ar);
	strbuf_release(&mf);
	strbuf_release(&longname);
}

static void test_types(void)
{
	/* A table, two lines a case: clang-format would give each field a line of its own. */
	/* clang-format off */
	static const struct {
		struct ent e;
		const char *what, *msg;
	} bad[] = {
		{ { .name = "gcda/x.gcda", .kind = K_SYMLINK, .link = "/etc/passwd" },
		  "symlink", "archive entry 'gcda/x.gcda' is not a regular file" },
		{ { .name = "gcda/x.gcda", .kind = K_SYMLINK, .link = "../../../x" },
		  "relative symlink", "archive entry 'gcda/x.gcda' is not a regular file" },
		{ { .name = "gcda/x.gcda", .kind = K_HARDLINK, .link = "gcda/kernel/fork.gcda" },
		  "hard link to an earlier entry", "archive entry 'gcda/x.gcda' is a hard link" },
		{ { .name = "gcda/x.gcda", .kind = K_HARDLINK, .link = "/etc/shadow" },
		  "hard link outside", "archive entry 'gcda/x.gcda' is a hard link" },
		{ { .name = "gcda/x.gcda", .kind = K_CHR }, "character device",
		  "archive entry 'gcda/x.gcda' is not a regular file" },
		{ { .name = "gcda/x.gcda", .kind = K_BLK }, "block device",
		  "archive entry 'gcda/x.gcda' is not a regular file" },
		{ { .name = "gcda/x.gcda", .kind = K_FIFO }, "fifo",
		  "archive entry 'gcda/x.gcda' is not a regular file" },
		{ { .name = "gcda/x.gcda", .kind = K_DIR }, "directory",
		  "archive entry 'gcda/x.gcda/' is not a regular file" },
		{ { .name = "gcda/sub/", .kind = K_DIR }, "directory entry gcda/sub/",
		  "archive entry 'gcda/sub/' is not a regular file" },
	};
	/* clang-format on */
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT;
	struct ent e[2];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_extra(bad[i].what, &bad[i].e, -EINVAL, bad[i].msg);

	manifest_for(&mf, NULL, 0, NULL);
	e[0] = (struct ent){ .name = "MANIFEST", .kind = K_SYMLINK, .link = "/etc/os-release" };
	build(&ar, TAR_ZSTD, e, 1);
	check_refused("MANIFEST as a symlink", &ar, -EINVAL,
		      "archive entry 'MANIFEST' is not a regular file");
	e[0] = (struct ent){ .name = "x", .data = mf.buf, .len = mf.len };
	e[1] = (struct ent){ .name = "MANIFEST", .kind = K_HARDLINK, .link = "x" };
	build(&ar, TAR_ZSTD, e + 1, 1);
	check_refused("MANIFEST as a hard link", &ar, -EINVAL,
		      "archive entry 'MANIFEST' is a hard link");
	e[0] = (struct ent){ .name = "MANIFEST", .kind = K_DIR };
	build(&ar, TAR_ZSTD, e, 1);
	check_refused("MANIFEST as a directory", &ar, -EINVAL,
		      "archive entry 'MANIFEST/' is not a regular file");

	strbuf_release(&ar);
	strbuf_release(&mf);
}

static void test_sizes(void)
{
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT, msg = STRBUF_INIT;
	struct ent big = { .name = "gcda/z/big.gcda", .size = (int64_t)KPGO_ARCHIVE_ENTRY_MAX + 1 };
	struct ent e[1];

	strbuf_addf(&msg, "archive entry 'gcda/z/big.gcda' is too large (%llu bytes)",
		    (unsigned long long)KPGO_ARCHIVE_ENTRY_MAX + 1);
	check_extra("entry of KPGO_ARCHIVE_ENTRY_MAX+1 bytes", &big, -EFBIG, msg.buf);

	big.name = "MANIFEST";
	build(&ar, TAR_ZSTD, &big, 1);
	strbuf_reset(&msg);
	strbuf_addf(&msg, "archive entry 'MANIFEST' is too large (%llu bytes)",
		    (unsigned long long)KPGO_ARCHIVE_ENTRY_MAX + 1);
	check_refused("MANIFEST of KPGO_ARCHIVE_ENTRY_MAX+1 bytes", &ar, -EFBIG, msg.buf);

	/* A MANIFEST within the entry bound but over the manifest's own. */
	manifest_for(&mf, NULL, 0, NULL);
	while (mf.len <= KPGO_MANIFEST_MAX)
		strbuf_addstr(&mf, "# padding padding padding padding padding padding\n");
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 1);
	strbuf_reset(&msg);
	strbuf_addf(&msg, "manifest too large (%zu bytes)", mf.len);
	check_refused("MANIFEST over KPGO_MANIFEST_MAX", &ar, -EINVAL, msg.buf);

	strbuf_release(&ar);
	strbuf_release(&mf);
	strbuf_release(&msg);
}

static void test_order(void)
{
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT;
	struct ent e[4], x;

	x = (struct ent){ .name = "gcda/kernel/fork.gcda",
			  .data = fork_gcda.buf,
			  .len = fork_gcda.len };
	check_extra("an entry repeated", &x, -EINVAL,
		    "archive entry 'gcda/kernel/fork.gcda' is out of order or repeated");
	x.name = "gcda/a.gcda";
	check_extra("an entry out of order", &x, -EINVAL,
		    "archive entry 'gcda/a.gcda' is out of order or repeated");
	x.name = "gcda/mm.gcda"; /* '.' sorts before '/' */
	check_extra("'mm.gcda' after 'mm/mmap.gcda'", &x, -EINVAL,
		    "archive entry 'gcda/mm.gcda' is out of order or repeated");

	/* Byte order: "B" < "a" < "a-b" < "a.gcda" < "a/b". */
	e[0] = (struct ent){ .name = "gcda/B.gcda", .data = fork_gcda.buf, .len = fork_gcda.len };
	e[1] = (struct ent){ .name = "gcda/a-b.gcda", .data = fork_gcda.buf, .len = fork_gcda.len };
	e[2] = (struct ent){ .name = "gcda/a.gcda", .data = fork_gcda.buf, .len = fork_gcda.len };
	e[3] = (struct ent){ .name = "gcda/a/b.gcda", .data = fork_gcda.buf, .len = fork_gcda.len };
	manifest_for(&mf, e, 4, NULL);
	{
		struct ent all[5] = {
			{ .name = "MANIFEST", .data = mf.buf, .len = mf.len }, e[0], e[1], e[2], e[3]
		};
		struct kpgo_error err;
		size_t n;

		build(&ar, TAR_ZSTD, all, 5);
		is_int(read_all(&ar, &err, &n), 0, "names in byte order are accepted");
		is_int(n, 4, "four objects");
		all[2] = e[2];
		all[3] = e[1];
		build(&ar, TAR_ZSTD, all, 5);
		check_refused("'a-b' after 'a.gcda'", &ar, -EINVAL,
			      "archive entry 'gcda/a-b.gcda' is out of order or repeated");
	}
	strbuf_release(&ar);
	strbuf_release(&mf);
}

static void test_lying_manifest(void)
{
	/* A table, two lines a case: clang-format would give each field a line of its own. */
	/* clang-format off */
	static const struct {
		const char *what;
		const char *over[3];
		int r;
		const char *msg;
	} bad[] = {
		{ "wrong PAYLOAD_SHA256",
		  { "PAYLOAD_SHA256=0000000000000000000000000000000000000000000000000000000000000000" },
		  -EBADMSG, "payload does not match the manifest's PAYLOAD_SHA256" },
		{ "empty PAYLOAD_SHA256", { "PAYLOAD_SHA256=" }, -EBADMSG,
		  "payload does not match the manifest's PAYLOAD_SHA256" },
		{ "OBJECTS too high", { "OBJECTS=3" }, -EBADMSG,
		  "manifest says OBJECTS=3, the payload has 2" },
		{ "OBJECTS too low", { "OBJECTS=1" }, -EBADMSG,
		  "manifest says OBJECTS=1, the payload has 2" },
		{ "OBJECTS no number", { "OBJECTS=two" }, -EBADMSG,
		  "manifest says OBJECTS=two, the payload has 2" },
		{ "FUNCTIONS wrong", { "FUNCTIONS=0" }, -EBADMSG,
		  "manifest says FUNCTIONS=0, the payload has 2" },
		{ "COUNTERS wrong", { "COUNTERS=6" }, -EBADMSG,
		  "manifest says COUNTERS=6, the payload has 5" },
		{ "COUNTERS overflowing", { "COUNTERS=18446744073709551621" }, -EBADMSG,
		  "manifest says COUNTERS=18446744073709551621, the payload has 5" },
		{ "COUNTERS over the profile's cap", { "COUNTERS=33554433" }, -E2BIG,
		  "manifest says COUNTERS=33554433, more than 33554432" },
		{ "SUM_MAX below the largest counter", { "SUM_MAX=99" }, -EBADMSG,
		  "manifest's SUM_MAX is below the largest counter (100)" },
		{ "SUM_MAX no number", { "SUM_MAX=lots" }, -EBADMSG,
		  "manifest's SUM_MAX is below the largest counter (100)" },
		{ "RUNS=0", { "RUNS=0" }, -EBADMSG, "manifest has no valid RUNS" },
		{ "RUNS no number", { "RUNS=-1" }, -EBADMSG, "manifest has no valid RUNS" },
		{ "GCOV_VERSION of another GCC", { "GCOV_VERSION=B12*" }, -EBADMSG,
		  "'kernel/fork.gcda' has gcov version 'B22*', the manifest says 'B12*'" },
		{ "GCOV_VERSION no stamp", { "GCOV_VERSION=B22" }, -EINVAL,
		  "manifest has a bad GCOV_VERSION 'B22'" },
		{ "without RUNS", { "-RUNS" }, -EINVAL, "manifest lacks RUNS" },
		{ "without PAYLOAD_SHA256", { "-PAYLOAD_SHA256" }, -EINVAL,
		  "manifest lacks PAYLOAD_SHA256" },
		{ "KPGO_FORMAT=2", { "KPGO_FORMAT=2" }, -EPROTONOSUPPORT,
		  "unsupported archive format '2'" },
	};
	/* clang-format on */
	struct strbuf ar = STRBUF_INIT, mf = STRBUF_INIT;
	struct ent e[3];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		std_archive(&ar, TAR_ZSTD, bad[i].over, NULL, 0);
		check_refused(bad[i].what, &ar, bad[i].r, bad[i].msg);
	}

	/* The manifest counts an object the archive lost. */
	std_objects(e + 1);
	manifest_for(&mf, e + 1, 2, NULL);
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };
	build(&ar, TAR_ZSTD, e, 2);
	check_refused("an object missing", &ar, -EBADMSG,
		      "payload does not match the manifest's PAYLOAD_SHA256");

	/* An object's bytes changed after the manifest was made. */
	manifest_for(&mf, e + 1, 2, NULL);
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };
	e[2].data = fork_gcda.buf; /* another object's bytes under this name */
	e[2].len = fork_gcda.len;
	e[2].name = "gcda/mm/mmap.gcda";
	build(&ar, TAR_ZSTD, e, 3);
	/* More counters than the manifest says: refused as soon as they are read. */
	check_refused("an object's bytes changed", &ar, -EBADMSG,
		      "'mm/mmap.gcda': the payload has more counters than the manifest's COUNTERS=5");

	/* A stale manifest: a whole object renamed. */
	std_objects(e + 1);
	manifest_for(&mf, e + 1, 2, NULL);
	e[2].name = "gcda/mm/mmap2.gcda";
	build(&ar, TAR_ZSTD, e, 3);
	check_refused("an object renamed", &ar, -EBADMSG,
		      "payload does not match the manifest's PAYLOAD_SHA256");

	strbuf_release(&ar);
	strbuf_release(&mf);
}

static void test_corrupt_gcda(void)
{
	static const uint64_t c[] = { 1 };
	struct strbuf g = STRBUF_INIT;
	struct ent x;

	strbuf_add(&g, fork_gcda.buf, 18);
	x = (struct ent){ .name = "gcda/z.gcda", .data = g.buf, .len = g.len };
	check_extra("gcda cut in a record header", &x, -EINVAL,
		    "'z.gcda': truncated record header at offset 16");
	x.len = 0;
	check_extra("empty gcda", &x, -EINVAL, "'z.gcda': truncated header (0 bytes) at offset 0");
	strbuf_reset(&g);
	strbuf_addstr(&g, "not a gcda file at all");
	x = (struct ent){ .name = "gcda/z/y.gcda", .data = g.buf, .len = g.len };
	check_extra("text as gcda", &x, -EINVAL,
		    "'z/y.gcda': bad magic 0x20746f6e, not a .gcda file at offset 0");
	gcda_one_fn(&g, "B12*", 9, c, 1);
	x = (struct ent){ .name = "gcda/z.gcda", .data = g.buf, .len = g.len };
	check_extra("gcda of another GCC than the manifest", &x, -EBADMSG,
		    "'z.gcda' has gcov version 'B12*', the manifest says 'B22*'");
	gcda_one_fn(&g, "A75*", 9, c, 1);
	check_extra("gcda of GCC 7", &x, -EPROTONOSUPPORT,
		    "'z.gcda': unsupported gcov version 'A75*' (GCC 7.5) at offset 4; kpgo reads GCC 8 to 14");
	strbuf_release(&g);
}

static void test_streams(void)
{
	struct strbuf ar = STRBUF_INIT, cut = STRBUF_INIT, good = STRBUF_INIT, dg = STRBUF_INIT;
	size_t len, accepted = 0, refused_ok = 0, n, changed = 0;
	struct kpgo_error err;
	unsigned seed = 1;
	size_t i;

	std_archive(&ar, TAR_GZIP, NULL, NULL, 0);
	check_refused("gzip instead of zstd", &ar, -EINVAL,
		      "cannot open: Unrecognized archive format");
	std_archive(&ar, CPIO_PLAIN, NULL, NULL, 0);
	check_refused("cpio instead of tar", &ar, -EINVAL,
		      "cannot open: Unrecognized archive format");

	strbuf_reset(&ar);
	for (i = 0; i < 4096; i++) {
		seed = seed * 1103515245u + 12345u;
		strbuf_addch(&ar, (char)(seed >> 16));
	}
	check_refused("random bytes", &ar, -EINVAL, "cannot open: Unrecognized archive format");
	strbuf_reset(&ar);
	strbuf_add(&ar, "\x28\xb5\x2f\xfd", 4); /* zstd frame magic, then garbage */
	for (i = 0; i < 200; i++)
		strbuf_addch(&ar, (char)(i * 7));
	check_refused_ex("zstd magic then garbage", &ar, -EINVAL,
			 "cannot open: Zstd decompression failed", true);
	strbuf_reset(&ar);
	check_refused("zero bytes", &ar, -EINVAL, "cannot open: Unrecognized archive format");

	/* zstd windows: the writer's 128 KiB is the most a reader takes (issue 18). */
	std_archive(&ar, TAR_PLAIN, NULL, NULL, 0);
	zstd_window(&ar, KPGO_ZSTD_WINDOW_LOG);
	is_int(read_all(&ar, &err, &n), 0, "a 128 KiB zstd window is read");
	std_archive(&ar, TAR_PLAIN, NULL, NULL, 0);
	zstd_window(&ar, KPGO_ZSTD_WINDOW_LOG + 1);
	check_refused("a 256 KiB zstd window", &ar, -EINVAL,
		      "cannot open: a zstd frame needs a window over 128 KiB, more than the format allows");
	std_archive(&ar, TAR_PLAIN, NULL, NULL, 0);
	zstd_window(&ar, 27);
	check_refused("a 128 MiB zstd window", &ar, -EINVAL,
		      "cannot open: a zstd frame needs a window over 128 KiB, more than the format allows");

	/* Every cut of a real archive. */
	std_archive(&ar, TAR_ZSTD, NULL, NULL, 0);
	for (len = 0; len < ar.len; len++) {
		int r;

		strbuf_reset(&cut);
		strbuf_add(&cut, ar.buf, len);
		r = read_all(&cut, &err, &n);
		if (r == 0 && n == 2)
			accepted++;
		else if (r < 0 && err.msg[0])
			refused_ok++;
		else
			diag("cut at %zu of %zu: r=%d n=%zu '%s'", len, ar.len, r, n, err.msg);
	}
	is_int(refused_ok + accepted, ar.len, "every cut refused with a message, or complete");
	is_int(accepted, 0, "no cut of the zstd stream reads as complete");

	/* Every cut of an uncompressed one, at 512-byte blocks. */
	std_archive(&ar, TAR_PLAIN, NULL, NULL, 0);
	accepted = refused_ok = 0;
	for (len = 0; len < ar.len; len += 512) {
		int r;

		strbuf_reset(&cut);
		strbuf_add(&cut, ar.buf, len);
		r = read_all(&cut, &err, &n);
		if (r == 0 && n == 2)
			accepted++;
		else if (r < 0 && err.msg[0])
			refused_ok++;
		else
			diag("tar cut at %zu of %zu: r=%d n=%zu '%s'", len, ar.len, r, n, err.msg);
	}
	ok(refused_ok + accepted == (ar.len + 511) / 512,
	   "every block cut of a plain tar refused, or complete with a verified payload");

	/*
	 * A flipped bit anywhere in the compressed stream. zstd frames carry
	 * no checksum by default and tar headers have fields nobody reads
	 * (mode, mtime), so some flips may pass: what is handed out must then
	 * be exactly the original, which the payload hash guarantees.
	 */
	for (i = 0; i < 2; i++) {
		std_archive(&ar, i ? TAR_PLAIN : TAR_ZSTD, NULL, NULL, 0);
		strbuf_reset(&good);
		if (read_all_digest(&ar, &err, &n, &good))
			bail_out("the unchanged archive is refused");
		accepted = changed = 0;
		for (len = 0; len < ar.len; len++) {
			strbuf_reset(&cut);
			strbuf_add(&cut, ar.buf, ar.len);
			cut.buf[len] ^= 0x04;
			strbuf_reset(&dg);
			if (read_all_digest(&cut, &err, &n, &dg) == 0) {
				accepted++;
				if (strcmp(dg.buf, good.buf))
					changed++;
			}
		}
		is_int(changed, 0,
		       "%s: no flipped bit changes what is handed out (%zu of %zu flips passed)",
		       i ? "tar" : "tar+zstd", accepted, ar.len);
	}

	strbuf_release(&ar);
	strbuf_release(&cut);
	strbuf_release(&good);
	strbuf_release(&dg);
}

/* MANIFEST plus KPGO_ARCHIVE_ENTRIES_MAX+1 tiny objects. */
static void test_entry_limit(void)
{
	struct strbuf ar = STRBUF_INIT, names = STRBUF_INIT, hdr = STRBUF_INIT, mf = STRBUF_INIT;
	const size_t n = KPGO_ARCHIVE_ENTRIES_MAX + 1;
	struct ent *e = calloc(n + 1, sizeof(*e));
	struct kpgo_error err;
	struct timespec t0, t1;
	size_t i, got;
	int r;

	if (!e)
		bail_out("out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w32(&hdr, KPGO_GCDA_MAGIC);
	w32(&hdr, stamp_of("B22*"));
	w32(&hdr, 1);
	w32(&hdr, 0);
	strbuf_grow(&names, n * 20);
	for (i = 0; i < n; i++) {
		strbuf_addf(&names, "gcda/%07zu.gcda", i);
		strbuf_addch(&names, '\0');
	}
	for (i = 0; i < n; i++)
		e[i + 1] = (struct ent){ .name = names.buf + i * 18,
					 .data = hdr.buf,
					 .len = hdr.len };
	manifest_for(&mf, e + 1, n - 1, NULL);
	e[0] = (struct ent){ .name = "MANIFEST", .data = mf.buf, .len = mf.len };

	build(&ar, TAR_ZSTD, e, n); /* exactly the limit */
	r = read_all(&ar, &err, &got);
	is_int(r, 0, "KPGO_ARCHIVE_ENTRIES_MAX objects are accepted");
	is_int(got, KPGO_ARCHIVE_ENTRIES_MAX, "all of them handed out");

	build(&ar, TAR_ZSTD, e, n + 1);
	r = read_all(&ar, &err, &got);
	is_int(r, -E2BIG, "one more is refused");
	is_str(err.msg, "archive has more than 200000 entries", "message names the limit");
	is_int(got, KPGO_ARCHIVE_ENTRIES_MAX, "refused at the entry past the limit");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	diag("entry limit checks took %.1f s",
	     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);

	free(e);
	strbuf_release(&ar);
	strbuf_release(&names);
	strbuf_release(&hdr);
	strbuf_release(&mf);
}

int main(int argc, char **argv)
{
	struct strbuf cmd = STRBUF_INIT;
	char work[sizeof(tmpdir) + 8];
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	/* Any relative path the reader might write to would land in the snapshot. */
	snprintf(work, sizeof(work), "%s/work", tmpdir);
	if (mkdir(work, 0755) || chdir(work))
		bail_out("cannot enter the work directory");
	gcda_one_fn(&fork_gcda, "B22*", 1, fork_ctrs, 3);
	gcda_one_fn(&mmap_gcda, "B22*", 7, mmap_ctrs, 2);

	test_good_archives();
	test_names();
	test_types();
	test_sizes();
	test_order();
	test_lying_manifest();
	test_corrupt_gcda();
	test_streams();
	if (quick)
		skip("entry limit (--quick)");
	else
		test_entry_limit();

	if (chdir("/") == 0) {
		strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd.buf) != 0)
			diag("cannot remove %s", tmpdir);
	}
	strbuf_release(&cmd);
	strbuf_release(&fork_gcda);
	strbuf_release(&mmap_gcda);
	return done_testing();
}
