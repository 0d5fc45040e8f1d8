// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo spool collect: the running kernel's gcov data into the spool, as the
 * collection service and timer run it: bounded in time, nothing on a kernel
 * without gcov, and never a file in the spool that is not complete.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "config.h"
#include "kernel.h"
#include "spool.h"

static const char usage_text[] =
	"usage: kpgo spool collect [--snapshot] [--timeout DURATION] [--no-reset]\n"
	"                          [--gcov-dir DIR | --debugfs DIR]\n"
	"\n"
	"Collects the running kernel's gcov data into a profile in the spool\n"
	"(KPGO_SPOOL_DIR), labelled with KPGO_WORKLOAD, then zeroes the counters,\n"
	"so that every spooled profile covers its own window and the build farm\n"
	"can add them all. The profile is written in the spool's tmp/ and renamed\n"
	"into place when complete; a collector killed at any point leaves nothing\n"
	"that looks like a profile. Exits 0 with one line when the kernel has no\n"
	"gcov data (not instrumented, or debugfs unavailable: it is mounted if\n"
	"need be) or no .gcda files. Old profiles are pruned (see 'kpgo spool prune').\n"
	"\n"
	"      --snapshot          a periodic snapshot: nothing when\n"
	"                          KPGO_SNAPSHOT_INTERVAL is 0\n"
	"      --timeout DURATION  give up after this long, writing nothing (default\n"
	"                          KPGO_COLLECT_TIMEOUT)\n"
	"      --no-reset          leave the counters running\n"
	"  -d, --gcov-dir DIR      read DIR instead of the kernel's (tests); a\n"
	"                          missing DIR counts as a kernel without gcov\n"
	"      --debugfs DIR       where debugfs is (or is mounted), default " KPGO_DEBUGFS_DEFAULT
	"\n"
	"      --build-root PATH, --kernel-release R, --build-id HEX   as for 'kpgo collect'\n";

static unsigned timeout_secs;
static const char *debugfs_path;
static volatile sig_atomic_t debugfs_mounted;

/*
 * Async-signal-safe: the collection is abandoned, its files stay in tmp/;
 * a debugfs this collection mounted is unmounted (umount2 is a system call).
 */
static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	if (debugfs_mounted)
		umount2(debugfs_path, MNT_DETACH);
	n = snprintf(msg, sizeof(msg),
		     "kpgo: collection timed out after %u s; nothing was spooled\n", timeout_secs);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

/* The profile is complete: publishing it must not be reported as lost. */
static void stop_alarm(void *ctx)
{
	(void)ctx;
	alarm(0);
}

int spool_collect(int argc, char **argv)
{
	enum {
		OPT_SNAPSHOT = 256,
		OPT_TIMEOUT,
		OPT_NO_RESET,
		OPT_DEBUGFS,
		OPT_ROOT,
		OPT_RELEASE,
		OPT_BUILD_ID
	};
	static const struct option opts[] = {
		{ "snapshot", no_argument, NULL, OPT_SNAPSHOT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "no-reset", no_argument, NULL, OPT_NO_RESET },
		{ "gcov-dir", required_argument, NULL, 'd' },
		{ "debugfs", required_argument, NULL, OPT_DEBUGFS },
		{ "build-root", required_argument, NULL, OPT_ROOT },
		{ "kernel-release", required_argument, NULL, OPT_RELEASE },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		SPOOL_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_spool_collect_opts o = { .debugfs = KPGO_DEBUGFS_DEFAULT, .reset = true };
	struct kpgo_collect_request rq = { 0 };
	struct kpgo_spool_collect_result res;
	const char *timeout_opt = NULL;
	bool snapshot = false, debugfs_opt = false;
	struct kpgo_config cfg;
	struct kpgo_error err;
	struct kpgo_spool sp;
	uint64_t timeout;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SNAPSHOT: snapshot = true; continue;
		case OPT_TIMEOUT: timeout_opt = optarg; continue;
		case OPT_NO_RESET: o.reset = false; continue;
		case 'd': o.gcov_dir = optarg; continue;
		case OPT_DEBUGFS:
			o.debugfs = optarg;
			debugfs_opt = true;
			continue;
		case OPT_ROOT: o.build_root = optarg; continue;
		case OPT_RELEASE: o.release = optarg; continue;
		case OPT_BUILD_ID: o.build_id = optarg; continue;
		}
		if ((ret = spool_common_option(c, "spool collect", usage_text)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool collect", "unexpected argument '%s'", argv[optind]);
	if (o.gcov_dir && debugfs_opt)
		return usage_error("spool collect", "--gcov-dir and --debugfs exclude each other");
	if (timeout_opt &&
	    (kpgo_duration_parse(timeout_opt, &timeout) || timeout == 0 || timeout > 86400))
		return usage_error("spool collect", "bad --timeout '%s' (e.g. 30s, 5m)",
				   timeout_opt);
	if (spool_load_config(&cfg))
		return 1;
	if (!timeout_opt)
		timeout = cfg.collect_timeout;
	/* From here on, the whole collection is bounded. */
	timeout_secs = (unsigned)timeout;
	debugfs_path = o.debugfs;
	o.mounted = &debugfs_mounted;
	signal(SIGALRM, on_alarm);
	alarm(timeout_secs);

	o.workload = rq.workload = cfg.workload;
	rq.release = o.release;
	rq.build_id = o.build_id;
	ret = 0;
	if (kpgo_collect_request_check(&rq, &err)) {
		ret = usage_error("spool collect", "%s", err.msg);
		goto out;
	}
	if (snapshot && !cfg.snapshot_interval) {
		note(1, "periodic snapshots are off (KPGO_SNAPSHOT_INTERVAL=0); nothing collected");
		goto out;
	}
	o.now = (int64_t)time(NULL);
	if (kpgo_spool_collect(spool_dir(&cfg), &o, stop_alarm, NULL, &res, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	if (res.cleaned)
		note(2, "removed %zu files an interrupted collection left in '%s/tmp'", res.cleaned,
		     res.dir);
	if (res.what == KPGO_SPOOL_NO_GCOV) {
		char release[256];

		kpgo_kernel_release(release, sizeof(release));
		if (o.gcov_dir)
			note(1, "no gcov data: %s; nothing collected", res.why);
		else
			note(1, "the running kernel %s has no gcov data (%s); nothing collected",
			     release, res.why);
		goto out;
	}
	if (res.what == KPGO_SPOOL_NO_DATA) {
		note(1, "%s; nothing collected", res.why);
		goto out;
	}
	collect_warn_outside(&res.st, res.build_root);
	note(1, "spooled '%s/%s' (%zu objects, workload %s)", res.dir, res.name, res.objects,
	     cfg.workload);
	if (res.reset_failed) {
		error("%s", res.reset_err.msg);
		ret = error(
			"the profile was spooled, but the counters were not reset: the next profile repeats this window's counts");
	} else if (res.reset_unrecorded) {
		struct strbuf path = STRBUF_INIT;

		if (!kpgo_last_reset_path(&path))
			warning("counters reset, but the time could not be recorded in '%s'",
				path.buf);
		strbuf_release(&path);
	}
	if (kpgo_spool_open(&sp, res.dir, false, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	if (spool_prune(&sp, &cfg, false))
		ret = 1;
	kpgo_spool_close(&sp);
out:
	alarm(0);
	kpgo_config_release(&cfg);
	return ret;
}
