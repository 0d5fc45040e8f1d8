// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lines gcov names no function for: why, and with --inlined, into the
 * records of the functions GCC inlined before instrumenting. See afdo.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-internal.h"
#include "afdo.h"

/* A source file read to find its functions: the kernel's largest are a few hundred KiB. */
#define SOURCE_MAX (16u << 20)
/* Examples kept per cause. */
#define EXAMPLES 3

static const char *const cause_names[KPGO_AFDO_CAUSES] = {
	[KPGO_AFDO_INLINED_BODY] = "inlined_body",
	[KPGO_AFDO_INLINED_SOURCE] = "inlined_source",
	[KPGO_AFDO_MACRO_FUNCTION] = "macro_function",
	[KPGO_AFDO_MACRO] = "macro",
	[KPGO_AFDO_SEVERAL] = "several",
	[KPGO_AFDO_OUTSIDE] = "outside",
	[KPGO_AFDO_NO_SOURCE] = "no_source",
};

const char *kpgo_afdo_cause_name(enum kpgo_afdo_cause c)
{
	return c < KPGO_AFDO_CAUSES ? cause_names[c] : "?";
}

struct def_ref {
	const char *name;
	struct afdo_def *def;
};

struct example {
	const struct afdo_unplaced *u;
	const char *fn;
};

struct placer {
	struct kpgo_afdo *a;
	struct def_ref *defs;
	size_t n_defs;
	struct example ex[KPGO_AFDO_CAUSES][EXAMPLES];
	char *fn_kept[KPGO_AFDO_CAUSES][EXAMPLES];
};

static int cmp_def_ref(const void *x, const void *y)
{
	const struct def_ref *a = x, *b = y;
	int c = strcmp(a->def->file, b->def->file);

	if (c)
		return c;
	return a->def->start < b->def->start ? -1 : a->def->start > b->def->start;
}

/* Sorted by file and line; qsort_r is a GNU extension, so the files ride along. */
static const struct afdo_file *sort_files;

static int cmp_unplaced(const void *x, const void *y)
{
	const struct afdo_unplaced *a = x, *b = y;
	int c = a->file == b->file ? 0 : strcmp(sort_files[a->file].key, sort_files[b->file].key);

	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static bool is_header(const char *key)
{
	size_t n = strlen(key);

	return !(n > 2 && (!strcmp(key + n - 2, ".c") || !strcmp(key + n - 2, ".S")));
}

static int keep_example(struct placer *p, enum kpgo_afdo_cause c, const struct afdo_unplaced *u,
			const char *fn)
{
	struct example *ex = p->ex[c];
	char **kept = p->fn_kept[c];
	size_t i, j;

	for (i = 0; i < EXAMPLES && ex[i].u && ex[i].u->count >= u->count; i++)
		;
	if (i == EXAMPLES)
		return 0;
	free(kept[EXAMPLES - 1]);
	for (j = EXAMPLES - 1; j > i; j--) {
		ex[j] = ex[j - 1];
		kept[j] = kept[j - 1];
	}
	ex[i].u = u;
	kept[i] = fn ? strdup(fn) : NULL;
	ex[i].fn = kept[i];
	return fn && !kept[i] ? -ENOMEM : 0;
}

/* The definitions of @key, [*@lo, *@hi) in p->defs. */
static void defs_of(const struct placer *p, const char *key, size_t *lo, size_t *hi)
{
	size_t l = 0, h = p->n_defs;

	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (strcmp(p->defs[m].def->file, key) < 0)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	for (h = l; h < p->n_defs && !strcmp(p->defs[h].def->file, key); h++)
		;
	*hi = h;
}

static int place(struct placer *p, bool recover, const struct afdo_unplaced *u,
		 const struct kpgo_afdo_src *src, bool have_src, size_t lo, size_t hi)
{
	struct kpgo_afdo *a = p->a;
	const struct afdo_file *f = &a->files[u->file];
	const struct kpgo_afdo_src_fn *sf;
	struct def_ref *known = NULL;
	struct afdo_def *target = NULL;
	enum kpgo_afdo_cause c;
	const char *fn = NULL;
	size_t i;
	int r;

	for (i = lo; i < hi; i++) {
		struct afdo_def *d = p->defs[i].def;

		if (d->start > u->line)
			break;
		if (u->line > d->end)
			continue;
		if (known && (known->def != d))
			break;
		known = &p->defs[i];
	}
	if (known && i < hi && p->defs[i].def->start <= u->line) {
		c = KPGO_AFDO_SEVERAL;
	} else if (known) {
		c = KPGO_AFDO_INLINED_BODY;
		target = known->def;
		fn = known->name;
	} else if (!have_src) {
		c = KPGO_AFDO_NO_SOURCE;
	} else if (kpgo_afdo_src_in_macro(src, u->line)) {
		c = KPGO_AFDO_MACRO;
	} else if (!(sf = kpgo_afdo_src_function_at(src, u->line))) {
		c = KPGO_AFDO_OUTSIDE;
	} else if (sf->macro) {
		c = KPGO_AFDO_MACRO_FUNCTION;
		fn = sf->name;
	} else {
		c = KPGO_AFDO_INLINED_SOURCE;
		fn = sf->name;
		if (recover) {
			r = afdo_find_def(a, sf->name, f->key, f->source, sf->line, sf->end_line,
					  f->object, &target);
			if (r)
				return r;
		}
	}
	a->causes[c].lines++;
	a->causes[c].samples = kpgo_sat_add(a->causes[c].samples, u->count);
	if (is_header(f->key))
		a->causes[c].header_samples = kpgo_sat_add(a->causes[c].header_samples, u->count);
	r = keep_example(p, c, u, fn);
	if (r || !recover || !target || u->line - target->start > AFDO_OFFSET_MAX ||
	    u->line < target->start)
		return r;
	r = afdo_def_add_line(target, (uint32_t)(u->line - target->start), u->count);
	if (r)
		return r;
	a->recovered_lines += u->copies;
	a->recovered_samples = kpgo_sat_add(a->recovered_samples, u->count);
	a->unplaced_lines -= u->copies;
	a->unplaced_samples -= u->count <= a->unplaced_samples ? u->count : a->unplaced_samples;
	return 0;
}

static int write_examples(struct placer *p, struct kpgo_strlist *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t c, i;
	int r = 0;

	for (c = 0; c < KPGO_AFDO_CAUSES && !r; c++) {
		for (i = 0; i < EXAMPLES && p->ex[c][i].u && !r; i++) {
			const struct afdo_unplaced *u = p->ex[c][i].u;

			strbuf_reset(&sb);
			r = strbuf_addf(&sb, "%s %s:%" PRIu32 " %s %" PRIu64, cause_names[c],
					p->a->files[u->file].source, u->line,
					p->ex[c][i].fn ? p->ex[c][i].fn : "-", u->count);
			if (!r)
				r = kpgo_strlist_add(out, sb.buf);
		}
	}
	strbuf_release(&sb);
	return r ? -ENOMEM : 0;
}

int kpgo_afdo_place_inlined(struct kpgo_afdo *a, bool recover, struct kpgo_strlist *examples)
{
	struct placer p = { .a = a };
	size_t i, n = 0, c, k;
	int r = 0;

	memset(a->causes, 0, sizeof(a->causes));
	for (i = 0; i < a->cap; i++)
		if (a->slots[i])
			n += a->slots[i]->ndefs;
	p.defs = malloc((n ? n : 1) * sizeof(*p.defs));
	if (!p.defs) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0, n = 0; i < a->cap; i++) {
		struct afdo_def *d;

		if (!a->slots[i])
			continue;
		for (d = a->slots[i]->defs; d; d = d->next) {
			p.defs[n].name = a->slots[i]->name;
			p.defs[n++].def = d;
		}
	}
	p.n_defs = n;
	qsort(p.defs, n, sizeof(*p.defs), cmp_def_ref);

	/* One entry per file and line, all objects' counts added up. */
	sort_files = a->files;
	if (a->n_unplaced) /* unplaced is NULL when none: qsort's base is nonnull */
		qsort(a->unplaced, a->n_unplaced, sizeof(*a->unplaced), cmp_unplaced);
	sort_files = NULL;
	for (i = 0, n = 0; i < a->n_unplaced; i++) {
		struct afdo_unplaced *u = &a->unplaced[i];

		if (n && a->unplaced[n - 1].line == u->line &&
		    !strcmp(a->files[a->unplaced[n - 1].file].key, a->files[u->file].key)) {
			a->unplaced[n - 1].count = kpgo_sat_add(a->unplaced[n - 1].count, u->count);
			a->unplaced[n - 1].copies += u->copies;
		} else {
			a->unplaced[n++] = *u;
		}
	}
	a->n_unplaced = n;

	for (i = 0; i < a->n_unplaced && !r;) {
		const char *key = a->files[a->unplaced[i].file].key;
		struct kpgo_afdo_src src = { 0 };
		struct strbuf text = STRBUF_INIT;
		bool have_src = false;
		size_t lo, hi;

		defs_of(&p, key, &lo, &hi);
		if (kpgo_read_file(key, &text, SOURCE_MAX) == 0) {
			r = kpgo_afdo_src_scan(text.buf, text.len, &src);
			have_src = !r;
		}
		strbuf_release(&text);
		for (; i < a->n_unplaced && !r && !strcmp(a->files[a->unplaced[i].file].key, key);
		     i++)
			r = place(&p, recover, &a->unplaced[i], &src, have_src, lo, hi);
		kpgo_afdo_src_release(&src);
	}
	if (!r && examples)
		r = write_examples(&p, examples);
out:
	for (c = 0; c < KPGO_AFDO_CAUSES; c++)
		for (k = 0; k < EXAMPLES; k++)
			free(p.fn_kept[c][k]);
	free(p.defs);
	return r;
}
