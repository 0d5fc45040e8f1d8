// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo spool collect: the running kernel's gcov data into the spool, as the
 * collection service and timer run it: bounded in time, nothing on a kernel
 * without gcov, and never a file in the spool that is not complete.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "config.h"
#include "spool.h"

#define DEFAULT_DEBUGFS "/sys/kernel/debug"
#define DEBUGFS_MAGIC 0x64626720 /* linux/magic.h */

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
	"      --debugfs DIR       where debugfs is (or is mounted), default " DEFAULT_DEBUGFS "\n"
	"      --build-root PATH, --kernel-release R, --build-id HEX   as for 'kpgo collect'\n";

static unsigned timeout_secs;

/* Async-signal-safe: the collection is abandoned, its files stay in tmp/. */
static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "kpgo: collection timed out after %u s; nothing was spooled\n", timeout_secs);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

int gcov_probe(const char *debugfs, bool may_mount, bool *mounted, char *why, size_t len)
{
	struct strbuf gcov = STRBUF_INIT;
	struct statfs sfs;
	int r = 0;

	*mounted = false;
	if (strbuf_addf(&gcov, "%s/gcov", debugfs))
		return -ENOMEM;
	if (access(gcov.buf, F_OK) == 0) {
		r = 1;
		goto out;
	}
	if (may_mount && (statfs(debugfs, &sfs) < 0 || sfs.f_type != DEBUGFS_MAGIC)) {
		if (mount("debugfs", debugfs, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			snprintf(why, len, "debugfs is not mounted at '%s' and cannot be: %s",
				 debugfs, strerror(errno));
			goto out;
		}
		*mounted = true;
		if (access(gcov.buf, F_OK) == 0) {
			r = 1;
			goto out;
		}
	}
	snprintf(why, len, "no '%s': the kernel is not instrumented (CONFIG_GCOV_KERNEL)",
		 gcov.buf);
	if (*mounted) {
		umount2(debugfs, MNT_DETACH);
		*mounted = false;
	}
out:
	strbuf_release(&gcov);
	return r;
}

int spool_collect(int argc, char **argv)
{
	enum { OPT_SNAPSHOT = 256, OPT_TIMEOUT, OPT_NO_RESET, OPT_DEBUGFS, OPT_ROOT, OPT_RELEASE,
	       OPT_BUILD_ID };
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
	struct collect_request rq = { 0 };
	const char *gcov_dir = NULL, *debugfs = DEFAULT_DEBUGFS, *timeout_opt = NULL;
	char name[KPGO_SPOOL_NAME_MAX], tmpname[64], why[512], host[256] = "";
	struct strbuf tmppath = STRBUF_INIT, gcov = STRBUF_INIT;
	bool snapshot = false, do_reset = true, mounted = false, debugfs_opt = false;
	struct kpgo_collect_stats st;
	struct kpgo_config cfg;
	struct kpgo_spool sp;
	struct kpgo_profile p;
	struct kpgo_error err;
	uint64_t timeout;
	size_t cleaned;
	int c, ret, r;

	while ((c = getopt_long(argc, argv, "d:qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SNAPSHOT: snapshot = true; continue;
		case OPT_TIMEOUT: timeout_opt = optarg; continue;
		case OPT_NO_RESET: do_reset = false; continue;
		case 'd': gcov_dir = optarg; continue;
		case OPT_DEBUGFS: debugfs = optarg; debugfs_opt = true; continue;
		case OPT_ROOT: rq.build_root = optarg; continue;
		case OPT_RELEASE: rq.release = optarg; continue;
		case OPT_BUILD_ID: rq.build_id = optarg; continue;
		}
		if ((ret = spool_common_option(c, "spool collect", usage_text)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool collect", "unexpected argument '%s'", argv[optind]);
	if (gcov_dir && debugfs_opt)
		return usage_error("spool collect", "--gcov-dir and --debugfs exclude each other");
	if (timeout_opt && (kpgo_duration_parse(timeout_opt, &timeout) || timeout == 0 ||
			    timeout > 86400))
		return usage_error("spool collect", "bad --timeout '%s' (e.g. 30s, 5m)",
				   timeout_opt);
	if (spool_load_config(&cfg))
		return 1;
	if (!timeout_opt)
		timeout = cfg.collect_timeout;
	/* From here on, the whole collection is bounded. */
	timeout_secs = (unsigned)timeout;
	signal(SIGALRM, on_alarm);
	alarm(timeout_secs);

	rq.workload = cfg.workload;
	ret = collect_check_args("spool collect", &rq);
	if (ret)
		goto out_cfg;
	ret = 0;
	if (snapshot && !cfg.snapshot_interval) {
		note(1, "periodic snapshots are off (KPGO_SNAPSHOT_INTERVAL=0); nothing collected");
		goto out_cfg;
	}
	if (gcov_dir) {
		rq.gcov_dir = gcov_dir;
		if (access(gcov_dir, F_OK) < 0) {
			note(1, "no gcov data: '%s': %s; nothing collected", gcov_dir,
			     strerror(errno));
			goto out_cfg;
		}
	} else {
		r = gcov_probe(debugfs, true, &mounted, why, sizeof(why));
		if (r < 0) {
			ret = error("out of memory");
			goto out_cfg;
		}
		if (r == 0) {
			char release[256];

			kernel_release(release, sizeof(release));
			note(1, "the running kernel %s has no gcov data (%s); nothing collected",
			     release, why);
			goto out_cfg;
		}
		if (strbuf_addf(&gcov, "%s/gcov", debugfs)) {
			ret = error("out of memory");
			goto out_mount;
		}
		rq.gcov_dir = gcov.buf;
		rq.live = !strcmp(debugfs, DEFAULT_DEBUGFS);
	}

	ret = 1;
	if (kpgo_spool_open(&sp, spool_dir(&cfg), true, &err)) {
		error("%s", err.msg);
		goto out_mount;
	}
	/* Waits for another collection; the alarm bounds the wait. */
	if (kpgo_spool_lock(&sp, KPGO_SPOOL_COLLECT_LOCK, true, &err) ||
	    kpgo_spool_clean_tmp(&sp, &cleaned, &err)) {
		error("%s", err.msg);
		goto out_spool;
	}
	if (cleaned)
		note(2, "removed %zu files an interrupted collection left in '%s/tmp'", cleaned,
		     sp.dir);
	r = collect_profile(&rq, &p, &st, &err);
	if (r == -ENOENT && access(rq.gcov_dir, F_OK) == 0) {
		note(1, "%s; nothing collected", err.msg);
		ret = 0;
		goto out_spool;
	}
	if (r) {
		error("%s", err.msg);
		goto out_spool;
	}
	snprintf(tmpname, sizeof(tmpname), "collect.%ld.kpgo", (long)getpid());
	if (strbuf_addf(&tmppath, "%s/tmp/%s", sp.dir, tmpname)) {
		error("out of memory");
		goto out_profile;
	}
	if (kpgo_profile_save(&p, tmppath.buf, &err)) {
		error("%s; nothing was spooled", err.msg);
		goto out_profile;
	}
	/*
	 * Past this point the profile is complete: publishing it is a hash,
	 * a rename and two fsyncs, and a timeout must not report it as lost.
	 */
	alarm(0);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	if (kpgo_spool_publish(&sp, tmpname, (int64_t)time(NULL), host, name, &err)) {
		error("%s; nothing was spooled", err.msg);
		goto out_profile;
	}
	note(1, "spooled '%s/%s' (%zu objects, workload %s)", sp.dir, name, p.n,
	     cfg.workload);
	ret = 0;
	/* After the profile is safe: a reset first could lose counts, this only repeats them. */
	if (do_reset && reset_counters(rq.gcov_dir, rq.live))
		ret = error("the profile was spooled, but the counters were not reset: the next profile repeats this window's counts");
	kpgo_spool_unlock(&sp, KPGO_SPOOL_COLLECT_LOCK);
	if (spool_prune(&sp, &cfg, false))
		ret = 1;
out_profile:
	kpgo_profile_release(&p);
out_spool:
	kpgo_spool_close(&sp);
out_mount:
	if (mounted)
		umount2(debugfs, MNT_DETACH);
out_cfg:
	alarm(0);
	kpgo_config_release(&cfg);
	strbuf_release(&tmppath);
	strbuf_release(&gcov);
	return ret;
}
