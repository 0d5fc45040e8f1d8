// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The machine's spool of finished profiles: the directory, its locks,
 * names, publishing a collection, listing. Retry state, sent/, rejected/
 * and retention are in spool-state.c, uploading in spool-upload.c. See
 * spool.h for the layout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"

static const char *const lock_names[] = { "collect.lock", "upload.lock" };

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void kpgo_spool_close(struct kpgo_spool *sp)
{
	close_fd(&sp->lockfd[0]);
	close_fd(&sp->lockfd[1]);
	close_fd(&sp->tmpfd);
	close_fd(&sp->sentfd);
	close_fd(&sp->retryfd);
	close_fd(&sp->rejfd);
	close_fd(&sp->dirfd);
	free(sp->dir);
	sp->dir = NULL;
}

/*
 * Opens @path as a directory, every component without following symbolic
 * links (openat() from / or the working directory, O_NOFOLLOW); with
 * @create makes what is missing, 0755 parents and a 0750 last component.
 */
static int open_nofollow(const char *path, bool create)
{
	char *copy = strdup(path), *p, *last;
	int fd, pfd, r = 0;

	if (!copy)
		return -ENOMEM;
	/* Trailing and repeated slashes, as the kernel takes them. */
	for (p = copy + strlen(copy); p > copy + 1 && p[-1] == '/';)
		*--p = '\0';
	last = strrchr(copy, '/');
	pfd = open(*copy == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		free(copy);
		return -errno;
	}
	for (p = copy; *p == '/'; p++)
		;
	if (last && last + 1 > p) {
		/* The parents: p up to the last slash. */
		char *q = p, *s;

		*last = '\0';
		while (*q && !r) {
			s = strchr(q, '/');
			if (s)
				*s = '\0';
			if (*q) {
				if (create && mkdirat(pfd, q, 0755) < 0 && errno != EEXIST)
					r = -errno;
				fd = r ? -1 :
					 openat(pfd, q,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (!r && fd < 0)
					r = -errno;
				if (!r) {
					close(pfd);
					pfd = fd;
				}
			}
			q = s ? s + 1 : q + strlen(q);
		}
		p = last + 1;
	}
	if (!r && *p) {
		if (create && mkdirat(pfd, p, 0750) < 0 && errno != EEXIST)
			r = -errno;
		fd = r ? -1 : openat(pfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (!r && fd < 0)
			r = -errno;
		if (!r) {
			close(pfd);
			pfd = fd;
		}
	}
	free(copy);
	if (r) {
		close(pfd);
		return r;
	}
	return pfd;
}

/*
 * The spool and its folders must be root's (or, for a user's own spool, the
 * user's) and writable by their owner only: others could swap the files
 * root verifies and uploads, or redirect its writes.
 */
static int check_owner(int fd, const char *dir, const char *sub, struct kpgo_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return kpgo_error_set(err, -errno, "cannot open the spool '%s': %s", dir,
				      strerror(errno));
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022))
		return kpgo_error_set(err, -EPERM,
				      "refusing the spool '%s%s%s': it must be owned by root and writable by its owner only",
				      dir, sub ? "/" : "", sub ? sub : "");
	return 0;
}

static int open_sub(struct kpgo_spool *sp, const char *name, bool create, int *fd,
		    struct kpgo_error *err)
{
	if (create && mkdirat(sp->dirfd, name, 0750) < 0 && errno != EEXIST)
		return kpgo_error_set(err, -errno, "cannot create '%s/%s': %s", sp->dir, name,
				      strerror(errno));
	*fd = kpgo_mkdirs_at(sp->dirfd, name, false);
	if (*fd >= 0 && check_owner(*fd, sp->dir, name, err)) {
		close(*fd);
		*fd = -1;
		return -EPERM;
	}
	if (*fd == -ENOENT)
		return kpgo_error_set(err, -ENOENT,
				      "'%s' is not a kpgo spool (no %s/; 'kpgo spool init' makes one)",
				      sp->dir, name);
	if (*fd < 0)
		return kpgo_error_set(err, *fd, "cannot open '%s/%s': %s", sp->dir, name,
				      strerror(-*fd));
	return 0;
}

int kpgo_spool_open(struct kpgo_spool *sp, const char *dir, bool create, struct kpgo_error *err)
{
	int r, i;

	memset(sp, 0, sizeof(*sp));
	sp->dirfd = sp->tmpfd = sp->sentfd = sp->retryfd = sp->rejfd = -1;
	sp->lockfd[0] = sp->lockfd[1] = -1;
	sp->dir = strdup(dir);
	if (!sp->dir)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	sp->dirfd = open_nofollow(dir, create);
	if (sp->dirfd < 0) {
		r = sp->dirfd;
		if (r == -ELOOP || r == -ENOTDIR)
			kpgo_error_set(err, r,
				       "refusing the spool '%s': a symbolic link or not a directory on its path",
				       dir);
		else
			kpgo_error_set(err, r, "cannot %s the spool '%s': %s",
				       create ? "create" : "open", dir, strerror(-r));
		goto fail;
	}
	if ((r = check_owner(sp->dirfd, dir, NULL, err)))
		goto fail;
	if ((r = open_sub(sp, "tmp", create, &sp->tmpfd, err)) ||
	    (r = open_sub(sp, "sent", create, &sp->sentfd, err)) ||
	    (r = open_sub(sp, "retry", create, &sp->retryfd, err)) ||
	    (r = open_sub(sp, "rejected", create, &sp->rejfd, err)))
		goto fail;
	for (i = 0; i < 2 && create; i++) {
		int fd = openat(sp->dirfd, lock_names[i],
				O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);

		if (fd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", dir,
					   lock_names[i], strerror(errno));
			goto fail;
		}
		close(fd);
	}
	if (create)
		fsync(sp->dirfd);
	return 0;
fail:
	kpgo_spool_close(sp);
	return r;
}

int kpgo_spool_lock(struct kpgo_spool *sp, enum kpgo_spool_lockname which, bool wait,
		    struct kpgo_error *err)
{
	const char *name = lock_names[which];
	int fd = openat(sp->dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", sp->dir, name,
				      strerror(errno));
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int r = -errno;

		if (r == -EINTR)
			continue;
		close(fd);
		if (r == -EWOULDBLOCK)
			return kpgo_error_set(err, r, "'%s/%s' is held by another kpgo", sp->dir,
					      name);
		return kpgo_error_set(err, r, "cannot lock '%s/%s': %s", sp->dir, name,
				      strerror(-r));
	}
	sp->lockfd[which] = fd;
	return 0;
}

void kpgo_spool_unlock(struct kpgo_spool *sp, enum kpgo_spool_lockname which)
{
	close_fd(&sp->lockfd[which]);
}

/* --- names ---------------------------------------------------------------- */

static bool digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

bool kpgo_spool_name_ok(const char *name)
{
	size_t n = strlen(name), hl, i;
	const char *host, *tail;

	/* 17 for "YYYYmmddTHHMMSSZ-", 22 for "-<16 hex>.kpgo", a host between. */
	if (n < 17 + 1 + 22 || n > 17 + 64 + 22)
		return false;
	if (!digits(name, 8) || name[8] != 'T' || !digits(name + 9, 6) || name[15] != 'Z' ||
	    name[16] != '-')
		return false;
	host = name + 17;
	tail = name + n - 22;
	hl = (size_t)(tail - host);
	if (*host == '.')
		return false;
	for (i = 0; i < hl; i++)
		if (!host_char(host[i]))
			return false;
	if (tail[0] != '-' || strcmp(tail + 17, ".kpgo"))
		return false;
	for (i = 1; i <= 16; i++)
		if (!((tail[i] >= '0' && tail[i] <= '9') || (tail[i] >= 'a' && tail[i] <= 'f')))
			return false;
	return true;
}

static void safe_host(const char *host, char out[65])
{
	size_t i;

	for (i = 0; i < 64 && host[i]; i++)
		out[i] = host_char(host[i]) ? host[i] : '_';
	out[i] = '\0';
	if (!i)
		snprintf(out, 65, "localhost");
	else if (out[0] == '.')
		out[0] = '_';
}

/* --- tmp/ and publishing ---------------------------------------------------- */

int kpgo_spool_clean_tmp(struct kpgo_spool *sp, size_t *removed, struct kpgo_error *err)
{
	struct dirent *de;
	int fd = dup(sp->tmpfd);
	DIR *d;

	*removed = 0;
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return kpgo_error_set(err, -errno, "cannot read '%s/tmp': %s", sp->dir,
				      strerror(errno));
	}
	rewinddir(d);
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(sp->tmpfd, de->d_name, 0) == 0)
			(*removed)++;
		else if (errno == EISDIR || errno == EPERM)
			continue; /* not ours to remove: collections write files only */
	}
	closedir(d);
	return 0;
}

static int hash_fd(int fd, char sha[KPGO_SHA256_HEX])
{
	struct kpgo_sha256 *h = kpgo_sha256_new();
	char buf[65536];
	ssize_t n;

	if (!h)
		return -ENOMEM;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			kpgo_sha256_final_hex(h, sha);
			return r;
		}
		kpgo_sha256_update(h, buf, (size_t)n);
	}
	kpgo_sha256_final_hex(h, sha);
	return 0;
}

int kpgo_spool_publish(struct kpgo_spool *sp, const char *tmpname, int64_t when, const char *host,
		       char name[KPGO_SPOOL_NAME_MAX], struct kpgo_error *err)
{
	char sha[KPGO_SHA256_HEX], h[65], stamp[32];
	time_t t = (time_t)when;
	struct tm tm;
	int fd, r;

	fd = openat(sp->tmpfd, tmpname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s/tmp/%s': %s", sp->dir, tmpname,
				      strerror(errno));
	r = hash_fd(fd, sha);
	if (!r && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r)
		return kpgo_error_set(err, r, "cannot read '%s/tmp/%s': %s", sp->dir, tmpname,
				      strerror(-r));
	if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) ||
	    strlen(stamp) != 16)
		return kpgo_error_set(err, -EINVAL, "cannot format the time %" PRId64, when);
	safe_host(host, h);
	snprintf(name, KPGO_SPOOL_NAME_MAX, "%s-%s-%.16s.kpgo", stamp, h, sha);
	r = kpgo_rename_noreplace_at(sp->tmpfd, tmpname, sp->dirfd, name);
	if (r == -EEXIST) {
		/* The same bytes, the same second, this host: that profile is spooled. */
		unlinkat(sp->tmpfd, tmpname, 0);
		r = 0;
	}
	if (r)
		return kpgo_error_set(err, r, "cannot move '%s/tmp/%s' to '%s': %s", sp->dir,
				      tmpname, name, strerror(-r));
	if (fsync(sp->dirfd) < 0)
		return kpgo_error_set(err, -errno, "cannot sync '%s': %s", sp->dir, strerror(errno));
	fsync(sp->tmpfd);
	return 0;
}

/* --- listing ------------------------------------------------------------------ */

void kpgo_spool_list_release(struct kpgo_spool_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int cmp_item_name(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_spool_item *)a)->name,
		      ((const struct kpgo_spool_item *)b)->name);
}

int kpgo_spool_list(struct kpgo_spool *sp, enum kpgo_spool_area area, struct kpgo_spool_list *l,
		    struct kpgo_error *err)
{
	int dfd = area == KPGO_SPOOL_SENT ? sp->sentfd : sp->dirfd;
	const char *sub = area == KPGO_SPOOL_SENT ? "/sent" : "";
	struct dirent *de;
	int fd = dup(dfd), r = 0;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return kpgo_error_set(err, -errno, "cannot read '%s%s': %s", sp->dir, sub,
				      strerror(errno));
	}
	rewinddir(d);
	while (!r && (errno = 0, de = readdir(d))) {
		struct kpgo_spool_item *it;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (area == KPGO_SPOOL_WAITING &&
		    (!strcmp(de->d_name, "tmp") || !strcmp(de->d_name, "sent") ||
		     !strcmp(de->d_name, "retry") || !strcmp(de->d_name, "rejected") ||
		     !strcmp(de->d_name, lock_names[0]) || !strcmp(de->d_name, lock_names[1])))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile */
		if (!S_ISREG(st.st_mode) || !kpgo_spool_name_ok(de->d_name)) {
			l->strays++;
			continue;
		}
		if (KPGO_ALLOC_GROW(l->items, l->n + 1, l->alloc)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		it = &l->items[l->n++];
		memset(it, 0, sizeof(*it));
		memcpy(it->name, de->d_name, strlen(de->d_name) + 1); /* name_ok: short */
		it->mtime = (int64_t)st.st_mtime;
		it->size = (uint64_t)st.st_size;
		if (area == KPGO_SPOOL_WAITING)
			kpgo_spool_retry_read(sp, it);
	}
	if (!r && errno)
		r = kpgo_error_set(err, -errno, "cannot read '%s%s': %s", sp->dir, sub,
				   strerror(errno));
	closedir(d);
	if (r)
		kpgo_spool_list_release(l);
	else if (l->n > 1)
		qsort(l->items, l->n, sizeof(*l->items), cmp_item_name);
	return r;
}
