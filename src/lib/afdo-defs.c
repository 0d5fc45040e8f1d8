// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo afdo's definitions table read back for the Clang report: checked
 * line by line, then against the profile's names; see afdo-report.h and,
 * for the format, afdo.h. The fields point into one copy of the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "afdo.h"
#include "buildlog.h"

static const char *const role_names[KPGO_AFDO_ROLES] = {
	[KPGO_AFDO_ROLE_PROFILE] = "profile",
	[KPGO_AFDO_ROLE_WEAK] = "weak",
	[KPGO_AFDO_ROLE_LEFT_OUT] = "left-out",
};

void kpgo_afdo_defs_init(struct kpgo_afdo_defs *d)
{
	memset(d, 0, sizeof(*d));
	strbuf_init(&d->text);
}

void kpgo_afdo_defs_release(struct kpgo_afdo_defs *d)
{
	free(d->defs);
	strbuf_release(&d->text);
	kpgo_afdo_defs_init(d);
}

const char *kpgo_afdo_role_name(enum kpgo_afdo_role role)
{
	return (unsigned)role < KPGO_AFDO_ROLES ? role_names[role] : "?";
}

static int bad(struct kpgo_error *err, size_t lineno, const char *what)
{
	return kpgo_error_set(err, -EINVAL, "line %zu: %s", lineno, what);
}

/* A function name as the sample profile carries it: no blanks or control characters. */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static bool source_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return false;
	return true;
}

/* A line number as kpgo afdo writes one: 1 to 2^32-1, no leading zero. */
static bool line_ok(const char *s, uint32_t *v)
{
	uint64_t x = 0;

	if (*s < '1' || *s > '9')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > UINT32_MAX)
			return false;
	}
	*v = (uint32_t)x;
	return true;
}

static int add_def(struct kpgo_afdo_defs *d, const struct kpgo_afdo_def *def)
{
	if (KPGO_ALLOC_GROW(d->defs, d->n + 1, d->alloc))
		return -ENOMEM;
	d->defs[d->n++] = *def;
	return 0;
}

/*
 * One line "NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE" in @s (NUL-terminated, in
 * the table's copy, which is cut into its fields).
 */
static int parse_row(struct kpgo_afdo_defs *d, char *s, size_t lineno, struct kpgo_error *err)
{
	static const char what[] = "expected NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE";
	struct strbuf norm = STRBUF_INIT;
	struct kpgo_afdo_def def = { .lineno = lineno };
	char *f[4];
	size_t i, len;
	int role;

	f[0] = s;
	for (i = 1; i < 4; i++) {
		char *tab = strchr(f[i - 1], '\t');

		if (!tab)
			return bad(err, lineno, what);
		*tab = '\0';
		f[i] = tab + 1;
	}
	if (strchr(f[3], '\t'))
		return bad(err, lineno, what);
	if (!name_ok(f[0]))
		return bad(err, lineno,
			   "a function name that is empty or has blanks or control characters");
	for (role = 0; role < KPGO_AFDO_ROLES; role++)
		if (!strcmp(f[1], role_names[role]))
			break;
	if (role == KPGO_AFDO_ROLES)
		return bad(err, lineno, "a role that is not profile, weak or left-out");
	if (!source_ok(f[2]))
		return bad(err, lineno,
			   "a source file name that is empty or has control characters");
	if (!line_ok(f[3], &def.line))
		return bad(err, lineno, "a line number that is not 1 to 4294967295");
	/* As clang's file names are read: never longer than the name it was made from. */
	len = strlen(f[2]);
	if (kpgo_afdo_source_key("", f[2], &norm)) {
		strbuf_release(&norm);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (norm.len <= len)
		memcpy(f[2], norm.buf, norm.len + 1);
	strbuf_release(&norm);
	def.name = f[0];
	def.role = (enum kpgo_afdo_role)role;
	def.source = f[2];
	if (add_def(d, &def))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	d->roles[role]++;
	return 0;
}

static int cmp_place(const struct kpgo_afdo_def *x, const struct kpgo_afdo_def *y)
{
	int c = strcmp(x->source, y->source);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_lineno(size_t x, size_t y)
{
	return x < y ? -1 : x > y;
}

/* By name, place, line in the table: to find what is there twice. */
static int cmp_by_name(const void *a, const void *b)
{
	const struct kpgo_afdo_def *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	c = cmp_place(x, y);
	return c ? c : cmp_lineno(x->lineno, y->lineno);
}

/* By place, role, name: the order kpgo_afdo_defs_at() searches. */
static int cmp_by_place(const void *a, const void *b)
{
	const struct kpgo_afdo_def *x = a, *y = b;
	int c = cmp_place(x, y);

	if (c)
		return c;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : cmp_lineno(x->lineno, y->lineno);
}

/* The repeat found so far that comes first in the table. */
struct repeat {
	const struct kpgo_afdo_def *again, *first;
	bool profile; /* a second profile line, not one place twice */
};

static void repeat_note(struct repeat *rp, const struct kpgo_afdo_def *again,
			const struct kpgo_afdo_def *first, bool profile)
{
	if (!rp->again || again->lineno < rp->again->lineno) {
		rp->again = again;
		rp->first = first;
		rp->profile = profile;
	}
}

/*
 * A definition given twice (one name at one place, whatever the roles) or
 * a name with two "profile" lines: the earliest second mention is reported.
 */
static int check_repeats(struct kpgo_afdo_defs *d, struct kpgo_error *err)
{
	const struct kpgo_afdo_def *place = NULL, *p1 = NULL, *p2 = NULL;
	struct repeat rp = { 0 };
	size_t i;

	if (d->n > 1)
		qsort(d->defs, d->n, sizeof(*d->defs), cmp_by_name);
	for (i = 0; i <= d->n; i++) {
		const struct kpgo_afdo_def *x = i < d->n ? &d->defs[i] : NULL;

		/* A name's end: its two earliest profile lines. */
		if (place && (!x || strcmp(x->name, place->name))) {
			if (p2)
				repeat_note(&rp, p2, p1, true);
			p1 = p2 = NULL;
		}
		if (!x)
			break;
		if (place && !strcmp(x->name, place->name) && !cmp_place(x, place))
			repeat_note(&rp, x, place, false);
		else
			place = x;
		if (x->role != KPGO_AFDO_ROLE_PROFILE)
			continue;
		if (!p1 || x->lineno < p1->lineno) {
			p2 = p1;
			p1 = x;
		} else if (!p2 || x->lineno < p2->lineno) {
			p2 = x;
		}
	}
	if (!rp.again)
		return 0;
	if (rp.profile)
		return kpgo_error_set(err, -EINVAL,
				      "line %zu: a second 'profile' line for '%.200s' (first on line %zu)",
				      rp.again->lineno, rp.again->name, rp.first->lineno);
	return kpgo_error_set(err, -EINVAL,
			      "line %zu: '%.200s' at %.300s:%u again (first on line %zu)",
			      rp.again->lineno, rp.again->name, rp.again->source, rp.again->line,
			      rp.first->lineno);
}

static int parse_head(const char *s, size_t len, struct kpgo_error *err)
{
	static const char head[] = KPGO_AFDO_DEFS_HEAD;
	static const char family[] = "# kpgo afdo defs ";
	size_t n = sizeof(family) - 1, i;

	if (len == sizeof(head) - 1 && !memcmp(s, head, len))
		return 0;
	for (i = n; i < len && i < n + 9 && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (len > n && i == len && !memcmp(s, family, n))
		return kpgo_error_set(err, -EINVAL,
				      "line 1: a definitions table of format version %.*s; kpgo reads '%s'",
				      (int)(len - n), s + n, head);
	return bad(err, 1,
		   "not a definitions table of kpgo afdo (expected '" KPGO_AFDO_DEFS_HEAD "')");
}

int kpgo_afdo_defs_parse(struct kpgo_afdo_defs *d, const char *text, size_t len,
			 struct kpgo_error *err)
{
	char *p, *e;
	int r = 0;

	kpgo_afdo_defs_release(d);
	if (strbuf_add(&d->text, text, len))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	p = d->text.buf;
	e = p + len;
	while (p < e && !r) {
		char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);

		d->lines++;
		if (memchr(p, '\0', n)) {
			r = kpgo_error_set(err, -EBADMSG, "NUL byte on line %zu: not a text file",
					   d->lines);
			break;
		}
		if (n > KPGO_BUILDLOG_LINE_MAX)
			r = kpgo_error_set(err, -EINVAL, "line %zu: longer than %d bytes", d->lines,
					   KPGO_BUILDLOG_LINE_MAX);
		else if (d->lines == 1)
			r = parse_head(p, n, err);
		else if (*p != '#') {
			p[n] = '\0';
			r = parse_row(d, p, d->lines, err);
		}
		p = nl ? nl + 1 : e;
	}
	if (!r && !d->lines)
		r = parse_head("", 0, err);
	if (!r)
		r = check_repeats(d, err);
	if (!r && d->n > 1)
		qsort(d->defs, d->n, sizeof(*d->defs), cmp_by_place);
	if (r)
		kpgo_afdo_defs_release(d);
	return r;
}

int kpgo_afdo_defs_read(struct kpgo_afdo_defs *d, const char *path, struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	r = kpgo_read_file(path, &sb, KPGO_AFDO_DEFS_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "larger than %u MiB", KPGO_AFDO_DEFS_MAX >> 20);
	else if (r)
		r = kpgo_error_set(err, r, "%s", strerror(-r));
	else
		r = kpgo_afdo_defs_parse(d, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return r;
}

static bool has_name(const struct kpgo_strlist *names, const char *name)
{
	size_t lo = 0, hi = names->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(names->items[mid], name);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kpgo_afdo_defs_check(const struct kpgo_afdo_defs *d, const struct kpgo_strlist *names,
			 struct kpgo_error *err)
{
	const struct kpgo_afdo_def *bad_def = NULL;
	const char **profile;
	size_t i, j, n = 0;
	int r = 0;

	for (i = 0; i < d->n; i++) {
		const struct kpgo_afdo_def *x = &d->defs[i];

		if (has_name(names, x->name) != (x->role != KPGO_AFDO_ROLE_LEFT_OUT) &&
		    (!bad_def || x->lineno < bad_def->lineno))
			bad_def = x;
	}
	if (bad_def && bad_def->role == KPGO_AFDO_ROLE_LEFT_OUT)
		return kpgo_error_set(err, -EINVAL,
				      "line %zu: '%.200s' is left out, but the profile has it",
				      bad_def->lineno, bad_def->name);
	if (bad_def)
		return kpgo_error_set(err, -EINVAL, "line %zu: '%.200s' is not in the profile",
				      bad_def->lineno, bad_def->name);
	/* Every profile function has its profile line: the two name the same functions. */
	profile = malloc((d->roles[KPGO_AFDO_ROLE_PROFILE] + 1) * sizeof(*profile));
	if (!profile)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < d->n; i++)
		if (d->defs[i].role == KPGO_AFDO_ROLE_PROFILE)
			profile[n++] = d->defs[i].name;
	qsort(profile, n, sizeof(*profile), cmp_str_ptr);
	for (i = 0, j = 0; i < names->n; i++) {
		while (j < n && strcmp(profile[j], names->items[i]) < 0)
			j++;
		if (j == n || strcmp(profile[j], names->items[i])) {
			r = kpgo_error_set(err, -EINVAL,
					   "it has no 'profile' line for the profile's function '%.200s'",
					   names->items[i]);
			break;
		}
	}
	free(profile);
	return r;
}

/*
 * The first line at or after (@source, @line, @role) in place order; @role
 * %KPGO_AFDO_ROLES is past all roles, the end of the place's lines.
 */
static size_t lower_bound(const struct kpgo_afdo_defs *d, const char *source, uint32_t line,
			  unsigned role)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kpgo_afdo_def *x = &d->defs[mid];
		int c = strcmp(x->source, source);

		if (!c)
			c = x->line < line ? -1 : x->line > line;
		if (!c)
			c = (unsigned)x->role < role ? -1 : (unsigned)x->role > role;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void kpgo_afdo_defs_at(const struct kpgo_afdo_defs *d, const char *source, uint32_t line,
		       size_t count[KPGO_AFDO_ROLES])
{
	size_t b = lower_bound(d, source, line, 0);
	unsigned r;

	for (r = 0; r < KPGO_AFDO_ROLES; r++) {
		size_t e = lower_bound(d, source, line, r + 1);

		count[r] = e - b;
		b = e;
	}
}
