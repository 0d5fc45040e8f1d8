// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json-writer.h"

void kpgo_jw_init(struct kpgo_json_writer *w, struct strbuf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

int kpgo_json_quote(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int r = strbuf_addch(out, '"');

	while (!r && *p) {
		size_t n;

		switch (*p) {
		case '"':
			r = strbuf_addstr(out, "\\\"");
			p++;
			continue;
		case '\\':
			r = strbuf_addstr(out, "\\\\");
			p++;
			continue;
		case '\b':
			r = strbuf_addstr(out, "\\b");
			p++;
			continue;
		case '\f':
			r = strbuf_addstr(out, "\\f");
			p++;
			continue;
		case '\n':
			r = strbuf_addstr(out, "\\n");
			p++;
			continue;
		case '\r':
			r = strbuf_addstr(out, "\\r");
			p++;
			continue;
		case '\t':
			r = strbuf_addstr(out, "\\t");
			p++;
			continue;
		}
		if (*p < 0x20) {
			r = strbuf_addf(out, "\\u%04x", *p);
			p++;
			continue;
		}
		n = kpgo_json_utf8_len(p);
		if (n) {
			r = strbuf_add(out, p, n);
			p += n;
		} else {
			/* Not UTF-8 (a Latin-1 file name): the replacement character. */
			r = strbuf_addstr(out, "\\ufffd");
			p++;
		}
	}
	return r ? r : strbuf_addch(out, '"');
}

static void fail(struct kpgo_json_writer *w, int err)
{
	if (!w->err)
		w->err = err;
}

static bool in_inline(const struct kpgo_json_writer *w)
{
	return w->depth && w->level[w->depth - 1].inline_;
}

static int indent(struct kpgo_json_writer *w, unsigned depth)
{
	int r = strbuf_addch(w->out, '\n');
	unsigned i;

	for (i = 0; !r && i < depth; i++)
		r = strbuf_addstr(w->out, "  ");
	return r;
}

/* The separator, indentation and key before a value; false after an error. */
static bool value_start(struct kpgo_json_writer *w, const char *key)
{
	int r = 0;

	if (w->err)
		return false;
	if (!w->depth) {
		if (key || w->done) {
			fail(w, -EINVAL);
			return false;
		}
		w->done = true;
		return true;
	}
	if (w->level[w->depth - 1].object != (key != NULL)) {
		fail(w, -EINVAL);
		return false;
	}
	if (!w->level[w->depth - 1].empty)
		r = strbuf_addch(w->out, ',');
	if (!r && in_inline(w))
		r = w->level[w->depth - 1].empty ? 0 : strbuf_addch(w->out, ' ');
	else if (!r)
		r = indent(w, w->depth);
	w->level[w->depth - 1].empty = false;
	if (!r && key)
		r = kpgo_json_quote(w->out, key);
	if (!r && key)
		r = strbuf_addstr(w->out, ": ");
	if (r) {
		fail(w, r);
		return false;
	}
	return true;
}

static void begin(struct kpgo_json_writer *w, const char *key, bool object, bool inline_)
{
	int r;

	if (!w->err && w->depth >= KPGO_JSON_DEPTH_MAX)
		fail(w, -EINVAL);
	inline_ = inline_ || in_inline(w);
	if (!value_start(w, key))
		return;
	r = strbuf_addch(w->out, object ? '{' : '[');
	if (r) {
		fail(w, r);
		return;
	}
	w->level[w->depth].object = object;
	w->level[w->depth].inline_ = inline_;
	w->level[w->depth].empty = true;
	w->depth++;
}

void kpgo_jw_object_begin(struct kpgo_json_writer *w, const char *key)
{
	begin(w, key, true, false);
}

void kpgo_jw_object_begin_inline(struct kpgo_json_writer *w, const char *key)
{
	begin(w, key, true, true);
}

void kpgo_jw_array_begin(struct kpgo_json_writer *w, const char *key)
{
	begin(w, key, false, false);
}

void kpgo_jw_array_begin_inline(struct kpgo_json_writer *w, const char *key)
{
	begin(w, key, false, true);
}

void kpgo_jw_end(struct kpgo_json_writer *w)
{
	int r = 0;

	if (w->err)
		return;
	if (!w->depth) {
		fail(w, -EINVAL);
		return;
	}
	w->depth--;
	if (!w->level[w->depth].inline_ && !w->level[w->depth].empty)
		r = indent(w, w->depth);
	if (!r)
		r = strbuf_addch(w->out, w->level[w->depth].object ? '}' : ']');
	if (r)
		fail(w, r);
}

static void put(struct kpgo_json_writer *w, const char *key, const char *text)
{
	int r;

	if (!value_start(w, key))
		return;
	r = strbuf_addstr(w->out, text);
	if (r)
		fail(w, r);
}

void kpgo_jw_string(struct kpgo_json_writer *w, const char *key, const char *s)
{
	int r;

	if (!s) {
		put(w, key, "null");
		return;
	}
	if (!value_start(w, key))
		return;
	r = kpgo_json_quote(w->out, s);
	if (r)
		fail(w, r);
}

void kpgo_jw_u64(struct kpgo_json_writer *w, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	put(w, key, buf);
}

void kpgo_jw_bool(struct kpgo_json_writer *w, const char *key, bool v)
{
	put(w, key, v ? "true" : "false");
}

void kpgo_jw_null(struct kpgo_json_writer *w, const char *key)
{
	put(w, key, "null");
}

static bool number_ok(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		s += strspn(s, "0123456789");
	else
		return false;
	if (*s == '.') {
		size_t n = strspn(s + 1, "0123456789");

		if (!n)
			return false;
		s += 1 + n;
	}
	return !*s;
}

void kpgo_jw_number(struct kpgo_json_writer *w, const char *key, const char *text)
{
	if (!w->err && !number_ok(text)) {
		fail(w, -EINVAL);
		return;
	}
	put(w, key, text);
}

void kpgo_jw_fraction(struct kpgo_json_writer *w, const char *key, double v)
{
	char buf[330]; /* DBL_MAX has 309 digits */

	if (!isfinite(v)) {
		put(w, key, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", v);
	put(w, key, buf);
}

void kpgo_jw_strlist(struct kpgo_json_writer *w, const char *key, const struct kpgo_strlist *l)
{
	size_t i;

	kpgo_jw_array_begin(w, key);
	for (i = 0; i < l->n; i++)
		kpgo_jw_string(w, NULL, l->items[i]);
	kpgo_jw_end(w);
}

int kpgo_jw_finish(struct kpgo_json_writer *w)
{
	int r;

	if (!w->err && (w->depth || !w->done))
		fail(w, -EINVAL);
	if (w->err)
		return w->err;
	r = strbuf_addch(w->out, '\n');
	if (r)
		fail(w, r);
	return w->err;
}
