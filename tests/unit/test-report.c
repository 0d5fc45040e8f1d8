// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.h: what both reports share (the head, percentages as printed, the
 * verdict) and GCC's report: its counts from the objects and the log's
 * warnings, and that a stage summary must be of the profile.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "tap.h"

static const char *const objtree[] = { "/build/pgo" };

/* Two functions dropped, two compiled without a profile (in two objects). */
static const char build_log[] =
	"  CC      kernel/fork.o\n"
	"/src/kernel/fork.c:10:5: warning: number of counters in profile data for function "
	"'copy_process' does not match its profile data (counter 'arcs', expected 5 and have "
	"4) [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:30:1: warning: the control flow of function 'kernel_clone' does "
	"not match its profile data (counter 'arcs') [-Wcoverage-mismatch]\n"
	"/src/kernel/fork.c:40:1: warning: profile for function 'new_fn' not found in profile "
	"data [-Wmissing-profile]\n"
	"  CC [M]  drivers/foo/bar.o\n"
	"/src/drivers/foo/bar.c:2:1: warning: profile for function 'probe' not found in "
	"profile data [-Wmissing-profile]\n";

static void test_counts(void)
{
	struct kpgo_report r;
	struct kpgo_error err;
	struct kpgo_report_object objs[3] = {
		{ (char *)"a.gcda", 1000, 300, true },
		{ (char *)"b.gcda", 998, 100, true },
		{ (char *)"c.gcda", 2, 100, false },
	};

	kpgo_report_init(&r, objtree, 1);
	is_int(kpgo_buildlog_feed(&r.log, build_log, sizeof(build_log) - 1, &err), 0, "a log");
	is_int(kpgo_buildlog_finish(&r.log, &err), 0, "  read to its end");
	/* Borrowed objects: the report must not free them. */
	r.objs = objs;
	r.n_objs = 3;
	r.head.min_applied = 100;
	is_int(kpgo_report_count(&r), 0, "counted");
	is_int(r.c.functions, 2000, "functions");
	is_int(r.c.functions_unbuilt, 2, "in objects not compiled");
	is_int(r.c.at_most, 1996, "at most = 2000 - 2 - 2 dropped");
	is_int(r.c.applied, 1994, "applied = at most - 2 without profile");
	is_str(r.c.pct_applied, "99.7", "as a percentage");
	is_str(r.c.pct_weighted, "80.0", "weighted by counts: 400 of 500");
	ok(!r.c.ok, "below 100%% is not ok");
	/*
	 * 5000 functions, 2 dropped and 2 without profile: 2499 applied is 49.98%,
	 * printed as 50.0, which is what is checked (as the shell did); 2497 is
	 * 49.94%, printed as 49.9.
	 */
	r.head.min_applied = 50;
	objs[0].functions = 1;
	objs[1].functions = 2502;
	objs[2].functions = 2497;
	kpgo_report_count(&r);
	is_int(r.c.applied, 2499, "2499 of 5000 applied");
	is_str(r.c.pct_applied, "50.0", "printed as 50.0");
	ok(r.c.ok, "50.0 is at least 50");
	objs[1].functions = 2500;
	objs[2].functions = 2499;
	kpgo_report_count(&r);
	is_int(r.c.applied, 2497, "2497 of 5000 applied");
	is_str(r.c.pct_applied, "49.9", "printed as 49.9");
	ok(!r.c.ok, "49.9 is below 50");
	/* A log that claims more than the profile has counts nothing below zero. */
	objs[0].functions = objs[1].functions = 1;
	kpgo_report_count(&r);
	is_int(r.c.at_most, 0, "at most never below 0");
	is_int(r.c.applied, 0, "applied never below 0");
	r.objs = NULL;
	r.n_objs = 0;
	kpgo_report_release(&r);
}

static void test_head(void)
{
	char dir[] = "/tmp/kpgo-test-report.XXXXXX";
	struct strbuf path = STRBUF_INIT, cmd = STRBUF_INIT;
	struct kpgo_report_head h;
	struct kpgo_error err;

	if (!mkdtemp(dir))
		bail_out("mkdtemp failed");
	strbuf_addf(&path, "%s/p", dir);
	kpgo_write_file_atomic(path.buf, "abc", 3, 0644);
	kpgo_report_head_init(&h);
	is_int(kpgo_report_head_set(&h, dir, "6.1.0-1", path.buf, &err), 0, "a head");
	is_str(h.release.buf, "6.1.0-1", "  the release given");
	is_str(h.profile_sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "  the profile's sha256");
	is_int(kpgo_report_head_set(&h, dir, NULL, path.buf, &err), 0, "no release given");
	is_str(h.release.buf, "unknown", "  and none in the tree: unknown");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd,
		    "mkdir -p %s/include/config && printf '6.1.0-99-pgo\\nx' >%s/include/config/kernel.release",
		    dir, dir);
	if (system(cmd.buf))
		bail_out("cannot write kernel.release");
	kpgo_report_head_set(&h, dir, NULL, path.buf, &err);
	is_str(h.release.buf, "6.1.0-99-pgo",
	       "  the tree's include/config/kernel.release, its first line");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "printf 'a\\033b' >%s/include/config/kernel.release", dir);
	if (system(cmd.buf))
		bail_out("cannot write kernel.release");
	kpgo_report_head_set(&h, dir, NULL, path.buf, &err);
	is_str(h.release.buf, "unknown", "  one with control characters is not taken");
	is_int(kpgo_report_head_set(&h, dir, "r", "/nonexistent/p", &err), -ENOENT,
	       "a profile that cannot be read");
	is_str(err.msg, "cannot read '/nonexistent/p': No such file or directory", "  says so");
	ok(kpgo_report_text_ok("a: b") && !kpgo_report_text_ok("a\tb") &&
		   !kpgo_report_text_ok("a\x7f"),
	   "text: no control characters");
	kpgo_report_head_release(&h);
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf))
		diag("cannot remove %s", dir);
	strbuf_release(&cmd);
	strbuf_release(&path);
}

static void test_verdict(void)
{
	struct kpgo_report_head h;
	struct strbuf out = STRBUF_INIT;
	char pct[16];

	kpgo_report_head_init(&h);
	h.min_applied = 50;
	kpgo_report_pct(pct, 1, 3);
	is_str(pct, "33.3", "a percentage as printed");
	kpgo_report_pct(pct, 5, 0);
	is_str(pct, "0.0", "  of nothing: 0.0");
	ok(kpgo_report_pct_ok(&h, "50.0") && !kpgo_report_pct_ok(&h, "49.9"),
	   "the verdict takes the percentage as printed");
	kpgo_report_verdict(&h, "50.0", true, &out);
	is_str(out.buf,
	       "min applied: 50%\n"
	       "verdict: ok: 50.0% of the profile's functions applied, at least 50% required\n",
	       "the verdict lines, ok");
	strbuf_reset(&out);
	kpgo_report_verdict(&h, "49.9", false, &out);
	is_str(out.buf,
	       "min applied: 50%\n"
	       "verdict: FAILED: only 49.9% of the profile's functions applied, at least 50% "
	       "required\n",
	       "  and failed");
	strbuf_release(&out);
	kpgo_report_head_release(&h);
}

static void test_check_stage(void)
{
	struct kpgo_stage_summary s;
	struct kpgo_report r;
	struct kpgo_error err;

	kpgo_report_init(&r, objtree, 1);
	kpgo_stage_summary_init(&s);
	r.head.profile = "p.kpgo";
	is_int(kpgo_report_check_stage(&r, &err), 0, "no stage summary: nothing to check");
	kpgo_manifest_set(&r.manifest, MF_PAYLOAD, "aa");
	s.profile = strdup("q.kpgo");
	snprintf(s.payload_sha256, sizeof(s.payload_sha256), "%s", "bb");
	r.stage = &s;
	is_int(kpgo_report_check_stage(&r, &err), -EINVAL, "the summary of another profile");
	is_str(err.msg,
	       "it is the stage summary of another profile ('q.kpgo', payload sha256 bb...), not of 'p.kpgo'",
	       "  names both");
	snprintf(s.payload_sha256, sizeof(s.payload_sha256), "%s", "aa");
	is_int(kpgo_report_check_stage(&r, &err), 0, "the summary of this profile");
	kpgo_stage_summary_release(&s);
	kpgo_report_release(&r);
}

int main(void)
{
	test_counts();
	test_head();
	test_verdict();
	test_check_stage();
	return done_testing();
}
