// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo collect: /sys/kernel/debug/gcov (or any directory laid out like it)
 * into a .kpgo profile archive.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "collect.h"
#include "config.h"
#include "profile.h"


static const char usage_text[] =
	"usage: kpgo collect [options] -o OUT.kpgo\n"
	"\n"
	"Reads every .gcda below the gcov directory (read to EOF: debugfs files\n"
	"report size 0), validates it and writes a profile archive.\n"
	"\n"
	"  -o, --output FILE        the archive to write (required)\n"
	"  -d, --gcov-dir DIR       default " DEFAULT_GCOV_DIR "\n"
	"  -w, --workload LABEL     what ran, [A-Za-z0-9._-], default 'default'\n"
	"      --reset              zero the counters after a successful collection\n"
	"      --build-root PATH    the instrumented build's root (default: found)\n"
	"      --kernel-release R   default: the running kernel's, for the default dir\n"
	"      --build-id HEX       default: the running kernel's, for the default dir\n"
	"  -q, --quiet / -v, --verbose\n";

static bool hex_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 128)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* When the counters started: the later of boot and the last recorded reset. */
static int64_t window_start(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *state = getenv("KPGO_STATE_DIR");
	int64_t start = 0;
	char path[4096];
	char *p;
	uint64_t v;

	if (!kpgo_read_file("/proc/stat", &sb, 1 << 20)) {
		p = strstr(sb.buf, "\nbtime ");
		if (p && sscanf(p + 7, "%" SCNd64, &start) != 1)
			start = 0;
	}
	strbuf_reset(&sb);
	snprintf(path, sizeof(path), "%s/last-reset", state ? state : "/var/lib/kpgo");
	if (!kpgo_read_file(path, &sb, 64)) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		if (!kpgo_parse_u64(sb.buf, &v) && (int64_t)v > start)
			start = (int64_t)v;
	}
	strbuf_release(&sb);
	return start;
}

int collect_check_args(const char *cmd, const struct collect_request *rq)
{
	if (!kpgo_label_ok(rq->workload))
		return usage_error(cmd, "bad workload label '%s' (use [A-Za-z0-9._-], 1-64)",
				   rq->workload);
	if (rq->release && (!kpgo_manifest_value_ok(rq->release) || strlen(rq->release) > 200))
		return usage_error(cmd, "bad kernel release '%s'", rq->release);
	if (rq->build_id && !hex_ok(rq->build_id))
		return usage_error(cmd, "bad build id '%s' (lower-case hex)", rq->build_id);
	return 0;
}

int collect_profile(const struct collect_request *rq, struct kpgo_profile *p,
		    struct kpgo_collect_stats *st, struct kpgo_error *err)
{
	char release[256] = "", arch[64] = "", build_id[160] = "", host[256] = "";
	char tstart[32], tend[32];
	char *root = NULL;
	int r;

	kpgo_profile_init(p);
	if (rq->live) {
		kernel_release(release, sizeof(release));
		read_build_id("/sys/kernel/notes", build_id, sizeof(build_id));
	}
	machine_arch(arch, sizeof(arch));
	if (rq->release)
		snprintf(release, sizeof(release), "%s", rq->release);
	if (rq->build_id)
		snprintf(build_id, sizeof(build_id), "%s", rq->build_id);
	if (gethostname(host, sizeof(host) - 1) || !kpgo_manifest_value_ok(host))
		host[0] = '\0';
	r = kpgo_collect_dir(rq->gcov_dir, p, st, err);
	if (r)
		goto out;
	r = kpgo_collect_set_root(p, rq->build_root, &root, st, err);
	if (r) {
		char msg[sizeof(err->msg)];

		memcpy(msg, err->msg, sizeof(msg));
		kpgo_error_set(err, r, "%.900s in '%s'", msg, rq->gcov_dir);
		goto out;
	}
	if (st->outside)
		warning("%zu .gcda files outside the build root '%s' were left out", st->outside,
			root);
	kpgo_format_time(rq->live ? window_start() : 0, tstart);
	kpgo_format_time((int64_t)time(NULL), tend);
	if (kpgo_manifest_set_u64(&p->manifest, MF_FORMAT, KPGO_FORMAT_VERSION) ||
	    kpgo_manifest_set(&p->manifest, MF_RELEASE, release) ||
	    kpgo_manifest_set(&p->manifest, MF_BUILD_ID, build_id) ||
	    kpgo_manifest_set(&p->manifest, MF_ARCH, arch) ||
	    kpgo_manifest_set(&p->manifest, MF_GCOV_VERSION, "????") ||
	    kpgo_manifest_set(&p->manifest, MF_BUILD_ROOT, root) ||
	    kpgo_manifest_set(&p->manifest, MF_WORKLOAD, rq->workload) ||
	    kpgo_manifest_set(&p->manifest, MF_HOST, host) ||
	    (rq->live && kpgo_manifest_set(&p->manifest, MF_WINDOW_START, tstart)) ||
	    kpgo_manifest_set(&p->manifest, MF_WINDOW_END, tend) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_RUNS, 1) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_MERGED, 1) ||
	    kpgo_manifest_set_u64(&p->manifest, MF_VANISHED, st->vanished)) {
		r = kpgo_error_set(err, -ENOMEM, "cannot build the manifest");
		goto out;
	}
	{
		struct kpgo_gcc_version v;
		char cc[32];

		if (!kpgo_gcc_version_decode(p->objs[0].gcda.version, &v)) {
			snprintf(cc, sizeof(cc), "gcc %u.%u", v.major, v.minor);
			kpgo_manifest_set(&p->manifest, MF_COMPILER, cc);
		}
	}
	/* A single collection is one run: sum_max is the largest counter. */
	kpgo_manifest_set_u64(&p->manifest, MF_SUM_MAX, 0);
out:
	free(root);
	if (r)
		kpgo_profile_release(p);
	return r;
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
	struct collect_request rq = { .gcov_dir = DEFAULT_GCOV_DIR, .workload = "default" };
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
	ret = collect_check_args("collect", &rq);
	if (ret)
		return ret;
	rq.live = !strcmp(rq.gcov_dir, DEFAULT_GCOV_DIR);
	if (access(rq.gcov_dir, F_OK) < 0 && rq.live)
		return error("cannot open '%s': %s (is debugfs mounted and the kernel built with CONFIG_GCOV_KERNEL?)",
			     rq.gcov_dir, strerror(errno));
	if (collect_profile(&rq, &p, &st, &err))
		return error("%s", err.msg);
	ret = 1;
	if (kpgo_profile_save(&p, out, &err)) {
		error("%s", err.msg);
		goto out;
	}
	note(1, "collected %zu objects (%zu vanished) from '%s' into '%s'", p.n, st.vanished,
	     rq.gcov_dir, out);
	ret = 0;
	if (do_reset && reset_counters(rq.gcov_dir, rq.live))
		ret = error("the profile was written, but the counters were not reset");
out:
	kpgo_profile_release(&p);
	return ret;
}
