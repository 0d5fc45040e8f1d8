// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The MANIFEST of a .kpgo archive (manifest.h): KEY=VALUE lines, untrusted
 * when read.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "manifest.h"
#include "tap.h"

/* The keys every archive must have, in the order the good manifest has them. */
static const char *const required[] = {
	MF_FORMAT,    MF_GCOV_VERSION, MF_BUILD_ROOT, MF_RUNS,	  MF_OBJECTS,
	MF_FUNCTIONS, MF_COUNTERS,     MF_SUM_MAX,    MF_PAYLOAD,
};
#define N_REQUIRED (sizeof(required) / sizeof(required[0]))

static const char *const good_values[N_REQUIRED] = {
	"1",	  "B22*",   "/build/linux",
	"3",	  "885",    "31000",
	"250000", "123456", "0000000000000000000000000000000000000000000000000000000000000000",
};

/* A valid manifest, without the key @skip (or none), plus @extra lines. */
static void good_text(struct strbuf *sb, const char *skip, const char *extra)
{
	size_t i;

	for (i = 0; i < N_REQUIRED; i++)
		if (!skip || strcmp(required[i], skip))
			strbuf_addf(sb, "%s=%s\n", required[i], good_values[i]);
	if (extra)
		strbuf_addstr(sb, extra);
}

static int parse_sb(const struct strbuf *sb, struct kpgo_manifest *m, struct kpgo_error *err)
{
	err->msg[0] = '\0';
	return kpgo_manifest_parse(sb->buf, sb->len, m, err);
}

static void check_bad(const char *what, const struct strbuf *sb, int want_r, const char *want)
{
	struct kpgo_manifest m;
	struct kpgo_error err;
	int r;

	memset(&m, 0x5a, sizeof(m));
	r = parse_sb(sb, &m, &err);
	is_int(r, want_r, "%s: refused", what);
	is_str(err.msg, want, "%s: message", what);
	ok(m.n == 0 && m.e == NULL, "%s: manifest left empty", what);
	if (!r)
		kpgo_manifest_release(&m);
}

static void check_bad_extra(const char *what, const char *extra, int want_r, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	good_text(&sb, NULL, extra);
	check_bad(what, &sb, want_r, want);
	strbuf_release(&sb);
}

static void test_parse_format(void)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT, want = STRBUF_INIT;
	struct kpgo_manifest m, m2;
	struct kpgo_error err;
	uint64_t v = 0;
	size_t i;

	strbuf_addstr(&sb, "# written by kpgo\n\n");
	good_text(&sb, NULL, "\n# a comment between\nHOST=a=b c\nWORKLOAD=\nX_FUTURE_KEY_9=kept");
	is_int(parse_sb(&sb, &m, &err), 0, "a valid manifest parses");
	is_str(err.msg, "", "no message");
	is_int(m.n, N_REQUIRED + 3, "comments and blank lines skipped, unknown key kept");
	for (i = 0; i < N_REQUIRED && i < m.n; i++)
		if (strcmp(m.e[i].key, required[i]))
			break;
	is_int(i, N_REQUIRED, "keys kept in file order");
	is_str(kpgo_manifest_get(&m, MF_HOST), "a=b c", "value may hold '=' and spaces");
	is_str(kpgo_manifest_get(&m, MF_WORKLOAD), "", "empty value");
	is_str(kpgo_manifest_get(&m, "X_FUTURE_KEY_9"), "kept", "last line without newline");
	ok(kpgo_manifest_get(&m, MF_ARCH) == NULL, "absent key is NULL");
	is_int(kpgo_manifest_get_u64(&m, MF_SUM_MAX, &v), 0, "SUM_MAX is a number");
	is_int(v, 123456, "SUM_MAX value");
	is_int(kpgo_manifest_get_u64(&m, MF_GCOV_VERSION, &v), -EINVAL, "B22* is no number");
	is_int(kpgo_manifest_get_u64(&m, MF_ARCH, &v), -EINVAL, "absent key is no number");

	good_text(&want, NULL, "HOST=a=b c\nWORKLOAD=\nX_FUTURE_KEY_9=kept\n");
	is_int(kpgo_manifest_format(&m, &out), 0, "format");
	is_str(out.buf, want.buf, "formatted: KEY=VALUE lines in order, comments gone");
	is_int(parse_sb(&out, &m2, &err), 0, "formatted text parses");
	ok(m2.n == m.n, "same number of entries after a round trip");
	for (i = 0; i < m.n && i < m2.n; i++)
		if (strcmp(m.e[i].key, m2.e[i].key) || strcmp(m.e[i].value, m2.e[i].value))
			break;
	is_int(i, m.n, "same entries after a round trip");
	kpgo_manifest_release(&m2);

	/* Copy is deep and keeps the order. */
	is_int(kpgo_manifest_copy(&m2, &m), 0, "copy");
	ok(m2.n == m.n && m2.e != m.e && m2.e[0].key != m.e[0].key &&
		   !strcmp(m2.e[m.n - 1].value, "kept"),
	   "copy is deep");
	kpgo_manifest_release(&m2);
	kpgo_manifest_release(&m);
	ok(m.n == 0 && m.e == NULL, "release empties it");

	strbuf_release(&sb);
	strbuf_release(&out);
	strbuf_release(&want);
}

static void test_set_unset(void)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_manifest m;
	uint64_t v = 0;
	char big[4098];
	int i;

	kpgo_manifest_init(&m);
	is_int(kpgo_manifest_set(&m, "A", "1"), 0, "set A");
	is_int(kpgo_manifest_set(&m, "B", "2"), 0, "set B");
	is_int(kpgo_manifest_set(&m, "C", "3"), 0, "set C");
	is_int(kpgo_manifest_set(&m, "A", "one"), 0, "replace A");
	is_int(kpgo_manifest_set_u64(&m, "D", UINT64_MAX), 0, "set_u64 D");
	is_int(kpgo_manifest_get_u64(&m, "D", &v), 0, "get_u64 D");
	ok(v == UINT64_MAX, "UINT64_MAX round trip");
	kpgo_manifest_unset(&m, "B");
	kpgo_manifest_unset(&m, "NOT_THERE");
	kpgo_manifest_format(&m, &out);
	is_str(out.buf, "A=one\nC=3\nD=18446744073709551615\n",
	       "replace keeps the place, unset closes the gap");

	is_int(kpgo_manifest_set(&m, "a", "x"), -EINVAL, "lowercase key refused");
	is_int(kpgo_manifest_set(&m, "", "x"), -EINVAL, "empty key refused");
	is_int(kpgo_manifest_set(&m, "A-B", "x"), -EINVAL, "key with '-' refused");
	is_int(kpgo_manifest_set(&m, "A=B", "x"), -EINVAL, "key with '=' refused");
	is_int(kpgo_manifest_set(&m, "E", "x\ny"), -EINVAL, "value with newline refused");
	is_int(kpgo_manifest_set(&m, "E", "tab\there"), -EINVAL, "value with tab refused");
	is_int(kpgo_manifest_set(&m, "E", "caf\xc3\xa9"), -EINVAL, "non-ASCII value refused");
	is_int(kpgo_manifest_set(&m, "E", "del\x7f"), -EINVAL, "DEL refused");
	memset(big, 'v', sizeof(big));
	big[4096] = '\0';
	is_int(kpgo_manifest_set(&m, "E", big), 0, "value of 4096 bytes accepted");
	big[4096] = 'v';
	big[4097] = '\0';
	is_int(kpgo_manifest_set(&m, "F", big), -EINVAL, "value of 4097 bytes refused");
	ok(kpgo_manifest_key_ok("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
	   "key of 64 characters");
	ok(!kpgo_manifest_key_ok("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZ_"),
	   "key of 65 characters refused");
	ok(kpgo_manifest_value_ok(" !~"), "printable ASCII value");
	is_int(m.n, 4, "refused sets changed nothing");

	kpgo_manifest_release(&m);
	for (i = 0; i < 256; i++) {
		char k[16];

		snprintf(k, sizeof(k), "K%d", i);
		if (kpgo_manifest_set(&m, k, "v"))
			break;
	}
	is_int(i, 256, "256 entries");
	is_int(kpgo_manifest_set(&m, "ONE_MORE", "v"), -E2BIG, "the 257th refused");
	is_int(kpgo_manifest_set(&m, "K7", "w"), 0, "replacing in a full manifest works");
	kpgo_manifest_release(&m);
	strbuf_release(&out);
}

static void test_bad_lines(void)
{
	struct strbuf sb = STRBUF_INIT;

	check_bad_extra("line without '='", "JUST_A_KEY\n", -EINVAL,
			"manifest line 10 is not KEY=VALUE");
	check_bad_extra("line starting with '='", "=value\n", -EINVAL,
			"manifest line 10 is not KEY=VALUE");
	check_bad_extra("lowercase key", "arch=x86\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("key with a space before '='", "ARCH =x86\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("indented key", " ARCH=x86\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("key with '.'", "A.B=1\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("key of 65 characters",
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZ_=1\n",
			-EINVAL, "manifest line 10 is not KEY=VALUE");
	check_bad_extra("CRLF line end", "ARCH=x86\r\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("tab in a value", "HOST=a\tb\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("escape in a value", "HOST=\x1b[31mred\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("UTF-8 in a value", "HOST=caf\xc3\xa9\n", -EINVAL,
			"manifest line 10 has a bad key or value");
	check_bad_extra("line number counts blank and comment lines", "\n#c\n\nbad line\n", -EINVAL,
			"manifest line 13 is not KEY=VALUE");

	/* Duplicates. */
	check_bad_extra("required key twice", "RUNS=4\n", -EINVAL, "manifest has 'RUNS' twice");
	check_bad_extra("other key twice", "HOST=a\nHOST=a\n", -EINVAL, "manifest has 'HOST' twice");

	/* NUL bytes. */
	good_text(&sb, NULL, "HOST=a");
	strbuf_addch(&sb, '\0');
	strbuf_addstr(&sb, "b\n");
	check_bad("NUL inside a value", &sb, -EINVAL, "manifest contains a NUL byte");
	strbuf_reset(&sb);
	good_text(&sb, NULL, NULL);
	strbuf_addch(&sb, '\0');
	check_bad("NUL at the end", &sb, -EINVAL, "manifest contains a NUL byte");
	strbuf_release(&sb);

	/* Empty input. */
	strbuf_reset(&sb);
	check_bad("empty manifest", &sb, -EINVAL, "manifest lacks KPGO_FORMAT");
}

static void test_missing(void)
{
	struct strbuf sb = STRBUF_INIT;
	char what[64], want[64];
	size_t i;

	for (i = 0; i < N_REQUIRED; i++) {
		strbuf_reset(&sb);
		good_text(&sb, required[i], "HOST=h\n");
		snprintf(what, sizeof(what), "without %s", required[i]);
		snprintf(want, sizeof(want), "manifest lacks %s", required[i]);
		check_bad(what, &sb, -EINVAL, want);
	}
	strbuf_release(&sb);
}

static void test_format_version(void)
{
	static const struct {
		const char *v, *msg;
	} bad[] = {
		{ "2", "unsupported archive format '2'" },
		{ "0", "unsupported archive format '0'" },
		{ "", "unsupported archive format ''" },
		{ "one", "unsupported archive format 'one'" },
		{ "18446744073709551617", "unsupported archive format '18446744073709551617'" },
	};
	struct strbuf sb = STRBUF_INIT;
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s=%s\n", MF_FORMAT, bad[i].v);
		good_text(&sb, MF_FORMAT, NULL);
		snprintf(what, sizeof(what), "KPGO_FORMAT='%s'", bad[i].v);
		check_bad(what, &sb, -EPROTONOSUPPORT, bad[i].msg);
	}
	strbuf_release(&sb);
}

static void test_sizes(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_manifest m;
	struct kpgo_error err;
	int i;

	/* Exactly KPGO_MANIFEST_MAX bytes, padded with comment lines. */
	good_text(&sb, NULL, NULL);
	while (sb.len + 100 < KPGO_MANIFEST_MAX)
		strbuf_addf(&sb, "#%098d\n", 0);
	while (sb.len < KPGO_MANIFEST_MAX - 1)
		strbuf_addch(&sb, '#');
	strbuf_addch(&sb, '\n');
	is_int(sb.len, KPGO_MANIFEST_MAX, "built a manifest of exactly the limit");
	is_int(parse_sb(&sb, &m, &err), 0, "manifest of KPGO_MANIFEST_MAX bytes accepted");
	kpgo_manifest_release(&m);
	strbuf_addch(&sb, '\n');
	check_bad("one byte over KPGO_MANIFEST_MAX", &sb, -EINVAL,
		  "manifest too large (65537 bytes)");
	ok(kpgo_manifest_parse(sb.buf, SIZE_MAX, &m, &err) == -EINVAL &&
		   !strcmp(err.msg, "manifest too large (18446744073709551615 bytes)"),
	   "absurd length refused before the bytes are looked at");

	/* 256 entries at most. */
	strbuf_reset(&sb);
	good_text(&sb, NULL, NULL);
	for (i = (int)N_REQUIRED; i < 256; i++)
		strbuf_addf(&sb, "K%d=v\n", i);
	is_int(parse_sb(&sb, &m, &err), 0, "256 entries accepted");
	is_int(m.n, 256, "all 256 kept");
	kpgo_manifest_release(&m);
	strbuf_addstr(&sb, "K_LAST=v\n");
	check_bad("257 entries", &sb, -E2BIG, "manifest has too many entries");

	/* Long values. */
	strbuf_reset(&sb);
	good_text(&sb, NULL, "HOST=");
	for (i = 0; i < 4096; i++)
		strbuf_addch(&sb, 'h');
	strbuf_addch(&sb, '\n');
	is_int(parse_sb(&sb, &m, &err), 0, "value of 4096 bytes accepted");
	kpgo_manifest_release(&m);
	strbuf_reset(&sb);
	good_text(&sb, NULL, "HOST=");
	for (i = 0; i < 4097; i++)
		strbuf_addch(&sb, 'h');
	check_bad("value of 4097 bytes", &sb, -EINVAL, "manifest line 10 has a bad key or value");
	strbuf_release(&sb);
}

int main(void)
{
	test_parse_format();
	test_set_unset();
	test_bad_lines();
	test_missing();
	test_format_version();
	test_sizes();
	return done_testing();
}
