// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "profile-archive.h"
#include "profile-writer.h"
#include "profile.h"
#include "util.h"

void kpgo_profile_init(struct kpgo_profile *p)
{
	memset(p, 0, sizeof(*p));
	kpgo_manifest_init(&p->manifest);
}

void kpgo_profile_release(struct kpgo_profile *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->objs[i].path);
		kpgo_gcda_release(&p->objs[i].gcda);
	}
	free(p->objs);
	kpgo_manifest_release(&p->manifest);
	kpgo_profile_init(p);
}

int kpgo_profile_add(struct kpgo_profile *p, char *path, struct kpgo_gcda *g)
{
	if (KPGO_ALLOC_GROW(p->objs, p->n + 1, p->alloc))
		return -ENOMEM;
	p->objs[p->n].path = path;
	p->objs[p->n].gcda = *g;
	kpgo_gcda_init(g);
	p->n++;
	return 0;
}

static int cmp_obj(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_object *)a)->path, ((const struct kpgo_object *)b)->path);
}

void kpgo_profile_sort(struct kpgo_profile *p)
{
	if (p->n > 1)
		qsort(p->objs, p->n, sizeof(*p->objs), cmp_obj);
}

const struct kpgo_object *kpgo_profile_find(const struct kpgo_profile *p, const char *path)
{
	struct kpgo_object key = { .path = (char *)path };

	return bsearch(&key, p->objs, p->n, sizeof(*p->objs), cmp_obj);
}

void kpgo_totals_add(struct kpgo_totals *t, const struct kpgo_gcda *g)
{
	uint64_t m = kpgo_gcda_max(g);

	t->objects++;
	t->functions += g->n_fns;
	t->counters += g->n_ctrs;
	t->sum_all = kpgo_sat_add(t->sum_all, kpgo_gcda_sum(g));
	if (m > t->max)
		t->max = m;
}

void kpgo_profile_totals(const struct kpgo_profile *p, struct kpgo_totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < p->n; i++)
		kpgo_totals_add(t, &p->objs[i].gcda);
}

bool kpgo_object_path_ok(const char *p)
{
	size_t n = strlen(p);

	return n > 5 && n <= 4096 && !strcmp(p + n - 5, ".gcda") && kpgo_path_is_safe(p);
}

int kpgo_profile_save(struct kpgo_profile *p, const char *path, struct kpgo_error *err)
{
	struct kpgo_profile_writer *w;
	size_t i;
	int r;

	kpgo_profile_sort(p);
	for (i = 1; i < p->n; i++)
		if (!strcmp(p->objs[i].path, p->objs[i - 1].path))
			return kpgo_error_set(err, -EINVAL, "object '%s' twice", p->objs[i].path);
	for (i = 0; i < p->n; i++)
		if (!kpgo_object_path_ok(p->objs[i].path))
			return kpgo_error_set(err, -EINVAL, "bad object path '%s'", p->objs[i].path);
	r = kpgo_profile_writer_open(&w, path, err);
	if (r)
		return r;
	for (i = 0; !r && i < p->n; i++)
		r = kpgo_profile_writer_add(w, p->objs[i].path, &p->objs[i].gcda, err);
	if (!r)
		r = kpgo_profile_writer_commit(w, &p->manifest, err);
	kpgo_profile_writer_free(w);
	return r;
}

int kpgo_profile_load(struct kpgo_profile *p, const char *path, struct kpgo_error *err)
{
	struct kpgo_archive *a;
	struct kpgo_gcda *g;
	const char *rel;
	int r;

	kpgo_profile_init(p);
	r = kpgo_archive_open(&a, path, err);
	if (r)
		return r;
	r = kpgo_manifest_copy(&p->manifest, kpgo_archive_manifest(a));
	while (!r && (r = kpgo_archive_next(a, &rel, &g, err)) == 1) {
		char *dup = strdup(rel);

		if (!dup || kpgo_profile_add(p, dup, g)) {
			free(dup);
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		} else {
			r = 0;
		}
	}
	kpgo_archive_close(a);
	if (r)
		kpgo_profile_release(p);
	return r;
}
