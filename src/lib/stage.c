// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile-archive.h"
#include "stage.h"

void kpgo_stage_result_release(struct kpgo_stage_result *r)
{
	kpgo_strlist_clear(&r->missing);
	kpgo_strlist_clear(&r->unprofiled);
	kpgo_strlist_clear(&r->removed);
}

int kpgo_mangle_path(const char *abs, struct strbuf *out)
{
	const char *c = abs;

	while (*c) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (strbuf_addch(out, '^'))
				return -ENOMEM;
		} else if (strbuf_add(out, c, n)) {
			return -ENOMEM;
		}
		if (!e)
			break;
		if (strbuf_addch(out, '#'))
			return -ENOMEM;
		c = e + 1;
	}
	return 0;
}

/*
 * The objects to stage, one at a time: from a profile in memory or
 * streamed from an archive. next() returns 1 with the next object, 0 at
 * the end (for an archive: once its payload is checked), or an error.
 */
struct source {
	int (*next)(void *ctx, const char **path, const struct kpgo_gcda **g,
		    struct kpgo_error *err);
	void *ctx;
};

struct stager {
	const struct kpgo_manifest *m;
	const struct kpgo_strlist *paths; /* the profile's objects, sorted */
	const struct kpgo_stage_opts *o;
	struct kpgo_stage_result *res;
	struct kpgo_error *err;
	int objfd, pdirfd;
	char *objtree_abs;
	size_t nw;		     /* objects written (objtree: paths[0..nw) in write order) */
	struct kpgo_strlist written; /* with --profile-dir: the names written there */
	struct strbuf curdir;	     /* the directory of the last object written */
	int curfd;		     /* open on it, or -1 */
	struct strbuf rel;	     /* walk position */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool in_list(const struct kpgo_strlist *l, const char *s)
{
	return l->n && bsearch(&s, l->items, l->n, sizeof(*l->items), cmp_str) != NULL;
}

/* Removes what this staging wrote (it failed). */
static void unwrite_all(struct stager *s, const struct kpgo_strlist *order)
{
	size_t i;

	if (s->o->profile_dir) {
		for (i = 0; i < s->written.n; i++)
			unlinkat(s->pdirfd, s->written.items[i], 0);
		return;
	}
	for (i = 0; i < s->nw && i < order->n; i++) {
		const char *p = order->items[i], *slash = strrchr(p, '/');
		int dfd = s->objfd;

		if (slash) {
			struct strbuf dir = STRBUF_INIT;

			if (strbuf_add(&dir, p, (size_t)(slash - p)))
				continue;
			dfd = kpgo_mkdirs_at(s->objfd, dir.buf, false);
			strbuf_release(&dir);
			if (dfd < 0)
				continue;
		}
		unlinkat(dfd, slash ? slash + 1 : p, 0);
		if (dfd != s->objfd)
			close(dfd);
	}
}

/* The directory @dir (relative to the object tree), created, not through links. */
static int dir_at(struct stager *s, const char *dir, size_t len)
{
	if (s->curfd >= 0 && s->curdir.len == len && !memcmp(s->curdir.buf, dir, len))
		return s->curfd;
	if (s->curfd >= 0 && s->curfd != s->objfd)
		close(s->curfd);
	s->curfd = -1;
	strbuf_reset(&s->curdir);
	if (strbuf_add(&s->curdir, dir, len))
		return -ENOMEM;
	s->curfd = len ? kpgo_mkdirs_at(s->objfd, s->curdir.buf, true) : s->objfd;
	if (s->curfd < 0) {
		int r = s->curfd == -1 ? -errno : s->curfd;

		s->curfd = -1;
		return r;
	}
	return s->curfd;
}

static int write_one(struct stager *s, const char *path, const struct strbuf *data)
{
	struct strbuf name = STRBUF_INIT;
	const char *slash, *base;
	int dfd, r;

	if (s->o->profile_dir) {
		const char *root = s->objtree_abs ? s->objtree_abs :
						    kpgo_manifest_get(s->m, MF_BUILD_ROOT);
		struct strbuf abs = STRBUF_INIT;

		r = -ENOMEM;
		if (!strbuf_addstr(&abs, root ? root : "") &&
		    (abs.len && abs.buf[abs.len - 1] == '/' ? 0 : strbuf_addch(&abs, '/')) == 0 &&
		    !strbuf_add(&abs, path, strlen(path) - 5))
			r = kpgo_mangle_path(abs.buf, &name);
		strbuf_release(&abs);
		if (!r && strbuf_addstr(&name, ".gcda"))
			r = -ENOMEM;
		if (!r && name.len > NAME_MAX - 32)
			r = -ENAMETOOLONG;
		if (r) {
			r = kpgo_error_set(s->err, r, "cannot stage '%s': %s", path, strerror(-r));
			goto out;
		}
		dfd = s->pdirfd;
		base = name.buf;
	} else {
		slash = strrchr(path, '/');
		dfd = dir_at(s, path, slash ? (size_t)(slash - path) : 0);
		base = slash ? slash + 1 : path;
	}
	if (dfd < 0) {
		r = kpgo_error_set(s->err, dfd, "cannot stage '%s': %s", path,
				   dfd == -ELOOP ? "a directory on the way is a symbolic link" :
						   strerror(-dfd));
		goto out;
	}
	/*
	 * Not fsync'ed (20,000 fsyncs were most of a staging's time): a file is
	 * either complete or absent (renamed into place), and a build that a
	 * crash interrupts stages again.
	 */
	r = kpgo_write_file_replace_at(dfd, base, data->buf, data->len, 0644, false);
	if (r) {
		r = kpgo_error_set(s->err, r, "cannot write '%s' for '%s': %s", base, path,
				   strerror(-r));
		goto out;
	}
	if (s->o->profile_dir && kpgo_strlist_add(&s->written, name.buf))
		r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
	s->nw++;
out:
	strbuf_release(&name);
	return r;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

static bool file_exists_at(int dirfd, const char *rel)
{
	struct stat st;

	return dirfd >= 0 && fstatat(dirfd, rel, &st, 0) == 0 && S_ISREG(st.st_mode);
}

/* A .gcda this staging wrote: at @rel below the object tree, or @name in the profile directory. */
static bool was_written(struct stager *s, const char *rel_or_name)
{
	return in_list(s->o->profile_dir ? &s->written : s->paths, rel_or_name);
}

/*
 * Walks the object tree: C objects without a profile, and stale .gcda
 * files (not written just now), which are removed so GCC cannot pick them.
 */
static int walk_tree(struct stager *s, int dfd, int srcfd, int depth)
{
	size_t base = s->rel.len;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth > 32) {
		close(dfd);
		return 0;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while (!r && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		s->rel.len = base;
		s->rel.buf[base] = '\0';
		if ((base && strbuf_addch(&s->rel, '/')) || strbuf_addstr(&s->rel, de->d_name))
			return kpgo_error_set(s->err, -ENOMEM, "out of memory");
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (fd >= 0)
				r = walk_tree(s, fd, srcfd, depth + 1);
		} else if (S_ISREG(st.st_mode) && has_suffix(de->d_name, ".gcda")) {
			if ((s->o->profile_dir || !was_written(s, s->rel.buf)) &&
			    unlinkat(dirfd(d), de->d_name, 0) == 0 &&
			    kpgo_strlist_add(&s->res->removed, s->rel.buf))
				r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
		} else if (S_ISREG(st.st_mode) && has_suffix(de->d_name, ".o") &&
			   !has_suffix(de->d_name, ".mod.o")) {
			struct strbuf key = STRBUF_INIT;
			bool c_obj;

			strbuf_add(&key, s->rel.buf, s->rel.len - 2);
			strbuf_addstr(&key, ".c");
			c_obj = file_exists_at(srcfd, key.buf);
			key.len -= 2;
			key.buf[key.len] = '\0';
			strbuf_addstr(&key, ".gcda");
			if (c_obj && !in_list(s->paths, key.buf) &&
			    kpgo_strlist_add(&s->res->unprofiled, s->rel.buf))
				r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
			strbuf_release(&key);
		}
	}
	closedir(d);
	s->rel.len = base;
	if (s->rel.alloc)
		s->rel.buf[base] = '\0';
	return r;
}

static int clean_profile_dir(struct stager *s)
{
	struct dirent *de;
	int fd = dup(s->pdirfd), r = 0;
	DIR *d;

	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	rewinddir(d);
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".gcda"))
			continue;
		if (!was_written(s, de->d_name) && unlinkat(s->pdirfd, de->d_name, 0) == 0 &&
		    kpgo_strlist_add(&s->res->removed, de->d_name))
			r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
	}
	closedir(d);
	return r;
}

void kpgo_stage_summary_of(uint64_t runs, uint64_t sum_max, uint64_t *scale, uint32_t *runs32,
			   uint32_t *sum_max32)
{
	uint64_t sc;

	if (runs == 0)
		runs = 1;
	/*
	 * GCC reads sum_max as one 32-bit word. Past that, divide counters,
	 * runs and sum_max alike: ratios and "executed or not" stay as they
	 * are. Rounded up without an overflow (sum_max + scale - 1 wrapped for
	 * sum_max near 2^64).
	 */
	sc = sum_max > UINT32_MAX ? (sum_max - 1) / UINT32_MAX + 1 : 1;
	*scale = sc;
	*sum_max32 = (uint32_t)(sum_max / sc + (sum_max % sc != 0));
	runs = runs / sc + (runs % sc != 0);
	*runs32 = runs > UINT32_MAX ? UINT32_MAX : (uint32_t)runs;
}

/* Stages the objects @src hands out; @s->paths lists them all, sorted. */
static int stage_all(struct stager *s, struct source *src, const struct kpgo_strlist *order)
{
	const struct kpgo_stage_opts *o = s->o;
	struct kpgo_stage_result *res = s->res;
	struct kpgo_error *err = s->err;
	struct strbuf data = STRBUF_INIT;
	uint64_t runs = 1, sum_max = 0;
	int srcfd = -1, r = 0;
	size_t i;

	kpgo_manifest_get_u64(s->m, MF_RUNS, &runs);
	kpgo_manifest_get_u64(s->m, MF_SUM_MAX, &sum_max);
	kpgo_stage_summary_of(runs, sum_max, &res->scale, &res->runs, &res->sum_max);
	if (o->objtree) {
		s->objtree_abs = realpath(o->objtree, NULL);
		s->objfd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!s->objtree_abs || s->objfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open object tree '%s': %s",
					   o->objtree, strerror(errno));
			goto out;
		}
	}
	if (o->profile_dir) {
		if (mkdir(o->profile_dir, 0755) < 0 && errno != EEXIST) {
			r = kpgo_error_set(err, -errno, "cannot create '%s': %s", o->profile_dir,
					   strerror(errno));
			goto out;
		}
		s->pdirfd = open(o->profile_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s->pdirfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open '%s': %s", o->profile_dir,
					   strerror(errno));
			goto out;
		}
	}
	for (;;) {
		const struct kpgo_gcda *og;
		const char *path;
		struct kpgo_gcda g;

		r = src->next(src->ctx, &path, &og, err);
		if (r <= 0)
			break;
		if (!kpgo_object_path_ok(path)) {
			r = kpgo_error_set(err, -EINVAL, "refusing to stage odd path '%s'", path);
			break;
		}
		if (kpgo_gcda_copy(&g, og)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		kpgo_gcda_scale(&g, res->scale);
		g.has_summary = true;
		g.runs = res->runs;
		g.sum_max = res->sum_max;
		strbuf_reset(&data);
		r = kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &data);
		kpgo_gcda_release(&g);
		if (r == -EPROTONOSUPPORT) {
			r = kpgo_error_set(err, r,
					   "cannot stage for GCC 8: its summary record is not supported");
			break;
		}
		if (r) {
			r = kpgo_error_set(err, r, "cannot serialise '%s': %s", path, strerror(-r));
			break;
		}
		r = write_one(s, path, &data);
		if (r)
			break;
	}
	if (r)
		goto out;
	if (s->nw != s->paths->n) {
		r = kpgo_error_set(err, -EIO, "the profile changed while it was staged");
		goto out;
	}
	res->staged = s->nw;
	if (o->srctree || o->objtree) {
		srcfd = open(o->srctree ? o->srctree : o->objtree,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (srcfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open source tree '%s': %s",
					   o->srctree ? o->srctree : o->objtree, strerror(errno));
			goto out;
		}
		for (i = 0; i < s->paths->n && !r; i++) {
			const char *p = s->paths->items[i];
			struct strbuf b = STRBUF_INIT;
			bool found;

			strbuf_add(&b, p, strlen(p) - 5);
			strbuf_addstr(&b, ".c");
			found = file_exists_at(srcfd, b.buf);
			b.len -= 2;
			strbuf_addstr(&b, ".o");
			found = found || file_exists_at(s->objfd, b.buf);
			if (!found && kpgo_strlist_add(&res->missing, p))
				r = kpgo_error_set(err, -ENOMEM, "out of memory");
			strbuf_release(&b);
		}
	}
	kpgo_strlist_sort(&s->written);
	if (!r && s->objfd >= 0) {
		int fd = dup(s->objfd);

		if (fd >= 0)
			r = walk_tree(s, fd, srcfd, 0);
	}
	if (!r && s->pdirfd >= 0)
		r = clean_profile_dir(s);
	kpgo_strlist_sort(&res->unprofiled);
	kpgo_strlist_sort(&res->removed);
out:
	if (r)
		unwrite_all(s, order);
	if (s->curfd >= 0 && s->curfd != s->objfd)
		close(s->curfd);
	if (srcfd >= 0)
		close(srcfd);
	if (s->objfd >= 0)
		close(s->objfd);
	if (s->pdirfd >= 0)
		close(s->pdirfd);
	free(s->objtree_abs);
	kpgo_strlist_clear(&s->written);
	strbuf_release(&s->rel);
	strbuf_release(&s->curdir);
	strbuf_release(&data);
	return r;
}

static void stager_init(struct stager *s, const struct kpgo_manifest *m,
			const struct kpgo_strlist *paths, const struct kpgo_stage_opts *o,
			struct kpgo_stage_result *res, struct kpgo_error *err)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->paths = paths;
	s->o = o;
	s->res = res;
	s->err = err;
	s->objfd = s->pdirfd = s->curfd = -1;
	strbuf_init(&s->rel);
	strbuf_init(&s->curdir);
}

struct mem_iter {
	const struct kpgo_profile *p;
	size_t i;
};

static int mem_next(void *ctx, const char **path, const struct kpgo_gcda **g, struct kpgo_error *err)
{
	struct mem_iter *it = ctx;

	(void)err;
	if (it->i == it->p->n)
		return 0;
	*path = it->p->objs[it->i].path;
	*g = &it->p->objs[it->i].gcda;
	it->i++;
	return 1;
}

int kpgo_stage(const struct kpgo_profile *p, const struct kpgo_stage_opts *o,
	       struct kpgo_stage_result *res, struct kpgo_error *err)
{
	struct kpgo_strlist paths = { 0 }, order = { 0 };
	struct mem_iter it = { .p = p };
	struct source src = { mem_next, &it };
	struct stager s;
	size_t i;
	int r;

	memset(res, 0, sizeof(*res));
	if (!o->objtree && !o->profile_dir)
		return kpgo_error_set(err, -EINVAL,
				      "nowhere to stage: no object tree or profile directory");
	for (i = 0; i < p->n; i++)
		if (kpgo_strlist_add(&paths, p->objs[i].path) ||
		    kpgo_strlist_add(&order, p->objs[i].path)) {
			kpgo_strlist_clear(&paths);
			kpgo_strlist_clear(&order);
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		}
	kpgo_strlist_sort(&paths);
	stager_init(&s, &p->manifest, &paths, o, res, err);
	r = stage_all(&s, &src, &order);
	if (r)
		kpgo_stage_result_release(res);
	kpgo_strlist_clear(&paths);
	kpgo_strlist_clear(&order);
	return r;
}

struct ar_iter {
	struct kpgo_archive *a;
	const char *file;
};

static int ar_next(void *ctx, const char **path, const struct kpgo_gcda **g, struct kpgo_error *err)
{
	struct ar_iter *it = ctx;
	struct kpgo_gcda *gg;
	int r = kpgo_archive_next(it->a, path, &gg, err);

	if (r < 0)
		kpgo_error_prefix(err, "cannot read '%s'", it->file);
	if (r == 1)
		*g = gg;
	return r;
}

int kpgo_stage_file(const char *file, const struct kpgo_stage_opts *o, struct kpgo_manifest *m,
		    struct kpgo_stage_result *res, struct kpgo_error *err)
{
	struct kpgo_strlist paths = { 0 };
	struct kpgo_archive *a = NULL;
	struct ar_iter it = { .file = file };
	struct source src = { ar_next, &it };
	struct kpgo_gcda *g;
	struct stager s;
	const char *rel;
	int r;

	memset(res, 0, sizeof(*res));
	kpgo_manifest_init(m);
	if (!o->objtree && !o->profile_dir)
		return kpgo_error_set(err, -EINVAL,
				      "nowhere to stage: no object tree or profile directory");
	/*
	 * Two passes, each holding one object at a time: the first checks the
	 * whole archive (nothing is written from an archive not checked to its
	 * end) and lists its objects; the second writes them, and is checked
	 * to its end again: what changed in between fails the staging and
	 * removes what it wrote.
	 */
	r = kpgo_archive_open(&a, file, err);
	if (r) {
		kpgo_error_prefix(err, "cannot read '%s'", file);
		return r;
	}
	r = kpgo_manifest_copy(m, kpgo_archive_manifest(a));
	if (r)
		r = kpgo_error_set(err, r, "out of memory");
	while (!r && (r = kpgo_archive_next(a, &rel, &g, err)) == 1)
		r = kpgo_strlist_add(&paths, rel) ? kpgo_error_set(err, -ENOMEM, "out of memory") :
						    0;
	if (r < 0 && r != -ENOMEM)
		kpgo_error_prefix(err, "cannot read '%s'", file);
	kpgo_archive_close(a);
	a = NULL;
	if (!r) {
		r = kpgo_archive_open(&a, file, err);
		if (r)
			kpgo_error_prefix(err, "cannot read '%s'", file);
		else if (strcmp(kpgo_manifest_get(kpgo_archive_manifest(a), MF_PAYLOAD),
				kpgo_manifest_get(m, MF_PAYLOAD)))
			r = kpgo_error_set(err, -EIO, "'%s' changed while it was staged", file);
	}
	if (!r) {
		it.a = a;
		stager_init(&s, m, &paths, o, res, err);
		r = stage_all(&s, &src, &paths);
	}
	kpgo_archive_close(a);
	kpgo_strlist_clear(&paths);
	if (r) {
		kpgo_stage_result_release(res);
		kpgo_manifest_release(m);
	}
	return r;
}
