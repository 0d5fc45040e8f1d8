// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

struct written {
	int dirfd;
	char *name;
};

struct stager {
	const struct kpgo_profile *p;
	const struct kpgo_stage_opts *o;
	struct kpgo_stage_result *res;
	struct kpgo_error *err;
	int objfd, pdirfd;
	char *objtree_abs;
	struct written *w;
	size_t nw;
	struct strbuf rel; /* walk position */
};

static int remember(struct stager *s, int dirfd, const char *name)
{
	struct written *nw = realloc(s->w, (s->nw + 1) * sizeof(*nw));

	if (!nw)
		return -ENOMEM;
	s->w = nw;
	nw[s->nw].dirfd = dup(dirfd);
	nw[s->nw].name = strdup(name);
	if (nw[s->nw].dirfd < 0 || !nw[s->nw].name) {
		if (nw[s->nw].dirfd >= 0)
			close(nw[s->nw].dirfd);
		free(nw[s->nw].name);
		return -ENOMEM;
	}
	s->nw++;
	return 0;
}

static void forget_all(struct stager *s, bool unlink_them)
{
	size_t i;

	for (i = 0; i < s->nw; i++) {
		if (unlink_them)
			unlinkat(s->w[i].dirfd, s->w[i].name, 0);
		close(s->w[i].dirfd);
		free(s->w[i].name);
	}
	free(s->w);
	s->w = NULL;
	s->nw = 0;
}

static int write_one(struct stager *s, const struct kpgo_object *obj, const struct strbuf *data)
{
	struct strbuf name = STRBUF_INIT;
	const char *slash;
	int dfd = -1, r;

	if (s->o->profile_dir) {
		const char *root = s->objtree_abs ? s->objtree_abs :
			kpgo_manifest_get(&s->p->manifest, MF_BUILD_ROOT);
		struct strbuf abs = STRBUF_INIT;

		r = -ENOMEM;
		if (!strbuf_addstr(&abs, root) && (abs.len && abs.buf[abs.len - 1] == '/' ?
						    0 : strbuf_addch(&abs, '/')) == 0 &&
		    !strbuf_add(&abs, obj->path, strlen(obj->path) - 5))
			r = kpgo_mangle_path(abs.buf, &name);
		strbuf_release(&abs);
		if (!r && strbuf_addstr(&name, ".gcda"))
			r = -ENOMEM;
		if (!r && name.len > NAME_MAX)
			r = -ENAMETOOLONG;
		if (r) {
			r = kpgo_error_set(s->err, r, "cannot stage '%s': %s", obj->path, strerror(-r));
			goto out;
		}
		dfd = dup(s->pdirfd);
	} else {
		slash = strrchr(obj->path, '/');
		if (slash) {
			struct strbuf dir = STRBUF_INIT;

			if (strbuf_add(&dir, obj->path, (size_t)(slash - obj->path))) {
				r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
				goto out;
			}
			dfd = kpgo_mkdirs_at(s->objfd, dir.buf, true);
			strbuf_release(&dir);
			strbuf_addstr(&name, slash + 1);
		} else {
			dfd = dup(s->objfd);
			strbuf_addstr(&name, obj->path);
		}
	}
	if (dfd < 0) {
		int e = dfd == -1 ? errno : -dfd;

		r = kpgo_error_set(s->err, -e, "cannot stage '%s': %s", obj->path,
				   e == ELOOP ? "a directory on the way is a symbolic link" :
				   strerror(e));
		goto out;
	}
	r = kpgo_write_file_atomic_at(dfd, name.buf, data->buf, data->len, 0644);
	if (r) {
		r = kpgo_error_set(s->err, r, "cannot write '%s' for '%s': %s", name.buf, obj->path,
				   strerror(-r));
		goto out;
	}
	r = remember(s, dfd, name.buf);
	if (r)
		r = kpgo_error_set(s->err, r, "out of memory");
out:
	if (dfd >= 0)
		close(dfd);
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

static bool was_written(struct stager *s, int dirfd, const char *name)
{
	struct stat a, b;
	size_t i;

	if (fstat(dirfd, &a) < 0)
		return false;
	for (i = 0; i < s->nw; i++)
		if (!strcmp(s->w[i].name, name) && fstat(s->w[i].dirfd, &b) == 0 &&
		    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return true;
	return false;
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
			if (!was_written(s, dirfd(d), de->d_name) &&
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
			if (c_obj && !kpgo_profile_find(s->p, key.buf) &&
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
		if (!was_written(s, s->pdirfd, de->d_name) &&
		    unlinkat(s->pdirfd, de->d_name, 0) == 0 &&
		    kpgo_strlist_add(&s->res->removed, de->d_name))
			r = kpgo_error_set(s->err, -ENOMEM, "out of memory");
	}
	closedir(d);
	return r;
}

int kpgo_stage(const struct kpgo_profile *p, const struct kpgo_stage_opts *o,
	       struct kpgo_stage_result *res, struct kpgo_error *err)
{
	struct stager s = { .p = p, .o = o, .res = res, .err = err, .objfd = -1, .pdirfd = -1,
			    .rel = STRBUF_INIT };
	struct strbuf data = STRBUF_INIT;
	uint64_t runs = 1, sum_max = 0;
	int srcfd = -1, r = 0;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (!o->objtree && !o->profile_dir)
		return kpgo_error_set(err, -EINVAL, "nowhere to stage: no object tree or profile directory");
	kpgo_manifest_get_u64(&p->manifest, MF_RUNS, &runs);
	kpgo_manifest_get_u64(&p->manifest, MF_SUM_MAX, &sum_max);
	if (runs == 0)
		runs = 1;
	/*
	 * GCC reads sum_max as one 32-bit word. Past that, divide counters,
	 * runs and sum_max alike: ratios and "executed or not" stay as they are.
	 */
	res->scale = sum_max > UINT32_MAX ? (sum_max - 1) / UINT32_MAX + 1 : 1;
	res->sum_max = (uint32_t)((sum_max + res->scale - 1) / res->scale);
	runs = (runs + res->scale - 1) / res->scale;
	res->runs = runs > UINT32_MAX ? UINT32_MAX : (uint32_t)runs;
	if (o->objtree) {
		s.objtree_abs = realpath(o->objtree, NULL);
		s.objfd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!s.objtree_abs || s.objfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open object tree '%s': %s", o->objtree,
					   strerror(errno));
			goto out;
		}
	}
	if (o->profile_dir) {
		if (mkdir(o->profile_dir, 0755) < 0 && errno != EEXIST) {
			r = kpgo_error_set(err, -errno, "cannot create '%s': %s", o->profile_dir,
					   strerror(errno));
			goto out;
		}
		s.pdirfd = open(o->profile_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s.pdirfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open '%s': %s", o->profile_dir,
					   strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < p->n && !r; i++) {
		const struct kpgo_object *obj = &p->objs[i];
		struct kpgo_gcda g;

		if (!kpgo_object_path_ok(obj->path)) {
			r = kpgo_error_set(err, -EINVAL, "refusing to stage odd path '%s'", obj->path);
			break;
		}
		if (kpgo_gcda_copy(&g, &obj->gcda)) {
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
			r = kpgo_error_set(err, r, "cannot stage for GCC 8: its summary record is not supported");
			break;
		}
		if (r) {
			r = kpgo_error_set(err, r, "cannot serialise '%s': %s", obj->path, strerror(-r));
			break;
		}
		r = write_one(&s, obj, &data);
	}
	if (r)
		goto out;
	res->staged = s.nw;
	if (o->srctree || o->objtree) {
		srcfd = open(o->srctree ? o->srctree : o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (srcfd < 0) {
			r = kpgo_error_set(err, -errno, "cannot open source tree '%s': %s",
					   o->srctree ? o->srctree : o->objtree, strerror(errno));
			goto out;
		}
		for (i = 0; i < p->n && !r; i++) {
			struct strbuf b = STRBUF_INIT;
			bool found;

			strbuf_add(&b, p->objs[i].path, strlen(p->objs[i].path) - 5);
			strbuf_addstr(&b, ".c");
			found = file_exists_at(srcfd, b.buf);
			b.len -= 2;
			strbuf_addstr(&b, ".o");
			found = found || file_exists_at(s.objfd, b.buf);
			if (!found && kpgo_strlist_add(&res->missing, p->objs[i].path))
				r = kpgo_error_set(err, -ENOMEM, "out of memory");
			strbuf_release(&b);
		}
	}
	if (!r && s.objfd >= 0) {
		int fd = dup(s.objfd);

		if (fd >= 0)
			r = walk_tree(&s, fd, srcfd, 0);
	}
	if (!r && s.pdirfd >= 0)
		r = clean_profile_dir(&s);
	kpgo_strlist_sort(&res->unprofiled);
	kpgo_strlist_sort(&res->removed);
out:
	forget_all(&s, r != 0);
	if (r)
		kpgo_stage_result_release(res);
	if (srcfd >= 0)
		close(srcfd);
	if (s.objfd >= 0)
		close(s.objfd);
	if (s.pdirfd >= 0)
		close(s.pdirfd);
	free(s.objtree_abs);
	strbuf_release(&s.rel);
	strbuf_release(&data);
	return r;
}
