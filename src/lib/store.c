// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile store: archives named by their sha256 and an index derived
 * from them. Writers publish complete, fsync'ed files with rename(2) under
 * an exclusive flock(2); readers take no lock (see store.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile-archive.h"
#include "store.h"

#define INDEX_HEADER "# kpgo store index 1\n"
#define INDEX_COLUMNS                                                                        \
	"# sha256\trelease\tbuild_id\tarch\tgcov_version\tworkload\truns\tmerged_profiles\t" \
	"window_end\tadded\n"
#define INDEX_FIELDS 10
#define INDEX_MAX (256u << 20)
#define OBJ_NAME_LEN (KPGO_SHA256_HEX - 1 + 5) /* "<sha>.kpgo" */

/* --- entries and indexes --------------------------------------------- */

static bool hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool sha_ok(const char *s)
{
	size_t i;

	for (i = 0; i < KPGO_SHA256_HEX - 1; i++)
		if (!hex_lower(s[i]))
			return false;
	return s[i] == '\0';
}

/* The string fields, in index column order (runs and merged go between). */
static char **entry_str(struct kpgo_store_entry *e, int i)
{
	char **f[] = { &e->release,  &e->build_id,   &e->arch, &e->gcov_version,
		       &e->workload, &e->window_end, &e->added };

	return f[i];
}

#define ENTRY_STRS 7

static void entry_release(struct kpgo_store_entry *e)
{
	int i;

	for (i = 0; i < ENTRY_STRS; i++)
		free(*entry_str(e, i));
	memset(e, 0, sizeof(*e));
}

/* Fills the manifest's fields; @e->added is left to entry_set_added(). */
static int entry_from_manifest(struct kpgo_store_entry *e, const char *sha,
			       const struct kpgo_manifest *m)
{
	static const char *const keys[] = { MF_RELEASE,	 MF_BUILD_ID, MF_ARCH,
					    MF_GCOV_VERSION, MF_WORKLOAD, MF_WINDOW_END };
	size_t i;

	memset(e, 0, sizeof(*e));
	memcpy(e->sha, sha, KPGO_SHA256_HEX);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = kpgo_manifest_get(m, keys[i]);

		*entry_str(e, (int)i) = strdup(v ? v : "");
		if (!*entry_str(e, (int)i))
			goto nomem;
	}
	e->added = strdup("");
	if (!e->added)
		goto nomem;
	if (kpgo_manifest_get_u64(m, MF_RUNS, &e->runs))
		e->runs = 0;
	if (kpgo_manifest_get_u64(m, MF_MERGED, &e->merged))
		e->merged = 1;
	return 0;
nomem:
	entry_release(e);
	return -ENOMEM;
}

static int entry_set_added(struct kpgo_store_entry *e, const struct stat *st)
{
	char t[32];
	char *d;

	kpgo_format_time((int64_t)st->st_mtime, t);
	d = strdup(t);
	if (!d)
		return -ENOMEM;
	free(e->added);
	e->added = d;
	return 0;
}

/* The manifest's fields agree (the added time is the object's mtime). */
static bool entry_same(struct kpgo_store_entry *a, struct kpgo_store_entry *b)
{
	int i;

	for (i = 0; i < ENTRY_STRS - 1; i++)
		if (strcmp(*entry_str(a, i), *entry_str(b, i)))
			return false;
	return a->runs == b->runs && a->merged == b->merged;
}

/* Takes over @e's strings (and clears @e) on success only. */
static int index_push(struct kpgo_store_index *idx, struct kpgo_store_entry *e)
{
	int i;

	if (idx->n == idx->alloc) {
		size_t na = idx->alloc ? idx->alloc * 2 : 16;
		struct kpgo_store_entry *ne = realloc(idx->e, na * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		idx->e = ne;
		idx->alloc = na;
	}
	idx->e[idx->n++] = *e;
	/* The sha stays: @e may sit in an array that is still searched. */
	for (i = 0; i < ENTRY_STRS; i++)
		*entry_str(e, i) = NULL;
	return 0;
}

void kpgo_store_index_release(struct kpgo_store_index *idx)
{
	size_t i;

	for (i = 0; i < idx->n; i++)
		entry_release(&idx->e[i]);
	free(idx->e);
	memset(idx, 0, sizeof(*idx));
}

static int cmp_sha(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_store_entry *)a)->sha,
		      ((const struct kpgo_store_entry *)b)->sha);
}

static int cmp_listing(const void *pa, const void *pb)
{
	const struct kpgo_store_entry *a = pa, *b = pb;
	int r = kpgo_release_cmp(a->release, b->release);

	if (!r)
		r = strcmp(a->release, b->release);
	if (!r)
		r = strcmp(a->window_end, b->window_end);
	return r ? r : strcmp(a->sha, b->sha);
}

void kpgo_store_index_sort(struct kpgo_store_index *idx)
{
	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_listing);
}

static struct kpgo_store_entry *index_find(struct kpgo_store_index *idx, const char *sha)
{
	struct kpgo_store_entry key;

	memcpy(key.sha, sha, KPGO_SHA256_HEX);
	return idx->n ? bsearch(&key, idx->e, idx->n, sizeof(*idx->e), cmp_sha) : NULL;
}

static int parse_line(char *line, struct kpgo_store_entry *e)
{
	char *f[INDEX_FIELDS], *p = line;
	size_t nf = 0;
	int i;

	for (;;) {
		if (nf == INDEX_FIELDS)
			return -EBADMSG;
		f[nf++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (nf != INDEX_FIELDS || !sha_ok(f[0]))
		return -EBADMSG;
	for (i = 1; i < INDEX_FIELDS; i++)
		if (!kpgo_manifest_value_ok(f[i]))
			return -EBADMSG;
	memset(e, 0, sizeof(*e));
	memcpy(e->sha, f[0], KPGO_SHA256_HEX);
	if (kpgo_parse_u64(f[6], &e->runs) || kpgo_parse_u64(f[7], &e->merged))
		return -EBADMSG;
	for (i = 0; i < ENTRY_STRS; i++) {
		/* Columns 1-5 are the first five strings, 8-9 the last two. */
		*entry_str(e, i) = strdup(f[i < 5 ? i + 1 : i + 3]);
		if (!*entry_str(e, i)) {
			entry_release(e);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Parses index text (modified in place). A bad or repeated line fails the
 * parse, or with @bad is described there and skipped. Sorted by sha.
 */
static int index_parse(char *text, struct kpgo_store_index *idx, struct kpgo_strlist *bad,
		       struct kpgo_error *err)
{
	struct kpgo_store_entry e;
	char msg[128];
	size_t lineno = 0, i;
	char *line, *nl;
	int r;

	for (line = text; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		lineno++;
		if (!*line || *line == '#')
			continue;
		r = parse_line(line, &e);
		if (r == -ENOMEM)
			return kpgo_error_set(err, r, "out of memory");
		if (r == 0 && index_push(idx, &e)) {
			entry_release(&e);
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		}
		if (r) {
			snprintf(msg, sizeof(msg), "index line %zu is malformed", lineno);
			if (!bad)
				return kpgo_error_set(err, -EBADMSG, "%s", msg);
			if (kpgo_strlist_add(bad, msg))
				return kpgo_error_set(err, -ENOMEM, "out of memory");
		}
	}
	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_sha);
	for (i = 1; i < idx->n;) {
		if (strcmp(idx->e[i - 1].sha, idx->e[i].sha)) {
			i++;
			continue;
		}
		snprintf(msg, sizeof(msg), "index lists '%s' twice", idx->e[i].sha);
		if (!bad)
			return kpgo_error_set(err, -EBADMSG, "%s", msg);
		if (kpgo_strlist_add(bad, msg))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		entry_release(&idx->e[i]);
		memmove(&idx->e[i], &idx->e[i + 1], (idx->n - i - 1) * sizeof(*idx->e));
		idx->n--;
	}
	return 0;
}

static int index_format(const struct kpgo_store_index *idx, struct strbuf *out)
{
	size_t i;

	if (strbuf_addstr(out, INDEX_HEADER) || strbuf_addstr(out, INDEX_COLUMNS))
		return -ENOMEM;
	for (i = 0; i < idx->n; i++) {
		const struct kpgo_store_entry *e = &idx->e[i];

		if (strbuf_addf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%llu\t%llu\t%s\t%s\n", e->sha,
				e->release, e->build_id, e->arch, e->gcov_version, e->workload,
				(unsigned long long)e->runs, (unsigned long long)e->merged,
				e->window_end, e->added))
			return -ENOMEM;
	}
	return 0;
}

/* --- releases ---------------------------------------------------------- */

/* dpkg's order of a character in a non-digit run: '~' first, letters, then the rest. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

int kpgo_release_cmp(const char *sa, const char *sb)
{
	const unsigned char *a = (const unsigned char *)sa, *b = (const unsigned char *)sb;

	/* dpkg's verrevcmp(): alternating non-digit and digit runs. */
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit(*a)) || (*b && !isdigit(*b))) {
			int ac = order(*a), bc = order(*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit(*a) && isdigit(*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit(*a))
			return 1;
		if (isdigit(*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

bool kpgo_release_series(const char *release, char *out, size_t len)
{
	const char *p = release;
	size_t n;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	n = (size_t)(p - release);
	if (n >= len)
		return false;
	memcpy(out, release, n);
	out[n] = '\0';
	return true;
}

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

/*
 * Opens the store; with @create makes it first (a writer that has
 * something to write). Without, a directory that has no objects/ is not a
 * store and -ENOENT.
 */
static int store_open(struct kpgo_store *s, bool create, struct kpgo_error *err)
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
				return kpgo_error_set(err, r, "'%s' is not a kpgo store",
						      s->dir);
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

/* Writers lock exclusively; verify without --repair shares. */
static int store_lock(struct kpgo_store *s, bool exclusive, struct kpgo_error *err)
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

static void store_unlock(struct kpgo_store *s)
{
	close_fd(&s->lockfd);
}

/* A new file in tmp/: "<what>.<pid>.<n>.tmp"; its name into @name. */
static int tmp_create(struct kpgo_store *s, const char *what, unsigned mode, char *name,
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

static int write_all(int fd, const void *data, size_t len)
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

static int index_write(struct kpgo_store *s, struct kpgo_store_index *idx,
		       struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	char name[64];
	int fd, r;

	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_sha);
	if (index_format(idx, &text)) {
		strbuf_release(&text);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	fd = tmp_create(s, "index", 0644, name, sizeof(name));
	r = fd < 0 ? fd : write_all(fd, text.buf, text.len);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(s->tmpfd, name, s->dirfd, "index") < 0)
		r = -errno;
	if (r && fd >= 0)
		unlinkat(s->tmpfd, name, 0);
	if (!r)
		fsync(s->dirfd);
	strbuf_release(&text);
	return r ? kpgo_error_set(err, r, "cannot write '%s/index': %s", s->dir, strerror(-r)) : 0;
}

/* The index as written, sorted by sha; a missing index is an empty one. */
static int index_load(struct kpgo_store *s, struct kpgo_store_index *idx,
		      struct kpgo_strlist *bad, struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int fd, r;

	fd = openat(s->dirfd, "index", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0
				       : kpgo_error_set(err, -errno, "cannot open '%s/index': %s",
							s->dir, strerror(errno));
	r = kpgo_read_fd(fd, &text, INDEX_MAX);
	close(fd);
	if (r)
		r = kpgo_error_set(err, r, "cannot read '%s/index': %s", s->dir, strerror(-r));
	else
		r = index_parse(text.buf, idx, bad, err);
	strbuf_release(&text);
	return r;
}

int kpgo_store_index_read(struct kpgo_store *s, struct kpgo_store_index *idx,
			  struct kpgo_error *err)
{
	int r = store_open(s, false, err);

	if (!r)
		r = index_load(s, idx, NULL, err);
	if (r == -EBADMSG)
		kpgo_error_prefix(err, "'%s/index'", s->dir);
	return r;
}

/* --- objects ------------------------------------------------------------ */

/*
 * Reads @fd whole, hashes the bytes into @sha and verifies the same bytes
 * as an archive, read to the end; fills @e (when not NULL) from its manifest.
 */
static int verify_fd(int fd, char sha[KPGO_SHA256_HEX], struct kpgo_store_entry *e,
		     struct kpgo_error *err)
{
	struct strbuf buf = STRBUF_INIT;
	struct kpgo_archive *a = NULL;
	struct kpgo_sha256 *h;
	struct kpgo_gcda *g;
	const char *path;
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
	while (!r && (r = kpgo_archive_next(a, &path, &g, err)) == 1)
		r = 0;
	if (!r && e && entry_from_manifest(e, sha, kpgo_archive_manifest(a)))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
out:
	kpgo_archive_close(a);
	strbuf_release(&buf);
	return r;
}

/* Every name in objects/: "sha" for well-formed ones, "objects/xx/name" in @strays. */
static int objects_list(struct kpgo_store *s, struct kpgo_strlist *shas,
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
		bool hex2 = strlen(d->d_name) == 2 && hex_lower(d->d_name[0]) &&
			    hex_lower(d->d_name[1]);

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(rel, sizeof(rel), "objects/%s", d->d_name);
		fd = hex2 ? openat(s->objfd, d->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			  : -1;
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
				if (sha_ok(sha)) {
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

/*
 * Opens object @sha and verifies it: its bytes must hash to its name and
 * be a valid archive. Fills @e (added time included). -ENOENT when absent,
 * -EBADMSG (message in @err) when bad.
 */
static int object_check(struct kpgo_store *s, const char *sha, struct kpgo_store_entry *e,
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
	r = verify_fd(fd, got, e, err);
	close(fd);
	if (r == -ENOMEM)
		return r;
	/* A changed byte is best told as such, whatever else it broke. */
	if (got[0] && strcmp(got, sha)) {
		if (!r)
			entry_release(e);
		return kpgo_error_set(err, -EBADMSG, "its bytes hash to %s", got);
	}
	if (r)
		return -EBADMSG;
	if (entry_set_added(e, &st)) {
		entry_release(e);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * The index update every writer does under the lock: the index as it is,
 * less lines whose object is gone, plus every object it lacks (those of
 * this add in @fresh, already verified, and any an interrupted add left,
 * verified now; bad ones are left to verify to report). Writes it when
 * @write and something changed.
 */
static int index_update_locked(struct kpgo_store *s, struct kpgo_store_index *fresh, bool write,
			       struct kpgo_store_index *out, struct kpgo_error *err)
{
	struct kpgo_strlist shas = { 0 }, bad = { 0 };
	struct kpgo_store_index idx = { 0 };
	struct kpgo_store_entry e, *f;
	struct kpgo_error ignored;
	bool changed = false;
	size_t i, j = 0;
	int r;

	r = index_load(s, &idx, &bad, err);
	if (!r)
		r = objects_list(s, &shas, NULL, err);
	if (r)
		goto out;
	changed = bad.n > 0;
	if (fresh && fresh->n > 1)
		qsort(fresh->e, fresh->n, sizeof(*fresh->e), cmp_sha);
	/* Both sorted by sha: walk them together. */
	for (i = 0; i < shas.n; i++) {
		while (j < idx.n && strcmp(idx.e[j].sha, shas.items[i]) < 0) {
			entry_release(&idx.e[j]);
			changed = true;
			j++;
		}
		if (j < idx.n && !strcmp(idx.e[j].sha, shas.items[i])) {
			r = index_push(out, &idx.e[j++]);
		} else {
			struct stat st;
			char rel[8 + OBJ_NAME_LEN];

			changed = true;
			f = fresh ? index_find(fresh, shas.items[i]) : NULL;
			snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", shas.items[i], shas.items[i]);
			if (f && fstatat(s->objfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !entry_set_added(f, &st)) {
				r = index_push(out, f);
			} else if (object_check(s, shas.items[i], &e, &ignored) == 0) {
				r = index_push(out, &e);
				if (r)
					entry_release(&e);
			}
		}
		if (r) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	for (; j < idx.n; j++) {
		entry_release(&idx.e[j]);
		changed = true;
	}
	idx.n = 0;
	if (write && changed)
		r = index_write(s, out, err);
out:
	kpgo_store_index_release(&idx);
	kpgo_strlist_clear(&shas);
	kpgo_strlist_clear(&bad);
	return r;
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
	out = tmp_create(s, what, 0444, name, len);
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
		r = write_all(out, buf, (size_t)n);
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

/*
 * Renames tmp/@name to objects/xx/<sha>.kpgo unless that exists (then
 * *@existed). Under the lock, so verify never sees a half-published object.
 */
static int publish(struct kpgo_store *s, const char *name, const char *sha, bool *existed,
		   struct kpgo_error *err)
{
	char sub[3] = { sha[0], sha[1], '\0' }, obj[OBJ_NAME_LEN + 1];
	bool new_sub = faccessat(s->objfd, sub, F_OK, AT_SYMLINK_NOFOLLOW) < 0;
	int subfd, r;

	snprintf(obj, sizeof(obj), "%s.kpgo", sha);
	subfd = kpgo_mkdirs_at(s->objfd, sub, true);
	if (subfd < 0)
		return kpgo_error_set(err, subfd, "cannot open '%s/objects/%s': %s", s->dir, sub,
				      strerror(-subfd));
	r = renameat2(s->tmpfd, name, subfd, obj, RENAME_NOREPLACE);
	if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
		/* A filesystem without RENAME_NOREPLACE: link(2) never replaces either. */
		r = linkat(s->tmpfd, name, subfd, obj, 0);
		if (r == 0)
			unlinkat(s->tmpfd, name, 0);
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
	char (*tmp)[64] = calloc(n ? n : 1, sizeof(*tmp));
	size_t i, j;
	int fd, r = 0;

	if (!tmp)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	/* All files verified before the store is created or touched. */
	for (i = 0; i < n && !r; i++) {
		res[i].existed = false;
		fd = open_input(files[i], err);
		r = fd < 0 ? fd : verify_fd(fd, res[i].sha, &e, err);
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
			entry_release(&e);
		else if (index_push(&fresh, &e))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (!r)
		r = store_open(s, true, err);
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
		r = store_lock(s, true, err);
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
		r = index_update_locked(s, &fresh, true, &out, err);
	store_unlock(s);
out:
	for (i = 0; i < n; i++)
		if (tmp[i][0])
			unlinkat(s->tmpfd, tmp[i], 0);
	free(tmp);
	kpgo_store_index_release(&fresh);
	kpgo_store_index_release(&out);
	return r;
}

/* --- lookup and select ---------------------------------------------------- */

int kpgo_store_lookup(const struct kpgo_store_index *idx, const char *prefix,
		      const struct kpgo_store_entry **e, struct kpgo_error *err)
{
	size_t i, len = strlen(prefix), hits = 0;

	*e = NULL;
	for (i = 0; i < len; i++)
		if (!hex_lower(prefix[i]))
			len = 0;
	if (len == 0 || len > KPGO_SHA256_HEX - 1)
		return kpgo_error_set(err, -EINVAL, "'%s' is not a sha256 or a prefix of one",
				      prefix);
	for (i = 0; i < idx->n; i++) {
		if (!strncmp(idx->e[i].sha, prefix, len)) {
			hits++;
			*e = &idx->e[i];
		}
	}
	if (hits == 1)
		return 0;
	*e = NULL;
	if (hits == 0)
		return kpgo_error_set(err, -ENOENT, "no profile '%s' in the store", prefix);
	return kpgo_error_set(err, -EEXIST, "'%s' is ambiguous: %zu profiles start with it", prefix,
			      hits);
}

static bool same_series(const char *release, const char *series)
{
	char s[64];

	return kpgo_release_series(release, s, sizeof(s)) && !strcmp(s, series);
}

/* Is @a (of rank @ra) better than @b (of rank @rb)? */
static bool better(const struct kpgo_store_entry *a, int ra, const struct kpgo_store_entry *b,
		   int rb)
{
	int r;

	if (ra != rb)
		return ra < rb;
	if (ra == KPGO_RANK_OLDER) {
		r = kpgo_release_cmp(a->release, b->release);
		if (r)
			return r > 0;
	}
	if (a->runs != b->runs)
		return a->runs > b->runs;
	r = strcmp(a->window_end, b->window_end);
	if (r)
		return r > 0;
	return strcmp(a->sha, b->sha) < 0;
}

int kpgo_store_select(const struct kpgo_store_index *idx, const struct kpgo_store_query *q,
		      struct kpgo_store_choice *c, struct kpgo_error *err)
{
	char series[64];
	size_t i, n_rank[4] = { 0 }, newer = 0, wrong_gcov = 0, wrong_arch = 0;
	bool has_series = kpgo_release_series(q->release, series, sizeof(series));
	struct strbuf sb = STRBUF_INIT;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < idx->n; i++) {
		const struct kpgo_store_entry *e = &idx->e[i];
		int rank, cmp = kpgo_release_cmp(e->release, q->release);

		if (q->build_id && *q->build_id && !strcmp(e->build_id, q->build_id))
			rank = KPGO_RANK_BUILD_ID;
		else if (cmp == 0)
			rank = KPGO_RANK_RELEASE;
		else if (has_series && cmp < 0 && same_series(e->release, series))
			rank = KPGO_RANK_OLDER;
		else {
			if (has_series && cmp > 0 && same_series(e->release, series))
				newer++;
			continue;
		}
		if (q->gcov_version && strcmp(e->gcov_version, q->gcov_version)) {
			wrong_gcov++;
			continue;
		}
		if (q->arch && strcmp(e->arch, q->arch)) {
			wrong_arch++;
			continue;
		}
		n_rank[rank]++;
		if (!c->e || better(e, rank, c->e, (int)c->rank)) {
			c->e = e;
			c->rank = (enum kpgo_store_rank)rank;
		}
	}
	if (c->e) {
		const struct kpgo_store_entry *e = c->e;

		c->candidates = n_rank[c->rank];
		if (c->rank == KPGO_RANK_BUILD_ID)
			strbuf_addf(&sb, "same build id %s (release %s)", e->build_id, e->release);
		else if (c->rank == KPGO_RANK_RELEASE)
			strbuf_addf(&sb, "same release %s", e->release);
		else
			strbuf_addf(&sb, "nearest older release %s of series %s (none for %s)",
				    e->release, series, q->release);
		if (c->candidates > 1)
			strbuf_addf(&sb, "; best of %zu by runs, then window end", c->candidates);
		strbuf_addf(&sb, ": RUNS=%llu WINDOW_END=%s", (unsigned long long)e->runs,
			    *e->window_end ? e->window_end : "unknown");
		snprintf(c->why, sizeof(c->why), "%s", sb.buf);
		strbuf_release(&sb);
		return 0;
	}
	if (q->build_id && *q->build_id)
		strbuf_addf(&sb, "with build id %s, ", q->build_id);
	strbuf_addf(&sb, "for %s", q->release);
	if (has_series)
		strbuf_addf(&sb, " or series %s older than %s", series, q->release);
	if (q->gcov_version)
		strbuf_addf(&sb, " with gcov version '%s'", q->gcov_version);
	if (q->arch)
		strbuf_addf(&sb, " for arch %s", q->arch);
	if (newer || wrong_gcov || wrong_arch)
		strbuf_addf(&sb,
			    " (left out: %zu of a newer release, %zu with another gcov version,"
			    " %zu for another arch)",
			    newer, wrong_gcov, wrong_arch);
	kpgo_error_set(err, -ENOENT, "no profile %s", sb.buf);
	strbuf_release(&sb);
	return -ENOENT;
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
	r = store_open(s, false, err);
	if (!r && repair)
		r = store_open(s, true, err);
	if (!r)
		r = store_lock(s, repair, err);
	if (r)
		return r;
	r = index_load(s, &idx, &rep->problems, err);
	if (!r)
		r = objects_list(s, &shas, &strays, err);
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

		r = object_check(s, sha, &e, &why);
		if (r == -ENOMEM)
			break;
		if (r) {
			r = report(&rep->problems, "object %s is corrupt: %s", sha, why.msg);
			snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", sha, sha);
			if (!r && repair)
				r = move_aside(s, rel, &rep->repairs);
			continue;
		}
		ie = index_find(&idx, sha);
		if (!ie)
			r = report(&rep->problems, "object %s is not in the index", sha);
		else if (!entry_same(ie, &e))
			r = report(&rep->problems,
				   "the index line of %s does not match its manifest", sha);
		if (!r)
			r = index_push(&good, &e);
		if (r)
			entry_release(&e);
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
		r = index_write(s, &good, err);
		if (!r && report(&rep->repairs, "rebuilt the index from %zu objects", good.n))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
out:
	store_unlock(s);
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

	r = store_open(s, false, err);
	if (!r && !dry_run)
		r = store_open(s, true, err);
	if (!r)
		r = store_lock(s, true, err);
	if (r)
		return r;
	r = index_update_locked(s, NULL, !dry_run, &all, err);
	if (r)
		goto out;
	if (all.n > 1)
		qsort(all.e, all.n, sizeof(*all.e), cmp_gc);
	for (i = 0; i < all.n && !r; i++) {
		if (!prev || strcmp(all.e[i].release, prev))
			in_group = 0;
		prev = all.e[i].release; /* the string moves, it is not freed */
		r = index_push(++in_group <= keep ? &kept : removed, &all.e[i]);
	}
	if (r) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!dry_run && removed->n) {
		r = index_write(s, &kept, err);
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
	store_unlock(s);
	/* Entries moved out of @all were cleared; release what is left. */
	kpgo_store_index_release(&all);
	kpgo_store_index_release(&kept);
	return r;
}
