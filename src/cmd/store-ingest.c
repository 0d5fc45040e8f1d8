// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo store ingest: a build farm's drop directory into the store. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "toolchain.h"
#include "config.h"
#include "gcda.h"
#include "profdiff.h"
#include "profstat.h"
#include "store.h"

static const char usage_text[] =
	"usage: kpgo store ingest [--weights FILE] [--settle DURATION] [--arch A]\n"
	"                         [--gcov-version V | --cc CC]\n"
	"                         [--similarity] [--min-similarity S] DROPDIR\n"
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
	"for the others, 0 leaves a workload out; default 1 each) after capping\n"
	"it at the median collection's counter sum. The merge is\n"
	"tagged with a digest of its inputs and weights: a rerun with nothing new\n"
	"merges nothing, and earlier merges of the build made by ingest are\n"
	"removed, so that 'kpgo store select' takes the current one (it prefers\n"
	"the profile of the most profiles merged). A drop that is not a single\n"
	"collection (RUNS=1, MERGED_PROFILES=1) is rejected.\n"
	"\n"
	"\n"
	"With --similarity, each profile added gets a line with its similarity to\n"
	"the profile 'kpgo store select' now takes for its kernel build (the merge,\n"
	"which includes it): the overlap of the functions' shares, as 'kpgo diff'\n"
	"computes it. With --min-similarity S (implies --similarity), a profile\n"
	"below S is flagged an outlier: a machine whose workload is not the\n"
	"fleet's. Outliers stay in the store; they are not a failure.\n"
	"\n"
	"One line per file and build on stdout: added, known (the store had it),\n"
	"rejected, pending, merged, superseded, failed ('current' with -v),\n"
	"similarity, outlier. Exit 1 when a merge failed or the store could not\n"
	"be written; rejected files are not a failure.\n";

/* The profiles added in this run, for --similarity. */
struct ingest_ctx {
	struct kpgo_strlist names;
	struct kpgo_strlist shas;
	bool oom;
};

static void report(void *ctx, const struct kpgo_ingest_event *ev)
{
	struct ingest_ctx *c = ctx;

	switch (ev->what) {
	case KPGO_INGEST_ADDED:
		printf("added %s %s\n", ev->name, ev->sha);
		if (kpgo_strlist_add(&c->names, ev->name) || kpgo_strlist_add(&c->shas, ev->sha))
			c->oom = true;
		break;
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

/*
 * Each added profile against the one select now takes for its build. Prints
 * a line per profile; returns how many are outliers, or -1 after an error.
 */
static int similarities(struct kpgo_store *s, const struct ingest_ctx *c, double min)
{
	struct kpgo_store_index idx = { 0 };
	struct strbuf path = STRBUF_INIT;
	struct kpgo_pstat a, b;
	struct kpgo_error err;
	int outliers = 0;
	size_t i;

	kpgo_pstat_init(&a);
	kpgo_pstat_init(&b);
	if (kpgo_store_index_read(s, &idx, &err)) {
		error("%s", err.msg);
		return -1;
	}
	for (i = 0; i < c->shas.n && outliers >= 0; i++) {
		const char *name = c->names.items[i], *sha = c->shas.items[i];
		const struct kpgo_store_entry *e;
		struct kpgo_store_query q;
		struct kpgo_store_choice ch;
		double sim;

		if (kpgo_store_lookup(&idx, sha, &e, &err)) {
			printf("similarity %s: not in the store any more\n", name);
			continue;
		}
		q = (struct kpgo_store_query){ .release = e->release,
					       .build_id = e->build_id,
					       .gcov_version = e->gcov_version,
					       .arch = e->arch };
		if (kpgo_store_select(&idx, &q, &ch, &err) || ch.rank != KPGO_RANK_BUILD_ID ||
		    !strcmp(ch.e->sha, sha)) {
			printf("similarity %s: the only profile of its kernel build\n", name);
			continue;
		}
		if (kpgo_store_object_path(s, sha, &path) ||
		    kpgo_pstat_load(&a, path.buf, KPGO_PSTAT_DEPTH_DEFAULT, &err) ||
		    kpgo_store_object_path(s, ch.e->sha, &path) ||
		    kpgo_pstat_load(&b, path.buf, KPGO_PSTAT_DEPTH_DEFAULT, &err) ||
		    kpgo_pdiff_similarity(&a, &b, &sim)) {
			error("cannot compare '%s' with '%s': %s", sha, ch.e->sha, err.msg);
			outliers = -1;
			break;
		}
		if (sim < min) {
			printf("outlier %s: similarity %.4f to %s (merge of %" PRIu64
			       " profiles) is below %g\n",
			       name, sim, ch.e->sha, ch.e->merged, min);
			outliers++;
		} else {
			printf("similarity %s: %.4f to %s (merge of %" PRIu64 " profiles)\n", name,
			       sim, ch.e->sha, ch.e->merged);
		}
	}
	fflush(stdout);
	kpgo_pstat_release(&a);
	kpgo_pstat_release(&b);
	kpgo_store_index_release(&idx);
	strbuf_release(&path);
	return outliers;
}

/* A number 0..1 ("0.8", "1"): no sign, no exponent, no locale. */
static int parse_fraction(const char *s, double *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -EINVAL;
	*out = strtod(s, &end);
	return *end || *out > 1 ? -EINVAL : 0;
}

int store_ingest(int argc, char **argv)
{
	enum {
		OPT_STORE = 256,
		OPT_WEIGHTS,
		OPT_SETTLE,
		OPT_ARCH,
		OPT_GCOV,
		OPT_CC,
		OPT_SIM,
		OPT_MIN_SIM,
	};
	static const struct option opts[] = {
		{ "weights", required_argument, NULL, OPT_WEIGHTS },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "gcov-version", required_argument, NULL, OPT_GCOV },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "similarity", no_argument, NULL, OPT_SIM },
		{ "min-similarity", required_argument, NULL, OPT_MIN_SIM },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_ingest_opts o = { .settle = 300 };
	struct ingest_ctx ctx = { 0 };
	bool similarity = false;
	double min_sim = -1;
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
		case OPT_SIM: similarity = true; break;
		case OPT_MIN_SIM:
			if (parse_fraction(optarg, &min_sim))
				return usage_error("store ingest",
						   "bad --min-similarity '%s' (0 to 1)", optarg);
			similarity = true;
			break;
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
	r = kpgo_store_ingest(&s, argv[optind], &o, report, &ctx, &res, &err);
	if (r == -EWOULDBLOCK)
		note(1, "%s; nothing to do", err.msg);
	else if (r)
		ret = error("%s", err.msg);
	else if (res.failed)
		ret = error("%zu kernel builds could not be merged", res.failed);
	if (!r && res.rejected)
		warning("%zu files were rejected: see '%s/rejected'", res.rejected, argv[optind]);
	if (!r && ctx.oom)
		ret = error("out of memory");
	else if (!r && similarity && ctx.shas.n) {
		int n = similarities(&s, &ctx, min_sim);

		if (n < 0)
			ret = 1;
		else if (n)
			warning("%d profiles are outliers: similarity below %g", n, min_sim);
	}
	if (!r)
		note(2,
		     "%zu added, %zu known, %zu rejected, %zu pending; %zu merged, %zu up to date",
		     res.added, res.known, res.rejected, res.pending, res.merged, res.current);
	kpgo_store_release(&s);
	kpgo_weights_release(&weights);
	kpgo_strlist_clear(&ctx.names);
	kpgo_strlist_clear(&ctx.shas);
	return ret;
}
