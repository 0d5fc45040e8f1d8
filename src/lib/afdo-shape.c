// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gcov's JSON documents checked before anything of them is used, and the
 * names they give: GCC releases, source files. See afdo.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "afdo.h"
#include "gcda.h"

struct shape {
	const char *object;
	struct kpgo_error *err;
	char where[128];
};

static int bad(struct shape *s, const char *what)
{
	return kpgo_error_set(s->err, -EINVAL, "malformed gcov output for '%s': %s%s%s", s->object,
			      s->where, s->where[0] ? " " : "", what);
}

/* Member @key of @obj with type @t (or NULL when @optional and absent). */
static const struct kpgo_json *member(struct shape *s, const struct kpgo_json *obj, const char *key,
				      enum kpgo_json_type t, bool optional, int *r)
{
	const struct kpgo_json *v = kpgo_json_get(obj, key);
	char what[160];

	if (!v && optional)
		return NULL;
	if (!v) {
		snprintf(what, sizeof(what), "has no '%s'", key);
		*r = bad(s, what);
		return NULL;
	}
	if (v->type != t || (t == KPGO_JSON_NUMBER && !v->is_int)) {
		snprintf(what, sizeof(what), "'%s' is %s %s, not %s", key,
			 v->type == KPGO_JSON_ARRAY || v->type == KPGO_JSON_OBJECT ? "an" : "a",
			 v->type == KPGO_JSON_NUMBER && !v->is_int ? "non-integer number" :
								     kpgo_json_type_name(v->type),
			 t == KPGO_JSON_NUMBER ? "an integer" :
			 t == KPGO_JSON_ARRAY  ? "an array" :
			 t == KPGO_JSON_OBJECT ? "an object" :
						 "a string");
		*r = bad(s, what);
		return NULL;
	}
	return v;
}

/* A function name as the text format can carry it: no blanks or controls. */
static bool name_ok(const char *n)
{
	if (!*n)
		return false;
	for (; *n; n++)
		if ((unsigned char)*n <= ' ' || *n == 0x7f)
			return false;
	return true;
}

/* A file name without control characters: the definitions table is tab-separated lines. */
static bool file_ok(const char *n)
{
	for (; *n; n++)
		if ((unsigned char)*n < ' ' || *n == 0x7f)
			return false;
	return true;
}

int kpgo_afdo_gcov_check(const struct kpgo_json *doc, const char *object, uint32_t version,
			 struct kpgo_error *err)
{
	struct shape sh = { .object = object, .err = err }, *s = &sh;
	const struct kpgo_json *files, *v;
	size_t i, j;
	int r = 0;

	if (doc->type != KPGO_JSON_OBJECT)
		return bad(s, "is not an object");
	v = member(s, doc, "gcc_version", KPGO_JSON_STRING, false, &r);
	if (!v)
		return r;
	if (version && !kpgo_afdo_version_matches(v->s, version)) {
		char vs[5];

		kpgo_gcc_version_str(version, vs);
		return kpgo_error_set(s->err, -EINVAL,
				      "gcov output for '%s' is of GCC %.40s, the profile of gcov version '%s'",
				      s->object, v->s, vs);
	}
	if (!member(s, doc, "current_working_directory", KPGO_JSON_STRING, true, &r) && r)
		return r;
	files = member(s, doc, "files", KPGO_JSON_ARRAY, false, &r);
	if (!files)
		return r;
	for (i = 0; i < files->n; i++) {
		const struct kpgo_json *f = &files->v[i], *fns, *lines, *file;

		snprintf(s->where, sizeof(s->where), "files[%zu]", i);
		if (f->type != KPGO_JSON_OBJECT)
			return bad(s, "is not an object");
		if (!(file = member(s, f, "file", KPGO_JSON_STRING, false, &r)))
			return r;
		if (!file_ok(file->s))
			return bad(s, "has a file name with control characters");
		if (!(fns = member(s, f, "functions", KPGO_JSON_ARRAY, false, &r)))
			return r;
		if (!(lines = member(s, f, "lines", KPGO_JSON_ARRAY, false, &r)))
			return r;
		for (j = 0; j < fns->n; j++) {
			const struct kpgo_json *fn = &fns->v[j], *name, *start, *end;

			snprintf(s->where, sizeof(s->where), "files[%zu].functions[%zu]", i, j);
			if (fn->type != KPGO_JSON_OBJECT)
				return bad(s, "is not an object");
			if (!(name = member(s, fn, "name", KPGO_JSON_STRING, false, &r)) ||
			    !(start = member(s, fn, "start_line", KPGO_JSON_NUMBER, false, &r)) ||
			    !(end = member(s, fn, "end_line", KPGO_JSON_NUMBER, false, &r)) ||
			    !member(s, fn, "execution_count", KPGO_JSON_NUMBER, false, &r))
				return r;
			if (!name_ok(name->s))
				return bad(s, "has a name with blanks or control characters");
			/* GCC keeps line numbers in 32 bits. */
			if (start->i < 1 || start->i > UINT32_MAX || end->i < start->i)
				return bad(s, "has no valid line range");
		}
		for (j = 0; j < lines->n; j++) {
			const struct kpgo_json *l = &lines->v[j], *ln;

			snprintf(s->where, sizeof(s->where), "files[%zu].lines[%zu]", i, j);
			if (l->type != KPGO_JSON_OBJECT)
				return bad(s, "is not an object");
			if (!(ln = member(s, l, "line_number", KPGO_JSON_NUMBER, false, &r)) ||
			    !member(s, l, "count", KPGO_JSON_NUMBER, false, &r))
				return r;
			if (!member(s, l, "function_name", KPGO_JSON_STRING, true, &r) && r)
				return r;
			if (ln->i < 1)
				return bad(s, "has no valid line number");
		}
	}
	return 0;
}

/* --- helpers ------------------------------------------------------------ */

static bool parse_uint(const char **p, unsigned *v)
{
	unsigned x = 0;

	if (**p < '0' || **p > '9')
		return false;
	while (**p >= '0' && **p <= '9') {
		if (x > 100000)
			return false;
		x = x * 10 + (unsigned)(**p - '0');
		(*p)++;
	}
	*v = x;
	return true;
}

bool kpgo_afdo_version_matches(const char *version, uint32_t stamp)
{
	struct kpgo_gcc_version gv;
	unsigned major, minor;
	const char *p = version;

	if (kpgo_gcc_version_decode(stamp, &gv))
		return false;
	if (!parse_uint(&p, &major) || *p++ != '.' || !parse_uint(&p, &minor))
		return false;
	if (*p && *p != '.' && *p != ' ' && *p != '-')
		return false;
	return major == gv.major && minor == gv.minor;
}

int kpgo_afdo_source_key(const char *cwd, const char *file, struct strbuf *out)
{
	struct strbuf joined = STRBUF_INIT;
	size_t base = out->len, root;
	const char *c;
	int r = 0;

	if (file[0] != '/' && cwd && *cwd)
		r = strbuf_addf(&joined, "%s/%s", cwd, file);
	else
		r = strbuf_addstr(&joined, file);
	if (r)
		return -ENOMEM;
	if (joined.buf[0] == '/')
		r = strbuf_addch(out, '/');
	root = out->len; /* never removed by ".." */
	for (c = joined.buf; *c && !r;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.')) {
			/* nothing */
		} else if (n == 2 && c[0] == '.' && c[1] == '.' && out->len > root &&
			   !(out->len - root >= 2 && !strcmp(out->buf + out->len - 2, "..") &&
			     (out->len - root == 2 || out->buf[out->len - 3] == '/'))) {
			/* Drops the last component. */
			char *slash = strrchr(out->buf + root, '/');

			out->len = slash ? (size_t)(slash - out->buf) : root;
			out->buf[out->len] = '\0';
		} else if (n == 2 && c[0] == '.' && c[1] == '.' && joined.buf[0] == '/') {
			/* "/.." is "/". */
		} else {
			if (out->len > root)
				r = strbuf_addch(out, '/');
			if (!r)
				r = strbuf_add(out, c, n);
		}
		if (!e)
			break;
		c = e + 1;
	}
	if (!r && out->len == base)
		r = strbuf_addch(out, '.');
	strbuf_release(&joined);
	return r ? -ENOMEM : 0;
}
