// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checking the store: each object's bytes against its name and as an
 * archive, the index against the objects (verify, --repair), and gc.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile-archive.h"
#include "sha256.h"
#include "store-internal.h"

/* --- objects ------------------------------------------------------------ */

int kpgo_store_verify_fd(int fd, char sha[KPGO_SHA256_HEX], struct kpgo_store_entry *e,
			 struct kpgo_error *err)
{
	struct strbuf buf = STRBUF_INIT;
	struct kpgo_archive *a = NULL;
	struct kpgo_sha256 *h;
	struct kpgo_gcda *g;
	const char *path;
	uint64_t sum = 0;
	size_t i;
	int r;

	sha[0] = '\0';
	r = kpgo_read_fd(fd, &buf, KPGO_STORE_FILE_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "larger than %llu MiB",
				   (unsigned long long)(KPGO_STORE_FILE_MAX >> 20));
	else if (r)
		r = kpgo_error_set(err, r, "%s", strerror(-r));
	if (r)
		goto out;
	h = kpgo_sha256_new();
	if (!h) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	kpgo_sha256_update(h, buf.buf, buf.len);
	kpgo_sha256_final_hex(h, sha);
	r = kpgo_archive_open_memory(&a, buf.buf, buf.len, err);
	while (!r && (r = kpgo_archive_next(a, &path, &g, err)) == 1) {
		for (i = 0; i < g->n_ctrs; i++)
			sum = kpgo_sat_add(sum, g->ctrs[i]);
		r = 0;
	}
	if (!r && e && kpgo_store_entry_from_manifest(e, sha, kpgo_archive_manifest(a)))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	if (!r && e)
		e->sum = sum; /* counted here: the manifest's SUM_ALL is the uploader's word */
out:
	kpgo_archive_close(a);
	strbuf_release(&buf);
	return r;
}

int kpgo_store_objects_list(struct kpgo_store *s, struct kpgo_strlist *shas,
			    struct kpgo_strlist *strays, struct kpgo_error *err)
{
	struct dirent *d, *sd;
	char rel[PATH_MAX];
	DIR *top, *sub;
	int fd, r = 0;

	fd = dup(s->objfd);
	top = fd >= 0 ? fdopendir(fd) : NULL;
	if (!top) {
		if (fd >= 0)
			close(fd);
		return kpgo_error_set(err, -errno, "cannot read '%s/objects': %s", s->dir,
				      strerror(errno));
	}
	rewinddir(top);
	while (!r && (d = readdir(top))) {
		bool hex2 = strlen(d->d_name) == 2 && kpgo_store_hex_lower(d->d_name[0]) &&
			    kpgo_store_hex_lower(d->d_name[1]);

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(rel, sizeof(rel), "objects/%s", d->d_name);
		fd = hex2 ? openat(s->objfd, d->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
			    -1;
		sub = fd >= 0 ? fdopendir(fd) : NULL;
		if (!sub) {
			if (fd >= 0)
				close(fd);
			if (strays && kpgo_strlist_add(strays, rel))
				r = -ENOMEM;
			continue;
		}
		while (!r && (sd = readdir(sub))) {
			const char *n = sd->d_name;
			size_t len = strlen(n);
			char sha[KPGO_SHA256_HEX];

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if (len == OBJ_NAME_LEN && !strcmp(n + len - 5, ".kpgo") &&
			    !strncmp(n, d->d_name, 2)) {
				memcpy(sha, n, KPGO_SHA256_HEX - 1);
				sha[KPGO_SHA256_HEX - 1] = '\0';
				if (kpgo_store_sha_ok(sha)) {
					if (kpgo_strlist_add(shas, sha))
						r = -ENOMEM;
					continue;
				}
			}
			snprintf(rel, sizeof(rel), "objects/%s/%s", d->d_name, n);
			if (strays && kpgo_strlist_add(strays, rel))
				r = -ENOMEM;
		}
		closedir(sub);
	}
	closedir(top);
	if (r)
		return kpgo_error_set(err, r, "out of memory");
	kpgo_strlist_sort(shas);
	if (strays)
		kpgo_strlist_sort(strays);
	return 0;
}

int kpgo_store_object_check(struct kpgo_store *s, const char *sha, struct kpgo_store_entry *e,
			    struct kpgo_error *err)
{
	char rel[8 + OBJ_NAME_LEN], got[KPGO_SHA256_HEX];
	struct stat st;
	int fd, r;

	snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", sha, sha);
	fd = openat(s->objfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kpgo_error_set(err, -EBADMSG, "not a regular file");
	}
	r = kpgo_store_verify_fd(fd, got, e, err);
	close(fd);
	if (r == -ENOMEM)
		return r;
	/* A changed byte is best told as such, whatever else it broke. */
	if (got[0] && strcmp(got, sha)) {
		if (!r)
			kpgo_store_entry_release(e);
		return kpgo_error_set(err, -EBADMSG, "its bytes hash to %s", got);
	}
	if (r)
		return -EBADMSG;
	if (kpgo_store_entry_set_added(e, &st)) {
		kpgo_store_entry_release(e);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* --- verify ----------------------------------------------------------------- */

void kpgo_store_report_release(struct kpgo_store_report *r)
{
	kpgo_strlist_clear(&r->problems);
	kpgo_strlist_clear(&r->repairs);
	r->objects = 0;
}

static int report(struct kpgo_strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int report(struct kpgo_strlist *l, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kpgo_strlist_add(l, msg);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Moves objects/@rel to corrupt/<its base name>[.N], never replacing. */
static int move_aside(struct kpgo_store *s, const char *rel, struct kpgo_strlist *repairs)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char dst[NAME_MAX + 16];
	int cfd, i, r;

	cfd = kpgo_mkdirs_at(s->dirfd, "corrupt", true);
	if (cfd < 0)
		return cfd;
	for (i = 0;; i++) {
		if (i)
			snprintf(dst, sizeof(dst), "%s.%d", base, i);
		else
			snprintf(dst, sizeof(dst), "%s", base);
		r = renameat2(s->objfd, rel, cfd, dst, RENAME_NOREPLACE);
		if (r == 0 || errno != EEXIST || i > 1000)
			break;
	}
	r = r < 0 ? -errno : 0;
	if (!r) {
		fsync(cfd);
		fsync(s->objfd);
		r = report(repairs, "moved 'objects/%s' to 'corrupt/%s'", rel, dst);
	}
	close(cfd);
	return r;
}

int kpgo_store_verify(struct kpgo_store *s, bool repair, struct kpgo_store_report *rep,
		      struct kpgo_error *err)
{
	struct kpgo_strlist shas = { 0 }, strays = { 0 };
	struct kpgo_store_index idx = { 0 }, good = { 0 };
	struct kpgo_store_entry e, *ie;
	struct kpgo_error why;
	size_t i;
	int r;

	memset(rep, 0, sizeof(*rep));
	r = kpgo_store_open(s, false, err);
	if (!r && repair)
		r = kpgo_store_open(s, true, err);
	if (!r)
		r = kpgo_store_lock(s, repair, err);
	if (r)
		return r;
	r = kpgo_store_index_load(s, &idx, &rep->problems, err);
	if (!r)
		r = kpgo_store_objects_list(s, &shas, &strays, err);
	if (r)
		goto out;
	for (i = 0; i < strays.n && !r; i++) {
		r = report(&rep->problems, "unexpected file '%s'", strays.items[i]);
		if (!r && repair)
			r = move_aside(s, strays.items[i] + 8, &rep->repairs);
	}
	for (i = 0; i < shas.n && !r; i++) {
		const char *sha = shas.items[i];
		char rel[8 + OBJ_NAME_LEN];

		r = kpgo_store_object_check(s, sha, &e, &why);
		if (r == -ENOMEM)
			break;
		if (r) {
			r = report(&rep->problems, "object %s is corrupt: %s", sha, why.msg);
			snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", sha, sha);
			if (!r && repair)
				r = move_aside(s, rel, &rep->repairs);
			continue;
		}
		ie = kpgo_store_index_find(&idx, sha);
		if (!ie)
			r = report(&rep->problems, "object %s is not in the index", sha);
		else if (!kpgo_store_entry_same(ie, &e))
			r = report(&rep->problems,
				   "the index line of %s does not match its manifest", sha);
		if (!r)
			r = kpgo_store_index_push(&good, &e);
		if (r)
			kpgo_store_entry_release(&e);
	}
	for (i = 0; i < idx.n && !r; i++) {
		char *key = idx.e[i].sha;

		if (!bsearch(&key, shas.items, shas.n, sizeof(*shas.items), cmp_strp))
			r = report(&rep->problems, "the index lists %s but there is no such object",
				   idx.e[i].sha);
	}
	if (r) {
		r = kpgo_error_set(err, r, "%s", strerror(-r));
		goto out;
	}
	rep->objects = good.n;
	if (repair && rep->problems.n) {
		r = kpgo_store_index_write(s, &good, err);
		if (!r && report(&rep->repairs, "rebuilt the index from %zu objects", good.n))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
out:
	kpgo_store_unlock(s);
	kpgo_strlist_clear(&shas);
	kpgo_strlist_clear(&strays);
	kpgo_store_index_release(&idx);
	kpgo_store_index_release(&good);
	return r;
}

/* --- gc ------------------------------------------------------------------------ */

/* Per release, newest first: WINDOW_END, then added time, then sha. */
static int cmp_gc(const void *pa, const void *pb)
{
	const struct kpgo_store_entry *a = pa, *b = pb;
	int r = strcmp(a->release, b->release);

	if (!r)
		r = strcmp(b->window_end, a->window_end);
	if (!r)
		r = strcmp(b->added, a->added);
	return r ? r : strcmp(a->sha, b->sha);
}

static int gc_tmp(struct kpgo_store *s, bool dry_run, struct kpgo_strlist *removed)
{
	time_t cutoff = time(NULL) - KPGO_STORE_TMP_AGE;
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd, r = 0;

	fd = openat(s->dirfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while (!r && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode) ||
		    st.st_mtime >= cutoff)
			continue;
		if (!dry_run && unlinkat(fd, d->d_name, 0) < 0 && errno != ENOENT)
			r = -errno;
		else
			r = kpgo_strlist_add(removed, d->d_name);
	}
	closedir(dir);
	kpgo_strlist_sort(removed);
	return r;
}

int kpgo_store_gc(struct kpgo_store *s, unsigned keep, bool dry_run,
		  struct kpgo_store_index *removed, struct kpgo_strlist *tmp_removed,
		  struct kpgo_error *err)
{
	struct kpgo_store_index all = { 0 }, kept = { 0 };
	size_t i, in_group = 0;
	const char *prev = NULL;
	int r;

	r = kpgo_store_open(s, false, err);
	if (!r && !dry_run)
		r = kpgo_store_open(s, true, err);
	if (!r)
		r = kpgo_store_lock(s, true, err);
	if (r)
		return r;
	r = kpgo_store_index_update_locked(s, NULL, !dry_run, &all, err);
	if (r)
		goto out;
	if (all.n > 1)
		qsort(all.e, all.n, sizeof(*all.e), cmp_gc);
	for (i = 0; i < all.n && !r; i++) {
		if (!prev || strcmp(all.e[i].release, prev))
			in_group = 0;
		prev = all.e[i].release; /* the string moves, it is not freed */
		r = kpgo_store_index_push(++in_group <= keep ? &kept : removed, &all.e[i]);
	}
	if (r) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!dry_run && removed->n) {
		r = kpgo_store_index_write(s, &kept, err);
		for (i = 0; i < removed->n && !r; i++) {
			char rel[8 + OBJ_NAME_LEN];

			snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", removed->e[i].sha,
				 removed->e[i].sha);
			if (unlinkat(s->objfd, rel, 0) < 0 && errno != ENOENT)
				r = kpgo_error_set(err, -errno, "cannot remove '%s/objects/%s': %s",
						   s->dir, rel, strerror(errno));
		}
		fsync(s->objfd);
	}
	if (!r) {
		r = gc_tmp(s, dry_run, tmp_removed);
		if (r)
			r = kpgo_error_set(err, r, "cannot clean '%s/tmp': %s", s->dir,
					   strerror(-r));
	}
	kpgo_store_index_sort(removed);
out:
	kpgo_store_unlock(s);
	/* Entries moved out of @all were cleared; release what is left. */
	kpgo_store_index_release(&all);
	kpgo_store_index_release(&kept);
	return r;
}
