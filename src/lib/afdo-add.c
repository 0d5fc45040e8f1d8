// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo afdo --add: another sample profile's functions, for the names the
 * gcov profile has no function of (see kpgo_afdo_add_profile() in afdo.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-internal.h"
#include "afdo-report.h"

struct added {
	const char *name; /* points into the places table */
	const char *source;
	uint32_t line;
};

/*
 * A head line "NAME:TOTAL:HEAD" (checked before) into @name: NAME, and its
 * TOTAL in @total.
 */
static int head_of(const char *s, const char *e, struct strbuf *name, uint64_t *total)
{
	char *c2, *c1;

	strbuf_reset(name);
	if (strbuf_add(name, s, (size_t)(e - s)))
		return -ENOMEM;
	c2 = strrchr(name->buf, ':');
	*c2 = '\0';
	c1 = strrchr(name->buf, ':');
	*c1 = '\0';
	return kpgo_parse_u64(c1 + 1, total);
}

/* By name: the places' "profile" lines, for bsearch(). */
static int cmp_def_name(const void *a, const void *b)
{
	return strcmp((*(const struct kpgo_afdo_def *const *)a)->name,
		      (*(const struct kpgo_afdo_def *const *)b)->name);
}

/*
 * The "profile" lines of @places sorted by name into @index (the table
 * is sorted by place); the parser refused a name with two of them.
 */
static int index_places(const struct kpgo_afdo_defs *places, const struct kpgo_afdo_def ***index,
			size_t *n)
{
	size_t i;

	*n = 0;
	*index = malloc((places->n ? places->n : 1) * sizeof(**index));
	if (!*index)
		return -ENOMEM;
	for (i = 0; i < places->n; i++)
		if (places->defs[i].role == KPGO_AFDO_ROLE_PROFILE)
			(*index)[(*n)++] = &places->defs[i];
	qsort(*index, *n, sizeof(**index), cmp_def_name);
	return 0;
}

static const struct kpgo_afdo_def *place_of(const struct kpgo_afdo_def **index, size_t n,
					    const char *name)
{
	const struct kpgo_afdo_def key = { .name = name }, *k = &key, **hit;

	hit = bsearch(&k, index, n, sizeof(*index), cmp_def_name);
	return hit ? *hit : NULL;
}

static int cmp_added(const void *a, const void *b)
{
	return strcmp(((const struct added *)a)->name, ((const struct added *)b)->name);
}

/* A table row's NAME against @name, in byte order. */
static int cmp_row(const char *row, const char *name)
{
	size_t n = strcspn(row, "\t\n"), m = strlen(name);
	int c = memcmp(row, name, n < m ? n : m);

	return c ? c : n < m ? -1 : n > m;
}

/* @defs (a head line, then rows in byte order of their names) with @add's rows merged in. */
static int merge_rows(struct strbuf *defs, struct added *add, size_t n)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = defs->buf, *e = defs->buf + defs->len;
	size_t i = 0;
	int r = 0;

	qsort(add, n, sizeof(*add), cmp_added);
	while (p < e && !r) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);

		while (p != defs->buf && *p != '#' && i < n && cmp_row(p, add[i].name) > 0 && !r) {
			r = strbuf_addf(&out, "%s\tprofile\t%s\t%" PRIu32 "\n", add[i].name,
					add[i].source, add[i].line);
			i++;
		}
		r = r ? r : strbuf_add(&out, p, len);
		p += len;
	}
	for (; i < n && !r; i++)
		r = strbuf_addf(&out, "%s\tprofile\t%s\t%" PRIu32 "\n", add[i].name, add[i].source,
				add[i].line);
	if (r) {
		strbuf_release(&out);
		return -ENOMEM;
	}
	strbuf_release(defs);
	*defs = out;
	return 0;
}

int kpgo_afdo_add_profile(const struct kpgo_afdo *a, const char *path, const char *places_path,
			  struct strbuf *text, struct strbuf *defs, struct kpgo_afdo_stats *st,
			  struct kpgo_error *err)
{
	struct strbuf in = STRBUF_INIT, name = STRBUF_INIT;
	struct kpgo_afdo_defs places;
	struct kpgo_afdo_text t;
	const struct kpgo_afdo_def **index = NULL;
	struct added *add = NULL;
	size_t n_add = 0, alloc = 0, n_index = 0;
	const char *p, *e;
	bool keep = false;
	int r;

	kpgo_afdo_defs_init(&places);
	r = kpgo_read_file(path, &in, KPGO_AFDO_TEXT_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "'%s' is larger than %u MiB", path,
				   KPGO_AFDO_TEXT_MAX >> 20);
	else if (r)
		r = kpgo_error_set(err, r, "cannot read '%s': %s", path, strerror(-r));
	if (!r && kpgo_afdo_text_parse(&t, in.buf, in.len, NULL, err)) {
		kpgo_error_prefix(err, "'%s' is not a sample profile kpgo can add", path);
		r = -EINVAL;
	}
	if (!r && places_path && kpgo_afdo_defs_read(&places, places_path, err)) {
		kpgo_error_prefix(err, "cannot read the places of '%s' ('%s')", path, places_path);
		r = -EINVAL;
	}
	if (!r && places_path && index_places(&places, &index, &n_index))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	p = in.buf;
	e = in.buf + in.len;
	while (!r && p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e, *q = p;

		/* empty lines and comments (indented too, as LLVM reads them) are dropped */
		while (q < le && *q == ' ')
			q++;
		if (q == le || *q == '#') {
			p = nl ? nl + 1 : e;
			continue;
		}
		if (*p != ' ') {
			const struct kpgo_afdo_def *pl = NULL;
			uint64_t total;

			r = head_of(p, le, &name, &total);
			if (r && r != -ENOMEM)
				r = kpgo_error_set(err, r, "'%s': a function head kpgo cannot read",
						   path);
			if (r)
				break;
			keep = false;
			if (kpgo_afdo_knows(a, name.buf)) {
				st->added_known++;
			} else if (places_path && !(pl = place_of(index, n_index, name.buf))) {
				st->added_no_place++;
			} else {
				keep = true;
				st->added_functions++;
				st->added_samples = kpgo_sat_add(st->added_samples, total);
				if (pl) {
					r = KPGO_ALLOC_GROW(add, n_add + 1, alloc);
					if (r)
						break;
					add[n_add++] = (struct added){ pl->name, pl->source,
								       pl->line };
				}
			}
		} else if (keep) {
			st->added_records++;
		}
		if (keep)
			r = strbuf_add(text, p, (size_t)(le - p)) ?: strbuf_addch(text, '\n');
		p = nl ? nl + 1 : e;
	}
	if (r == -ENOMEM)
		kpgo_error_set(err, r, "out of memory");
	if (!r && defs && n_add && merge_rows(defs, add, n_add))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	free(add);
	free(index);
	kpgo_afdo_defs_release(&places);
	strbuf_release(&name);
	strbuf_release(&in);
	return r;
}
