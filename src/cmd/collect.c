// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo collect: /sys/kernel/debug/gcov (or any directory laid out like it)
 * into a .kpgo profile archive.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "collect.h"
#include "kernel.h"
#include "profile.h"

static const char usage_text[] =
	"usage: kpgo collect [options] -o OUT.kpgo\n"
	"\n"
	"Reads every .gcda below the gcov directory (read to EOF: debugfs files\n"
	"report size 0), validates it and writes a profile archive.\n"
	"\n"
	"  -o, --output FILE        the archive to write (required)\n"
	"  -d, --gcov-dir DIR       default " KPGO_GCOV_DIR_DEFAULT "\n"
	"  -w, --workload LABEL     what ran, [A-Za-z0-9._-], default 'default'\n"
	"      --reset              zero the counters after a successful collection\n"
	"      --build-root PATH    the instrumented build's root (default: found)\n"
	"      --kernel-release R   default: the running kernel's, for the default dir\n"
	"      --build-id HEX       default: the running kernel's, for the default dir\n"
	"  -q, --quiet / -v, --verbose\n";

void collect_warn_outside(const struct kpgo_collect_stats *st, const char *root)
{
	if (st->outside)
		warning("%zu .gcda files outside the build root '%s' were left out", st->outside,
			root);
}

int collect_reset(const char *gcov_dir, bool live)
{
	struct strbuf path = STRBUF_INIT;
	struct kpgo_error err;
	bool unrecorded;

	if (kpgo_gcov_reset(gcov_dir, live, &unrecorded, &err))
		return error("%s", err.msg);
	if (unrecorded && !kpgo_last_reset_path(&path))
		warning("counters reset, but the time could not be recorded in '%s'", path.buf);
	strbuf_release(&path);
	return 0;
}

int cmd_collect(int argc, char **argv)
{
	enum { OPT_RESET = 256, OPT_ROOT, OPT_RELEASE, OPT_BUILD_ID };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "gcov-dir", required_argument, NULL, 'd' },
		{ "workload", required_argument, NULL, 'w' },
		{ "reset", no_argument, NULL, OPT_RESET },
		{ "build-root", required_argument, NULL, OPT_ROOT },
		{ "kernel-release", required_argument, NULL, OPT_RELEASE },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_collect_request rq = { .gcov_dir = KPGO_GCOV_DIR_DEFAULT,
					   .workload = "default" };
	const char *out = NULL;
	struct kpgo_collect_stats st;
	struct kpgo_profile p;
	struct kpgo_error err;
	bool do_reset = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:d:w:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'd': rq.gcov_dir = optarg; break;
		case 'w': rq.workload = optarg; break;
		case OPT_RESET: do_reset = true; break;
		case OPT_ROOT: rq.build_root = optarg; break;
		case OPT_RELEASE: rq.release = optarg; break;
		case OPT_BUILD_ID: rq.build_id = optarg; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("collect", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("collect", "unexpected argument '%s'", argv[optind]);
	if (!out)
		return usage_error("collect", "an output file is required (-o OUT.kpgo)");
	if (kpgo_collect_request_check(&rq, &err))
		return usage_error("collect", "%s", err.msg);
	rq.live = !strcmp(rq.gcov_dir, KPGO_GCOV_DIR_DEFAULT);
	if (access(rq.gcov_dir, F_OK) < 0 && rq.live)
		return error("cannot open '%s': %s (is debugfs mounted and the kernel built with CONFIG_GCOV_KERNEL?)",
			     rq.gcov_dir, strerror(errno));
	if (kpgo_collect_profile(&rq, &p, &st, &err))
		return error("%s", err.msg);
	collect_warn_outside(&st, kpgo_manifest_get(&p.manifest, MF_BUILD_ROOT));
	ret = 1;
	if (kpgo_profile_save(&p, out, &err)) {
		error("%s", err.msg);
		goto out;
	}
	note(1, "collected %zu objects (%zu vanished) from '%s' into '%s'", p.n, st.vanished,
	     rq.gcov_dir, out);
	ret = 0;
	if (do_reset && collect_reset(rq.gcov_dir, rq.live))
		ret = error("the profile was written, but the counters were not reset");
out:
	kpgo_profile_release(&p);
	return ret;
}
