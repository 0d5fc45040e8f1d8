// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "util.h"

int kpgo_summary_init(struct kpgo_summary *s, size_t top)
{
	memset(s, 0, sizeof(*s));
	s->top = top;
	s->objs = calloc(top + 1, sizeof(*s->objs));
	s->fns = calloc(top + 1, sizeof(*s->fns));
	if (!s->objs || !s->fns) {
		kpgo_summary_release(s);
		return -ENOMEM;
	}
	return 0;
}

void kpgo_summary_release(struct kpgo_summary *s)
{
	size_t i;

	for (i = 0; s->objs && i < s->n_objs; i++)
		free(s->objs[i].path);
	for (i = 0; s->fns && i < s->n_fns; i++)
		free(s->fns[i].path);
	free(s->objs);
	free(s->fns);
	memset(s, 0, sizeof(*s));
}

/* Keeps the @n largest in @top (sorted, descending). */
static int hot_add(struct kpgo_hot *top, size_t n, size_t *used, const char *path, uint32_t ident,
		   uint32_t cksum, uint64_t count)
{
	char *dup;
	size_t i;

	if (count == 0 || (*used == n && (n == 0 || top[n - 1].count >= count)))
		return 0;
	dup = strdup(path);
	if (!dup)
		return -ENOMEM;
	if (*used < n)
		(*used)++;
	else
		free(top[n - 1].path);
	for (i = *used - 1; i > 0 && top[i - 1].count < count; i--)
		top[i] = top[i - 1];
	top[i].path = dup;
	top[i].ident = ident;
	top[i].lineno_checksum = cksum;
	top[i].count = count;
	return 0;
}

int kpgo_summary_add(struct kpgo_summary *s, const char *path, const struct kpgo_gcda *g)
{
	size_t i;

	kpgo_totals_add(&s->totals, g);
	if (hot_add(s->objs, s->top, &s->n_objs, path, 0, 0, kpgo_gcda_sum(g)))
		return -ENOMEM;
	for (i = 0; i < g->n_fns; i++)
		if (hot_add(s->fns, s->top, &s->n_fns, path, g->fns[i].ident,
			    g->fns[i].lineno_checksum, kpgo_gcda_fn_sum(g, &g->fns[i])))
			return -ENOMEM;
	return 0;
}

int kpgo_summary_format(const struct kpgo_summary *s, const char *file,
			const struct kpgo_manifest *m, struct strbuf *out)
{
	const struct kpgo_totals *t = &s->totals;
	int r = 0;
	size_t i;

	r |= strbuf_addf(out, "file: %s\n\nmanifest:\n", file);
	for (i = 0; i < m->n; i++)
		r |= strbuf_addf(out, "  %s=%s\n", m->e[i].key, m->e[i].value);
	r |= strbuf_addf(out,
			 "\ntotals: %" PRIu64 " objects, %" PRIu64 " functions, %" PRIu64
			 " counters, sum %" PRIu64 ", largest %" PRIu64 "\n",
			 t->objects, t->functions, t->counters, t->sum_all, t->max);
	r |= strbuf_addstr(out, "\nhottest objects (sum of arc counts):\n");
	for (i = 0; i < s->n_objs; i++)
		r |= strbuf_addf(out, "  %20" PRIu64 "  %s\n", s->objs[i].count, s->objs[i].path);
	r |= strbuf_addstr(out, "\nhottest functions (sum of arc counts; ident within object):\n");
	for (i = 0; i < s->n_fns; i++)
		r |= strbuf_addf(out, "  %20" PRIu64 "  %s  ident %u (lineno checksum 0x%08x)\n",
				 s->fns[i].count, s->fns[i].path, s->fns[i].ident,
				 s->fns[i].lineno_checksum);
	return r ? -ENOMEM : 0;
}
