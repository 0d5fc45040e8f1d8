// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile.h: a profile saved and loaded back, byte for byte the same each
 * time; saves that cannot be made leave nothing and change nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-profile.XXXXXX";

static void snapshot(struct strbuf *out)
{
	strbuf_reset(out);
	snapshot_dir(tmpdir, "", out, 0);
}

static void add_obj(struct kpgo_profile *p, const char *path, const char *ver, uint32_t ident,
		    const uint64_t *c, size_t n)
{
	struct strbuf b = STRBUF_INIT;
	struct kpgo_gcda g;
	char *dup = strdup(path);

	gcda_one_fn(&b, ver, ident, c, n);
	if (!dup || kpgo_gcda_parse(b.buf, b.len, &g, NULL) || kpgo_profile_add(p, dup, &g))
		bail_out("cannot build a test profile");
	strbuf_release(&b);
}

static void make_profile(struct kpgo_profile *p)
{
	static const uint64_t c1[] = { 1, 2, 3 }, c2[] = { 70 }, c3[] = { 0, 0 };

	kpgo_profile_init(p);
	kpgo_manifest_set(&p->manifest, MF_RELEASE, "6.1.0-9-pgo");
	kpgo_manifest_set(&p->manifest, MF_BUILD_ROOT, "/build/linux");
	kpgo_manifest_set(&p->manifest, MF_WORKLOAD, "unit test");
	kpgo_manifest_set(&p->manifest, MF_RUNS, "4");
	kpgo_manifest_set(&p->manifest, MF_SUM_MAX, "1000");
	kpgo_manifest_set(&p->manifest, "X_EXTRA", "kept");
	add_obj(p, "mm/mmap.gcda", "B22*", 1, c1, 3);
	add_obj(p, "kernel/fork.gcda", "B22*", 2, c2, 1);
	add_obj(p, "a/b.gcda", "B22*", 3, c3, 2);
	add_obj(p, "a.gcda", "B22*", 4, c1, 3);
	add_obj(p, "a-b.gcda", "B22*", 5, c2, 1);
	add_obj(p, "B.gcda", "B22*", 6, c3, 0);
}

static bool profiles_same(const struct kpgo_profile *a, const struct kpgo_profile *b)
{
	size_t i, j;

	if (a->manifest.n != b->manifest.n || a->n != b->n) {
		diag("%zu/%zu manifest entries, %zu/%zu objects", a->manifest.n, b->manifest.n,
		     a->n, b->n);
		return false;
	}
	for (i = 0; i < a->manifest.n; i++)
		if (strcmp(a->manifest.e[i].key, b->manifest.e[i].key) ||
		    strcmp(a->manifest.e[i].value, b->manifest.e[i].value)) {
			diag("manifest entry %zu differs", i);
			return false;
		}
	for (i = 0; i < a->n; i++) {
		const struct kpgo_gcda *x = &a->objs[i].gcda, *y = &b->objs[i].gcda;

		if (strcmp(a->objs[i].path, b->objs[i].path) || x->version != y->version ||
		    x->stamp != y->stamp || x->checksum != y->checksum || x->n_fns != y->n_fns ||
		    x->n_ctrs != y->n_ctrs) {
			diag("object %zu differs", i);
			return false;
		}
		for (j = 0; j < x->n_fns; j++)
			if (memcmp(&x->fns[j], &y->fns[j], sizeof(x->fns[j]))) {
				diag("object %zu function %zu differs", i, j);
				return false;
			}
		for (j = 0; j < x->n_ctrs; j++)
			if (x->ctrs[j] != y->ctrs[j]) {
				diag("object %zu counter %zu differs", i, j);
				return false;
			}
	}
	return true;
}

static bool files_same(const char *a, const char *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same = !kpgo_read_file(a, &x, 1 << 24) && !kpgo_read_file(b, &y, 1 << 24) &&
		    x.len == y.len && x.len > 0 && !memcmp(x.buf, y.buf, x.len);

	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/* Either save refuses @p, or what it wrote loads. */
static void check_save_loads(const char *what, struct kpgo_profile *p, const char *path)
{
	struct kpgo_profile q;
	struct kpgo_error err;
	int r, rl = 0;

	r = kpgo_profile_save(p, path, &err);
	if (r == 0) {
		rl = kpgo_profile_load(&q, path, &err);
		if (rl)
			diag("saved, then load said: %s", err.msg);
		else
			kpgo_profile_release(&q);
	}
	ok(r != 0 || rl == 0, "%s: save refuses it or writes what load reads", what);
	unlink(path);
}

static void test_save_load(void)
{
	struct strbuf path = STRBUF_INIT, path2 = STRBUF_INIT, path3 = STRBUF_INIT;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT, want = STRBUF_INIT;
	struct kpgo_profile p, q, r2;
	struct kpgo_error err;
	const char *v;
	int r;

	strbuf_addf(&path, "%s/p1.kpgo", tmpdir);
	strbuf_addf(&path2, "%s/p2.kpgo", tmpdir);
	strbuf_addf(&path3, "%s/p3.kpgo", tmpdir);

	make_profile(&p);
	is_int(kpgo_profile_save(&p, path.buf, &err), 0, "save");
	ok(!strcmp(p.objs[0].path, "B.gcda") && !strcmp(p.objs[1].path, "a-b.gcda") &&
		   !strcmp(p.objs[2].path, "a.gcda") && !strcmp(p.objs[3].path, "a/b.gcda"),
	   "save sorted the objects by bytes");
	is_str(kpgo_manifest_get(&p.manifest, MF_OBJECTS), "6", "OBJECTS set");
	is_str(kpgo_manifest_get(&p.manifest, MF_FUNCTIONS), "6", "FUNCTIONS set");
	is_str(kpgo_manifest_get(&p.manifest, MF_COUNTERS), "10", "COUNTERS set");
	is_str(kpgo_manifest_get(&p.manifest, MF_SUM_ALL), "152", "SUM_ALL set");
	is_str(kpgo_manifest_get(&p.manifest, MF_SUM_MAX), "152",
	       "a SUM_MAX above SUM_ALL lowered to it (no run has more)");
	is_str(kpgo_manifest_get(&p.manifest, MF_GCOV_VERSION), "B22*", "GCOV_VERSION set");
	is_str(kpgo_manifest_get(&p.manifest, MF_FORMAT), "1", "KPGO_FORMAT set");
	v = kpgo_manifest_get(&p.manifest, MF_PAYLOAD);
	ok(v && strlen(v) == 64, "PAYLOAD_SHA256 set");

	snapshot(&before);
	is_int(kpgo_profile_load(&q, path.buf, &err), 0, "load what was saved");
	snapshot(&after);
	is_str(after.buf, before.buf, "load wrote nothing");
	ok(profiles_same(&p, &q), "loaded profile identical to the saved one");

	is_int(kpgo_profile_save(&q, path2.buf, &err), 0, "save the loaded profile");
	ok(files_same(path.buf, path2.buf), "saving the same profile twice gives identical bytes");
	is_int(kpgo_profile_save(&p, path3.buf, &err), 0, "save the original again");
	ok(files_same(path.buf, path3.buf), "and again identical bytes");
	is_int(kpgo_profile_save(&p, path.buf, &err), 0, "save over an existing archive");
	ok(files_same(path.buf, path3.buf), "replaced by identical bytes");
	kpgo_profile_release(&q);

	/* SUM_MAX is raised to the largest counter; RUNS defaults to 1. */
	kpgo_manifest_set(&p.manifest, MF_SUM_MAX, "5");
	kpgo_manifest_unset(&p.manifest, MF_RUNS);
	is_int(kpgo_profile_save(&p, path2.buf, &err), 0, "save with a low SUM_MAX");
	is_str(kpgo_manifest_get(&p.manifest, MF_SUM_MAX), "70", "SUM_MAX raised to the largest");
	is_str(kpgo_manifest_get(&p.manifest, MF_RUNS), "1", "RUNS defaults to 1");
	is_int(kpgo_profile_load(&q, path2.buf, &err), 0, "and it loads");
	kpgo_profile_release(&q);

	/* Failing saves leave nothing behind. */
	snapshot(&before);
	strbuf_reset(&path2);
	strbuf_addf(&path2, "%s/no/such/dir/x.kpgo", tmpdir);
	r = kpgo_profile_save(&p, path2.buf, &err);
	is_int(r, -ENOENT, "save into a missing directory fails");
	strbuf_addf(&want, "cannot create '%s': No such file or directory", path2.buf);
	is_str(err.msg, want.buf, "message names the path");
	snapshot(&after);
	is_str(after.buf, before.buf, "no file and no directory created");

	strbuf_reset(&path2);
	strbuf_addf(&path2, "%s/isdir", tmpdir);
	mkdir(path2.buf, 0755);
	snapshot(&before);
	r = kpgo_profile_save(&p, path2.buf, &err);
	is_int(r, -EISDIR, "save onto a directory fails at the rename");
	strbuf_reset(&want);
	strbuf_addf(&want, "cannot write '%s': Is a directory", path2.buf);
	is_str(err.msg, want.buf, "message says why");
	snapshot(&after);
	is_str(after.buf, before.buf, "the temporary file was removed");
	rmdir(path2.buf);

	/* Profiles that cannot be saved. */
	make_profile(&q);
	add_obj(&q, "a.gcda", "B22*", 9, NULL, 0);
	is_int(kpgo_profile_save(&q, path3.buf, &err), -EINVAL, "an object twice refused");
	is_str(err.msg, "object 'a.gcda' twice", "message names it");
	kpgo_profile_release(&q);
	make_profile(&q);
	add_obj(&q, "zz.gcda", "B12*", 9, NULL, 0);
	is_int(kpgo_profile_save(&q, path3.buf, &err), -EINVAL, "mixed versions refused");
	is_str(err.msg, "objects of different gcov versions", "mixed versions message");
	kpgo_profile_release(&q);
	kpgo_profile_init(&q);
	is_int(kpgo_profile_save(&q, path3.buf, &err), -EINVAL, "an empty profile refused");
	is_str(err.msg, "the profile has no objects", "empty profile message");
	kpgo_profile_release(&q);
	ok(files_same(path.buf, path3.buf), "refused saves left the old archive as it was");

	/* A GCC 11 profile round-trips too. */
	kpgo_profile_init(&q);
	kpgo_manifest_set(&q.manifest, MF_BUILD_ROOT, "/b");
	add_obj(&q, "x.gcda", "B12*", 1, (const uint64_t[]){ 1ull << 40 }, 1);
	is_int(kpgo_profile_save(&q, path2.buf, &err), 0, "save a GCC 11 profile");
	is_int(kpgo_profile_load(&r2, path2.buf, &err), 0, "load it");
	ok(profiles_same(&q, &r2), "GCC 11 profile identical after the round trip");
	kpgo_profile_release(&r2);
	kpgo_profile_release(&q);

	/*
	 * Whatever save writes, load must read: a profile that would make an
	 * unreadable archive has to be refused when saving, not found
	 * unreadable later.
	 */
	kpgo_profile_init(&q);
	add_obj(&q, "x.gcda", "B22*", 1, (const uint64_t[]){ 1 }, 1);
	check_save_loads("a manifest without BUILD_ROOT", &q, path2.buf);
	kpgo_profile_release(&q);
	kpgo_profile_init(&q);
	kpgo_manifest_set(&q.manifest, MF_BUILD_ROOT, "/b");
	add_obj(&q, "../escape.gcda", "B22*", 1, (const uint64_t[]){ 1 }, 1);
	check_save_loads("an object path with '..'", &q, path2.buf);
	kpgo_profile_release(&q);
	kpgo_profile_init(&q);
	kpgo_manifest_set(&q.manifest, MF_BUILD_ROOT, "/b");
	add_obj(&q, "kernel/fork.o", "B22*", 1, (const uint64_t[]){ 1 }, 1);
	check_save_loads("an object path not ending in .gcda", &q, path2.buf);
	kpgo_profile_release(&q);
	{
		char key[16], val[4001];
		int i;

		memset(val, 'v', 4000);
		val[4000] = '\0';
		for (i = 0; i < 17; i++) {
			snprintf(key, sizeof(key), "X_BIG_%d", i);
			kpgo_manifest_set(&p.manifest, key, val);
		}
		check_save_loads("a manifest past KPGO_MANIFEST_MAX", &p, path2.buf);
	}

	/* Loading a missing file. */
	strbuf_reset(&path2);
	strbuf_addf(&path2, "%s/missing.kpgo", tmpdir);
	r = kpgo_profile_load(&q, path2.buf, &err);
	ok(r < 0 && !strncmp(err.msg, "cannot open: ", 13), "load of a missing file: '%s'", err.msg);

	kpgo_profile_release(&p);
	strbuf_release(&path);
	strbuf_release(&path2);
	strbuf_release(&path3);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&want);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	test_save_load();
	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", tmpdir);
	strbuf_release(&cmd);
	return done_testing();
}
