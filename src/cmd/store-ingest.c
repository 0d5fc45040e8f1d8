// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo store ingest: a build farm's drop directory into the store. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "toolchain.h"
#include "config.h"
#include "gcda.h"
#include "store.h"

static const char usage_text[] =
	"usage: kpgo store ingest [--weights FILE] [--settle DURATION] [--arch A]\n"
	"                         [--gcov-version V | --cc CC] DROPDIR\n"
	"\n"
	"Takes the profiles machines uploaded into DROPDIR: every '*.kpgo' (names\n"
	"starting with '.' are in-flight uploads and left alone) is verified,\n"
	"added to the store and removed from DROPDIR. What is not a regular file,\n"
	"not a valid profile, or foreign (another --arch or gcov version) goes to\n"
	"DROPDIR/rejected/, with NAME.reason beside it saying why. A file that is\n"
	"not valid yet but changed within --settle (default 5m) is left for the\n"
	"next run: an uploader may still be writing it.\n"
	"\n"
	"Then every kernel build in the store (release, build id, arch, gcov\n"
	"version) with two or more collected profiles gets their merge, each\n"
	"profile weighted by its workload (--weights: WORKLOAD=WEIGHT lines, '*'\n"
	"for the others, 0 leaves a workload out; default 1 each). The merge is\n"
	"tagged with a digest of its inputs and weights: a rerun with nothing new\n"
	"merges nothing, and earlier merges of the build made by ingest are\n"
	"removed, so that 'kpgo store select' takes the current one (it prefers\n"
	"the profile of the most runs).\n"
	"\n"
	"One line per file and build on stdout: added, known (the store had it),\n"
	"rejected, pending, merged, superseded, failed ('current' with -v). Exit 1\n"
	"when a merge failed or the store could not be written; rejected files\n"
	"are not a failure.\n";

static void report(void *ctx, const struct kpgo_ingest_event *ev)
{
	(void)ctx;
	switch (ev->what) {
	case KPGO_INGEST_ADDED: printf("added %s %s\n", ev->name, ev->sha); break;
	case KPGO_INGEST_KNOWN: printf("known %s %s\n", ev->name, ev->sha); break;
	case KPGO_INGEST_REJECTED: printf("rejected %s: %s\n", ev->name, ev->detail); break;
	case KPGO_INGEST_PENDING: printf("pending %s: %s\n", ev->name, ev->detail); break;
	case KPGO_INGEST_IGNORED: printf("ignored %s: %s\n", ev->name, ev->detail); break;
	case KPGO_INGEST_MERGED:
		printf("merged %s: %zu profiles into %s\n", ev->name, ev->inputs, ev->sha);
		break;
	case KPGO_INGEST_MERGE_CURRENT:
		if (verbosity > 1)
			printf("current %s: %zu profiles, merged already\n", ev->name, ev->inputs);
		break;
	case KPGO_INGEST_MERGE_FAILED: printf("failed %s: %s\n", ev->name, ev->detail); break;
	case KPGO_INGEST_SUPERSEDED:
		printf("superseded %s: removed %s\n", ev->name, ev->sha);
		break;
	}
	fflush(stdout);
}

int store_ingest(int argc, char **argv)
{
	enum { OPT_STORE = 256, OPT_WEIGHTS, OPT_SETTLE, OPT_ARCH, OPT_GCOV, OPT_CC };
	static const struct option opts[] = {
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "gcov-version", required_argument, NULL, OPT_GCOV },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_ingest_opts o = { .settle = 300 };
	const char *weights_file = NULL, *cc = NULL;
	struct kpgo_ingest_result res;
	struct kpgo_weights weights;
	struct kpgo_error err;
	struct kpgo_store s;
	uint32_t stamp;
	char gv[5];
	int c, r, ret;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_WEIGHTS: weights_file = optarg; break;
		case OPT_SETTLE:
			if (kpgo_duration_parse(optarg, &o.settle) || o.settle > 86400)
				return usage_error("store ingest",
						   "bad --settle '%s' (e.g. 90s, 5m)", optarg);
			break;
		case OPT_ARCH: o.arch = optarg; break;
		case OPT_GCOV: o.gcov_version = optarg; break;
		case OPT_CC: cc = optarg; break;
		case OPT_STORE: store_dir_opt = optarg; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("store ingest", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("store ingest", "one drop directory expected");
	if (cc && o.gcov_version)
		return usage_error("store ingest", "--gcov-version and --cc exclude each other");
	if (o.gcov_version && kpgo_gcc_version_parse(o.gcov_version, &stamp))
		return usage_error("store ingest",
				   "bad gcov version '%s' (four characters, e.g. 'B22*')",
				   o.gcov_version);
	if (cc) {
		r = kpgo_compiler_gcov_version(cc, &stamp);
		if (r)
			return error("cannot get the gcov version of '%s': %s", cc,
				     r == -ENOEXEC ? "it failed to compile with --coverage" :
						     strerror(-r));
		kpgo_gcc_version_str(stamp, gv);
		o.gcov_version = gv;
	}
	kpgo_weights_init(&weights);
	if (weights_file) {
		if (kpgo_weights_load(&weights, weights_file, &err))
			return error("%s", err.msg);
		o.weights = &weights;
	}
	o.now = (int64_t)time(NULL);
	if (kpgo_store_init(&s, kpgo_store_default_dir(store_dir_opt))) {
		kpgo_weights_release(&weights);
		return error("out of memory");
	}
	ret = 0;
	r = kpgo_store_ingest(&s, argv[optind], &o, report, NULL, &res, &err);
	if (r == -EWOULDBLOCK)
		note(1, "%s; nothing to do", err.msg);
	else if (r)
		ret = error("%s", err.msg);
	else if (res.failed)
		ret = error("%zu kernel builds could not be merged", res.failed);
	if (!r && res.rejected)
		warning("%zu files were rejected: see '%s/rejected'", res.rejected, argv[optind]);
	if (!r)
		note(2,
		     "%zu added, %zu known, %zu rejected, %zu pending; %zu merged, %zu up to date",
		     res.added, res.known, res.rejected, res.pending, res.merged, res.current);
	kpgo_store_release(&s);
	kpgo_weights_release(&weights);
	return ret;
}
