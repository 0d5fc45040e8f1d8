// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * collect.h: a directory laid out like /sys/kernel/debug/gcov read into a
 * profile (what is read, skipped and counted), the build root found or
 * given, the request's checks, and the manifest of a collection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-collect.XXXXXX";
static char gcov[sizeof(tmpdir) + 8];

/* A kernel-layout .gcda at @rel below the gcov directory. */
static void put_gcda(const char *rel, uint32_t ident, uint64_t count)
{
	struct strbuf path = STRBUF_INIT, b = STRBUF_INIT, cmd = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", gcov, rel);
	strbuf_addf(&cmd, "mkdir -p \"$(dirname '%s')\"", path.buf);
	gcda_one_fn(&b, "B22*", ident, &count, 1);
	if (system(cmd.buf) || kpgo_write_file_atomic(path.buf, b.buf, b.len, 0644))
		bail_out("cannot write a test .gcda");
	strbuf_release(&path);
	strbuf_release(&b);
	strbuf_release(&cmd);
}

/* Whether @p holds @path (collected profiles are not sorted yet). */
static bool has(const struct kpgo_profile *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->objs[i].path, path))
			return true;
	return false;
}

static void test_dir_and_root(void)
{
	struct strbuf path = STRBUF_INIT;
	struct kpgo_collect_stats st;
	struct kpgo_profile p;
	struct kpgo_error err;
	char *root;

	put_gcda("build/linux/init/main.gcda", 1, 10);
	put_gcda("build/linux/kernel/fork.gcda", 2, 20);
	put_gcda("build/other/x.gcda", 3, 30);
	/* An empty file is a module's data gone between listing and reading. */
	strbuf_addf(&path, "%s/build/linux/kernel/gone.gcda", gcov);
	kpgo_write_file_atomic(path.buf, "", 0, 0644);
	/* The kernel's .gcno entries are links into the build tree: not read. */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/build/linux/kernel/fork.gcno", gcov);
	if (symlink("/nonexistent/fork.gcno", path.buf))
		bail_out("cannot make a link");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/build/linux/README", gcov);
	kpgo_write_file_atomic(path.buf, "x", 1, 0644);

	kpgo_profile_init(&p);
	is_int(kpgo_collect_dir(gcov, &p, &st, &err), 0, "a gcov directory read");
	ok(p.n == 3 && st.files == 3 && st.vanished == 1,
	   "three .gcda read, the empty one vanished");
	ok(has(&p, "build/linux/kernel/fork.gcda"), "  paths relative to the directory");
	is_int(kpgo_collect_set_root(&p, NULL, &root, &st, &err), 0, "the build root found");
	is_str(root, "/build/linux", "  where init/main.gcda is");
	ok(p.n == 2 && st.outside == 1 && has(&p, "kernel/fork.gcda"),
	   "  objects outside it dropped and counted, the rest relative to it");
	free(root);
	kpgo_profile_release(&p);

	kpgo_profile_init(&p);
	kpgo_collect_dir(gcov, &p, &st, &err);
	is_int(kpgo_collect_set_root(&p, "/build/", &root, &st, &err), 0, "a build root given");
	ok(!strcmp(root, "/build") && p.n == 3 && has(&p, "other/x.gcda"), "  holds all three");
	free(root);
	kpgo_profile_release(&p);

	kpgo_profile_init(&p);
	kpgo_collect_dir(gcov, &p, &st, &err);
	is_int(kpgo_collect_set_root(&p, "/build/../etc", &root, &st, &err), -EINVAL,
	       "a build root that walks up is refused");
	is_str(err.msg, "bad build root '/build/../etc'", "  says so");
	kpgo_profile_release(&p);

	is_int(kpgo_collect_dir("/nonexistent/gcov", &p, &st, &err), -ENOENT, "no directory");
	strbuf_release(&path);
}

static void test_request(void)
{
	struct kpgo_collect_request rq = { .gcov_dir = gcov, .workload = "redis" };
	struct kpgo_error err;

	is_int(kpgo_collect_request_check(&rq, &err), 0, "a good request");
	rq.workload = "no spaces";
	is_int(kpgo_collect_request_check(&rq, &err), -EINVAL, "a bad workload label");
	is_str(err.msg, "bad workload label 'no spaces' (use [A-Za-z0-9._-], 1-64)", "  says so");
	rq.workload = "w";
	rq.release = "6.1\nX=1";
	is_int(kpgo_collect_request_check(&rq, &err), -EINVAL,
	       "a release that is no manifest value");
	rq.release = NULL;
	rq.build_id = "ABCD";
	is_int(kpgo_collect_request_check(&rq, &err), -EINVAL, "a build id in upper case");
	is_str(err.msg, "bad build id 'ABCD' (lower-case hex)", "  says so");
}

static void test_profile(void)
{
	struct kpgo_collect_request rq = {
		.gcov_dir = gcov,
		.workload = "redis",
		.release = "6.1.0-test",
		.build_id = "0123abcd",
	};
	const struct kpgo_manifest *m;
	struct kpgo_collect_stats st;
	struct kpgo_profile p;
	struct kpgo_error err;
	char empty[sizeof(tmpdir) + 8];

	is_int(kpgo_collect_profile(&rq, &p, &st, &err), 0, "a collection");
	m = &p.manifest;
	is_str(kpgo_manifest_get(m, MF_RELEASE), "6.1.0-test", "  the release given");
	is_str(kpgo_manifest_get(m, MF_BUILD_ID), "0123abcd", "  the build id given");
	is_str(kpgo_manifest_get(m, MF_BUILD_ROOT), "/build/linux", "  the build root found");
	is_str(kpgo_manifest_get(m, MF_WORKLOAD), "redis", "  the workload");
	is_str(kpgo_manifest_get(m, MF_COMPILER), "gcc 12.2", "  the compiler of the gcda version");
	is_str(kpgo_manifest_get(m, MF_RUNS), "1", "  one run");
	is_str(kpgo_manifest_get(m, MF_VANISHED), "1", "  the vanished file");
	ok(!kpgo_manifest_get(m, MF_WINDOW_START) && kpgo_manifest_get(m, MF_WINDOW_END),
	   "  no window start for a directory that is not the running kernel's");
	ok(st.outside == 1 && p.n == 2, "  one object outside the root, counted");
	kpgo_profile_release(&p);

	snprintf(empty, sizeof(empty), "%s/empty", tmpdir);
	mkdir(empty, 0755);
	rq.gcov_dir = empty;
	is_int(kpgo_collect_profile(&rq, &p, &st, &err), -ENOENT, "a directory without .gcda");
	ok(!strncmp(err.msg, "no .gcda files found in '", 25), "  says so: %s", err.msg);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	snprintf(gcov, sizeof(gcov), "%s/gcov", tmpdir);
	test_dir_and_root();
	test_request();
	test_profile();
	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", tmpdir);
	strbuf_release(&cmd);
	return done_testing();
}
