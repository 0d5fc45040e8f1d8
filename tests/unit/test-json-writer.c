// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json-writer.h: the layout of what is written, escaping (control
 * characters, bytes that are not UTF-8), misuse, and that everything it
 * writes reads back with json.h's strict reader.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "json.h"
#include "tap.h"

/* @sb parses as one document with json.h's reader. */
static bool parses(const struct strbuf *sb, struct kpgo_json *j)
{
	struct kpgo_error err;

	return kpgo_json_parse(sb->buf, sb->len, NULL, j, &err) == 0;
}

static void test_layout(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_strlist l = { 0 }, none = { 0 };
	struct kpgo_json_writer w;
	struct kpgo_json j;
	const struct kpgo_json *v;

	kpgo_strlist_add(&l, "a");
	kpgo_strlist_add(&l, "b");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_string(&w, "file", "p.kpgo");
	kpgo_jw_string(&w, "report", NULL);
	kpgo_jw_u64(&w, "n", UINT64_MAX);
	kpgo_jw_number(&w, "pct", "99.8");
	kpgo_jw_bool(&w, "ok", true);
	kpgo_jw_null(&w, "none");
	kpgo_jw_strlist(&w, "list", &l);
	kpgo_jw_strlist(&w, "empty", &none);
	kpgo_jw_object_begin_inline(&w, "totals");
	kpgo_jw_u64(&w, "objects", 1);
	kpgo_jw_array_begin(&w, "nested"); /* inline inside inline */
	kpgo_jw_u64(&w, NULL, 2);
	kpgo_jw_end(&w);
	kpgo_jw_end(&w);
	kpgo_jw_array_begin(&w, "rows");
	kpgo_jw_object_begin_inline(&w, NULL);
	kpgo_jw_string(&w, "object", "x.gcda");
	kpgo_jw_end(&w);
	kpgo_jw_end(&w);
	kpgo_jw_end(&w);
	is_int(kpgo_jw_finish(&w), 0, "a document of every kind of value");
	is_str(sb.buf,
	       "{\n"
	       "  \"file\": \"p.kpgo\",\n"
	       "  \"report\": null,\n"
	       "  \"n\": 18446744073709551615,\n"
	       "  \"pct\": 99.8,\n"
	       "  \"ok\": true,\n"
	       "  \"none\": null,\n"
	       "  \"list\": [\n"
	       "    \"a\",\n"
	       "    \"b\"\n"
	       "  ],\n"
	       "  \"empty\": [],\n"
	       "  \"totals\": {\"objects\": 1, \"nested\": [2]},\n"
	       "  \"rows\": [\n"
	       "    {\"object\": \"x.gcda\"}\n"
	       "  ]\n"
	       "}\n",
	       "  one member a line, indented; inline containers on one line");
	ok(parses(&sb, &j), "  it reads back");
	v = kpgo_json_get(&j, "n");
	ok(v && v->type == KPGO_JSON_NUMBER, "  the largest u64 is a number");
	v = kpgo_json_get(&j, "list");
	ok(v && v->type == KPGO_JSON_ARRAY && v->n == 2 && !strcmp(v->v[1].s, "b"),
	   "  the list's strings in order");
	kpgo_json_release(&j);

	strbuf_reset(&sb);
	kpgo_jw_init(&w, &sb);
	kpgo_jw_array_begin_inline(&w, NULL);
	kpgo_jw_end(&w);
	is_int(kpgo_jw_finish(&w), 0, "an empty top array");
	is_str(sb.buf, "[]\n", "  written as []");
	strbuf_reset(&sb);
	kpgo_jw_init(&w, &sb);
	kpgo_jw_string(&w, NULL, "x");
	is_int(kpgo_jw_finish(&w), 0, "a string alone");
	is_str(sb.buf, "\"x\"\n", "  is a document too");
	kpgo_strlist_clear(&l);
	strbuf_release(&sb);
}

static void test_escaping(void)
{
	static const struct {
		const char *in, *out, *what;
	} cases[] = {
		{ "plain", "\"plain\"", "plain text as it is" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash escaped" },
		{ "\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"", "the short escapes" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"", "other control characters as \\u00XX" },
		{ "\x7f", "\"\x7f\"", "DEL is allowed in JSON" },
		{ "caf\xc3\xa9 \xe2\x80\x99 \xf0\x9f\x98\x80",
		  "\"caf\xc3\xa9 \xe2\x80\x99 \xf0\x9f\x98\x80\"",
		  "UTF-8 of two, three and four bytes as it is" },
		{ "caf\xe9", "\"caf\\ufffd\"", "a Latin-1 byte becomes U+FFFD" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong form is no UTF-8" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "nor is a surrogate" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "nor past U+10FFFF" },
		{ "\xe2\x80", "\"\\ufffd\\ufffd\"", "a sequence cut short at the end" },
	};
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json j;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		is_int(kpgo_json_quote(&sb, cases[i].in), 0, "quote: %s", cases[i].what);
		is_str(sb.buf, cases[i].out, "  as expected");
		ok(parses(&sb, &j), "  and it reads back");
		kpgo_json_release(&j);
	}
	strbuf_reset(&sb);
	kpgo_json_quote(&sb, "a\"\\\n\x01z");
	ok(parses(&sb, &j) && !strcmp(j.s, "a\"\\\n\x01z"), "escapes read back to the same bytes");
	kpgo_json_release(&j);
	strbuf_release(&sb);
}

static void test_misuse(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;
	unsigned i;

	kpgo_jw_init(&w, &sb);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_u64(&w, NULL, 1);
	is_int(kpgo_jw_finish(&w), -EINVAL, "a member of an object without a key");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_array_begin(&w, NULL);
	kpgo_jw_u64(&w, "k", 1);
	is_int(kpgo_jw_finish(&w), -EINVAL, "an item of an array with a key");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_u64(&w, "k", 1);
	is_int(kpgo_jw_finish(&w), -EINVAL, "a key at the top");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_u64(&w, NULL, 1);
	kpgo_jw_u64(&w, NULL, 2);
	is_int(kpgo_jw_finish(&w), -EINVAL, "two values at the top");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_object_begin(&w, NULL);
	is_int(kpgo_jw_finish(&w), -EINVAL, "an object left open");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_end(&w);
	is_int(kpgo_jw_finish(&w), -EINVAL, "an end too many");
	kpgo_jw_init(&w, &sb);
	is_int(kpgo_jw_finish(&w), -EINVAL, "nothing written");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_array_begin(&w, NULL);
	kpgo_jw_number(&w, NULL, "1e5");
	kpgo_jw_number(&w, NULL, "1.5");
	is_int(w.err, -EINVAL, "a number with an exponent is refused");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_number(&w, NULL, "nan");
	is_int(kpgo_jw_finish(&w), -EINVAL, "nan is no number");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_number(&w, NULL, "01");
	is_int(kpgo_jw_finish(&w), -EINVAL, "nor is a leading zero");
	kpgo_jw_init(&w, &sb);
	kpgo_jw_number(&w, NULL, "-0.5");
	is_int(kpgo_jw_finish(&w), 0, "-0.5 is one");

	kpgo_jw_init(&w, &sb);
	for (i = 0; i < KPGO_JSON_DEPTH_MAX; i++)
		kpgo_jw_array_begin(&w, NULL);
	is_int(w.err, 0, "nesting up to the reader's limit");
	kpgo_jw_array_begin(&w, NULL);
	is_int(w.err, -EINVAL, "one more is refused");
	for (i = 0; i < KPGO_JSON_DEPTH_MAX + 1; i++)
		kpgo_jw_end(&w);
	is_int(kpgo_jw_finish(&w), -EINVAL, "  and the error sticks");
	strbuf_release(&sb);
}

/* Shares and ratios: six decimals, and null for what is not a number. */
static void test_fraction(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;
	struct kpgo_json j;
	const struct kpgo_json *v;

	kpgo_jw_init(&w, &sb);
	kpgo_jw_array_begin(&w, NULL);
	kpgo_jw_fraction(&w, NULL, 0.1234567);
	kpgo_jw_fraction(&w, NULL, -0.5);
	kpgo_jw_fraction(&w, NULL, 0.0 / 0.0);
	kpgo_jw_fraction(&w, NULL, 1.0 / 0.0);
	kpgo_jw_fraction(&w, NULL, 1e300);
	kpgo_jw_end(&w);
	is_int(kpgo_jw_finish(&w), 0, "fractions are written");
	ok(strstr(sb.buf, "0.123457") != NULL, "  rounded to six decimals");
	ok(strstr(sb.buf, "-0.500000") != NULL, "  negative ones keep their sign");
	ok(parses(&sb, &j), "  the document reads back");
	v = j.type == KPGO_JSON_ARRAY && j.n == 5 ? j.v : NULL;
	ok(v && v[2].type == KPGO_JSON_NULL && v[3].type == KPGO_JSON_NULL,
	   "  NaN and infinity are null");
	ok(v && v[4].type == KPGO_JSON_NUMBER, "  the largest finite values stay numbers");
	kpgo_json_release(&j);
	strbuf_release(&sb);
}

int main(void)
{
	test_layout();
	test_escaping();
	test_misuse();
	test_fraction();
	return done_testing();
}
