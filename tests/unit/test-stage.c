// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stage.h: a profile staged into an object tree (each .gcda beside its .o,
 * with the whole program's summary, what is missing, what has no profile,
 * stale files removed) and GCC's mangled names for -fprofile-use=DIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stage.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-stage.XXXXXX";

static void check_mangle(const char *in, const char *want)
{
	struct strbuf out = STRBUF_INIT;

	is_int(kpgo_mangle_path(in, &out), 0, "mangle '%s'", in);
	is_str(out.buf, want, "mangle '%s'", in);
	strbuf_release(&out);
}

static void test_mangle(void)
{
	check_mangle("/build/linux/kernel/fork", "#build#linux#kernel#fork");
	/* What GCC 12's -fprofile-generate=DIR named for "w/../x/t" (checked by hand). */
	check_mangle("/tmp/mg/w/../x/t", "#tmp#mg#w#^#x#t");
	check_mangle("/a/../../b", "#a#^#^#b");
	check_mangle("/a/..b/c../.../x", "#a#..b#c..#...#x");
	check_mangle("/x/..t", "#x#..t");
	check_mangle("rel/path", "rel#path");
	check_mangle("", "");
}

static void put(const char *rel, const char *text)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", tmpdir, rel);
	if (kpgo_write_file_atomic(path.buf, text, strlen(text), 0644))
		bail_out("cannot write a test file");
	strbuf_release(&path);
}

static void add_obj(struct kpgo_profile *p, const char *path, uint32_t ident, uint64_t count)
{
	struct strbuf b = STRBUF_INIT;
	struct kpgo_gcda g;
	char *dup = strdup(path);

	gcda_one_fn(&b, "B22*", ident, &count, 1);
	if (!dup || kpgo_gcda_parse(b.buf, b.len, &g, NULL) || kpgo_profile_add(p, dup, &g))
		bail_out("cannot build a test profile");
	strbuf_release(&b);
}

static void test_stage(void)
{
	struct kpgo_stage_opts o = { .objtree = tmpdir };
	struct strbuf path = STRBUF_INIT, data = STRBUF_INIT;
	struct kpgo_stage_result res;
	struct kpgo_profile p;
	struct kpgo_error err;
	struct kpgo_gcda g;
	size_t i;

	/* The tree: a.c/a.o and sub/b.c/b.o profiled, c.c/c.o not; gone.gcda stale. */
	strbuf_addf(&path, "%s/sub", tmpdir);
	if (mkdir(path.buf, 0755))
		bail_out("cannot make a test directory");
	strbuf_reset(&path);
	put("a.c", "int a;\n");
	put("a.o", "");
	put("sub/b.c", "int b;\n");
	put("sub/b.o", "");
	put("c.c", "int c;\n");
	put("c.o", "");
	put("gone.gcda", "stale");
	kpgo_profile_init(&p);
	kpgo_manifest_set(&p.manifest, MF_RUNS, "3");
	kpgo_manifest_set(&p.manifest, MF_SUM_MAX, "700");
	add_obj(&p, "a.gcda", 1, 500);
	add_obj(&p, "sub/b.gcda", 2, 700);
	add_obj(&p, "nowhere.gcda", 3, 9);

	is_int(kpgo_stage(&p, &o, &res, &err), 0, "a profile staged into its object tree");
	is_int(res.staged, 3, "  every object written");
	ok(res.runs == 3 && res.sum_max == 700 && res.scale == 1, "  with the manifest's summary");
	ok(res.missing.n == 1 && !strcmp(res.missing.items[0], "nowhere.gcda"),
	   "  a profiled object without source or object is missing");
	ok(res.unprofiled.n == 1 && !strcmp(res.unprofiled.items[0], "c.o"),
	   "  a C object without profile is listed");
	ok(res.removed.n == 1 && !strcmp(res.removed.items[0], "gone.gcda"),
	   "  the stale .gcda is removed");
	strbuf_addf(&path, "%s/sub/b.gcda", tmpdir);
	is_int(kpgo_read_file(path.buf, &data, 1 << 20), 0, "sub/b.gcda is beside sub/b.o");
	is_int(kpgo_gcda_parse(data.buf, data.len, &g, &err), 0, "  and reads back");
	ok(g.has_summary && g.runs == 3 && g.sum_max == 700 && g.n_ctrs == 1 && g.ctrs[0] == 700,
	   "  with the counts and the whole program's summary");
	kpgo_gcda_release(&g);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/gone.gcda", tmpdir);
	ok(access(path.buf, F_OK) < 0, "gone.gcda is gone");
	kpgo_stage_result_release(&res);

	/* Staged again: the same files, nothing stale. */
	is_int(kpgo_stage(&p, &o, &res, &err), 0, "staged again");
	is_int(res.removed.n, 0, "  its own files are not stale");
	for (i = 0; i < res.removed.n; i++)
		diag("removed %s", res.removed.items[i]);
	kpgo_stage_result_release(&res);

	o.objtree = "/nonexistent/objtree";
	ok(kpgo_stage(&p, &o, &res, &err) < 0 && strstr(err.msg, "/nonexistent/objtree"),
	   "a missing object tree is an error naming it");
	kpgo_profile_release(&p);
	strbuf_release(&path);
	strbuf_release(&data);
}

/* The summary's rounding for any 64-bit input (issue 18: 2^64-1 wrapped to 0). */
static void test_summary_of(void)
{
	uint64_t scale;
	uint32_t runs, sum_max;

	kpgo_stage_summary_of(1, 700, &scale, &runs, &sum_max);
	ok(scale == 1 && runs == 1 && sum_max == 700, "a small sum_max is kept as it is");
	kpgo_stage_summary_of(0, 0, &scale, &runs, &sum_max);
	ok(scale == 1 && runs == 1 && sum_max == 0, "runs of 0 staged as 1");
	kpgo_stage_summary_of(1, UINT32_MAX, &scale, &runs, &sum_max);
	ok(scale == 1 && sum_max == UINT32_MAX, "2^32-1 fits");
	kpgo_stage_summary_of(3, (uint64_t)UINT32_MAX + 1, &scale, &runs, &sum_max);
	ok(scale == 2 && sum_max == 2147483648u && runs == 2, "2^32: halved, rounded up");
	kpgo_stage_summary_of(UINT64_MAX, UINT64_MAX, &scale, &runs, &sum_max);
	ok(scale == 4294967297ull, "2^64-1: scale 2^32+1 (%llu)", (unsigned long long)scale);
	ok(sum_max == UINT32_MAX, "2^64-1: sum_max 2^32-1, not 0 (%u)", sum_max);
	ok(runs == UINT32_MAX, "2^64-1 runs: 2^32-1 (%u)", runs);
	kpgo_stage_summary_of(1, UINT64_MAX - 1, &scale, &runs, &sum_max);
	ok(sum_max > 0 && sum_max <= UINT32_MAX && (uint64_t)sum_max * scale >= UINT64_MAX - 1,
	   "2^64-2: rounded up, in range (%u)", sum_max);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	test_mangle();
	test_stage();
	test_summary_of();
	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", tmpdir);
	strbuf_release(&cmd);
	return done_testing();
}
