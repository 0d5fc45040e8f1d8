// SPDX-License-Identifier: GPL-2.0-or-later
/* A profile's statistics: counts by function, object and subsystem; names. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcno.h"
#include "profile-archive.h"
#include "profstat.h"
#include "util.h"

void kpgo_pstat_init(struct kpgo_pstat *ps)
{
	memset(ps, 0, sizeof(*ps));
	kpgo_manifest_init(&ps->manifest);
}

void kpgo_pstat_release(struct kpgo_pstat *ps)
{
	size_t i;

	kpgo_manifest_release(&ps->manifest);
	for (i = 0; i < ps->n_objs; i++)
		free(ps->objs[i].path);
	for (i = 0; i < ps->n_groups; i++)
		free(ps->groups[i].dir);
	for (i = 0; i < ps->n_arenas; i++)
		free(ps->arenas[i]);
	free(ps->objs);
	free(ps->fns);
	free(ps->groups);
	free(ps->arenas);
	kpgo_pstat_init(ps);
}

int kpgo_pstat_begin(struct kpgo_pstat *ps, unsigned depth)
{
	kpgo_pstat_release(ps);
	if (depth < 1 || depth > KPGO_PSTAT_DEPTH_MAX)
		return -EINVAL;
	ps->depth = depth;
	return 0;
}

int kpgo_pstat_add(struct kpgo_pstat *ps, const char *path, const struct kpgo_gcda *g)
{
	struct kpgo_pstat_obj *o;
	size_t i;

	if (g->n_fns > SIZE_MAX - ps->n_fns ||
	    KPGO_ALLOC_GROW(ps->objs, ps->n_objs + 1, ps->objs_alloc) ||
	    KPGO_ALLOC_GROW(ps->fns, ps->n_fns + g->n_fns, ps->fns_alloc))
		return -ENOMEM;
	o = &ps->objs[ps->n_objs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	o->stamp = g->stamp;
	ps->counters += g->n_ctrs;
	if (kpgo_gcda_max(g) > ps->max)
		ps->max = kpgo_gcda_max(g);
	o->first_fn = ps->n_fns;
	o->n_fns = g->n_fns;
	o->gcno = -1;
	for (i = 0; i < g->n_fns; i++) {
		struct kpgo_pstat_fn *f = &ps->fns[ps->n_fns + i];

		memset(f, 0, sizeof(*f));
		f->obj = ps->n_objs;
		f->ident = g->fns[i].ident;
		f->lineno_checksum = g->fns[i].lineno_checksum;
		f->cfg_checksum = g->fns[i].cfg_checksum;
		f->count = kpgo_gcda_fn_sum(g, &g->fns[i]);
		o->count = kpgo_sat_add(o->count, f->count);
		if (f->count)
			o->n_run++;
	}
	ps->n_fns += g->n_fns;
	ps->fns_run += o->n_run;
	ps->sum = kpgo_sat_add(ps->sum, o->count);
	if (o->count)
		ps->objs_run++;
	ps->n_objs++;
	return 0;
}

/* The first @depth directory levels of @path into @out ("." at the top). */
static int group_of(const char *path, unsigned depth, struct strbuf *out)
{
	const char *end = path, *slash;
	unsigned level = 0;

	strbuf_reset(out);
	while (level < depth && (slash = strchr(end, '/'))) {
		end = slash + 1;
		level++;
	}
	if (end == path)
		return strbuf_addch(out, '.');
	return strbuf_add(out, path, (size_t)(end - path - 1));
}

static int cmp_str_idx(const void *a, const void *b, void *names)
{
	char *const *n = names;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(n[x], n[y]);

	return c ? c : (x < y ? -1 : x > y);
}

static int make_groups(struct kpgo_pstat *ps)
{
	struct strbuf dir = STRBUF_INIT;
	size_t *order = NULL, i, j;
	char **dirs;
	int r = -ENOMEM;

	dirs = calloc(ps->n_objs ? ps->n_objs : 1, sizeof(*dirs));
	order = calloc(ps->n_objs ? ps->n_objs : 1, sizeof(*order));
	ps->groups = calloc(ps->n_objs ? ps->n_objs : 1, sizeof(*ps->groups));
	if (!dirs || !order || !ps->groups)
		goto out;
	for (i = 0; i < ps->n_objs; i++) {
		if (group_of(ps->objs[i].path, ps->depth, &dir))
			goto out;
		dirs[i] = strbuf_detach(&dir, NULL);
		order[i] = i;
	}
	qsort_r(order, ps->n_objs, sizeof(*order), cmp_str_idx, dirs);
	for (i = 0; i < ps->n_objs; i = j) {
		struct kpgo_pstat_group *grp = &ps->groups[ps->n_groups];

		grp->dir = dirs[order[i]];
		dirs[order[i]] = NULL;
		for (j = i; j < ps->n_objs && (j == i || !strcmp(dirs[order[j]], grp->dir)); j++) {
			struct kpgo_pstat_obj *o = &ps->objs[order[j]];

			o->group = ps->n_groups;
			grp->count = kpgo_sat_add(grp->count, o->count);
			grp->n_objs++;
			grp->n_objs_run += o->count != 0;
			grp->n_fns += o->n_fns;
			grp->n_fns_run += o->n_run;
		}
		ps->n_groups++;
	}
	r = 0;
out:
	for (i = 0; dirs && i < ps->n_objs; i++)
		free(dirs[i]);
	free(dirs);
	free(order);
	strbuf_release(&dir);
	return r;
}

int kpgo_pstat_finish(struct kpgo_pstat *ps, const struct kpgo_manifest *m)
{
	if (kpgo_manifest_copy(&ps->manifest, m))
		return -ENOMEM;
	return make_groups(ps);
}

int kpgo_pstat_load(struct kpgo_pstat *ps, const char *path, unsigned depth, struct kpgo_error *err)
{
	struct kpgo_archive *a = NULL;
	struct kpgo_gcda *g;
	const char *obj;
	int r;

	if (kpgo_pstat_begin(ps, depth))
		return kpgo_error_set(err, -EINVAL, "subsystem depth %u not in 1..%u", depth,
				      KPGO_PSTAT_DEPTH_MAX);
	r = kpgo_archive_open(&a, path, err);
	if (r)
		return r;
	while ((r = kpgo_archive_next(a, &obj, &g, err)) == 1) {
		if (kpgo_pstat_add(ps, obj, g)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (kpgo_pstat_finish(ps, kpgo_archive_manifest(a))) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	r = 0;
out:
	kpgo_archive_close(a);
	if (r)
		kpgo_pstat_release(ps);
	return r;
}

/* --- names ----------------------------------------------------------------- */

/*
 * The part of @file before "@stem.c", when @file names the object's own
 * source ("../fs/read_write.c" for "fs/read_write"): its length, or -1.
 */
static ssize_t source_prefix(const char *file, const char *stem, size_t stem_len)
{
	size_t flen = strlen(file), want = stem_len + 2;

	if (flen < want || memcmp(file + flen - want, stem, stem_len) ||
	    memcmp(file + flen - 2, ".c", 2))
		return -1;
	if (flen > want && file[flen - want - 1] != '/')
		return -1;
	return (ssize_t)(flen - want);
}

/*
 * Removes "." components and "dir/.." pairs from @p, in place, as a
 * lexical path ("../fs/../include/sq.h" -> "../include/sq.h"); leading
 * ".." stay, a ".." at the root of an absolute path goes.
 */
static void normalize_path(char *p)
{
	char *out = p, *in = p;
	bool abs = *p == '/';
	size_t fixed = 0; /* bytes of leading "../" that cannot be removed */

	if (abs)
		out = in = p + 1;
	while (*in) {
		char *end = strchrnul(in, '/');
		size_t len = (size_t)(end - in);
		bool last = !*end; /* before the writes below reach *end */

		if (len == 0 || (len == 1 && in[0] == '.')) {
			/* empty or "." */
		} else if (len == 2 && in[0] == '.' && in[1] == '.') {
			if ((size_t)(out - p) > fixed + (abs ? 1 : 0)) {
				/* drop the last component written */
				out--;
				while (out > p + fixed + (abs ? 1 : 0) && out[-1] != '/')
					out--;
			} else if (!abs) {
				memmove(out, "../", 3);
				out += 3;
				fixed = (size_t)(out - p);
			}
		} else {
			memmove(out, in, len);
			out += len;
			*out++ = '/';
		}
		if (last)
			break;
		in = end + 1;
	}
	if (out > p + (abs ? 1 : 0) && out[-1] == '/')
		out--;
	*out = '\0';
}

/* Reads DIR/@rel into @buf: 1 read, 0 no such file, or a negative errno. */
static int read_gcno(int dirfd, const char *rel, struct strbuf *buf)
{
	int fd, r;

	fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	r = kpgo_gcno_read_fd(fd, buf);
	close(fd);
	return r ? r : 1;
}

static int name_object(struct kpgo_pstat *ps, struct kpgo_pstat_obj *o, const struct kpgo_gcno *g,
		       struct strbuf *prefix)
{
	size_t stem_len = strlen(o->path) - 5, i; /* less ".gcda" */
	ssize_t pl = -1;

	/* The strings are ours: g->strings goes to ps->arenas. */
	for (i = 0; i < g->n_fns; i++)
		normalize_path((char *)g->fns[i].file);

	for (i = 0; pl < 0 && i < g->n_fns; i++)
		pl = source_prefix(g->fns[i].file, o->path, stem_len);
	if (pl >= 0) {
		strbuf_reset(prefix);
		if (strbuf_add(prefix, g->fns[i - 1].file, (size_t)pl))
			return -ENOMEM;
	}
	o->gcno_other_build = g->stamp != o->stamp;
	for (i = 0; i < o->n_fns; i++) {
		struct kpgo_pstat_fn *f = &ps->fns[o->first_fn + i];
		const struct kpgo_gcno_fn *n = kpgo_gcno_find(g, f->ident);

		if (!n) {
			ps->names.fns_none++;
			continue;
		}
		if (n->lineno_checksum == f->lineno_checksum && n->cfg_checksum == f->cfg_checksum) {
			f->state = KPGO_NAME_EXACT;
			ps->names.fns_exact++;
		} else {
			f->state = KPGO_NAME_CHANGED;
			ps->names.fns_changed++;
		}
		f->name = n->name;
		f->file = n->file;
		if (prefix->len && !strncmp(f->file, prefix->buf, prefix->len))
			f->file += prefix->len;
		f->line = n->line;
		f->elsewhere = strlen(f->file) != stem_len + 2 ||
			       strncmp(f->file, o->path, stem_len) ||
			       strcmp(f->file + stem_len, ".c");
		ps->names.count_named = kpgo_sat_add(ps->names.count_named, f->count);
	}
	return 0;
}

static void unname(struct kpgo_pstat *ps)
{
	size_t i;

	for (i = 0; i < ps->n_fns; i++) {
		ps->fns[i].state = KPGO_NAME_NONE;
		ps->fns[i].name = ps->fns[i].file = NULL;
		ps->fns[i].line = 0;
		ps->fns[i].elsewhere = false;
	}
	for (i = 0; i < ps->n_objs; i++)
		ps->objs[i].gcno = -1;
	for (i = 0; i < ps->n_arenas; i++)
		free(ps->arenas[i]);
	free(ps->arenas);
	ps->arenas = NULL;
	ps->n_arenas = 0;
	memset(&ps->names, 0, sizeof(ps->names));
	ps->named = false;
}

int kpgo_pstat_name(struct kpgo_pstat *ps, const char *gcno_dir, struct kpgo_error *err)
{
	struct strbuf buf = STRBUF_INIT, rel = STRBUF_INIT, prefix = STRBUF_INIT;
	struct kpgo_gcno g;
	int dirfd, r = 0;
	size_t i;

	unname(ps);
	kpgo_gcno_init(&g);
	dirfd = open(gcno_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s': %s", gcno_dir,
				      strerror(errno));
	ps->arenas = calloc(ps->n_objs ? ps->n_objs : 1, sizeof(*ps->arenas));
	if (!ps->arenas)
		goto nomem;
	for (i = 0; i < ps->n_objs; i++) {
		struct kpgo_pstat_obj *o = &ps->objs[i];

		strbuf_reset(&rel);
		/* kpgo_object_path_ok() held in the archive: relative, ends in ".gcda" */
		if (strbuf_add(&rel, o->path, strlen(o->path) - 5) || strbuf_addstr(&rel, ".gcno"))
			goto nomem;
		r = read_gcno(dirfd, rel.buf, &buf);
		if (r < 0) {
			kpgo_error_set(err, r, "cannot read '%s/%s': %s", gcno_dir, rel.buf,
				       r == -EISDIR ? "not a regular file" : strerror(-r));
			goto out;
		}
		o->gcno = r;
		if (r == 0) {
			ps->names.objects_no_gcno++;
			ps->names.fns_none += o->n_fns;
			continue;
		}
		r = kpgo_gcno_parse(buf.buf, buf.len, &g, err);
		if (r) {
			kpgo_error_prefix(err, "cannot read '%s/%s'", gcno_dir, rel.buf);
			goto out;
		}
		ps->names.objects_gcno++;
		if (name_object(ps, o, &g, &prefix))
			goto nomem;
		ps->names.objects_other_build += o->gcno_other_build;
		ps->arenas[ps->n_arenas++] = g.strings;
		g.strings = NULL;
		kpgo_gcno_release(&g);
	}
	ps->named = true;
	r = 0;
	goto out;
nomem:
	r = kpgo_error_set(err, -ENOMEM, "out of memory");
out:
	if (r)
		unname(ps);
	kpgo_gcno_release(&g);
	close(dirfd);
	strbuf_release(&buf);
	strbuf_release(&rel);
	strbuf_release(&prefix);
	return r;
}

/* --- rankings --------------------------------------------------------------- */

static int cmp_fn(const void *a, const void *b, void *arg)
{
	const struct kpgo_pstat *ps = arg;
	const struct kpgo_pstat_fn *x = &ps->fns[*(const size_t *)a],
				   *y = &ps->fns[*(const size_t *)b];
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(ps->objs[x->obj].path, ps->objs[y->obj].path);
	if (c)
		return c;
	return x->ident < y->ident ? -1 : x->ident > y->ident;
}

static int cmp_obj(const void *a, const void *b, void *arg)
{
	const struct kpgo_pstat *ps = arg;
	const struct kpgo_pstat_obj *x = &ps->objs[*(const size_t *)a],
				    *y = &ps->objs[*(const size_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct kpgo_pstat *ps = arg;
	const struct kpgo_pstat_group *x = &ps->groups[*(const size_t *)a];
	const struct kpgo_pstat_group *y = &ps->groups[*(const size_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->dir, y->dir);
}

enum rank_kind { RANK_FNS, RANK_OBJS, RANK_GROUPS };

static ssize_t hottest(const struct kpgo_pstat *ps, enum rank_kind kind, size_t max, size_t **out)
{
	size_t n_all = kind == RANK_FNS ? ps->n_fns : kind == RANK_OBJS ? ps->n_objs : ps->n_groups;
	size_t i, n = 0, *idx;

	*out = NULL;
	if (!n_all)
		return 0;
	idx = calloc(n_all, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n_all; i++) {
		uint64_t c = kind == RANK_FNS  ? ps->fns[i].count :
			     kind == RANK_OBJS ? ps->objs[i].count :
						 ps->groups[i].count;
		if (c)
			idx[n++] = i;
	}
	if (kind == RANK_FNS)
		return kpgo_index_rank(idx, n, cmp_fn, (void *)ps, max, out);
	if (kind == RANK_OBJS)
		return kpgo_index_rank(idx, n, cmp_obj, (void *)ps, max, out);
	return kpgo_index_rank(idx, n, cmp_group, (void *)ps, max, out);
}

ssize_t kpgo_pstat_hottest_fns(const struct kpgo_pstat *ps, size_t max, size_t **out)
{
	return hottest(ps, RANK_FNS, max, out);
}

ssize_t kpgo_pstat_hottest_objs(const struct kpgo_pstat *ps, size_t max, size_t **out)
{
	return hottest(ps, RANK_OBJS, max, out);
}

ssize_t kpgo_pstat_hottest_groups(const struct kpgo_pstat *ps, size_t max, size_t **out)
{
	return hottest(ps, RANK_GROUPS, max, out);
}

double kpgo_pstat_share(const struct kpgo_pstat *ps, uint64_t count)
{
	return ps->sum ? (double)count / (double)ps->sum : 0.0;
}

size_t kpgo_utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	len = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = p[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0; /* overlong or out of range */
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0; /* surrogates and XML's non-characters */
	return len;
}

int kpgo_strbuf_add_utf8(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;
	int r = 0;

	while (i < len && !r) {
		if (p[i] < 0x80) {
			r = strbuf_addch(out, (char)p[i++]);
		} else if ((n = kpgo_utf8_len(p + i, len - i))) {
			r = strbuf_add(out, p + i, n);
			i += n;
		} else {
			r = strbuf_addf(out, "\\x%02x", p[i++]);
		}
	}
	return r;
}

int kpgo_strbuf_add_printable(struct strbuf *out, const char *s)
{
	int r = 0;

	for (; *s && !r; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			r = strbuf_addstr(out, "\\\\");
		else if (c < 0x20 || c >= 0x7f)
			r = strbuf_addf(out, "\\x%02x", c);
		else
			r = strbuf_addch(out, (char)c);
	}
	return r;
}

int kpgo_pstat_fn_label(const struct kpgo_pstat *ps, const struct kpgo_pstat_fn *f,
			struct strbuf *out)
{
	int r = 0;

	if (f->state == KPGO_NAME_NONE)
		return strbuf_addf(out, "%s ident %" PRIu32, ps->objs[f->obj].path, f->ident);
	if (*f->file) {
		r |= kpgo_strbuf_add_printable(out, f->file);
		r |= strbuf_addch(out, ':');
	}
	r |= kpgo_strbuf_add_printable(out, f->name);
	if (f->elsewhere)
		r |= strbuf_addf(out, " (in %.*s.o)", (int)(strlen(ps->objs[f->obj].path) - 5),
				 ps->objs[f->obj].path);
	return r ? -ENOMEM : 0;
}
