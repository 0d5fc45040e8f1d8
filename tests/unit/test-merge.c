// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * merge.h: two objects merged (kpgo_gcda_merge()), and profiles merged in
 * one streaming pass, through records.h (test-records.c) and
 * profile-writer.h (an archive written one object at a time, checked here
 * against a save of the same profile). A merge in rounds (open_max) must give the very bytes of a
 * merge in one round, and a failed merge must leave nothing behind.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcda.h"
#include "merge.h"
#include "profile-archive.h"
#include "profile-writer.h"
#include "profile.h"
#include "records.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-merge.XXXXXX";

static bool files_same(const char *a, const char *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same = !kpgo_read_file(a, &x, 1 << 24) && !kpgo_read_file(b, &y, 1 << 24) &&
		    x.len == y.len && x.len > 0 && !memcmp(x.buf, y.buf, x.len);

	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/* --- profiles to merge ---------------------------------------------------- */

#define N_IN 7
#define N_OBJ 9
#define N_FN 6

/*
 * Input @k: objects o0..o8 and functions 1..6, some missing here and
 * there so that objects and functions first appear in later inputs;
 * function 5 of kernel/fork.gcda has another cfg checksum in input @bad.
 */
static void make_input(struct kpgo_profile *p, int k, int bad, const char *release)
{
	static const char *const paths[N_OBJ] = {
		"a.gcda",	  "a/b.gcda",	      "a-b.gcda",
		"drivers/x.gcda", "kernel/fork.gcda", "kernel/sched/core.gcda",
		"mm/mmap.gcda",	  "z.gcda",	      "zz/y.gcda",
	};
	char run[16];
	uint32_t version;
	int o, f;

	kpgo_profile_init(p);
	snprintf(run, sizeof(run), "run%d", k);
	kpgo_manifest_set(&p->manifest, MF_RELEASE, release);
	kpgo_manifest_set(&p->manifest, MF_BUILD_ID, "");
	kpgo_manifest_set(&p->manifest, MF_BUILD_ROOT, "/build/linux");
	kpgo_manifest_set(&p->manifest, MF_WORKLOAD, k % 2 ? run : "loop");
	kpgo_manifest_set_u64(&p->manifest, MF_RUNS, (uint64_t)k + 1);
	kpgo_gcc_version_parse("B22*", &version);
	for (o = 0; o < N_OBJ; o++) {
		struct kpgo_gcda g;
		size_t nc = 0;
		char *path;

		if ((k + o) % 4 == 3 && k > 0)
			continue;
		kpgo_gcda_init(&g);
		g.version = version;
		g.stamp = 0x5eed0000u + (uint32_t)o;
		g.fns = calloc(N_FN, sizeof(*g.fns));
		g.ctrs = calloc(N_FN * N_FN, sizeof(*g.ctrs));
		path = strdup(paths[o]);
		if (!g.fns || !g.ctrs || !path)
			bail_out("out of memory");
		/* Functions in another order in odd inputs: the first input's order is kept. */
		for (f = 0; f < N_FN; f++) {
			int id = k % 2 ? N_FN - f : f + 1;
			struct kpgo_gcda_fn *fn = &g.fns[g.n_fns];
			uint32_t j;

			if ((k + o + id) % 3 == 0 && k > 0)
				continue;
			fn->ident = (uint32_t)id;
			fn->lineno_checksum = 0x1000u * (uint32_t)o + (uint32_t)id;
			fn->cfg_checksum = 0x77000u + (uint32_t)id + (k == bad && o == 4 && id == 5);
			fn->n_arcs = (uint32_t)(id % 4);
			fn->arcs = nc;
			for (j = 0; j < fn->n_arcs; j++)
				g.ctrs[nc + j] = (uint64_t)(1000 * k + 100 * o + 10 * id + (int)j);
			if (k == 5 && o == 6 && id == 2)
				g.ctrs[nc] = UINT64_MAX - 3; /* saturates when added */
			nc += fn->n_arcs;
			g.n_fns++;
		}
		g.n_ctrs = nc;
		if (kpgo_profile_add(p, path, &g))
			bail_out("out of memory");
	}
}

static void write_inputs(const char *tag, int bad, const char *odd_release, int odd,
			 char names[N_IN][256])
{
	struct kpgo_error err;
	int k;

	for (k = 0; k < N_IN; k++) {
		struct kpgo_profile p;

		snprintf(names[k], 256, "%s/%s-%d.kpgo", tmpdir, tag, k);
		make_input(&p, k, bad, k == odd ? odd_release : "6.1.0-9-pgo");
		if (kpgo_profile_save(&p, names[k], &err))
			bail_out(err.msg);
		kpgo_profile_release(&p);
	}
}

static int merge(char names[N_IN][256], size_t n, size_t open_max, bool allow,
		 const uint64_t *weights, const char *out, struct kpgo_merge_stats *st,
		 struct kpgo_error *err)
{
	const char *in[N_IN];
	struct kpgo_merge_opts o = { .weights = weights,
				     .allow_mismatch = allow,
				     .open_max = open_max };
	size_t i;

	for (i = 0; i < n; i++)
		in[i] = names[i];
	return kpgo_merge_files(in, n, &o, out, st, err);
}

/* Merges in one round, then in rounds of every size: the same bytes each time. */
static void check_rounds(const char *what, char names[N_IN][256], bool allow,
			 const uint64_t *weights, uint64_t want_mismatched)
{
	struct strbuf one = STRBUF_INIT, out = STRBUF_INIT;
	struct kpgo_merge_stats st;
	struct kpgo_error err;
	size_t k;
	int r;

	strbuf_addf(&one, "%s/%s-one.kpgo", tmpdir, what);
	r = merge(names, N_IN, 0, allow, weights, one.buf, &st, &err);
	if (!is_int(r, 0, "%s: merge in one round", what))
		diag("%s", err.msg);
	is_int(st.objects, N_OBJ, "%s: every object", what);
	is_int(st.mismatched_functions, want_mismatched, "%s: functions left out", what);
	for (k = 1; k < N_IN; k++) {
		strbuf_reset(&out);
		strbuf_addf(&out, "%s/%s-rounds-of-%zu.kpgo", tmpdir, what, k);
		r = merge(names, N_IN, k, allow, weights, out.buf, &st, &err);
		if (!is_int(r, 0, "%s: merge in rounds of %zu", what, k))
			diag("%s", err.msg);
		ok(files_same(one.buf, out.buf), "%s: rounds of %zu give the same bytes", what, k);
		is_int(st.mismatched_functions, want_mismatched,
		       "%s: rounds of %zu leave out as many functions", what, k);
		unlink(out.buf);
	}
	unlink(one.buf);
	strbuf_release(&one);
	strbuf_release(&out);
}

/* The counters of @path's object in the merge @file. */
static void check_sum(const char *file)
{
	struct kpgo_profile p, in;
	struct kpgo_error err;
	const struct kpgo_object *o;
	const struct kpgo_gcda_fn *fn;
	uint64_t want = 0;
	int k;

	if (kpgo_profile_load(&p, file, &err))
		bail_out(err.msg);
	o = kpgo_profile_find(&p, "kernel/fork.gcda");
	fn = o ? kpgo_gcda_find(&o->gcda, 3, 0) : NULL;
	for (k = 0; k < N_IN; k++) {
		const struct kpgo_object *io;
		const struct kpgo_gcda_fn *ifn;

		make_input(&in, k, -1, "6.1.0-9-pgo");
		kpgo_profile_sort(&in);
		io = kpgo_profile_find(&in, "kernel/fork.gcda");
		ifn = io ? kpgo_gcda_find(&io->gcda, 3, 0) : NULL;
		if (ifn)
			want += io->gcda.ctrs[ifn->arcs + 2] * (uint64_t)(k + 1);
		kpgo_profile_release(&in);
	}
	ok(fn && fn->n_arcs == 3 && o->gcda.ctrs[fn->arcs + 2] == want,
	   "weighted: a counter is the weighted sum of the inputs'");
	kpgo_profile_release(&p);
}

static void test_rounds(void)
{
	static const uint64_t w[N_IN] = { 1, 2, 3, 4, 5, 6, 7 };
	char names[N_IN][256];
	struct strbuf out = STRBUF_INIT;
	struct kpgo_merge_stats st;
	struct kpgo_error err;

	write_inputs("plain", -1, NULL, -1, names);
	check_rounds("plain", names, false, NULL, 0);
	check_rounds("weighted", names, false, w, 0);
	strbuf_addf(&out, "%s/w.kpgo", tmpdir);
	if (merge(names, N_IN, 2, false, w, out.buf, &st, &err))
		bail_out(err.msg);
	check_sum(out.buf);
	unlink(out.buf);

	/* Input 4 has another cfg checksum for one function: left out, once. */
	write_inputs("bad", 4, NULL, -1, names);
	check_rounds("mismatch allowed", names, true, w, 1);
	strbuf_release(&out);
}

static void test_failures(void)
{
	struct strbuf out = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT, data = STRBUF_INIT;
	char names[N_IN][256];
	struct kpgo_merge_stats st;
	struct kpgo_error err;
	size_t k;
	int r;

	strbuf_addf(&out, "%s/fail.kpgo", tmpdir);

	/* Input 4 is of another kernel build: refused before any work, in any round. */
	write_inputs("odd", -1, "6.1.0-10-pgo", 4, names);
	for (k = 0; k < N_IN; k++) {
		listing(tmpdir, &before);
		r = merge(names, N_IN, k, false, NULL, out.buf, &st, &err);
		is_int(r, -EINVAL, "another build in input 5, rounds of %zu: refused", k);
		ok(strstr(err.msg, "are from different kernel builds") != NULL,
		   "another build, rounds of %zu: says so", k);
		listing(tmpdir, &after);
		is_str(after.buf, before.buf, "another build, rounds of %zu: nothing written", k);
	}

	/* Checksums differ in input 4, not allowed: refused in every round size. */
	write_inputs("bad", 4, NULL, -1, names);
	for (k = 0; k < N_IN; k++) {
		listing(tmpdir, &before);
		r = merge(names, N_IN, k, false, NULL, out.buf, &st, &err);
		is_int(r, -EINVAL, "checksums differ, rounds of %zu: refused", k);
		strbuf_reset(&want);
		strbuf_addf(&want,
			    "'kernel/fork.gcda': 1 functions in '%s' do not match the same functions in '%s' (checksums differ; --allow-mismatch leaves them out)",
			    names[4], names[0]);
		is_str(err.msg, want.buf, "checksums differ, rounds of %zu: message", k);
		listing(tmpdir, &after);
		is_str(after.buf, before.buf, "checksums differ, rounds of %zu: nothing written", k);
	}

	/* The last input is cut short: found at its end, nothing written. */
	write_inputs("cut", -1, NULL, -1, names);
	if (kpgo_read_file(names[N_IN - 1], &data, 1 << 24))
		bail_out("cannot read a test input");
	{
		FILE *f = fopen(names[N_IN - 1], "wb");

		if (!f || fwrite(data.buf, 1, data.len - 40, f) != data.len - 40 || fclose(f))
			bail_out("cannot cut a test input");
	}
	for (k = 0; k < N_IN; k++) {
		listing(tmpdir, &before);
		r = merge(names, N_IN, k, false, NULL, out.buf, &st, &err);
		ok(r < 0, "a cut input, rounds of %zu: refused", k);
		strbuf_reset(&want);
		strbuf_addf(&want, "cannot read '%s': ", names[N_IN - 1]);
		ok(!strncmp(err.msg, want.buf, want.len), "a cut input, rounds of %zu: names it", k);
		listing(tmpdir, &after);
		is_str(after.buf, before.buf, "a cut input, rounds of %zu: nothing written", k);
	}

	/* An output in a missing directory: refused, however many inputs. */
	write_inputs("plain", -1, NULL, -1, names);
	strbuf_reset(&out);
	strbuf_addf(&out, "%s/no/such/out.kpgo", tmpdir);
	r = merge(names, N_IN, 2, false, NULL, out.buf, &st, &err);
	is_int(r, -ENOENT, "an output in a missing directory: refused");
	strbuf_reset(&want);
	strbuf_addf(&want, "cannot create '%s': %s", out.buf, strerror(ENOENT));
	is_str(err.msg, want.buf, "an output in a missing directory: message");

	strbuf_release(&out);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&want);
	strbuf_release(&data);
}

/* --- the streaming writer --------------------------------------------------- */

static void test_writer(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, before = STRBUF_INIT;
	struct strbuf after = STRBUF_INIT;
	struct kpgo_profile_writer *w;
	struct kpgo_profile p;
	struct kpgo_manifest m;
	struct kpgo_error err;
	size_t i;
	int r;

	strbuf_addf(&a, "%s/saved.kpgo", tmpdir);
	strbuf_addf(&b, "%s/streamed.kpgo", tmpdir);
	make_input(&p, 0, -1, "6.1.0-9-pgo");
	kpgo_profile_sort(&p);
	kpgo_manifest_init(&m);
	if (kpgo_manifest_copy(&m, &p.manifest))
		bail_out("out of memory");
	if (kpgo_profile_save(&p, a.buf, &err))
		bail_out(err.msg);
	is_int(kpgo_profile_writer_open(&w, b.buf, &err), 0, "writer: open");
	for (i = 0, r = 0; i < p.n && !r; i++)
		r = kpgo_profile_writer_add(w, p.objs[i].path, &p.objs[i].gcda, &err);
	is_int(r, 0, "writer: add the objects in order");
	is_int(kpgo_profile_writer_commit(w, &m, &err), 0, "writer: commit");
	kpgo_profile_writer_free(w);
	ok(files_same(a.buf, b.buf), "writer: the same bytes as kpgo_profile_save()");
	is_str(kpgo_manifest_get(&m, MF_OBJECTS), "9", "writer: totals in the caller's manifest");

	/* Refusals, and nothing left behind by a writer freed without commit. */
	listing(tmpdir, &before);
	kpgo_profile_writer_open(&w, b.buf, &err);
	r = kpgo_profile_writer_add(w, p.objs[1].path, &p.objs[1].gcda, &err);
	r = r ? r : kpgo_profile_writer_add(w, p.objs[0].path, &p.objs[0].gcda, &err);
	is_int(r, -EINVAL, "writer: an object out of order refused");
	strbuf_reset(&after);
	strbuf_addf(&after, "object '%s' out of order", p.objs[0].path);
	is_str(err.msg, after.buf, "writer: message");
	r = kpgo_profile_writer_add(w, p.objs[1].path, &p.objs[1].gcda, &err);
	is_int(r, -EINVAL, "writer: an object twice refused");
	r = kpgo_profile_writer_add(w, "../x.gcda", &p.objs[2].gcda, &err);
	is_int(r, -EINVAL, "writer: a bad path refused");
	p.objs[2].gcda.version ^= 1;
	r = kpgo_profile_writer_add(w, p.objs[2].path, &p.objs[2].gcda, &err);
	p.objs[2].gcda.version ^= 1;
	is_int(r, -EINVAL, "writer: another gcov version refused");
	is_str(err.msg, "objects of different gcov versions", "writer: message");
	kpgo_profile_writer_free(w);
	listing(tmpdir, &after);
	is_str(after.buf, before.buf, "writer: freed without commit, nothing left");

	kpgo_manifest_release(&m);
	kpgo_profile_release(&p);
	unlink(a.buf);
	unlink(b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&before);
	strbuf_release(&after);
}

/*
 * The profile's counter cap (KPGO_PROFILE_MAX_COUNTERS, 2^25): objects of
 * the largest size one may have (2^20 counters) up to the cap are written,
 * the one past it is refused with the cap's message, and a writer freed
 * after the refusal leaves nothing.
 */
static void test_writer_cap(void)
{
	const size_t per_obj = KPGO_GCDA_MAX_COUNTERS, n_fns = per_obj / KPGO_GCDA_MAX_FN_COUNTERS;
	const size_t fit = KPGO_PROFILE_MAX_COUNTERS / per_obj;
	struct strbuf path = STRBUF_INIT, rel = STRBUF_INIT, before = STRBUF_INIT;
	struct strbuf after = STRBUF_INIT, want = STRBUF_INIT;
	struct kpgo_profile_writer *w;
	struct kpgo_gcda g = { .version = stamp_of("B22*"), .stamp = 1, .runs = 1 };
	struct kpgo_error err;
	size_t i;
	int r = 0;

	g.n_fns = n_fns;
	g.fns = calloc(n_fns, sizeof(*g.fns));
	g.n_ctrs = per_obj;
	g.ctrs = calloc(per_obj, sizeof(*g.ctrs));
	if (!g.fns || !g.ctrs)
		bail_out("out of memory");
	for (i = 0; i < n_fns; i++)
		g.fns[i] = (struct kpgo_gcda_fn){ .ident = (uint32_t)i + 1,
						  .n_arcs = KPGO_GCDA_MAX_FN_COUNTERS,
						  .arcs = i * KPGO_GCDA_MAX_FN_COUNTERS };
	g.ctrs[0] = 1;
	strbuf_addf(&path, "%s/capped.kpgo", tmpdir);
	listing(tmpdir, &before);
	is_int(kpgo_profile_writer_open(&w, path.buf, &err), 0, "cap: open");
	for (i = 0; i < fit && !r; i++) {
		strbuf_reset(&rel);
		strbuf_addf(&rel, "big/%03zu.gcda", i);
		r = kpgo_profile_writer_add(w, rel.buf, &g, &err);
	}
	is_int(r, 0, "cap: objects up to KPGO_PROFILE_MAX_COUNTERS counters are written");
	strbuf_reset(&rel);
	strbuf_addf(&rel, "big/%03zu.gcda", fit);
	r = kpgo_profile_writer_add(w, rel.buf, &g, &err);
	is_int(r, -E2BIG, "cap: the object past it is refused");
	strbuf_addf(&want, "more than %llu counters in the profile (at '%s')",
		    (unsigned long long)KPGO_PROFILE_MAX_COUNTERS, rel.buf);
	is_str(err.msg, want.buf, "cap: the message names the cap and the object");
	kpgo_profile_writer_free(w);
	listing(tmpdir, &after);
	is_str(after.buf, before.buf, "cap: freed after the refusal, nothing left");
	free(g.fns);
	free(g.ctrs);
	strbuf_release(&path);
	strbuf_release(&rel);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&want);
}

/* --- two objects ------------------------------------------------------ */

static void test_merge(void)
{
	static const struct fnspec fa[] = {
		{ 1, 0x11, 0x12, 2, { 1, 2 } },
		{ 2, 0x21, 0x22, 1, { 3 } },
	};
	static const struct fnspec fb[] = {
		{ 2, 0x21, 0x22, 1, { 10 } },
		{ 1, 0x11, 0x99, 2, { 100, 100 } },	 /* cfg changed: left out */
		{ 3, 0x31, 0x32, 2, { 7, UINT64_MAX } }, /* only in b: appended */
	};
	static const struct fnspec fc[] = {
		{ 2, 0x21, 0x22, 2, { 1, 1 } }, /* same checksums, other counter count */
		{ 1, 0x77, 0x12, 2, { 1, 1 } }, /* lineno checksum changed */
		{ 3, 0x31, 0x32, 2, { 1, 0 } },
	};
	static const uint64_t after_b[] = { 3, 6, 29, 14, UINT64_MAX };
	static const uint64_t after_c[] = { 3, 6, 29, 15, UINT64_MAX };
	struct kpgo_gcda a, b, c, acc, copy;
	struct strbuf w = STRBUF_INIT;
	struct kpgo_error err;

	make_gcda(&a, "B22*", fa, 2);
	a.has_summary = true;
	a.runs = 5;
	a.sum_max = 3;
	make_gcda(&b, "B22*", fb, 3);
	make_gcda(&c, "B22*", fc, 3);

	kpgo_gcda_init(&acc);
	is_int(kpgo_gcda_merge(&acc, &a, 3), 0, "merge into empty: nothing left out");
	ok(acc.version == a.version && acc.stamp == a.stamp && acc.n_fns == 2 && acc.n_ctrs == 3,
	   "merge into empty copies the structure");
	ok(acc.ctrs[0] == 3 && acc.ctrs[1] == 6 && acc.ctrs[2] == 9, "copy scaled by weight 3");
	ok(!acc.has_summary, "the merged result has no summary");
	ok(a.ctrs[0] == 1 && a.ctrs[2] == 3, "the source is unchanged");

	is_int(kpgo_gcda_merge(&acc, &b, 2), 1, "one function left out for a changed cfg checksum");
	is_int(acc.n_fns, 3, "the new function appended");
	check_fn(&acc, 2, 3, 0x31, 0x32, 2, 3);
	check_ctrs(&acc, after_b, 5, "after w=2 merge: 3+0, 6+0, 9+2*10, 2*7, saturated");

	is_int(kpgo_gcda_merge(&acc, &c, 1), 2,
	       "counter count and lineno checksum mismatches left out");
	check_ctrs(&acc, after_c, 5, "only function 3 added, saturated counter stays");

	/* The merged result writes and reads back. */
	is_int(kpgo_gcda_write(&acc, 0, &w), 0, "merged result writes");
	is_int(kpgo_gcda_parse(w.buf, w.len, &copy, &err), 0, "and parses");
	ok(gcda_same(&acc, &copy, false), "merged result round trip");
	kpgo_gcda_release(&copy);
	kpgo_gcda_release(&acc);

	kpgo_gcda_init(&acc);
	is_int(kpgo_gcda_merge(&acc, &a, 0), 0, "weight 0 into empty");
	ok(acc.n_ctrs == 3 && acc.ctrs[0] == 0 && acc.ctrs[1] == 0 && acc.ctrs[2] == 0,
	   "weight 0 keeps the structure, zero counts");
	is_int(kpgo_gcda_merge(&acc, &a, UINT64_MAX), 0, "weight UINT64_MAX");
	ok(acc.ctrs[0] == UINT64_MAX && acc.ctrs[2] == UINT64_MAX, "saturates instead of wrapping");
	kpgo_gcda_release(&acc);

	/* Merging an object with itself doubles it. */
	kpgo_gcda_init(&acc);
	kpgo_gcda_merge(&acc, &b, 1);
	is_int(kpgo_gcda_merge(&acc, &b, 1), 0, "merge with itself");
	ok(acc.ctrs[0] == 20 && acc.ctrs[1] == 200 && acc.ctrs[3] == 14 && acc.ctrs[4] == UINT64_MAX,
	   "self merge doubles every counter");
	kpgo_gcda_release(&acc);

	kpgo_gcda_release(&a);
	kpgo_gcda_release(&b);
	kpgo_gcda_release(&c);
	strbuf_release(&w);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	test_merge();
	test_writer();
	test_writer_cap();
	test_rounds();
	test_failures();
	if (chdir("/") == 0) {
		strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd.buf) != 0)
			diag("cannot remove %s", tmpdir);
	}
	strbuf_release(&cmd);
	return done_testing();
}
