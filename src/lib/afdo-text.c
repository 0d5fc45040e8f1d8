// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LLVM sample profile in the text format, checked line by line and
 * counted; see afdo-report.h. The shapes are those of LLVM 16's
 * SampleProfileReaderText (ParseHead, ParseLine):
 *
 *	NAME:TOTAL:HEAD                       a function
 *	 OFFSET[.DISC]: COUNT [TARGET:COUNT]...  a body record (depth 1)
 *	 OFFSET[.DISC]: CALLEE:TOTAL          an inlined callsite; its lines
 *	  OFFSET[.DISC]: COUNT ...            follow one space deeper
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "buildlog.h"

/* LLVM keeps 16 bits of a line offset (SampleProfileReaderText's isOffsetLegal). */
#define OFFSET_MAX 0xffffu

struct text_fn {
	char *name;
	size_t line;
};

struct parser {
	struct kpgo_afdo_text t;
	struct kpgo_error *err;
	size_t lineno;
	/* How deep the next line may be indented: 0 before the first head. */
	size_t max_depth;
	struct text_fn *fns;
	size_t n_fns, alloc;
};

static int bad(struct parser *ps, const char *what)
{
	return kpgo_error_set(ps->err, -EINVAL, "line %zu: %s", ps->lineno, what);
}

/*
 * [@p, @e) as a decimal number of at most @max: 0, -EINVAL when it is not
 * digits alone, -ERANGE when larger.
 */
static int parse_num(const char *p, const char *e, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (p == e)
		return -EINVAL;
	for (; p < e; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

/* A name as the text format carries it: not empty, no blanks or control characters. */
static bool name_ok(const char *p, const char *e)
{
	if (p == e)
		return false;
	for (; p < e; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

static const char *last_colon(const char *p, const char *e)
{
	while (e > p)
		if (*--e == ':')
			return e;
	return NULL;
}

/* "NAME:COUNT" (a head's TOTAL:HEAD is read by the caller), NAME in [@p, colon). */
static int name_count(struct parser *ps, const char *p, const char *e, const char *what,
		      uint64_t *count)
{
	const char *c = last_colon(p, e);
	int r;

	if (!c)
		return bad(ps, what);
	if (!name_ok(p, c))
		return bad(ps, "a name that is empty or has blanks or control characters");
	r = parse_num(c + 1, e, UINT64_MAX, count);
	if (r == -ERANGE)
		return bad(ps, "a count over 2^64-1");
	return r ? bad(ps, what) : 0;
}

static int add_fn(struct parser *ps, const char *name, size_t len)
{
	struct text_fn *f;

	if (KPGO_ALLOC_GROW(ps->fns, ps->n_fns + 1, ps->alloc))
		return -ENOMEM;
	f = &ps->fns[ps->n_fns];
	f->name = malloc(len + 1);
	if (!f->name)
		return -ENOMEM;
	memcpy(f->name, name, len);
	f->name[len] = '\0';
	f->line = ps->lineno;
	ps->n_fns++;
	return 0;
}

static int parse_head(struct parser *ps, const char *s, const char *e)
{
	static const char what[] = "expected a function head 'NAME:TOTAL:HEAD'";
	const char *c2 = last_colon(s, e), *c1 = c2 ? last_colon(s, c2) : NULL;
	uint64_t total, head;
	int r;

	if (!c1)
		return bad(ps, what);
	if (!name_ok(s, c1))
		return bad(ps, "a function name that has blanks or control characters");
	r = parse_num(c1 + 1, c2, UINT64_MAX, &total);
	if (!r)
		r = parse_num(c2 + 1, e, UINT64_MAX, &head);
	if (r == -ERANGE)
		return bad(ps, "a count over 2^64-1");
	if (r)
		return bad(ps, what);
	if (add_fn(ps, s, (size_t)(c1 - s)))
		return kpgo_error_set(ps->err, -ENOMEM, "out of memory");
	ps->t.functions++;
	if (!total)
		ps->t.zero_total++;
	ps->max_depth = 1;
	return 0;
}

/* " OFFSET[.DISC]: COUNT [TARGET:COUNT]..." or " OFFSET[.DISC]: CALLEE:TOTAL" */
static int parse_body(struct parser *ps, const char *s, const char *e)
{
	static const char what[] = "expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				   "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'";
	const char *p = s, *colon, *dot, *q;
	uint64_t v, count;
	size_t depth;
	int r;

	while (p < e && *p == ' ')
		p++;
	depth = (size_t)(p - s);
	if (p == e)
		return bad(ps, "a line of blanks only");
	if (!ps->max_depth)
		return bad(ps, "an indented line before the first function head");
	if (depth > ps->max_depth)
		return bad(ps, "indented deeper than an inlined callsite's lines");
	if (*p == '!')
		return bad(ps, "a metadata line ('!...'), which kpgo does not read");
	colon = memchr(p, ':', (size_t)(e - p));
	if (!colon || colon + 1 == e || colon[1] != ' ')
		return bad(ps, what);
	dot = memchr(p, '.', (size_t)(colon - p));
	r = parse_num(p, dot ? dot : colon, OFFSET_MAX, &v);
	if (r == -ERANGE)
		return bad(ps, "a line offset over 65535");
	if (!r && dot) {
		r = parse_num(dot + 1, colon, UINT32_MAX, &v);
		if (r == -ERANGE)
			return bad(ps, "a discriminator over 2^32-1");
	}
	if (r)
		return bad(ps, what);
	q = colon + 2;
	if (q == e || *q < '0' || *q > '9') {
		/* An inlined callsite: its own lines follow, one deeper. */
		r = name_count(ps, q, e, what, &count);
		if (r)
			return r;
		ps->t.inlined_lines++;
		ps->max_depth = depth + 1;
		return 0;
	}
	p = memchr(q, ' ', (size_t)(e - q));
	r = parse_num(q, p ? p : e, UINT64_MAX, &count);
	if (r == -ERANGE)
		return bad(ps, "a count over 2^64-1");
	if (r)
		return bad(ps, what);
	/* Call targets: " NAME:COUNT" each. */
	while (p) {
		uint64_t target;

		while (p < e && *p == ' ')
			p++;
		if (p == e)
			return bad(ps, "blanks at the end of the line");
		q = memchr(p, ' ', (size_t)(e - p));
		r = name_count(ps, p, q ? q : e,
			       "expected call targets 'NAME:COUNT' after the count", &target);
		if (r)
			return r;
		p = q;
	}
	if (depth == 1) {
		ps->t.records++;
		ps->t.samples = kpgo_sat_add(ps->t.samples, count);
	} else {
		ps->t.inlined_lines++;
	}
	ps->max_depth = depth;
	return 0;
}

static int parse_line(struct parser *ps, const char *s, size_t len)
{
	const char *e = s + len, *p = s;

	if (len > KPGO_BUILDLOG_LINE_MAX)
		return kpgo_error_set(ps->err, -EINVAL, "line %zu: longer than %d bytes",
				      ps->lineno, KPGO_BUILDLOG_LINE_MAX);
	if (!len)
		return 0;
	while (p < e && *p == ' ')
		p++;
	if (p < e && *p == '#')
		return 0;
	return *s == ' ' ? parse_body(ps, s, e) : parse_head(ps, s, e);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct text_fn *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* A name given twice: the earliest second mention is reported. */
static int check_names(struct parser *ps)
{
	const struct text_fn *again = NULL, *first = NULL;
	size_t i;

	if (ps->n_fns > 1)
		qsort(ps->fns, ps->n_fns, sizeof(*ps->fns), cmp_fn);
	for (i = 1; i < ps->n_fns; i++) {
		if (strcmp(ps->fns[i - 1].name, ps->fns[i].name))
			continue;
		if (!again || ps->fns[i].line < again->line) {
			again = &ps->fns[i];
			first = &ps->fns[i - 1];
		}
	}
	if (!again)
		return 0;
	/* Of one name's heads, LLVM keeps one: the profile does not say which is meant. */
	return kpgo_error_set(ps->err, -EINVAL,
			      "line %zu: function '%.200s' again (first on line %zu)", again->line,
			      again->name, first->line);
}

int kpgo_afdo_text_parse(struct kpgo_afdo_text *t, const char *text, size_t len,
			 struct kpgo_strlist *names, struct kpgo_error *err)
{
	struct parser ps = { .err = err };
	const char *p = text, *e = text + len;
	size_t i, n0 = names ? names->n : 0;
	int r = 0;

	while (p < e && !r) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);

		ps.lineno++;
		if (memchr(p, '\0', n)) {
			r = kpgo_error_set(err, -EBADMSG, "NUL byte on line %zu: not a text file",
					   ps.lineno);
			break;
		}
		r = parse_line(&ps, p, n);
		p = nl ? nl + 1 : e;
	}
	ps.t.lines = ps.lineno;
	if (!r)
		r = check_names(&ps);
	if (!r && !ps.t.functions)
		r = kpgo_error_set(err, -EINVAL, "no function in it: not a sample profile");
	/* Sorted by check_names(), each name once; added only on success. */
	for (i = 0; i < ps.n_fns && !r && names; i++)
		if (kpgo_strlist_add(names, ps.fns[i].name))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	while (r && names && names->n > n0)
		free(names->items[--names->n]);
	for (i = 0; i < ps.n_fns; i++)
		free(ps.fns[i].name);
	free(ps.fns);
	if (!r)
		*t = ps.t;
	return r;
}

int kpgo_afdo_text_read(struct kpgo_afdo_text *t, const char *path, struct kpgo_strlist *names,
			struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	r = kpgo_read_file(path, &sb, KPGO_AFDO_TEXT_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "larger than %u MiB", KPGO_AFDO_TEXT_MAX >> 20);
	else if (r)
		r = kpgo_error_set(err, r, "%s", strerror(-r));
	else
		r = kpgo_afdo_text_parse(t, sb.buf, sb.len, names, err);
	strbuf_release(&sb);
	return r;
}
