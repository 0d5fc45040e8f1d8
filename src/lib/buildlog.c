// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "buildlog.h"

#define WARN_SEP ": warning: "

static int parse_line(void *ctx, char *s, size_t len);

int kpgo_buildlog_init(struct kpgo_buildlog *log, const char *const *objtrees, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int r = 0;

	memset(log, 0, sizeof(*log));
	kpgo_lines_init(&log->in, KPGO_BUILDLOG_LINE_MAX, parse_line, log);
	strbuf_init(&log->obj);
	for (i = 0; !r && i < n; i++) {
		size_t len = strlen(objtrees[i]);

		while (len > 1 && objtrees[i][len - 1] == '/')
			len--;
		strbuf_reset(&sb);
		r = strbuf_add(&sb, objtrees[i], len);
		if (!r && (len != 1 || objtrees[i][0] != '/'))
			r = strbuf_addch(&sb, '/');
		if (!r)
			r = kpgo_strlist_add(&log->prefixes, sb.buf);
	}
	strbuf_release(&sb);
	if (r)
		kpgo_buildlog_release(log);
	return r;
}

void kpgo_buildlog_release(struct kpgo_buildlog *log)
{
	size_t i;

	for (i = 0; i < log->n; i++) {
		free(log->w[i].obj);
		free(log->w[i].where);
		free(log->w[i].fn);
		free(log->w[i].msg);
	}
	free(log->w);
	kpgo_strlist_clear(&log->prefixes);
	kpgo_lines_release(&log->in);
	strbuf_release(&log->obj);
	memset(log, 0, sizeof(*log));
	kpgo_lines_init(&log->in, KPGO_BUILDLOG_LINE_MAX, parse_line, log);
	strbuf_init(&log->obj);
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* Last occurrence of @needle in @s[0..@len), or NULL. */
static const char *find_last(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	const char *last = NULL, *p = s;

	while ((size_t)(s + len - p) >= n && (p = memmem(p, (size_t)(s + len - p), needle, n))) {
		last = p;
		p++;
	}
	return last;
}

/* A copy of @len bytes at @s with control characters replaced by '?'. */
static char *dup_clean(const char *s, size_t len)
{
	char *d = malloc(len + 1);
	size_t i;

	if (!d)
		return NULL;
	for (i = 0; i < len; i++)
		d[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	d[len] = '\0';
	return d;
}

static int add_warning(struct kpgo_buildlog *log, enum kpgo_warn_kind kind, const char *obj,
		       size_t obj_len, const char *where, size_t where_len, const char *fn,
		       size_t fn_len, const char *msg, size_t msg_len)
{
	struct kpgo_warning *w;

	if (KPGO_ALLOC_GROW(log->w, log->n + 1, log->alloc))
		return -ENOMEM;
	w = &log->w[log->n];
	w->kind = kind;
	w->obj = dup_clean(obj, obj_len);
	w->where = dup_clean(where, where_len);
	w->fn = dup_clean(fn, fn_len);
	w->msg = dup_clean(msg, msg_len);
	if (!w->obj || !w->where || !w->fn || !w->msg) {
		free(w->obj);
		free(w->where);
		free(w->fn);
		free(w->msg);
		return -ENOMEM;
	}
	log->n++;
	return 0;
}

bool kpgo_buildlog_cc_line(const char *s, size_t len, size_t *obj)
{
	/* kbuild's quiet_cmd_cc_o_c: "  CC      x.o", "  CC [M]  x.o" */
	size_t p = 4;

	if (!starts_with(s, len, "  CC"))
		return false;
	if (starts_with(s + p, len - p, " [M] "))
		p += 4;
	if (p >= len || s[p] != ' ')
		return false;
	while (p < len && s[p] == ' ')
		p++;
	*obj = p;
	return true;
}

/* Turns GCC's UTF-8 quotation marks (U+2018, U+2019) into apostrophes, in place. */
static size_t ascii_quotes(char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (i + 2 < len && (unsigned char)s[i] == 0xe2 && (unsigned char)s[i + 1] == 0x80 &&
		    ((unsigned char)s[i + 2] == 0x98 || (unsigned char)s[i + 2] == 0x99)) {
			s[o++] = '\'';
			i += 2;
		} else {
			s[o++] = s[i];
		}
	}
	s[o] = '\0';
	return o;
}

/* The "'/abs/objtree/dir/x.gcda' profile count data file not found" object. */
static void noobj_object(const struct kpgo_buildlog *log, const char *msg, size_t msg_len,
			 const char **obj, size_t *obj_len, bool *gcda)
{
	const char *end;
	size_t i;

	*gcda = false;
	if (msg_len < 2 || msg[0] != '\'' || !(end = memchr(msg + 1, '\'', msg_len - 1)))
		return;
	*obj = msg + 1;
	*obj_len = (size_t)(end - *obj);
	for (i = 0; i < log->prefixes.n; i++) {
		const char *pre = log->prefixes.items[i];

		if (starts_with(*obj, *obj_len, pre)) {
			*obj += strlen(pre);
			*obj_len -= strlen(pre);
			break;
		}
	}
	*gcda = ends_with(*obj, *obj_len, ".gcda");
}

static int parse_line(void *ctx, char *s, size_t len)
{
	struct kpgo_buildlog *log = ctx;
	static const char *const suffixes[] = { " [-Wcoverage-mismatch]", " [-Wmissing-profile]" };
	const char *where, *msg, *sep, *fn = "-", *obj;
	size_t where_len, msg_len, fn_len = 1, obj_len, i, q;
	enum kpgo_warn_kind kind;
	struct strbuf noobj = STRBUF_INIT;
	int r;

	if (len && s[len - 1] == '\r')
		s[--len] = '\0';
	len = ascii_quotes(s, len);
	if (starts_with(s, len, "  CC")) {
		size_t p;

		if (!kpgo_buildlog_cc_line(s, len, &p))
			return 0;
		log->cc_lines++;
		strbuf_reset(&log->obj);
		return strbuf_add(&log->obj, s + p, len - p);
	}
	for (i = 0; i < 2 && !ends_with(s, len, suffixes[i]); i++)
		;
	if (i == 2)
		return 0;
	sep = memmem(s, len, WARN_SEP, strlen(WARN_SEP));
	where = s;
	where_len = sep ? (size_t)(sep - s) : len;
	sep = find_last(s, len, WARN_SEP);
	msg = sep ? sep + strlen(WARN_SEP) : s;
	msg_len = (size_t)(s + len - msg);
	if (msg_len >= strlen(suffixes[i])) /* else it overlaps ": warning: " */
		msg_len -= strlen(suffixes[i]);

	/* The first "function 'NAME'" names the function. */
	for (q = 0; q + 10 <= msg_len; q++) {
		const char *end;

		if (memcmp(msg + q, "function '", 10))
			continue;
		end = memchr(msg + q + 10, '\'', msg_len - q - 10);
		if (end) {
			fn = msg + q + 10;
			fn_len = (size_t)(end - fn);
			break;
		}
	}
	obj = log->obj.buf;
	obj_len = log->obj.len;
	if (starts_with(msg, msg_len, "the control flow of function ") ||
	    starts_with(msg, msg_len, "number of counters in profile data for function ")) {
		kind = KPGO_WARN_DROPPED;
	} else if (starts_with(msg, msg_len, "source locations for function ")) {
		kind = KPGO_WARN_LINES;
	} else if (msg_len >= strlen("profile for function ") + strlen(" not found in profile data") &&
		   starts_with(msg, msg_len, "profile for function ") &&
		   ends_with(msg, msg_len, " not found in profile data")) {
		kind = KPGO_WARN_NOFUNC;
	} else if (ends_with(msg, msg_len, "profile count data file not found")) {
		bool gcda;

		kind = KPGO_WARN_NOOBJ;
		fn = "-";
		fn_len = 1;
		noobj_object(log, msg, msg_len, &obj, &obj_len, &gcda);
		if (gcda) {
			r = strbuf_add(&noobj, obj, obj_len - 5);
			r = r ? r : strbuf_addstr(&noobj, ".o");
			if (r) {
				strbuf_release(&noobj);
				return r;
			}
			obj = noobj.buf;
			obj_len = noobj.len;
		}
	} else {
		kind = KPGO_WARN_OTHER;
	}
	r = add_warning(log, kind, obj, obj_len, where, where_len, fn, fn_len, msg,
			kind == KPGO_WARN_OTHER ? msg_len : 0);
	strbuf_release(&noobj);
	return r;
}

int kpgo_buildlog_feed(struct kpgo_buildlog *log, const void *data, size_t len,
		       struct kpgo_error *err)
{
	return kpgo_lines_feed(&log->in, data, len, err);
}

static int cmp_warning(const void *a, const void *b)
{
	const struct kpgo_warning *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->obj, y->obj)) || (c = strcmp(x->where, y->where)) ||
	    (c = strcmp(x->fn, y->fn)))
		return c;
	return strcmp(x->msg, y->msg);
}

/* Sorts the warnings and removes repeats. */
static int sort_warnings(struct kpgo_buildlog *log)
{
	size_t i, o;

	if (log->n > 1)
		qsort(log->w, log->n, sizeof(*log->w), cmp_warning);
	for (i = 0, o = 0; i < log->n; i++) {
		if (o && !cmp_warning(&log->w[o - 1], &log->w[i])) {
			free(log->w[i].obj);
			free(log->w[i].where);
			free(log->w[i].fn);
			free(log->w[i].msg);
			continue;
		}
		log->w[o++] = log->w[i];
	}
	log->n = o;
	return 0;
}

int kpgo_buildlog_finish(struct kpgo_buildlog *log, struct kpgo_error *err)
{
	int r = kpgo_lines_finish(&log->in, err);

	return r ? r : sort_warnings(log);
}

int kpgo_buildlog_read(struct kpgo_buildlog *log, const char *path, struct kpgo_error *err)
{
	int r = kpgo_lines_read_file(&log->in, path, err);

	return r ? r : sort_warnings(log);
}

static int cmp_obj_fn(const void *a, const void *b)
{
	const struct kpgo_warning *x = *(const struct kpgo_warning *const *)a;
	const struct kpgo_warning *y = *(const struct kpgo_warning *const *)b;
	int c = strcmp(x->obj, y->obj);

	return c ? c : strcmp(x->fn, y->fn);
}

/* First warning of @kind (the log is sorted by kind first). */
static size_t kind_start(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind)
{
	size_t lo = 0, hi = log->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (log->w[mid].kind < kind)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool kpgo_buildlog_has(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind, const char *obj,
		       const char *fn)
{
	size_t lo = kind_start(log, kind), hi = log->n, i;

	/* The first warning of @kind for @obj, then a walk over that object's. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kpgo_warning *w = &log->w[mid];

		if (w->kind < kind || (w->kind == kind && strcmp(w->obj, obj) < 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < log->n && log->w[i].kind == kind && !strcmp(log->w[i].obj, obj); i++)
		if (!strcmp(log->w[i].fn, fn))
			return true;
	return false;
}

int kpgo_buildlog_count(const struct kpgo_buildlog *log, enum kpgo_warn_kind kind, size_t *count)
{
	size_t start = kind_start(log, kind), end = start, i, n = 0;
	const struct kpgo_warning **v;

	while (end < log->n && log->w[end].kind == kind)
		end++;
	*count = 0;
	if (start == end)
		return 0;
	v = malloc((end - start) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = start; i < end; i++)
		v[i - start] = &log->w[i];
	qsort(v, end - start, sizeof(*v), cmp_obj_fn);
	for (i = 0; i < end - start; i++) {
		if (i && !cmp_obj_fn(&v[i - 1], &v[i]))
			continue;
		if (kind == KPGO_WARN_LINES &&
		    kpgo_buildlog_has(log, KPGO_WARN_DROPPED, v[i]->obj, v[i]->fn))
			continue;
		n++;
	}
	free(v);
	*count = n;
	return 0;
}
