// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gcov's per-line counts as per-function AutoFDO records; see afdo.h for
 * the rules. The definitions are kept in a hash table by name, each
 * name's definitions in a list, each definition's lines in an array that
 * is sorted and merged only when written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-internal.h"
#include "afdo.h"

int kpgo_afdo_new(struct kpgo_afdo **ap, uint32_t gcov_version)
{
	struct kpgo_afdo *a = calloc(1, sizeof(*a));

	*ap = NULL;
	if (!a)
		return -ENOMEM;
	a->version = gcov_version;
	a->cap = 1024;
	a->slots = calloc(a->cap, sizeof(*a->slots));
	if (!a->slots) {
		free(a);
		return -ENOMEM;
	}
	*ap = a;
	return 0;
}

void kpgo_afdo_free(struct kpgo_afdo *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->cap; i++) {
		struct afdo_name *e = a->slots[i];
		struct afdo_def *d, *next;

		if (!e)
			continue;
		for (d = e->defs; d; d = next) {
			next = d->next;
			free(d->file);
			free(d->source);
			free(d->object);
			free(d->lines);
			free(d);
		}
		free(e->name);
		free(e);
	}
	for (i = 0; i < a->n_files; i++) {
		free(a->files[i].key);
		free(a->files[i].source);
		free(a->files[i].object);
	}
	free(a->files);
	free(a->unplaced);
	free(a->slots);
	free(a);
}

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int grow_table(struct kpgo_afdo *a)
{
	size_t ncap = a->cap * 2, i;
	struct afdo_name **ns;

	if (ncap > SIZE_MAX / sizeof(*ns))
		return -ENOMEM;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < a->cap; i++) {
		size_t j;

		if (!a->slots[i])
			continue;
		j = hash_name(a->slots[i]->name) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = a->slots[i];
	}
	free(a->slots);
	a->slots = ns;
	a->cap = ncap;
	return 0;
}

/* @name's slot in the table: its entry, or the free slot where it would go. */
static size_t slot_of(const struct kpgo_afdo *a, const char *name)
{
	size_t j = hash_name(name) & (a->cap - 1);

	while (a->slots[j] && strcmp(a->slots[j]->name, name))
		j = (j + 1) & (a->cap - 1);
	return j;
}

bool kpgo_afdo_knows(const struct kpgo_afdo *a, const char *name)
{
	return a->slots[slot_of(a, name)] != NULL;
}

int afdo_find_def(struct kpgo_afdo *a, const char *name, const char *file, const char *source,
		  int64_t start, int64_t end, const char *object, struct afdo_def **out)
{
	struct afdo_name *e;
	struct afdo_def *d;
	size_t j;

	if (a->used * 2 >= a->cap && grow_table(a))
		return -ENOMEM;
	j = slot_of(a, name);
	e = a->slots[j];
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e || !(e->name = strdup(name))) {
			free(e);
			return -ENOMEM;
		}
		a->slots[j] = e;
		a->used++;
	}
	for (d = e->defs; d; d = d->next) {
		if (d->start == start && !strcmp(d->file, file)) {
			*out = d;
			return 0;
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->file = strdup(file)) || !(d->source = strdup(source)) ||
	    !(d->object = strdup(object))) {
		if (d) {
			free(d->file);
			free(d->source);
		}
		free(d);
		return -ENOMEM;
	}
	d->start = start;
	d->end = end;
	/* Kept in the order met, so that messages list them as found. */
	if (!e->defs) {
		e->defs = d;
	} else {
		struct afdo_def *t = e->defs;

		while (t->next)
			t = t->next;
		t->next = d;
	}
	e->ndefs++;
	*out = d;
	return 0;
}

int afdo_def_add_line(struct afdo_def *d, uint32_t off, uint64_t count)
{
	if (KPGO_ALLOC_GROW(d->lines, d->n + 1, d->alloc))
		return -ENOMEM;
	d->lines[d->n].off = off;
	d->lines[d->n].count = count;
	d->n++;
	return 0;
}

/* --- adding a document ------------------------------------------------- */

struct fn_ref {
	const char *name;
	int64_t start, end;
	struct afdo_def *def;
};

static int cmp_fn_ref(const void *a, const void *b)
{
	return strcmp(((const struct fn_ref *)a)->name, ((const struct fn_ref *)b)->name);
}

static uint64_t count_of(struct kpgo_afdo *a, const struct kpgo_json *v)
{
	if (v->i < 0) {
		a->negative_counts++;
		return 0;
	}
	return (uint64_t)v->i;
}

/* A file with lines in no function: where they are, for kpgo_afdo_place_inlined(). */
static int add_unplaced_file(struct kpgo_afdo *a, const char *key, const char *source,
			     const char *object, size_t *ix)
{
	struct afdo_file *f;

	if (KPGO_ALLOC_GROW(a->files, a->n_files + 1, a->files_alloc))
		return -ENOMEM;
	f = &a->files[a->n_files];
	f->key = strdup(key);
	f->source = strdup(source);
	f->object = strdup(object);
	if (!f->key || !f->source || !f->object) {
		free(f->key);
		free(f->source);
		free(f->object);
		return -ENOMEM;
	}
	*ix = ++a->n_files;
	return 0;
}

static int add_unplaced(struct kpgo_afdo *a, size_t file, int64_t line, uint64_t count)
{
	if (line < 1 || line > UINT32_MAX)
		return 0;
	if (KPGO_ALLOC_GROW(a->unplaced, a->n_unplaced + 1, a->unplaced_alloc))
		return -ENOMEM;
	a->unplaced[a->n_unplaced].file = file;
	a->unplaced[a->n_unplaced].line = (uint32_t)line;
	a->unplaced[a->n_unplaced].count = count;
	a->unplaced[a->n_unplaced].copies = 1;
	a->n_unplaced++;
	return 0;
}

static int add_file(struct kpgo_afdo *a, const struct kpgo_json *f, const char *cwd,
		    const char *object)
{
	const struct kpgo_json *fns = kpgo_json_get(f, "functions");
	const struct kpgo_json *lines = kpgo_json_get(f, "lines");
	const char *file = kpgo_json_get(f, "file")->s;
	struct strbuf key = STRBUF_INIT, source = STRBUF_INIT;
	struct fn_ref *refs = NULL;
	size_t i,
		file_ix = 0; /* this file's in a->files, plus 1; 0 before its first unplaced line */
	int r;

	/* The key joins the directory GCC ran in; the table's name is GCC's own, as Clang's is. */
	r = kpgo_afdo_source_key(cwd, file, &key);
	if (!r)
		r = kpgo_afdo_source_key("", file, &source);
	if (r)
		goto out;
	if (fns->n) {
		refs = calloc(fns->n, sizeof(*refs));
		if (!refs) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < fns->n; i++) {
		const struct kpgo_json *fn = &fns->v[i];

		refs[i].name = kpgo_json_get(fn, "name")->s;
		refs[i].start = kpgo_json_get(fn, "start_line")->i;
		refs[i].end = kpgo_json_get(fn, "end_line")->i;
		r = afdo_find_def(a, refs[i].name, key.buf, source.buf, refs[i].start, refs[i].end,
				  object, &refs[i].def);
		if (r)
			goto out;
		refs[i].def->head = kpgo_sat_add(refs[i].def->head,
						 count_of(a, kpgo_json_get(fn, "execution_count")));
		refs[i].def->copies++;
	}
	if (fns->n > 1)
		qsort(refs, fns->n, sizeof(*refs), cmp_fn_ref);
	for (i = 0; i < lines->n; i++) {
		const struct kpgo_json *l = &lines->v[i], *fname = kpgo_json_get(l, "function_name");
		int64_t ln = kpgo_json_get(l, "line_number")->i;
		uint64_t count = count_of(a, kpgo_json_get(l, "count"));
		struct fn_ref needle, *ref = NULL;

		if (fname && fns->n) {
			needle.name = fname->s;
			ref = bsearch(&needle, refs, fns->n, sizeof(*refs), cmp_fn_ref);
		}
		if (!ref || ln < ref->start || ln > ref->end) {
			if (count) {
				a->unplaced_lines++;
				a->unplaced_samples = kpgo_sat_add(a->unplaced_samples, count);
				if (!file_ix && (r = add_unplaced_file(a, key.buf, source.buf,
								       object, &file_ix)))
					goto out;
				r = add_unplaced(a, file_ix - 1, ln, count);
				if (r)
					goto out;
			}
			continue;
		}
		if ((uint64_t)(ln - ref->start) > AFDO_OFFSET_MAX) {
			a->far_lines++;
			continue;
		}
		r = afdo_def_add_line(ref->def, (uint32_t)(ln - ref->start), count);
		if (r)
			goto out;
	}
	r = 0;
out:
	free(refs);
	strbuf_release(&key);
	strbuf_release(&source);
	return r;
}

int kpgo_afdo_add_gcov(struct kpgo_afdo *a, const struct kpgo_json *doc, const char *object,
		       struct kpgo_error *err)
{
	const struct kpgo_json *files, *cwd;
	size_t i;
	int r;

	r = kpgo_afdo_gcov_check(doc, object, a->version, err);
	if (r)
		return r;
	cwd = kpgo_json_get(doc, "current_working_directory");
	files = kpgo_json_get(doc, "files");
	for (i = 0; i < files->n; i++) {
		r = add_file(a, &files->v[i], cwd ? cwd->s : "", object);
		if (r)
			return kpgo_error_set(err, r, "out of memory");
	}
	a->objects++;
	return 0;
}

/* --- writing ------------------------------------------------------------ */

static int cmp_line(const void *a, const void *b)
{
	const struct afdo_line *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts @d's lines and adds up those of one offset (copies, group lines). */
static void def_merge_lines(struct afdo_def *d)
{
	size_t i, n = 0;

	if (d->n > 1)
		qsort(d->lines, d->n, sizeof(*d->lines), cmp_line);
	for (i = 0; i < d->n; i++) {
		if (n && d->lines[n - 1].off == d->lines[i].off)
			d->lines[n - 1].count = kpgo_sat_add(d->lines[n - 1].count,
							     d->lines[i].count);
		else
			d->lines[n++] = d->lines[i];
	}
	d->n = n;
}

static uint64_t def_total(const struct afdo_def *d)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < d->n; i++)
		t = kpgo_sat_add(t, d->lines[i].count);
	return t;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct afdo_name *const *)a)->name, (*(struct afdo_name *const *)b)->name);
}

static int list_ambiguous(struct kpgo_strlist *l, const struct afdo_name *e)
{
	struct strbuf sb = STRBUF_INIT;
	const struct afdo_def *d;
	int r = strbuf_addf(&sb, "%s (", e->name);

	for (d = e->defs; d && !r; d = d->next)
		r = strbuf_addf(&sb, "%s%s:%" PRId64, d == e->defs ? "" : ", ", d->file, d->start);
	if (!r)
		r = strbuf_addch(&sb, ')');
	if (!r)
		r = kpgo_strlist_add(l, sb.buf);
	strbuf_release(&sb);
	return r;
}

/* Writes @d as @name's profile: 1, or 0 (nothing written) when never executed. */
static int write_def(const char *name, struct afdo_def *d, struct strbuf *out,
		     struct kpgo_afdo_stats *st)
{
	uint64_t total = def_total(d);
	size_t j;
	int r;

	if (!total && !d->head) {
		st->unexecuted++;
		return 0;
	}
	if (d->copies > 1) {
		st->merged_defs++;
		st->merged_copies += d->copies - 1;
	}
	r = strbuf_addf(out, "%s:%" PRIu64 ":%" PRIu64 "\n", name, total, d->head);
	for (j = 0; j < d->n && !r; j++)
		r = strbuf_addf(out, " %" PRIu32 ": %" PRIu64 "\n", d->lines[j].off,
				d->lines[j].count);
	st->functions++;
	st->lines += d->n;
	st->samples = kpgo_sat_add(st->samples, total);
	return r ? -ENOMEM : 1;
}

static bool same_place(const struct afdo_def *x, const struct afdo_def *y)
{
	return x->start == y->start && !strcmp(x->source, y->source);
}

/*
 * The definitions table's lines of @e: @profile (NULL when the name was
 * left out) as "profile", every other definition as "weak" (when
 * @profile is set) or "left-out". Definitions of one place that differ
 * only in the directory GCC ran in get one line.
 */
static int write_rows(struct strbuf *defs, const struct afdo_name *e, const struct afdo_def *profile)
{
	const struct afdo_def *d, *t;
	int r = 0;

	if (profile)
		r = strbuf_addf(defs, "%s\tprofile\t%s\t%" PRId64 "\n", e->name, profile->source,
				profile->start);
	for (d = e->defs; d && !r; d = d->next) {
		bool again = d == profile || (profile && same_place(d, profile));

		for (t = e->defs; t != d && !again; t = t->next)
			again = t != profile && same_place(t, d);
		if (!again)
			r = strbuf_addf(defs, "%s\t%s\t%s\t%" PRId64 "\n", e->name,
					profile ? "weak" : "left-out", d->source, d->start);
	}
	return r ? -ENOMEM : 0;
}

/*
 * Of several definitions of @e's name, the one the linker keeps when it is
 * the only strong one and all others are weak; NULL otherwise.
 */
static struct afdo_def *strong_over_weak(const struct afdo_name *e, kpgo_afdo_binding_fn binding,
					 void *ctx)
{
	struct afdo_def *d, *strong = NULL;

	if (!binding)
		return NULL;
	for (d = e->defs; d; d = d->next) {
		switch (binding(ctx, d->object, e->name)) {
		case KPGO_ELF_GLOBAL:
			if (strong)
				return NULL;
			strong = d;
			break;
		case KPGO_ELF_WEAK: break;
		default: return NULL;
		}
	}
	return strong;
}

int kpgo_afdo_write(struct kpgo_afdo *a, kpgo_afdo_binding_fn binding, void *ctx, struct strbuf *out,
		    struct strbuf *defs, struct kpgo_afdo_stats *st, struct kpgo_strlist *ambiguous)
{
	struct afdo_name **names;
	size_t i, n = 0;
	int r = 0;

	memset(st, 0, sizeof(*st));
	st->objects = a->objects;
	st->unplaced_lines = a->unplaced_lines;
	st->unplaced_samples = a->unplaced_samples;
	st->far_lines = a->far_lines;
	st->negative_counts = a->negative_counts;
	memcpy(st->causes, a->causes, sizeof(st->causes));
	st->recovered_lines = a->recovered_lines;
	st->recovered_samples = a->recovered_samples;
	names = malloc((a->used ? a->used : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (i = 0; i < a->cap; i++)
		if (a->slots[i])
			names[n++] = a->slots[i];
	qsort(names, n, sizeof(*names), cmp_name);
	if (defs)
		r = strbuf_addstr(defs, KPGO_AFDO_DEFS_HEAD "\n");
	for (i = 0; i < n && !r; i++) {
		struct afdo_name *e = names[i];
		struct afdo_def *d;

		for (d = e->defs; d; d = d->next)
			def_merge_lines(d);
		d = e->ndefs == 1 ? e->defs : strong_over_weak(e, binding, ctx);
		if (d) {
			if (e->ndefs > 1) {
				st->weak_names++;
				st->weak_defs += e->ndefs - 1;
			}
			/*
			 * Written: its other definitions are weak ones, which
			 * Clang compiles with this profile too. Not written: the
			 * name is not in the profile, and no line is needed.
			 */
			r = write_def(e->name, d, out, st);
			if (r > 0)
				r = defs ? write_rows(defs, e, d) : 0;
			continue;
		}
		st->ambiguous_names++;
		st->ambiguous_defs += e->ndefs;
		for (d = e->defs; d; d = d->next)
			st->ambiguous_samples = kpgo_sat_add(st->ambiguous_samples, def_total(d));
		if (ambiguous)
			r = list_ambiguous(ambiguous, e);
		if (!r && defs)
			r = write_rows(defs, e, NULL);
	}
	free(names);
	return r ? -ENOMEM : 0;
}
