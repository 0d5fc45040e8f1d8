// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int kpgo_error_set(struct kpgo_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return errnum;
}

int kpgo_error_at(struct kpgo_error *err, size_t off, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - n, " at offset %zu", off);
	}
	return -EINVAL;
}

ssize_t kpgo_index_rank(size_t *idx, size_t n, int (*cmp)(const void *, const void *, void *),
			void *arg, size_t max, size_t **out)
{
	qsort_r(idx, n, sizeof(*idx), cmp, arg);
	if (max && n > max)
		n = max;
	if (!n) {
		free(idx);
		idx = NULL;
	}
	*out = idx;
	return (ssize_t)n;
}

void kpgo_error_prefix(struct kpgo_error *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	size_t n;
	va_list ap;

	if (!err)
		return;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	if (n + 2 < sizeof(err->msg)) {
		memcpy(err->msg + n, ": ", 2);
		n += 2;
		memcpy(err->msg + n, old, sizeof(err->msg) - n - 1);
		err->msg[sizeof(err->msg) - 1] = '\0';
	}
}

int kpgo_read_fd(int fd, struct strbuf *out, size_t max)
{
	for (;;) {
		ssize_t n;

		if (out->len > max)
			return -EFBIG;
		if (strbuf_grow(out, 65536))
			return -ENOMEM;
		n = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
	}
	if (out->len > max)
		return -EFBIG;
	return 0;
}

int kpgo_read_file(const char *path, struct strbuf *out, size_t max)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = kpgo_read_fd(fd, out, max);
	close(fd);
	return r;
}

int kpgo_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int kpgo_write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len,
			      unsigned mode)
{
	return kpgo_write_file_replace_at(dirfd, name, data, len, mode, true);
}

int kpgo_tmpfile_at(int dirfd, const char *name, unsigned mode, struct strbuf *tmp)
{
	int fd, i;

	strbuf_reset(tmp);
	if (strlen(name) > NAME_MAX - 32)
		return -ENAMETOOLONG;
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	for (i = 0;; i++) {
		strbuf_reset(tmp);
		if (strbuf_addf(tmp, ".%s.%ld.%d.tmp", name, (long)getpid(), i))
			return -ENOMEM;
		fd = openat(dirfd, tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			    mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || i > 100) {
			int e = -errno;

			strbuf_reset(tmp);
			return e;
		}
	}
}

int kpgo_tmpfile_commit_at(int fd, int dirfd, const char *name, const struct strbuf *tmp)
{
	static unsigned seq;
	char proc[64], link[NAME_MAX + 1];
	int i;

	if (tmp->len)
		return renameat(dirfd, tmp->buf, dirfd, name) < 0 ? -errno : 0;
	/*
	 * An unnamed file gets a name only here: linkat(2) cannot replace, so
	 * it is linked under a unique name and renamed over @name at once.
	 */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (i = 0;; i++) {
		snprintf(link, sizeof(link), ".kpgo.%ld.%u.tmp", (long)getpid(), seq++);
		if (linkat(AT_FDCWD, proc, dirfd, link, AT_SYMLINK_FOLLOW) == 0)
			break;
		if (errno != EEXIST || i > 100)
			return -errno;
	}
	if (renameat(dirfd, link, dirfd, name) < 0) {
		int e = -errno;

		unlinkat(dirfd, link, 0);
		return e;
	}
	return 0;
}

int kpgo_write_file_replace_at(int dirfd, const char *name, const void *data, size_t len,
			       unsigned mode, bool durable)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, r;

	fd = kpgo_tmpfile_at(dirfd, name, mode, &tmp);
	if (fd < 0) {
		strbuf_release(&tmp);
		return fd;
	}
	r = kpgo_write_all(fd, data, len);
	/* O_TMPFILE's mode is masked by the umask, as open(2)'s is. */
	if (!r && !tmp.len && fchmod(fd, mode) < 0)
		r = -errno;
	if (!r && durable && fsync(fd) < 0)
		r = -errno;
	if (!r)
		r = kpgo_tmpfile_commit_at(fd, dirfd, name, &tmp);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r && tmp.len)
		unlinkat(dirfd, tmp.buf, 0);
	strbuf_release(&tmp);
	if (!r && durable)
		fsync(dirfd);
	return r;
}

int kpgo_rename_noreplace_at(int fromfd, const char *from, int tofd, const char *to)
{
	if (renameat2(fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(fromfd, from, tofd, to, 0) < 0)
		return -errno;
	unlinkat(fromfd, from, 0);
	return 0;
}

int kpgo_move_aside_at(int fromfd, const char *name, int tofd, const char *reason, char *newname,
		       size_t len)
{
	char target[NAME_MAX + 1], rname[NAME_MAX + 16];
	struct strbuf text = STRBUF_INIT;
	int i, r = -EEXIST;

	if (strlen(name) > NAME_MAX - 16)
		return -ENAMETOOLONG;
	for (i = 0; i < 1000 && r == -EEXIST; i++) {
		if (i)
			snprintf(target, sizeof(target), "%s.%d", name, i);
		else
			snprintf(target, sizeof(target), "%s", name);
		snprintf(rname, sizeof(rname), "%s.reason", target);
		/* A reason without its file (a crash between the two) also takes the name. */
		if (faccessat(tofd, rname, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		r = kpgo_rename_noreplace_at(fromfd, name, tofd, target);
	}
	if (r)
		return r;
	fsync(tofd);
	fsync(fromfd);
	if (newname)
		snprintf(newname, len, "%s", target);
	r = strbuf_addstr(&text, reason);
	if (!r)
		r = strbuf_addch(&text, '\n');
	if (!r)
		r = kpgo_write_file_atomic_at(tofd, rname, text.buf, text.len, 0644);
	strbuf_release(&text);
	return r;
}

/* Opens the directory of @path; @base set to its last component. */
static int open_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	struct strbuf dir = STRBUF_INIT;
	int fd;

	*base = slash ? slash + 1 : path;
	if (!slash) {
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path)))
		return -ENOMEM;
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	strbuf_release(&dir);
	return fd < 0 ? -errno : fd;
}

int kpgo_tmpfile_for(const char *path, struct strbuf *tmp)
{
	const char *base;
	int dfd, fd;

	strbuf_reset(tmp);
	dfd = open_parent(path, &base);
	if (dfd >= 0) {
		fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		close(dfd);
		if (fd >= 0)
			return fd;
	}
	if (strbuf_addf(tmp, "%s.XXXXXX", path))
		return -ENOMEM;
	fd = mkostemp(tmp->buf, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		strbuf_reset(tmp);
	}
	return fd;
}

int kpgo_tmpfile_commit(int fd, const struct strbuf *tmp, const char *path)
{
	const char *base;
	int dfd, r;

	if (tmp->len)
		return rename(tmp->buf, path) < 0 ? -errno : 0;
	dfd = open_parent(path, &base);
	if (dfd < 0)
		return dfd;
	r = kpgo_tmpfile_commit_at(fd, dfd, base, tmp);
	close(dfd);
	return r;
}

int kpgo_fsync_parent(const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	char *slash;
	int fd, r = 0;

	if (strbuf_addstr(&dir, path))
		return -ENOMEM;
	slash = strrchr(dir.buf, '/');
	if (!slash) {
		strbuf_reset(&dir);
		strbuf_addstr(&dir, ".");
	} else if (slash == dir.buf) {
		dir.len = 1;
		dir.buf[1] = '\0';
	} else {
		*slash = '\0';
	}
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
	} else {
		if (fsync(fd) < 0)
			r = -errno;
		close(fd);
	}
	strbuf_release(&dir);
	return r;
}

int kpgo_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, r;

	fd = kpgo_tmpfile_for(path, &tmp);
	if (fd < 0) {
		strbuf_release(&tmp);
		return fd;
	}
	r = kpgo_write_all(fd, data, len);
	if (!r && fchmod(fd, mode) < 0)
		r = -errno;
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (!r)
		r = kpgo_tmpfile_commit(fd, &tmp, path);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r && tmp.len)
		unlink(tmp.buf);
	else if (!r)
		kpgo_fsync_parent(path);
	strbuf_release(&tmp);
	return r;
}

bool kpgo_path_is_safe(const char *p)
{
	const char *c = p;

	if (!*p || *p == '/')
		return false;
	for (; *c; c++) {
		unsigned char ch = (unsigned char)*c;

		if (ch < 0x20 || ch == 0x7f || ch == '\\')
			return false;
	}
	for (c = p; *c;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!e)
			break;
		c = e + 1;
		if (!*c)
			return false;
	}
	return true;
}

int kpgo_mkdirs_at(int rootfd, const char *rel, bool create)
{
	char comp[NAME_MAX + 1];
	const char *c = rel;
	int fd, nfd;

	fd = dup(rootfd);
	if (fd < 0)
		return -errno;
	while (*c) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 0 || n > NAME_MAX) {
			close(fd);
			return -EINVAL;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		if (create && mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
			int e2 = -errno;

			close(fd);
			return e2;
		}
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			int e2 = -errno;
			struct stat st;

			/* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link. */
			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				e2 = -ELOOP;
			close(fd);
			return e2;
		}
		close(fd);
		fd = nfd;
		c += n;
		if (*c == '/')
			c++;
	}
	return fd;
}

void kpgo_hex(const unsigned char *in, size_t len, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = d[in[i] >> 4];
		out[2 * i + 1] = d[in[i] & 15];
	}
	out[2 * len] = '\0';
}

int kpgo_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

void kpgo_format_time(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)t);
}

int kpgo_alloc_grow(void *arrayp, size_t size, size_t nr, size_t *alloc)
{
	size_t n;
	void *p;

	if (nr <= *alloc)
		return 0;
	if (!size || nr > SIZE_MAX / size)
		return -ENOMEM;
	/* (alloc + 16) * 3 / 2, git's alloc_nr(); no more than fits */
	n = *alloc < SIZE_MAX / 3 - 16 ? (*alloc + 16) * 3 / 2 : SIZE_MAX;
	if (n > SIZE_MAX / size)
		n = SIZE_MAX / size;
	if (n < nr)
		n = nr;
	/* memcpy: @arrayp points at a pointer of any object type. */
	memcpy(&p, arrayp, sizeof(p));
	p = realloc(p, n * size);
	if (!p)
		return -ENOMEM;
	memcpy(arrayp, &p, sizeof(p));
	*alloc = n;
	return 0;
}

int kpgo_strlist_add(struct kpgo_strlist *l, const char *s)
{
	char *d;

	if (KPGO_ALLOC_GROW(l->items, l->n + 1, l->alloc))
		return -ENOMEM;
	d = strdup(s);
	if (!d)
		return -ENOMEM;
	l->items[l->n++] = d;
	return 0;
}

void kpgo_strlist_clear(struct kpgo_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->alloc = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void kpgo_strlist_sort(struct kpgo_strlist *l)
{
	if (l->n > 1)
		qsort(l->items, l->n, sizeof(*l->items), cmp_str);
}

bool kpgo_label_okn(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 64)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}
