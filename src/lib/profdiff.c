// SPDX-License-Identifier: GPL-2.0-or-later
/* The difference of two profiles (profdiff.h has the measure and why). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profdiff.h"

/* Without libm: the tool links none. */
static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static double dabs(double a)
{
	return a < 0 ? -a : a;
}

void kpgo_pdiff_release(struct kpgo_pdiff *d)
{
	free(d->fns);
	free(d->groups);
	memset(d, 0, sizeof(*d));
}

static int cmp_key(const struct kpgo_pstat *pa, const struct kpgo_pstat_fn *x,
		   const struct kpgo_pstat *pb, const struct kpgo_pstat_fn *y)
{
	int c = strcmp(pa->objs[x->obj].path, pb->objs[y->obj].path);

	if (c)
		return c;
	return x->ident < y->ident ? -1 : x->ident > y->ident;
}

static int cmp_fn_idx(const void *a, const void *b, void *arg)
{
	const struct kpgo_pstat *ps = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = cmp_key(ps, &ps->fns[x], ps, &ps->fns[y]);

	return c ? c : (x < y ? -1 : x > y);
}

/* The functions of @ps ordered by object path, then ident. */
static size_t *key_order(const struct kpgo_pstat *ps)
{
	size_t *idx = calloc(ps->n_fns ? ps->n_fns : 1, sizeof(*idx)), i;

	if (!idx)
		return NULL;
	for (i = 0; i < ps->n_fns; i++)
		idx[i] = i;
	qsort_r(idx, ps->n_fns, sizeof(*idx), cmp_fn_idx, (void *)ps);
	return idx;
}

static void add_fn(struct kpgo_pdiff *d, const struct kpgo_pstat *pa, const struct kpgo_pstat_fn *a,
		   const struct kpgo_pstat *pb, const struct kpgo_pstat_fn *b)
{
	struct kpgo_pdiff_fn *f = &d->fns[d->n_fns++];

	f->a = a;
	f->b = b;
	f->share_a = a ? kpgo_pstat_share(pa, a->count) : 0;
	f->share_b = b ? kpgo_pstat_share(pb, b->count) : 0;
	d->similarity += dmin(f->share_a, f->share_b);
	if (a && b) {
		d->fns_both++;
		if (a->lineno_checksum != b->lineno_checksum || a->cfg_checksum != b->cfg_checksum)
			d->fns_changed++;
	} else if (a) {
		d->fns_only_a++;
	} else {
		d->fns_only_b++;
	}
	if (a && a->count && b && b->count) {
		d->run_both++;
	} else if (a && a->count) {
		d->run_only_a++;
		d->share_run_only_a += f->share_a;
	} else if (b && b->count) {
		d->run_only_b++;
		d->share_run_only_b += f->share_b;
	}
}

static int join_fns(struct kpgo_pdiff *d, const struct kpgo_pstat *pa, const struct kpgo_pstat *pb)
{
	size_t *ia = key_order(pa), *ib = key_order(pb), i = 0, j = 0;
	int r = -ENOMEM;

	d->fns = calloc(pa->n_fns + pb->n_fns + 1, sizeof(*d->fns));
	if (!ia || !ib || !d->fns)
		goto out;
	while (i < pa->n_fns || j < pb->n_fns) {
		const struct kpgo_pstat_fn *a = i < pa->n_fns ? &pa->fns[ia[i]] : NULL;
		const struct kpgo_pstat_fn *b = j < pb->n_fns ? &pb->fns[ib[j]] : NULL;
		int c = !a ? 1 : !b ? -1 : cmp_key(pa, a, pb, b);

		if (c < 0) {
			add_fn(d, pa, a, pb, NULL);
			i++;
		} else if (c > 0) {
			add_fn(d, pa, NULL, pb, b);
			j++;
		} else {
			add_fn(d, pa, a, pb, b);
			i++;
			j++;
		}
	}
	r = 0;
out:
	free(ia);
	free(ib);
	return r;
}

static int join_groups(struct kpgo_pdiff *d, const struct kpgo_pstat *pa,
		       const struct kpgo_pstat *pb)
{
	size_t i = 0, j = 0;

	d->groups = calloc(pa->n_groups + pb->n_groups + 1, sizeof(*d->groups));
	if (!d->groups)
		return -ENOMEM;
	while (i < pa->n_groups || j < pb->n_groups) {
		const struct kpgo_pstat_group *a = i < pa->n_groups ? &pa->groups[i] : NULL;
		const struct kpgo_pstat_group *b = j < pb->n_groups ? &pb->groups[j] : NULL;
		struct kpgo_pdiff_group *g = &d->groups[d->n_groups++];
		int c = !a ? 1 : !b ? -1 : strcmp(a->dir, b->dir);

		if (c < 0)
			b = NULL;
		else if (c > 0)
			a = NULL;
		i += a != NULL;
		j += b != NULL;
		g->dir = a ? a->dir : b->dir;
		g->a = a;
		g->b = b;
		g->share_a = a ? kpgo_pstat_share(pa, a->count) : 0;
		g->share_b = b ? kpgo_pstat_share(pb, b->count) : 0;
		d->subsystem_similarity += dmin(g->share_a, g->share_b);
	}
	return 0;
}

static void join_objs(struct kpgo_pdiff *d, const struct kpgo_pstat *pa, const struct kpgo_pstat *pb)
{
	size_t i = 0, j = 0;

	/* Both sorted by path, as the archives hold them. */
	while (i < pa->n_objs || j < pb->n_objs) {
		int c = i == pa->n_objs ? 1 :
			j == pb->n_objs ? -1 :
					  strcmp(pa->objs[i].path, pb->objs[j].path);

		if (c < 0) {
			d->objs_only_a++;
			i++;
		} else if (c > 0) {
			d->objs_only_b++;
			j++;
		} else {
			d->objs_both++;
			i++;
			j++;
		}
	}
}

int kpgo_pdiff_compute(struct kpgo_pdiff *d, const struct kpgo_pstat *a, const struct kpgo_pstat *b)
{
	memset(d, 0, sizeof(*d));
	if (a->depth != b->depth)
		return -EINVAL;
	if (join_fns(d, a, b) || join_groups(d, a, b)) {
		kpgo_pdiff_release(d);
		return -ENOMEM;
	}
	join_objs(d, a, b);
	/* Sums of rounded shares can pass 1 by a hair. */
	d->similarity = dmin(d->similarity, 1.0);
	d->subsystem_similarity = dmin(d->subsystem_similarity, 1.0);
	return 0;
}

int kpgo_pdiff_similarity(const struct kpgo_pstat *a, const struct kpgo_pstat *b, double *sim)
{
	struct kpgo_pdiff d;
	int r = kpgo_pdiff_compute(&d, a, b);

	if (!r)
		*sim = d.similarity;
	kpgo_pdiff_release(&d);
	return r;
}

/* --- rankings --------------------------------------------------------------- */

static int cmp_delta(const void *x, const void *y, void *arg)
{
	const struct kpgo_pdiff *d = arg;
	const struct kpgo_pdiff_fn *a = &d->fns[*(const size_t *)x],
				   *b = &d->fns[*(const size_t *)y];
	double da = dabs(a->share_b - a->share_a), db = dabs(b->share_b - b->share_a);

	if (da != db)
		return da > db ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static int cmp_group_delta(const void *x, const void *y, void *arg)
{
	const struct kpgo_pdiff *d = arg;
	const struct kpgo_pdiff_group *a = &d->groups[*(const size_t *)x];
	const struct kpgo_pdiff_group *b = &d->groups[*(const size_t *)y];
	double da = dabs(a->share_b - a->share_a), db = dabs(b->share_b - b->share_a);
	double ma = dmax(a->share_a, a->share_b), mb = dmax(b->share_a, b->share_b);

	if (da != db)
		return da > db ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static int cmp_run_only(const void *x, const void *y, void *arg)
{
	const struct kpgo_pdiff *d = arg;
	const struct kpgo_pdiff_fn *a = &d->fns[*(const size_t *)x],
				   *b = &d->fns[*(const size_t *)y];
	double sa = a->share_a + a->share_b, sb = b->share_a + b->share_b; /* one side is 0 */

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

enum pick { PICK_GAINED, PICK_LOST, PICK_ONLY_A, PICK_ONLY_B };

static bool picked(const struct kpgo_pdiff_fn *f, enum pick p)
{
	switch (p) {
	case PICK_GAINED: return f->share_b > f->share_a;
	case PICK_LOST: return f->share_a > f->share_b;
	case PICK_ONLY_A: return f->a && f->a->count && (!f->b || !f->b->count);
	default: return f->b && f->b->count && (!f->a || !f->a->count);
	}
}

static ssize_t pick_fns(const struct kpgo_pdiff *d, enum pick p, size_t max, size_t **out)
{
	size_t *idx, i, n = 0;

	*out = NULL;
	idx = calloc(d->n_fns ? d->n_fns : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < d->n_fns; i++)
		if (picked(&d->fns[i], p))
			idx[n++] = i;
	return kpgo_index_rank(idx, n, p == PICK_GAINED || p == PICK_LOST ? cmp_delta : cmp_run_only,
			       (void *)d, max, out);
}

ssize_t kpgo_pdiff_movers(const struct kpgo_pdiff *d, bool gained, size_t max, size_t **out)
{
	return pick_fns(d, gained ? PICK_GAINED : PICK_LOST, max, out);
}

ssize_t kpgo_pdiff_run_only(const struct kpgo_pdiff *d, bool in_a, size_t max, size_t **out)
{
	return pick_fns(d, in_a ? PICK_ONLY_A : PICK_ONLY_B, max, out);
}

ssize_t kpgo_pdiff_group_movers(const struct kpgo_pdiff *d, size_t max, size_t **out)
{
	size_t *idx, i, n = 0;

	*out = NULL;
	idx = calloc(d->n_groups ? d->n_groups : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < d->n_groups; i++)
		if (d->groups[i].share_a > 0 || d->groups[i].share_b > 0)
			idx[n++] = i;
	return kpgo_index_rank(idx, n, cmp_group_delta, (void *)d, max, out);
}
