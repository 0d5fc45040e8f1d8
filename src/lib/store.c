// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile store: archives named by their sha256 and an index derived
 * from them. Writers publish complete, fsync'ed files with rename(2) under
 * an exclusive flock(2); readers take no lock (see store.h). This file: the
 * directory and add; store-internal.h lists the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256.h"
#include "store-internal.h"
#include "util.h"

/* --- the directory ------------------------------------------------------ */

const char *kpgo_store_default_dir(const char *opt)
{
	const char *env = getenv("KPGO_STORE");

	if (opt && *opt)
		return opt;
	return env && *env ? env : KPGO_STORE_DEFAULT;
}

int kpgo_store_init(struct kpgo_store *s, const char *dir)
{
	s->dir = strdup(dir);
	s->dirfd = s->objfd = s->tmpfd = s->lockfd = -1;
	return s->dir ? 0 : -ENOMEM;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void kpgo_store_release(struct kpgo_store *s)
{
	close_fd(&s->lockfd);
	close_fd(&s->tmpfd);
	close_fd(&s->objfd);
	close_fd(&s->dirfd);
	free(s->dir);
	s->dir = NULL;
}

int kpgo_store_object_path(const struct kpgo_store *s, const char *sha, struct strbuf *out)
{
	strbuf_reset(out);
	return strbuf_addf(out, "%s/objects/%.2s/%s.kpgo", s->dir, sha, sha);
}

static int mkdir_p(const char *path)
{
	char *p, *copy;
	bool last;
	int r = 0;

	if (!*path)
		return -ENOENT;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (p = copy + 1;; p++) {
		if (*p && *p != '/')
			continue;
		last = !*p;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		if (last)
			break;
		*p = '/';
	}
	free(copy);
	return r;
}

int kpgo_store_open(struct kpgo_store *s, bool create, struct kpgo_error *err)
{
	char *abs;
	int fd;

	if (s->dirfd >= 0 && (!create || s->tmpfd >= 0))
		return 0;
	if (s->dirfd < 0) {
		int r = create ? mkdir_p(s->dir) : 0;

		if (r < 0)
			return kpgo_error_set(err, r, "cannot create store '%s': %s", s->dir,
					      strerror(-r));
		s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s->dirfd < 0)
			return kpgo_error_set(err, -errno, "cannot open store '%s': %s", s->dir,
					      strerror(errno));
		abs = realpath(s->dir, NULL);
		if (abs) {
			free(s->dir);
			s->dir = abs;
		}
		s->objfd = kpgo_mkdirs_at(s->dirfd, "objects", create);
		if (s->objfd < 0) {
			r = s->objfd;
			close_fd(&s->dirfd);
			if (r == -ENOENT)
				return kpgo_error_set(err, r, "'%s' is not a kpgo store", s->dir);
			return kpgo_error_set(err, r, "cannot open '%s/objects': %s", s->dir,
					      strerror(-r));
		}
	}
	if (create) {
		s->tmpfd = kpgo_mkdirs_at(s->dirfd, "tmp", true);
		if (s->tmpfd < 0)
			return kpgo_error_set(err, s->tmpfd, "cannot open '%s/tmp': %s", s->dir,
					      strerror(-s->tmpfd));
		fd = openat(s->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			return kpgo_error_set(err, -errno, "cannot open '%s/lock': %s", s->dir,
					      strerror(errno));
		close(fd);
		fsync(s->dirfd);
	}
	return 0;
}

int kpgo_store_lock(struct kpgo_store *s, bool exclusive, struct kpgo_error *err)
{
	int fd = openat(s->dirfd, "lock", (exclusive ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		/* A store nobody ever wrote to has no writer to wait for. */
		if (!exclusive && errno == ENOENT)
			return 0;
		return kpgo_error_set(err, -errno, "cannot open '%s/lock': %s", s->dir,
				      strerror(errno));
	}
	while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
		if (errno != EINTR) {
			int r = -errno;

			close(fd);
			return kpgo_error_set(err, r, "cannot lock '%s/lock': %s", s->dir,
					      strerror(-r));
		}
	}
	s->lockfd = fd;
	return 0;
}

void kpgo_store_unlock(struct kpgo_store *s)
{
	close_fd(&s->lockfd);
}

int kpgo_store_tmp_create(struct kpgo_store *s, const char *what, unsigned mode, char *name,
			  size_t len)
{
	static unsigned counter;
	int fd;

	for (;;) {
		snprintf(name, len, "%s.%ld.%u.tmp", what, (long)getpid(), counter++);
		fd = openat(s->tmpfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
}

/* --- add ---------------------------------------------------------------- */

static int open_input(const char *file, struct kpgo_error *err)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return kpgo_error_set(err, -errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kpgo_error_set(err, -EINVAL, "not a regular file");
	}
	return fd;
}

/* Copies @file into tmp/ while hashing it; it must still hash to @sha. */
static int copy_to_tmp(struct kpgo_store *s, const char *file, const char *sha, char *name,
		       size_t len, struct kpgo_error *err)
{
	char buf[65536], got[KPGO_SHA256_HEX], what[32];
	struct kpgo_sha256 *h = kpgo_sha256_new();
	int in, out, r = 0;
	ssize_t n;

	if (!h)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	in = open_input(file, err);
	if (in < 0) {
		kpgo_sha256_free(h);
		return in;
	}
	snprintf(what, sizeof(what), "add-%.12s", sha);
	out = kpgo_store_tmp_create(s, what, 0444, name, len);
	if (out < 0) {
		r = kpgo_error_set(err, out, "cannot create a file in '%s/tmp': %s", s->dir,
				   strerror(-out));
		goto out_in;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = kpgo_error_set(err, -errno, "%s", strerror(errno));
			break;
		}
		kpgo_sha256_update(h, buf, (size_t)n);
		r = kpgo_write_all(out, buf, (size_t)n);
		if (r) {
			r = kpgo_error_set(err, r, "cannot write '%s/tmp/%s': %s", s->dir, name,
					   strerror(-r));
			break;
		}
	}
	if (!r && fsync(out) < 0)
		r = kpgo_error_set(err, -errno, "cannot write '%s/tmp/%s': %s", s->dir, name,
				   strerror(errno));
	if (close(out) < 0 && !r)
		r = kpgo_error_set(err, -errno, "cannot write '%s/tmp/%s': %s", s->dir, name,
				   strerror(errno));
	kpgo_sha256_final_hex(h, got);
	h = NULL;
	if (!r && strcmp(got, sha))
		r = kpgo_error_set(err, -EAGAIN, "it changed while being added");
	if (r)
		unlinkat(s->tmpfd, name, 0);
out_in:
	if (r)
		name[0] = '\0';
	kpgo_sha256_free(h);
	close(in);
	return r;
}

/* The stored object @sha fails its check (bytes, archive, or not a regular file). */
static bool existing_bad(struct kpgo_store *s, const char *sha)
{
	struct kpgo_store_entry e;
	struct kpgo_error ignored;
	int r = kpgo_store_object_check(s, sha, &e, &ignored);

	if (!r)
		kpgo_store_entry_release(&e);
	return r && r != -ENOMEM && r != -ENOENT;
}

/* Moves objects/xx/@obj (in @subfd) to corrupt/<obj>[.N], never replacing. */
static int set_aside(struct kpgo_store *s, int subfd, const char *obj)
{
	char dst[OBJ_NAME_LEN + 16];
	int cfd, i, r = -1;

	cfd = kpgo_mkdirs_at(s->dirfd, "corrupt", true);
	if (cfd < 0)
		return cfd;
	for (i = 0; i < 1000; i++) {
		if (i)
			snprintf(dst, sizeof(dst), "%s.%d", obj, i);
		else
			snprintf(dst, sizeof(dst), "%s", obj);
		r = renameat2(subfd, obj, cfd, dst, RENAME_NOREPLACE);
		if (r == 0 || errno != EEXIST)
			break;
	}
	r = r < 0 ? -errno : 0;
	if (!r) {
		fsync(cfd);
		fsync(subfd);
	}
	close(cfd);
	return r;
}

/*
 * Renames tmp/@name to objects/xx/<sha>.kpgo unless that exists (then
 * *@existed) and is intact; a corrupt one is moved to corrupt/ and replaced.
 * Under the lock, so verify never sees a half-published object.
 */
static int publish(struct kpgo_store *s, const char *name, const char *sha, bool *existed,
		   struct kpgo_error *err)
{
	char sub[3] = { sha[0], sha[1], '\0' }, obj[OBJ_NAME_LEN + 1];
	bool new_sub = faccessat(s->objfd, sub, F_OK, AT_SYMLINK_NOFOLLOW) < 0, replaced = false;
	int subfd, r;

	snprintf(obj, sizeof(obj), "%s.kpgo", sha);
	subfd = kpgo_mkdirs_at(s->objfd, sub, true);
	if (subfd < 0)
		return kpgo_error_set(err, subfd, "cannot open '%s/objects/%s': %s", s->dir, sub,
				      strerror(-subfd));
again:
	r = renameat2(s->tmpfd, name, subfd, obj, RENAME_NOREPLACE);
	if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
		/* A filesystem without RENAME_NOREPLACE: link(2) never replaces either. */
		r = linkat(s->tmpfd, name, subfd, obj, 0);
		if (r == 0)
			unlinkat(s->tmpfd, name, 0);
	}
	if (r < 0 && errno == EEXIST && !replaced && existing_bad(s, sha)) {
		/* A corrupt copy must not stand in for these intact bytes. */
		r = set_aside(s, subfd, obj);
		if (r < 0) {
			r = kpgo_error_set(err, r,
					   "cannot move the corrupt '%s/objects/%s/%s' aside: %s",
					   s->dir, sub, obj, strerror(-r));
			close(subfd);
			return r;
		}
		replaced = true;
		goto again;
	}
	if (r < 0 && errno == EEXIST) {
		*existed = true;
		unlinkat(s->tmpfd, name, 0);
		r = 0;
	} else if (r < 0) {
		r = kpgo_error_set(err, -errno, "cannot store '%s': %s", sha, strerror(errno));
	} else {
		fsync(subfd);
		if (new_sub)
			fsync(s->objfd);
	}
	close(subfd);
	return r;
}

int kpgo_store_add(struct kpgo_store *s, const char *const *files, size_t n,
		   struct kpgo_store_added *res, struct kpgo_error *err)
{
	struct kpgo_store_index fresh = { 0 }, out = { 0 };
	struct kpgo_store_entry e;
	char(*tmp)[64] = calloc(n ? n : 1, sizeof(*tmp));
	size_t i, j;
	int fd, r = 0;

	if (!tmp)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	/* All files verified before the store is created or touched. */
	for (i = 0; i < n && !r; i++) {
		res[i].existed = false;
		fd = open_input(files[i], err);
		r = fd < 0 ? fd : kpgo_store_verify_fd(fd, res[i].sha, &e, err);
		if (fd >= 0)
			close(fd);
		if (r) {
			kpgo_error_prefix(err, "cannot add '%s'", files[i]);
			break;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(res[j].sha, res[i].sha))
				res[i].existed = true;
		if (res[i].existed)
			kpgo_store_entry_release(&e);
		else if (kpgo_store_index_push(&fresh, &e))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (!r)
		r = kpgo_store_open(s, true, err);
	/*
	 * Copied even when the object exists now: only the rename under the
	 * lock can tell, since a gc may remove it before we have the lock.
	 */
	for (i = 0; i < n && !r; i++) {
		if (res[i].existed)
			continue;
		r = copy_to_tmp(s, files[i], res[i].sha, tmp[i], sizeof(tmp[i]), err);
		if (r)
			kpgo_error_prefix(err, "cannot add '%s'", files[i]);
	}
	if (!r)
		r = kpgo_store_lock(s, true, err);
	if (r)
		goto out;
	for (i = 0; i < n && !r; i++) {
		if (!tmp[i][0])
			continue;
		r = publish(s, tmp[i], res[i].sha, &res[i].existed, err);
		if (!r)
			tmp[i][0] = '\0';
	}
	if (!r)
		r = kpgo_store_index_update_locked(s, &fresh, true, &out, err);
	kpgo_store_unlock(s);
out:
	for (i = 0; i < n; i++)
		if (tmp[i][0])
			unlinkat(s->tmpfd, tmp[i], 0);
	free(tmp);
	kpgo_store_index_release(&fresh);
	kpgo_store_index_release(&out);
	return r;
}
