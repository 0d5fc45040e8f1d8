// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * store.h: kernel releases in dpkg's order and their series, the index as
 * read from a store directory, lookup by sha prefix and select's ranking.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-internal.h"
#include "store-policy.h"
#include "store.h"
#include "strbuf.h"
#include "tap.h"

static int sign(int r)
{
	return (r > 0) - (r < 0);
}

/* @a < @b, both ways round, and each equal to itself. */
static void check_less(const char *a, const char *b)
{
	is_int(sign(kpgo_release_cmp(a, b)), -1, "%s < %s", a, b);
	is_int(sign(kpgo_release_cmp(b, a)), 1, "%s > %s", b, a);
}

static void check_same(const char *a, const char *b)
{
	is_int(kpgo_release_cmp(a, b), 0, "%s == %s", a, b);
	is_int(kpgo_release_cmp(b, a), 0, "%s == %s", b, a);
}

static void test_release_cmp(void)
{
	/*
	 * Each is less than the next, as dpkg --compare-versions orders "X-0"
	 * (the whole release as the upstream version).
	 */
	static const char *const ordered[] = {
		"5.10.0-28-amd64",
		"6.1~rc1",
		"6.1~rc2",
		"6.1",
		"6.1.0~rc7",
		"6.1.0",
		"6.1.0-9-amd64",
		"6.1.0-10-amd64",
		"6.1.0-13-amd64",
		"6.1.0-13-arm64",
		"6.1.0-17-amd64",
		"6.1.55-1",
		"6.1.55-1a",
		"6.1.55-1+b1",
		"6.1.55-1-amd64",
		"6.1.55-1.1",
		"6.2",
		"6.10.1-1-amd64",
		"10.0",
	};
	size_t i, j, n = sizeof(ordered) / sizeof(ordered[0]);
	int bad = 0;

	check_same("6.1.0-13-amd64", "6.1.0-13-amd64");
	check_same("", "");
	check_less("6.1.0-13", "6.1.0-17");
	check_less("6.1.0-17", "6.1.55-1");
	check_less("6.1.0-13", "6.1.55-1");
	check_less("6.1.0-9", "6.1.0-10");
	check_less("6.1.9", "6.1.10");
	check_less("6.9", "6.10");

	/* Numbers compare by value: leading zeros do not count. */
	check_same("6.1.01", "6.1.1");
	check_same("6.1.000", "6.1.0");
	check_less("6.1.09", "6.1.10");
	check_less("6.1.99999999999999999999", "6.1.100000000000000000000");

	/* A tilde sorts before anything, even the end of the string. */
	check_less("6.1~rc1", "6.1");
	check_less("6.1~rc1", "6.1~rc2");
	check_less("6.1~~", "6.1~");
	check_less("6.1~", "6.1");
	check_less("6.1~", "6.1-1");
	check_less("6.1~", "6.1a");
	check_less("6.1.0-13~bpo12", "6.1.0-13");
	check_less("~", "");

	/* In a non-digit run: the end (or a digit), then letters, then the rest. */
	check_less("6.1", "6.1a");
	check_less("6.1a", "6.1b");
	check_less("6.1Z", "6.1a");
	check_less("6.1z", "6.1+");
	check_less("6.1z", "6.1.");
	check_less("6.1-1", "6.1.1");
	check_less("6.1+1", "6.1-1");
	check_less("6.1.1", "6.1.a");
	check_less("6.1.0-13-amd64", "6.1.0-13-arm64");
	check_less("6.1a", "6.11");

	/* The whole table is one order: every pair, both ways. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (sign(kpgo_release_cmp(ordered[i], ordered[j])) != (i > j) - (i < j)) {
				diag("wrong order: %s vs %s", ordered[i], ordered[j]);
				bad++;
			}
	is_int(bad, 0, "%zu releases in order, all %zu pairs", n, n * n);
}

static void check_series(const char *release, const char *want)
{
	char out[64];
	bool r;

	memset(out, 'x', sizeof(out));
	r = kpgo_release_series(release, out, sizeof(out));
	if (want) {
		ok(r, "'%s' has a series", release);
		is_str(r ? out : NULL, want, "series of '%s'", release);
	} else {
		ok(!r, "'%s' has no series", release);
	}
}

static void test_release_series(void)
{
	char out[8];

	check_series("6.1.0-13-amd64", "6.1");
	check_series("6.1.55-1", "6.1");
	check_series("6.1", "6.1");
	check_series("6.1~rc1", "6.1");
	check_series("6.1-rc3", "6.1");
	check_series("6.10.2-1-amd64", "6.10");
	check_series("10.0.1", "10.0");
	check_series("06.01.2", "06.01");
	check_series("5.15.0-91-generic", "5.15");
	check_series("6.1a", "6.1");

	check_series("", NULL);
	check_series("6", NULL);
	check_series("6.", NULL);
	check_series("6.x", NULL);
	check_series("6-1.0", NULL);
	check_series("v6.1", NULL);
	check_series(".1", NULL);
	check_series(" 6.1", NULL);

	ok(kpgo_release_series("6.10.1", out, 5) && !strcmp(out, "6.10"), "series fits in 5 bytes");
	ok(!kpgo_release_series("6.10.1", out, 4), "series does not fit in 4 bytes");
	ok(!kpgo_release_series("6.1", out, 0), "nothing fits in 0 bytes");
}

/* --- an index in a store directory ----------------------------------------------- */

struct line {
	char sha; /* the sha is this hex digit 64 times */
	const char *release, *build_id, *arch, *gcov, *runs, *window_end, *merged, *added;
};

/* A table, one index line a row: clang-format would break every row in two. */
/* clang-format off */
static const struct line lines[] = {
	{ 'a', "6.1.0-13-amd64", "b13", "amd64", "B22*", "5", "2024-01-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ 'b', "6.1.0-13-amd64", "b13x", "amd64", "B22*", "1", "2024-01-02T00:00:00Z", "3", "2024-05-01T00:00:00Z" },
	{ 'c', "6.1.0-9-amd64", "b9", "amd64", "B22*", "100", "2023-06-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ 'd', "6.1.0-10-amd64", "b10", "amd64", "B22*", "1", "2023-07-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ 'e', "6.1.55-1-amd64", "b55", "amd64", "B22*", "3", "2024-03-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ 'f', "6.10.1-1-amd64", "b610", "amd64", "B22*", "3", "2024-04-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ '9', "6.1.0-13-arm64", "b13a", "arm64", "B22*", "50", "2024-01-03T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ '8', "6.1.0-13-amd64", "b13g", "amd64", "A93*", "1000", "2024-01-04T00:00:00Z", "9", "2024-05-01T00:00:00Z" },
	/* Ties: merged alike; newest added, then smallest sha; RUNS and WINDOW_END never count. */
	{ '2', "6.3.0-1-amd64", "", "amd64", "B22*", "7", "2024-02-01T00:00:00Z", "1", "2024-06-01T00:00:00Z" },
	{ '1', "6.3.0-1-amd64", "", "amd64", "B22*", "7", "2024-02-01T00:00:00Z", "1", "2024-06-01T00:00:00Z" },
	{ '0', "6.3.0-1-amd64", "", "amd64", "B22*", "1000", "2024-01-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
	{ '3', "6.3.0-1-amd64", "", "amd64", "B22*", "6", "2024-12-01T00:00:00Z", "1", "2024-05-01T00:00:00Z" },
};
/* clang-format on */
#define N_LINES (sizeof(lines) / sizeof(lines[0]))

static void sha_of(char c, char sha[KPGO_SHA256_HEX])
{
	memset(sha, c, KPGO_SHA256_HEX - 1);
	sha[KPGO_SHA256_HEX - 1] = '\0';
}

static void add_line(struct strbuf *sb, const struct line *l)
{
	char sha[KPGO_SHA256_HEX];

	sha_of(l->sha, sha);
	strbuf_addf(sb, "%s\t%s\t%s\t%s\t%s\ttest\t%s\t%s\t%s\t%s\t0\n", sha, l->release,
		    l->build_id, l->arch, l->gcov, l->runs, l->merged, l->window_end, l->added);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail_out("cannot write the index");
}

/* A store directory (objects/ and an index of @text) in a new temp dir. */
static void make_store(char *dir, size_t len, const char *text)
{
	char p[512];

	snprintf(dir, len, "/tmp/kpgo-test-store.XXXXXX");
	if (!mkdtemp(dir))
		bail_out("mkdtemp failed");
	snprintf(p, sizeof(p), "%s/objects", dir);
	if (mkdir(p, 0755))
		bail_out("cannot create objects/");
	if (text)
		write_text(dir, "index", text);
}

static void rm_rf(const char *dir)
{
	struct strbuf cmd = STRBUF_INIT;

	strbuf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", dir);
	strbuf_release(&cmd);
}

static int read_index(const char *dir, struct kpgo_store_index *idx, struct kpgo_error *err)
{
	struct kpgo_store s;
	int r;

	if (kpgo_store_init(&s, dir))
		bail_out("out of memory");
	err->msg[0] = '\0';
	/*
	 * The index as written, strictly: these stores have no objects, so
	 * kpgo_store_index_read() would rebuild an empty index from them.
	 */
	r = kpgo_store_open(&s, false, err);
	if (!r)
		r = kpgo_store_index_load(&s, idx, NULL, err);
	if (r == -EBADMSG)
		kpgo_error_prefix(err, "'%s/index'", s.dir);
	kpgo_store_release(&s);
	return r;
}

/* The store of lines[], read back: every test that needs one makes its own. */
static void good_index(char *dir, size_t len, struct kpgo_store_index *idx)
{
	struct strbuf text = STRBUF_INIT;
	struct kpgo_error err;
	size_t i;

	strbuf_addstr(&text, "# kpgo store index 1\n# a comment\n\n");
	for (i = 0; i < N_LINES; i++)
		add_line(&text, &lines[i]);
	make_store(dir, len, text.buf);
	strbuf_release(&text);
	memset(idx, 0, sizeof(*idx));
	if (read_index(dir, idx, &err))
		bail_out(err.msg);
}

static void test_index_read(void)
{
	struct kpgo_store_index idx = { 0 };
	struct strbuf text = STRBUF_INIT;
	struct kpgo_error err;
	char dir[64], sha[KPGO_SHA256_HEX], p[600];
	const struct kpgo_store_entry *e;
	size_t i;
	bool sorted = true;

	good_index(dir, sizeof(dir), &idx);
	is_int(idx.n, N_LINES, "every line read, comments and blank lines skipped");
	for (i = 1; i < idx.n; i++)
		if (strcmp(idx.e[i - 1].sha, idx.e[i].sha) >= 0)
			sorted = false;
	ok(sorted, "read sorted by sha");
	sha_of('a', sha);
	is_int(kpgo_store_lookup(&idx, "aaaa", &e, &err), 0, "lookup by prefix");
	ok(e && !strcmp(e->sha, sha), "the entry of that sha");
	if (e) {
		is_str(e->release, "6.1.0-13-amd64", "release");
		is_str(e->build_id, "b13", "build id");
		is_str(e->arch, "amd64", "arch");
		is_str(e->gcov_version, "B22*", "gcov version");
		is_str(e->workload, "test", "workload");
		is_int(e->runs, 5, "runs");
		is_int(e->merged, 1, "merged");
		is_str(e->window_end, "2024-01-01T00:00:00Z", "window end");
		is_str(e->added, "2024-05-01T00:00:00Z", "added");
	}
	is_int(kpgo_store_lookup(&idx, sha, &e, &err), 0, "lookup by the whole sha");
	is_int(kpgo_store_lookup(&idx, "7", &e, &err), -ENOENT, "lookup of a missing prefix");
	is_str(err.msg, "no profile '7' in the store", "message");
	ok(e == NULL, "no entry");
	is_int(kpgo_store_lookup(&idx, "A", &e, &err), -EINVAL, "upper case is no prefix");
	is_int(kpgo_store_lookup(&idx, "", &e, &err), -EINVAL, "empty is no prefix");
	strbuf_addf(&text, "%sa", sha);
	is_int(kpgo_store_lookup(&idx, text.buf, &e, &err), -EINVAL, "65 digits is no prefix");

	/* Listing order: by release as dpkg orders them, then window end, then sha. */
	kpgo_store_index_sort(&idx);
	strbuf_reset(&text);
	for (i = 0; i < idx.n; i++)
		strbuf_addch(&text, idx.e[i].sha[0]);
	is_str(text.buf, "cdab89e0123f", "index_sort: release (dpkg), window end, sha");
	kpgo_store_index_release(&idx);
	ok(idx.n == 0 && idx.e == NULL, "index_release empties it");
	rm_rf(dir);

	/* An empty store, a missing index, no store. */
	make_store(dir, sizeof(dir), NULL);
	is_int(read_index(dir, &idx, &err), 0, "a store without an index");
	is_int(idx.n, 0, "is empty");
	snprintf(p, sizeof(p), "%s/missing", dir);
	is_int(read_index(p, &idx, &err), -ENOENT, "no such directory: ENOENT");
	snprintf(p, sizeof(p), "%s/objects", dir);
	is_int(read_index(p, &idx, &err), -ENOENT, "a directory without objects/: ENOENT");
	ok(strstr(err.msg, "is not a kpgo store") != NULL, "says it is not a store: %s", err.msg);
	rm_rf(dir);
	strbuf_release(&text);
}

static void check_bad_index(const char *what, const char *text, const char *want)
{
	struct kpgo_store_index idx = { 0 };
	struct kpgo_error err;
	char dir[64];
	const char *colon;

	make_store(dir, sizeof(dir), text);
	is_int(read_index(dir, &idx, &err), -EBADMSG, "%s: EBADMSG", what);
	colon = strstr(err.msg, "/index': ");
	is_str(colon ? colon + 9 : err.msg, want, "%s: message", what);
	kpgo_store_index_release(&idx);
	rm_rf(dir);
}

static void test_index_bad(void)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	char sha[KPGO_SHA256_HEX];

	sha_of('a', sha);
	strbuf_addf(&sb, "# header\n%s\t6.1\tb\tamd64\tB22*\tw\t1\t1\tx\ty\n", sha);
	check_bad_index("ten fields (version 1)", sb.buf, "index line 2 is malformed");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s\t6.1\tb\tamd64\tB22*\tw\t1\t1\tx\ty\t0\tz\n", sha);
	check_bad_index("twelve fields", sb.buf, "index line 1 is malformed");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s\t6.1\tb\tamd64\tB22*\tw\tmany\t1\tx\ty\t0\n", sha);
	check_bad_index("runs not a number", sb.buf, "index line 1 is malformed");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s\t6.1\tb\tamd64\tB22*\tw\t1\t1\tx\ty\tmuch\n", sha);
	check_bad_index("sum not a number", sb.buf, "index line 1 is malformed");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%.63s\t6.1\tb\tamd64\tB22*\tw\t1\t1\tx\ty\t0\n", sha);
	check_bad_index("short sha", sb.buf, "index line 1 is malformed");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%.63sA\t6.1\tb\tamd64\tB22*\tw\t1\t1\tx\ty\t0\n", sha);
	check_bad_index("upper-case sha", sb.buf, "index line 1 is malformed");
	strbuf_reset(&sb);
	add_line(&sb, &lines[0]);
	add_line(&sb, &lines[1]);
	add_line(&sb, &lines[0]);
	strbuf_addf(&want, "index lists '%s' twice", sha);
	check_bad_index("a repeated sha", sb.buf, want.buf);
	strbuf_release(&sb);
	strbuf_release(&want);
}

/* --- select ----------------------------------------------------------------- */

struct pick {
	const char *what;
	struct kpgo_store_query q;
	int r;
	char sha; /* the winner's sha digit */
	enum kpgo_store_rank rank;
	size_t candidates;
	const char *why; /* c.why, or err.msg when r < 0 */
};

/* A table, a case to two or three lines: clang-format would give each field a line of its own. */
/* clang-format off */
static const struct pick picks[] = {
	{ "same build id beats more profiles merged of the release",
	  { "6.1.0-13-amd64", "b13", "B22*", "amd64" }, 0, 'a', KPGO_RANK_BUILD_ID, 1,
	  "same build id b13 (release 6.1.0-13-amd64): MERGED_PROFILES=1 added "
	  "2024-05-01T00:00:00Z" },
	{ "same build id, whatever the release",
	  { "6.2.0-1-amd64", "b13", NULL, NULL }, 0, 'a', KPGO_RANK_BUILD_ID, 1,
	  "same build id b13 (release 6.1.0-13-amd64): MERGED_PROFILES=1 added "
	  "2024-05-01T00:00:00Z" },
	{ "same release, most profiles merged, not most runs",
	  { "6.1.0-13-amd64", "nope", "B22*", "amd64" }, 0, 'b', KPGO_RANK_RELEASE, 2,
	  "same release 6.1.0-13-amd64; best of 2 by merged profiles, then time added: "
	  "MERGED_PROFILES=3 added 2024-05-01T00:00:00Z" },
	{ "an empty build id matches nothing",
	  { "6.1.0-13-amd64", "", "B22*", "amd64" }, 0, 'b', KPGO_RANK_RELEASE, 2, NULL },
	{ "no gcov or arch asked: any",
	  { "6.1.0-13-amd64", NULL, NULL, NULL }, 0, '8', KPGO_RANK_RELEASE, 3, NULL },
	{ "arch must match",
	  { "6.1.0-13-arm64", NULL, "B22*", "arm64" }, 0, '9', KPGO_RANK_RELEASE, 1, NULL },
	{ "nearest older release beats more runs",
	  { "6.1.0-11-amd64", NULL, "B22*", "amd64" }, 0, 'd', KPGO_RANK_OLDER, 2,
	  "nearest older release 6.1.0-10-amd64 of series 6.1 (none for 6.1.0-11-amd64); best "
	  "of 2 by merged profiles, then time added: MERGED_PROFILES=1 added "
	  "2024-05-01T00:00:00Z" },
	{ "6.1.0-9 is older than 6.1.0-10",
	  { "6.1.0-10~rc1-amd64", NULL, "B22*", "amd64" }, 0, 'c', KPGO_RANK_OLDER, 1, NULL },
	{ "6.1.55 is older than 6.1.60, 6.10 is another series",
	  { "6.1.60-1-amd64", NULL, "B22*", "amd64" }, 0, 'e', KPGO_RANK_OLDER, 5, NULL },
	{ "6.10 takes its own series, not 6.1",
	  { "6.10.5-1-amd64", NULL, NULL, NULL }, 0, 'f', KPGO_RANK_OLDER, 1, NULL },
	{ "ties: newest added, then smallest sha; never RUNS or WINDOW_END",
	  { "6.3.0-1-amd64", NULL, NULL, NULL }, 0, '1', KPGO_RANK_RELEASE, 4,
	  "same release 6.3.0-1-amd64; best of 4 by merged profiles, then time added: "
	  "MERGED_PROFILES=1 added 2024-06-01T00:00:00Z" },
	{ "ties on an older release",
	  { "6.3.0-2-amd64", NULL, NULL, NULL }, 0, '1', KPGO_RANK_OLDER, 4, NULL },
	{ "never a newer release",
	  { "6.1.0-5-amd64", NULL, NULL, NULL }, -ENOENT, 0, 0, 0,
	  "no profile for 6.1.0-5-amd64 or series 6.1 older than 6.1.0-5-amd64 (left out: 7 of "
	  "a newer release, 0 with another gcov version, 0 for another arch)" },
	{ "never another series",
	  { "6.2.0-1-amd64", NULL, NULL, NULL }, -ENOENT, 0, 0, 0,
	  "no profile for 6.2.0-1-amd64 or series 6.2 older than 6.2.0-1-amd64" },
	{ "nothing for that arch",
	  { "6.1.0-13-amd64", "b13", NULL, "riscv64" }, -ENOENT, 0, 0, 0,
	  "no profile with build id b13, for 6.1.0-13-amd64 or series 6.1 older than "
	  "6.1.0-13-amd64 for arch riscv64 (left out: 2 of a newer release, 0 with another gcov "
	  "version, 5 for another arch)" },
	{ "nothing with that gcov version",
	  { "6.1.0-13-amd64", NULL, "B33*", NULL }, -ENOENT, 0, 0, 0,
	  "no profile for 6.1.0-13-amd64 or series 6.1 older than 6.1.0-13-amd64 with gcov "
	  "version 'B33*' (left out: 2 of a newer release, 5 with another gcov version, 0 for "
	  "another arch)" },
	{ "a release without a series: only itself",
	  { "rolling", NULL, NULL, NULL }, -ENOENT, 0, 0, 0, "no profile for rolling" },
};
/* clang-format on */

static void test_select(void)
{
	struct kpgo_store_index idx;
	struct kpgo_store_choice c;
	struct kpgo_error err;
	char dir[64];
	size_t i;
	int r;

	good_index(dir, sizeof(dir), &idx);
	for (i = 0; i < sizeof(picks) / sizeof(picks[0]); i++) {
		const struct pick *p = &picks[i];

		err.msg[0] = '\0';
		r = kpgo_store_select(&idx, &p->q, &c, &err);
		is_int(r, p->r, "%s: %s", p->what, r ? "none" : "found");
		if (p->r) {
			ok(c.e == NULL, "%s: no entry", p->what);
			is_str(err.msg, p->why, "%s: reason", p->what);
			continue;
		}
		is_int(c.e ? c.e->sha[0] : 0, p->sha, "%s: picks %c", p->what, p->sha);
		is_int(c.rank, p->rank, "%s: rank %d", p->what, p->rank);
		is_int(c.candidates, p->candidates, "%s: of %zu", p->what, p->candidates);
		if (p->why)
			is_str(c.why, p->why, "%s: why", p->what);
	}
	kpgo_store_index_release(&idx);
	rm_rf(dir);
}

static void test_default_dir(void)
{
	unsetenv("KPGO_STORE");
	is_str(kpgo_store_default_dir(NULL), KPGO_STORE_DEFAULT, "default store");
	is_str(kpgo_store_default_dir(""), KPGO_STORE_DEFAULT, "empty option: default store");
	setenv("KPGO_STORE", "/srv/kpgo", 1);
	is_str(kpgo_store_default_dir(NULL), "/srv/kpgo", "$KPGO_STORE");
	is_str(kpgo_store_default_dir("/opt/s"), "/opt/s", "the option beats $KPGO_STORE");
	setenv("KPGO_STORE", "", 1);
	is_str(kpgo_store_default_dir(NULL), KPGO_STORE_DEFAULT, "empty $KPGO_STORE: default");
	unsetenv("KPGO_STORE");
}

static void check_expected(const char *older, const char *newer, int want_r, unsigned want)
{
	unsigned got = 12345;
	int r = kpgo_policy_expected_applied(older, newer, &got);

	is_int(r, want_r, "expected_applied('%s', '%s') returns %d", older, newer, want_r);
	if (!want_r)
		is_int((int)got, (int)want, "'%s' on '%s': %u permille", older, newer, want);
}

/* The estimate from the measured decay: its points, between them, past them. */
static void test_expected_applied(void)
{
	/* the measured points themselves (releases apart 0, 2, 5, 22) */
	check_expected("6.1.192-3-pgo-instr", "6.1.192-3-pgo", 0, 998);
	check_expected("6.1.190-1-pgo-instr", "6.1.192-3-pgo", 0, 988);
	check_expected("6.1.187-1-pgo-instr", "6.1.192-3-pgo", 0, 984);
	check_expected("6.1.170-3-pgo-instr", "6.1.192-3-pgo", 0, 977);
	/* between them: 1 apart halfway from 99.8% to 98.8%; 12 apart 7/17 of 98.4 to 97.7 */
	check_expected("6.1.191-1", "6.1.192-3", 0, 993);
	check_expected("6.1.118-1", "6.1.130-1", 0, 982);
	/* past 22, the last segment's slope (7 per 17 releases); never below 0 */
	check_expected("6.1.70-1", "6.1.192-3", 0, 984 - (7 * 117) / 17);
	check_expected("6.1.1", "6.1.999999", 0, 0);
	/* Debian's 6.12 style counts by upstream release too */
	check_expected("6.12.110+deb12-cloud-amd64", "6.12.118+deb12-cloud-amd64", 0, 983);
	/* what the measurement says nothing of */
	check_expected("6.1.0-55-cloud-amd64", "6.1.0-57-cloud-amd64", -ERANGE, 0);
	check_expected("6.1.192-3", "6.1.190-1", -ERANGE, 0);
	/* another series: the measured jump, only to a newer series */
	check_expected("6.1.192-3-pgo-instr", "6.12.118-1.deb12u1-pgo", 0, 698);
	check_expected("6.1.192-3", "6.12.118+deb12-cloud-amd64", 0, 698);
	check_expected("6.12.118-1", "6.1.192-3", -ERANGE, 0);
	check_expected("6.1.0-57-cloud-amd64", "6.12.118+deb12-cloud-amd64", -ERANGE, 0);
	check_expected("six", "6.1.192-3", -EINVAL, 0);
}

int main(void)
{
	umask(022);
	test_release_cmp();
	test_release_series();
	test_index_read();
	test_index_bad();
	test_select();
	test_expected_applied();
	test_default_dir();
	return done_testing();
}
