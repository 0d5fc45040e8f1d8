// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.h: the strict reader of gcov's JSON. Grammar, strings and numbers,
 * what it refuses, nesting bounds, sequences of documents, and that every
 * prefix of a valid document fails cleanly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tap.h"

static int parse(const char *s, struct kpgo_json *j, struct kpgo_error *err)
{
	return kpgo_json_parse(s, strlen(s), NULL, j, err);
}

static bool empty(const struct kpgo_json *j)
{
	return j->type == KPGO_JSON_NULL && !j->v && !j->k && !j->s && j->n == 0;
}

static void test_values(void)
{
	struct kpgo_json j;
	struct kpgo_error err;
	const struct kpgo_json *v;

	is_int(parse(" {\"a\": 1, \"b\": [true, false, null], \"c\": \"x\", \"d\": {}} ", &j, &err),
	       0, "an object of every kind of value");
	ok(j.type == KPGO_JSON_OBJECT && j.n == 4, "four members");
	is_str(j.k[0], "a", "keys in document order");
	is_str(j.k[3], "d", "last key");
	v = kpgo_json_get(&j, "a");
	ok(v && v->type == KPGO_JSON_NUMBER && v->is_int && v->i == 1, "integer member");
	v = kpgo_json_get(&j, "b");
	ok(v && v->type == KPGO_JSON_ARRAY && v->n == 3 && v->v[0].type == KPGO_JSON_TRUE &&
		   v->v[1].type == KPGO_JSON_FALSE && v->v[2].type == KPGO_JSON_NULL && !v->k,
	   "array of literals");
	v = kpgo_json_get(&j, "c");
	ok(v && v->type == KPGO_JSON_STRING && v->len == 1 && !strcmp(v->s, "x"), "string member");
	v = kpgo_json_get(&j, "d");
	ok(v && v->type == KPGO_JSON_OBJECT && v->n == 0, "empty object");
	ok(!kpgo_json_get(&j, "e"), "absent key: NULL");
	ok(!kpgo_json_get(kpgo_json_get(&j, "b"), "a"), "get on an array: NULL");
	ok(!kpgo_json_get(NULL, "a"), "get on NULL: NULL");
	kpgo_json_release(&j);
	ok(empty(&j), "release leaves an empty value");

	is_int(parse("[]", &j, &err), 0, "empty array");
	ok(j.type == KPGO_JSON_ARRAY && j.n == 0, "no members");
	kpgo_json_release(&j);
	is_int(parse("\"\"", &j, &err), 0, "empty string");
	ok(j.type == KPGO_JSON_STRING && j.s && j.s[0] == '\0' && j.len == 0, "an owned \"\"");
	kpgo_json_release(&j);
	is_int(parse("{\"\": 0}", &j, &err), 0, "empty key");
	ok(kpgo_json_get(&j, "") != NULL, "found by \"\"");
	kpgo_json_release(&j);
	is_str(kpgo_json_type_name(KPGO_JSON_TRUE), "boolean", "type names");
}

static void test_numbers(void)
{
	static const struct {
		const char *text;
		bool is_int;
		int64_t i;
	} t[] = {
		{ "0", true, 0 },
		{ "-0", true, 0 },
		{ "42", true, 42 },
		{ "-17", true, -17 },
		{ "9223372036854775807", true, INT64_MAX },
		{ "-9223372036854775808", true, INT64_MIN },
		{ "9223372036854775808", false, 0 },
		{ "-9223372036854775809", false, 0 },
		{ "123456789012345678901234567890", false, 0 },
		{ "1.5", false, 0 },
		{ "1e3", false, 0 },
		{ "-2.5E-3", false, 0 },
		{ "0.0", false, 0 },
	};
	struct kpgo_json j;
	struct kpgo_error err;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = parse(t[i].text, &j, &err);

		ok(r == 0 && j.type == KPGO_JSON_NUMBER && j.is_int == t[i].is_int &&
			   (!t[i].is_int || j.i == t[i].i),
		   "number '%s' is %s", t[i].text, t[i].is_int ? "an integer" : "no int64");
		kpgo_json_release(&j);
	}
}

static void test_strings(void)
{
	struct kpgo_json j;
	struct kpgo_error err;

	is_int(parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", &j, &err), 0, "the short escapes");
	ok(j.len == 12 && !memcmp(j.s, "a\"b\\c/d\b\f\n\r\t", 13), "decoded");
	kpgo_json_release(&j);
	is_int(parse("\"\\u00e9\\u20AC\"", &j, &err), 0, "\\u escapes");
	is_str(j.s, "\xc3\xa9\xe2\x82\xac", "as UTF-8");
	kpgo_json_release(&j);
	is_int(parse("\"\\ud83d\\ude00\"", &j, &err), 0, "a surrogate pair");
	is_str(j.s, "\xf0\x9f\x98\x80", "one 4-byte character");
	kpgo_json_release(&j);
	is_int(parse("\"/t\xc3\xa9st/\xff.c\"", &j, &err), 0, "bytes above 0x7f pass as they are");
	is_str(j.s, "/t\xc3\xa9st/\xff.c", "unchanged");
	kpgo_json_release(&j);
}

static void test_refused(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} t[] = {
		{ "", "unexpected end of input at offset 0" },
		{ "   ", "unexpected end of input at offset 3" },
		{ "[1,]", "unexpected character at offset 3" },
		{ "{\"a\":1,}", "expected a string key at offset 7" },
		{ "[1 2]", "expected ',' or ']' at offset 3" },
		{ "{\"a\" 1}", "expected ':' at offset 5" },
		{ "{\"a\":1 \"b\":2}", "expected ',' or '}' at offset 7" },
		{ "{a:1}", "expected a string key at offset 1" },
		{ "['a']", "unexpected character at offset 1" },
		{ "01", "leading zero in number at offset 1" },
		{ "-", "bad number at offset 1" },
		{ ".5", "unexpected character at offset 0" },
		{ "1.", "bad fraction in number at offset 2" },
		{ "1e", "bad exponent in number at offset 2" },
		{ "+1", "unexpected character at offset 0" },
		{ "tru", "unexpected character at offset 0" },
		{ "nul", "unexpected character at offset 0" },
		{ "NaN", "unexpected character at offset 0" },
		{ "[1] // c", "trailing data after the document at offset 4" },
		{ "{} {}", "trailing data after the document at offset 3" },
		{ "\"abc", "unterminated string at offset 4" },
		{ "\"a\nb\"", "control character in string at offset 2" },
		{ "\"\\x\"", "bad escape in string at offset 2" },
		{ "\"\\u12G4\"", "bad \\u escape at offset 3" },
		{ "\"\\u12", "truncated \\u escape at offset 3" },
		{ "\"\\u0000\"", "\\u0000 in string at offset 7" },
		{ "\"\\ud800\"", "lone high surrogate at offset 7" },
		{ "\"\\ud800\\u0041\"", "bad surrogate pair at offset 13" },
		{ "\"\\udc00\"", "lone low surrogate at offset 7" },
		{ "{\"a\":1,\"b\":2,\"a\":3}", "key 'a' twice in an object before offset 19" },
		{ "[", "unexpected end of input at offset 1" },
		{ "[1", "unterminated array at offset 2" },
		{ "{\"a\":1", "unterminated object at offset 6" },
	};
	struct kpgo_json j;
	struct kpgo_error err;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = parse(t[i].text, &j, &err);

		ok(r == -EINVAL && empty(&j) && !strcmp(err.msg, t[i].msg), "refused: %s", t[i].msg);
		if (strcmp(err.msg, t[i].msg))
			diag("got '%s'", err.msg);
	}
}

static void test_nesting(void)
{
	char deep[2 * (KPGO_JSON_DEPTH_MAX + 1) + 1];
	struct kpgo_json j;
	struct kpgo_error err;
	size_t n = KPGO_JSON_DEPTH_MAX;

	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	is_int(parse(deep, &j, &err), 0, "%zu nested arrays", n);
	kpgo_json_release(&j);
	n++;
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	is_int(parse(deep, &j, &err), -EINVAL, "%zu are refused", n);
	is_str(err.msg, "nested too deeply at offset 64", "and why");
	ok(empty(&j), "nothing kept");
}

static void test_sequence(void)
{
	const char *text = "{\"data_file\": \"a.gcda\"}\n[1, 2]\n  7\n";
	struct kpgo_json j;
	struct kpgo_error err;
	size_t pos = 0, used, docs = 0;

	while (pos < strlen(text)) {
		if (kpgo_json_parse(text + pos, strlen(text) - pos, &used, &j, &err))
			break;
		docs++;
		pos += used;
		kpgo_json_release(&j);
	}
	is_int(docs, 3, "three documents, one after the other");
	is_int(pos, strlen(text), "all bytes used, the whitespace after each included");
	is_int(kpgo_json_parse("[1]x", 4, &used, &j, &err), 0, "a document before other bytes");
	is_int(used, 3, "used says where it ends");
	kpgo_json_release(&j);
	is_int(kpgo_json_parse("[1]", 2, NULL, &j, &err), -EINVAL,
	       "the length bounds the text, not a NUL");
}

/* Every prefix of a real document is refused, with nothing left allocated. */
static void test_prefixes(void)
{
	const char *doc =
		"{\"gcc_version\": \"12.2.0\", \"files\": [{\"lines\": [{\"branches\": [], "
		"\"count\": 1601, \"line_number\": 14, \"unexecuted_block\": false, "
		"\"function_name\": \"main\"}], \"functions\": [{\"blocks\": 12, \"end_column\": 1, "
		"\"start_line\": 11, \"name\": \"main\", \"execution_count\": 1, \"end_line\": 22}], "
		"\"file\": \"main.c\"}], \"format_version\": \"1\", "
		"\"current_working_directory\": \"/tmp/x\", \"data_file\": \"main.gcda\"}";
	struct kpgo_json j;
	struct kpgo_error err;
	size_t i, n = strlen(doc), bad = 0;

	for (i = 0; i < n; i++) {
		if (kpgo_json_parse(doc, i, NULL, &j, &err) != -EINVAL || !empty(&j))
			bad++;
		kpgo_json_release(&j);
	}
	is_int(bad, 0, "all %zu proper prefixes refused", n);
	is_int(kpgo_json_parse(doc, n, NULL, &j, &err), 0, "the whole document parses");
	kpgo_json_release(&j);
}

int main(void)
{
	test_values();
	test_numbers();
	test_strings();
	test_refused();
	test_nesting();
	test_sequence();
	test_prefixes();
	return done_testing();
}
