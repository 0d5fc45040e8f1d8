// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo stage: a profile archive into the tree GCC's -fprofile-use reads. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "toolchain.h"
#include "gcda.h"
#include "profile.h"
#include "stage.h"

static const char usage_text[] =
	"usage: kpgo stage FILE.kpgo --objtree DIR [--profile-dir DIR2] [options]\n"
	"\n"
	"Writes each object's .gcda where GCC's -fprofile-use looks for it:\n"
	"DIR/<obj>.gcda next to DIR/<obj>.o, or with --profile-dir the mangled\n"
	"names -fprofile-use=DIR2 reads (the object paths are those below DIR, or\n"
	"below the instrumented build root without --objtree). Every file gets the\n"
	"whole-program summary GCC's runtime would write; the kernel's own files\n"
	"lack it. Stale .gcda files in the target are removed.\n"
	"\n"
	"  -t, --objtree DIR      the optimized build's object tree\n"
	"  -p, --profile-dir DIR  write mangled names here instead\n"
	"  -s, --srctree DIR      source tree (default: the object tree)\n"
	"      --cc CC            check the profile against this compiler's gcov\n"
	"                         version (default $CC or gcc; 'none' skips)\n"
	"  -r, --report FILE      write the lists of objects to FILE\n"
	"      --json             print the result as JSON\n"
	"  -q, --quiet / -v, --verbose (lists the objects)\n";

static void print_list(FILE *f, const char *title, const struct kpgo_strlist *l, size_t max)
{
	size_t i;

	fprintf(f, "%s: %zu\n", title, l->n);
	for (i = 0; i < l->n && i < max; i++)
		fprintf(f, "  %s\n", l->items[i]);
	if (l->n > max)
		fprintf(f, "  ... %zu more (see --report or -v)\n", l->n - max);
}

static int print_json(const char *file, const struct kpgo_profile *p,
		      const struct kpgo_stage_result *res)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, &sb);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_string(&w, "profile", file);
	kpgo_jw_string(&w, "payload_sha256", kpgo_manifest_get(&p->manifest, MF_PAYLOAD));
	kpgo_jw_u64(&w, "staged", res->staged);
	kpgo_jw_u64(&w, "runs", res->runs);
	kpgo_jw_u64(&w, "sum_max", res->sum_max);
	kpgo_jw_u64(&w, "scale", res->scale);
	kpgo_jw_strlist(&w, "missing_from_tree", &res->missing);
	kpgo_jw_strlist(&w, "tree_without_profile", &res->unprofiled);
	kpgo_jw_strlist(&w, "removed_stale", &res->removed);
	kpgo_jw_end(&w);
	return print_json_doc(&w);
}

int cmd_stage(int argc, char **argv)
{
	enum { OPT_CC = 256, OPT_JSON };
	static const struct option opts[] = {
		{ "objtree", required_argument, NULL, 't' },
		{ "profile-dir", required_argument, NULL, 'p' },
		{ "srctree", required_argument, NULL, 's' },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "report", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_stage_opts so = { 0 };
	struct kpgo_stage_result res;
	const char *cc = getenv("CC"), *report = NULL, *file;
	struct kpgo_profile p;
	struct kpgo_error err;
	bool json = false;
	int c, ret = 1;

	if (!cc || !*cc)
		cc = "gcc";
	while ((c = getopt_long(argc, argv, "t:p:s:r:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 't': so.objtree = optarg; break;
		case 'p': so.profile_dir = optarg; break;
		case 's': so.srctree = optarg; break;
		case OPT_CC: cc = optarg; break;
		case 'r': report = optarg; break;
		case OPT_JSON: json = true; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("stage", "bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("stage", "expected one profile archive");
	if (!so.objtree && !so.profile_dir)
		return usage_error("stage", "--objtree or --profile-dir is required");
	file = argv[optind];
	if (kpgo_profile_load(&p, file, &err))
		return error("cannot read '%s': %s", file, err.msg);
	if (strcmp(cc, "none")) {
		uint32_t want, have;
		char vw[5], vh[5];
		int r = kpgo_compiler_gcov_version(cc, &have);

		kpgo_gcc_version_parse(kpgo_manifest_get(&p.manifest, MF_GCOV_VERSION), &want);
		kpgo_gcc_version_str(want, vw);
		if (r) {
			warning("cannot ask '%s' for its gcov version; not checked", cc);
		} else if (have != want) {
			kpgo_gcc_version_str(have, vh);
			error("'%s' is a profile of gcov version '%s', but '%s' writes '%s': GCC ignores profiles of another version",
			      file, vw, cc, vh);
			goto out;
		}
	}
	if (kpgo_stage(&p, &so, &res, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (json) {
		if (print_json(file, &p, &res)) {
			kpgo_stage_result_release(&res);
			goto out;
		}
	} else if (verbosity > 0) {
		size_t max = verbosity > 1 ? SIZE_MAX : 10;

		printf("staged %zu objects from '%s' into '%s' (summary runs=%u sum_max=%u",
		       res.staged, file, so.profile_dir ? so.profile_dir : so.objtree, res.runs,
		       res.sum_max);
		if (res.scale > 1)
			printf(", counters divided by %" PRIu64 " to fit GCC's 32-bit sum_max",
			       res.scale);
		printf(")\n");
		print_list(stdout, "profiled objects missing from the tree", &res.missing, max);
		print_list(stdout, "objects in the tree without profile", &res.unprofiled, max);
		print_list(stdout, "stale .gcda files removed", &res.removed, max);
	}
	if (report) {
		/* Made in memory, then written atomically: never half a report. */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int r = f ? 0 : -ENOMEM;

		if (f) {
			fprintf(f, "profile: %s\npayload_sha256: %s\nstaged: %zu\n", file,
				kpgo_manifest_get(&p.manifest, MF_PAYLOAD), res.staged);
			print_list(f, "profiled objects missing from the tree", &res.missing, SIZE_MAX);
			print_list(f, "objects in the tree without profile", &res.unprofiled, SIZE_MAX);
			print_list(f, "stale .gcda files removed", &res.removed, SIZE_MAX);
			if (fclose(f))
				r = -ENOMEM;
		}
		if (!r)
			r = kpgo_write_file_atomic(report, text, len, 0644);
		free(text);
		if (r) {
			error("cannot write '%s': %s", report, strerror(-r));
			kpgo_stage_result_release(&res);
			goto out;
		}
	}
	kpgo_stage_result_release(&res);
	ret = 0;
out:
	kpgo_profile_release(&p);
	return ret;
}
