// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"

struct parser {
	const char *t;
	size_t len;
	size_t pos;
	unsigned depth;
	struct kpgo_error *err;
	struct strbuf scratch; /* the string being decoded */
};

static int fail(struct parser *p, const char *what)
{
	return kpgo_error_set(p->err, -EINVAL, "%s at offset %zu", what, p->pos);
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->t[p->pos] == ' ' || p->t[p->pos] == '\t' ||
				   p->t[p->pos] == '\n' || p->t[p->pos] == '\r'))
		p->pos++;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (p->len - p->pos < 4)
		return fail(p, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		char c = p->t[p->pos + i];

		v <<= 4;
		if (is_digit(c))
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	p->pos += 4;
	*out = v;
	return 0;
}

static int add_utf8(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return strbuf_add(sb, b, n);
}

/*
 * At the opening quote; the decoded string is handed out as an exact-size
 * copy in *@out (gcov's documents hold millions of short strings).
 */
static int parse_string(struct parser *p, char **out, size_t *len)
{
	struct strbuf *sb = &p->scratch;
	int r;

	strbuf_reset(sb);
	p->pos++;
	for (;;) {
		size_t start = p->pos;
		unsigned char c;

		/* The run of plain bytes, copied at once. */
		while (p->pos < p->len && p->t[p->pos] != '"' && p->t[p->pos] != '\\' &&
		       (unsigned char)p->t[p->pos] >= 0x20)
			p->pos++;
		if (strbuf_add(sb, p->t + start, p->pos - start))
			return kpgo_error_set(p->err, -ENOMEM, "out of memory");
		if (p->pos >= p->len)
			return fail(p, "unterminated string");
		c = (unsigned char)p->t[p->pos];
		if (c == '"') {
			p->pos++;
			*out = malloc(sb->len + 1);
			if (!*out)
				return kpgo_error_set(p->err, -ENOMEM, "out of memory");
			memcpy(*out, sb->buf, sb->len + 1);
			if (len)
				*len = sb->len;
			return 0;
		}
		if (c < 0x20)
			return fail(p, "control character in string");
		/* A backslash. */
		if (++p->pos >= p->len)
			return fail(p, "unterminated string");
		c = (unsigned char)p->t[p->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/': r = strbuf_addch(sb, (char)c); break;
		case 'b': r = strbuf_addch(sb, '\b'); break;
		case 'f': r = strbuf_addch(sb, '\f'); break;
		case 'n': r = strbuf_addch(sb, '\n'); break;
		case 'r': r = strbuf_addch(sb, '\r'); break;
		case 't': r = strbuf_addch(sb, '\t'); break;
		case 'u': {
			unsigned cp, lo;

			if ((r = hex4(p, &cp)))
				return r;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(p, "lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->len - p->pos < 2 || p->t[p->pos] != '\\' ||
				    p->t[p->pos + 1] != 'u')
					return fail(p, "lone high surrogate");
				p->pos += 2;
				if ((r = hex4(p, &lo)))
					return r;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "bad surrogate pair");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp == 0)
				return fail(p, "\\u0000 in string");
			r = add_utf8(sb, cp);
			break;
		}
		default: p->pos--; return fail(p, "bad escape in string");
		}
		if (r)
			return kpgo_error_set(p->err, -ENOMEM, "out of memory");
	}
}

static int parse_number(struct parser *p, struct kpgo_json *out)
{
	bool neg = false, integral = true, overflow = false;
	uint64_t mag = 0;

	if (p->t[p->pos] == '-') {
		neg = true;
		p->pos++;
	}
	if (p->pos >= p->len || !is_digit(p->t[p->pos]))
		return fail(p, "bad number");
	if (p->t[p->pos] == '0') {
		p->pos++;
		if (p->pos < p->len && is_digit(p->t[p->pos]))
			return fail(p, "leading zero in number");
	} else {
		while (p->pos < p->len && is_digit(p->t[p->pos])) {
			unsigned d = (unsigned)(p->t[p->pos++] - '0');

			if (mag > (UINT64_MAX - d) / 10)
				overflow = true;
			else
				mag = mag * 10 + d;
		}
	}
	if (p->pos < p->len && p->t[p->pos] == '.') {
		integral = false;
		p->pos++;
		if (p->pos >= p->len || !is_digit(p->t[p->pos]))
			return fail(p, "bad fraction in number");
		while (p->pos < p->len && is_digit(p->t[p->pos]))
			p->pos++;
	}
	if (p->pos < p->len && (p->t[p->pos] == 'e' || p->t[p->pos] == 'E')) {
		integral = false;
		p->pos++;
		if (p->pos < p->len && (p->t[p->pos] == '+' || p->t[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || !is_digit(p->t[p->pos]))
			return fail(p, "bad exponent in number");
		while (p->pos < p->len && is_digit(p->t[p->pos]))
			p->pos++;
	}
	out->type = KPGO_JSON_NUMBER;
	if (integral && !overflow && (neg ? mag <= (uint64_t)INT64_MAX + 1 : mag <= INT64_MAX)) {
		out->is_int = true;
		out->i = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) :
			       (int64_t)mag;
	}
	return 0;
}

static int literal(struct parser *p, const char *word, enum kpgo_json_type t, struct kpgo_json *out)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->t + p->pos, word, n))
		return fail(p, "unexpected character");
	p->pos += n;
	out->type = t;
	return 0;
}

static int parse_value(struct parser *p, struct kpgo_json *out);

/* Grows an ARRAY or OBJECT by one member; returns the new member, or NULL. */
static struct kpgo_json *push(struct kpgo_json *j, size_t *alloc, char *key)
{
	size_t av = *alloc, ak = *alloc;

	/* The keys grow with the values, to the same capacity. */
	if (KPGO_ALLOC_GROW(j->v, j->n + 1, av) ||
	    (j->type == KPGO_JSON_OBJECT && KPGO_ALLOC_GROW(j->k, j->n + 1, ak)))
		return NULL;
	*alloc = av;
	memset(&j->v[j->n], 0, sizeof(j->v[j->n]));
	if (j->type == KPGO_JSON_OBJECT)
		j->k[j->n] = key;
	return &j->v[j->n++];
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_unique_keys(struct parser *p, const struct kpgo_json *j)
{
	char **keys;
	size_t i;
	int r = 0;

	if (j->n < 2)
		return 0;
	keys = malloc(j->n * sizeof(*keys));
	if (!keys)
		return kpgo_error_set(p->err, -ENOMEM, "out of memory");
	memcpy(keys, j->k, j->n * sizeof(*keys));
	qsort(keys, j->n, sizeof(*keys), cmp_key);
	for (i = 1; i < j->n && !r; i++)
		if (!strcmp(keys[i - 1], keys[i]))
			r = kpgo_error_set(p->err, -EINVAL,
					   "key '%.200s' twice in an object before offset %zu",
					   keys[i], p->pos);
	free(keys);
	return r;
}

static int parse_container(struct parser *p, struct kpgo_json *out, bool object)
{
	char close = object ? '}' : ']';
	size_t alloc = 0;
	int r;

	if (++p->depth > KPGO_JSON_DEPTH_MAX)
		return fail(p, "nested too deeply");
	out->type = object ? KPGO_JSON_OBJECT : KPGO_JSON_ARRAY;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->t[p->pos] == close) {
		p->pos++;
		p->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		struct kpgo_json *m;

		skip_ws(p);
		if (object) {
			if (p->pos >= p->len || p->t[p->pos] != '"')
				return fail(p, "expected a string key");
			if ((r = parse_string(p, &key, NULL)))
				return r;
			skip_ws(p);
			if (p->pos >= p->len || p->t[p->pos] != ':') {
				free(key);
				return fail(p, "expected ':'");
			}
			p->pos++;
		}
		m = push(out, &alloc, key);
		if (!m) {
			free(key);
			return kpgo_error_set(p->err, -ENOMEM, "out of memory");
		}
		if ((r = parse_value(p, m)))
			return r;
		skip_ws(p);
		if (p->pos >= p->len)
			return fail(p, object ? "unterminated object" : "unterminated array");
		if (p->t[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->t[p->pos] != close)
			return fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		p->pos++;
		break;
	}
	p->depth--;
	return object ? check_unique_keys(p, out) : 0;
}

static int parse_value(struct parser *p, struct kpgo_json *out)
{
	int r;

	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "unexpected end of input");
	switch (p->t[p->pos]) {
	case '{': return parse_container(p, out, true);
	case '[': return parse_container(p, out, false);
	case '"':
		r = parse_string(p, &out->s, &out->len);
		if (!r)
			out->type = KPGO_JSON_STRING;
		return r;
	case 't': return literal(p, "true", KPGO_JSON_TRUE, out);
	case 'f': return literal(p, "false", KPGO_JSON_FALSE, out);
	case 'n': return literal(p, "null", KPGO_JSON_NULL, out);
	default:
		if (p->t[p->pos] == '-' || is_digit(p->t[p->pos]))
			return parse_number(p, out);
		return fail(p, "unexpected character");
	}
}

int kpgo_json_parse(const char *text, size_t len, size_t *used, struct kpgo_json *out,
		    struct kpgo_error *err)
{
	struct parser p = { .t = text, .len = len, .err = err, .scratch = STRBUF_INIT };
	int r;

	memset(out, 0, sizeof(*out));
	r = parse_value(&p, out);
	strbuf_release(&p.scratch);
	if (!r) {
		skip_ws(&p);
		if (!used && p.pos != p.len)
			r = fail(&p, "trailing data after the document");
	}
	if (r) {
		kpgo_json_release(out);
		return r;
	}
	if (used)
		*used = p.pos;
	return 0;
}

void kpgo_json_release(struct kpgo_json *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++) {
		kpgo_json_release(&j->v[i]);
		if (j->k)
			free(j->k[i]);
	}
	free(j->v);
	free(j->k);
	free(j->s);
	memset(j, 0, sizeof(*j));
}

const struct kpgo_json *kpgo_json_get(const struct kpgo_json *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != KPGO_JSON_OBJECT)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->k[i], key))
			return &obj->v[i];
	return NULL;
}

const char *kpgo_json_type_name(enum kpgo_json_type t)
{
	switch (t) {
	case KPGO_JSON_NULL: return "null";
	case KPGO_JSON_FALSE:
	case KPGO_JSON_TRUE: return "boolean";
	case KPGO_JSON_NUMBER: return "number";
	case KPGO_JSON_STRING: return "string";
	case KPGO_JSON_ARRAY: return "array";
	case KPGO_JSON_OBJECT: return "object";
	}
	return "value";
}

/* Member @key of type @t, or -EINVAL with what is wrong in @err. */
static int member(const struct kpgo_json *obj, const char *key, enum kpgo_json_type t,
		  const struct kpgo_json **v, struct kpgo_error *err)
{
	*v = kpgo_json_get(obj, key);
	if (!*v)
		return kpgo_error_set(err, -EINVAL, "'%s' is missing", key);
	if ((*v)->type != t)
		return kpgo_error_set(err, -EINVAL, "'%s' is %s %s, not %s %s", key,
				      (*v)->type >= KPGO_JSON_ARRAY ? "an" : "a",
				      kpgo_json_type_name((*v)->type),
				      t >= KPGO_JSON_ARRAY ? "an" : "a", kpgo_json_type_name(t));
	return 0;
}

size_t kpgo_json_utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* No control characters, and UTF-8: what kpgo's writer writes. */
static bool text_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = kpgo_json_utf8_len(p);

		if (!n || *p < 0x20 || *p == 0x7f)
			return false;
		p += n;
	}
	return true;
}

int kpgo_json_get_u64(const struct kpgo_json *obj, const char *key, uint64_t *v,
		      struct kpgo_error *err)
{
	const struct kpgo_json *j;
	int r = member(obj, key, KPGO_JSON_NUMBER, &j, err);

	if (r)
		return r;
	if (!j->is_int || j->i < 0)
		return kpgo_error_set(err, -EINVAL, "'%s' is not a count (an integer, 0 or more)",
				      key);
	*v = (uint64_t)j->i;
	return 0;
}

int kpgo_json_get_text(const struct kpgo_json *obj, const char *key, bool nullable, const char **s,
		       struct kpgo_error *err)
{
	const struct kpgo_json *j = kpgo_json_get(obj, key);
	int r;

	if (nullable && j && j->type == KPGO_JSON_NULL) {
		*s = NULL;
		return 0;
	}
	r = member(obj, key, KPGO_JSON_STRING, &j, err);
	if (r)
		return r;
	if (!text_ok(j->s))
		return kpgo_error_set(err, -EINVAL, "'%s' has control characters or is not UTF-8",
				      key);
	*s = j->s;
	return 0;
}

int kpgo_json_get_textlist(const struct kpgo_json *obj, const char *key, struct kpgo_strlist *l,
			   struct kpgo_error *err)
{
	const struct kpgo_json *j;
	int r = member(obj, key, KPGO_JSON_ARRAY, &j, err);
	size_t i;

	for (i = 0; !r && i < j->n; i++) {
		if (j->v[i].type != KPGO_JSON_STRING || !text_ok(j->v[i].s))
			return kpgo_error_set(err, -EINVAL, "'%s' item %zu is not text", key, i + 1);
		if (kpgo_strlist_add(l, j->v[i].s))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	return r;
}

int kpgo_json_doc_parse(const char *text, size_t len, kpgo_json_doc_fn fn, void *ctx,
			struct kpgo_error *err)
{
	struct kpgo_json doc;
	int r = kpgo_json_parse(text, len, NULL, &doc, err);

	if (r)
		return r;
	r = fn(ctx, &doc, err);
	kpgo_json_release(&doc);
	return r;
}

int kpgo_json_doc_read(const char *path, size_t max, kpgo_json_doc_fn fn, void *ctx,
		       struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r = kpgo_read_file(path, &sb, max);

	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "larger than %zu MiB", max >> 20);
	else if (r)
		r = kpgo_error_set(err, r, "%s", strerror(-r));
	else
		r = kpgo_json_doc_parse(sb.buf, sb.len, fn, ctx, err);
	strbuf_release(&sb);
	return r;
}
