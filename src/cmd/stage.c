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
#include "profile-archive.h"
#include "profile.h"
#include "stage-summary.h"
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
	"      --summary FILE     write the result as JSON (as --json prints it) to\n"
	"                         FILE, for kpgo report --stage-summary\n"
	"      --json             print the result as JSON\n"
	"  -q, --quiet / -v, --verbose (lists the objects)\n";

int cmd_stage(int argc, char **argv)
{
	enum { OPT_CC = 256, OPT_JSON, OPT_SUMMARY };
	static const struct option opts[] = {
		{ "objtree", required_argument, NULL, 't' },
		{ "profile-dir", required_argument, NULL, 'p' },
		{ "srctree", required_argument, NULL, 's' },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "report", required_argument, NULL, 'r' },
		{ "summary", required_argument, NULL, OPT_SUMMARY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_stage_opts so = { 0 };
	struct kpgo_stage_result res;
	struct kpgo_stage_summary sum;
	struct strbuf text = STRBUF_INIT;
	const char *cc = getenv("CC"), *report = NULL, *summary = NULL, *file;
	struct kpgo_manifest m;
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
		case OPT_SUMMARY: summary = optarg; break;
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
	if ((report && !*report) || (summary && !*summary))
		return usage_error("stage", "--report and --summary need a file");
	if (report && summary && !strcmp(report, summary))
		return usage_error("stage", "--report and --summary name the same file");
	file = argv[optind];
	kpgo_stage_summary_init(&sum);
	kpgo_manifest_init(&m);
	if (strcmp(cc, "none")) {
		struct kpgo_archive *a;
		uint32_t want, have;
		char vw[5], vh[5];
		int r = kpgo_compiler_gcov_version(cc, &have);

		/* The manifest's version (checked against every object as they are staged). */
		if (kpgo_archive_open(&a, file, &err))
			return error("cannot read '%s': %s", file, err.msg);
		kpgo_gcc_version_parse(kpgo_manifest_get(kpgo_archive_manifest(a), MF_GCOV_VERSION),
				       &want);
		kpgo_archive_close(a);
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
	/* Streamed: memory does not grow with the profile's counters (issue 18). */
	if (kpgo_stage_file(file, &so, &m, &res, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (kpgo_stage_summary_take(&sum, file, kpgo_manifest_get(&m, MF_PAYLOAD), &res)) {
		kpgo_stage_result_release(&res);
		error("out of memory");
		goto out;
	}
	kpgo_stage_result_release(&res);
	if (kpgo_stage_summary_json(&sum, &text)) {
		error("out of memory");
		goto out;
	}
	if (json)
		fwrite(text.buf, 1, text.len, stdout);
	if (summary && write_out(summary, &text))
		goto out;
	strbuf_reset(&text);
	if (report && kpgo_stage_summary_report(&sum, &text)) {
		error("out of memory");
		goto out;
	}
	if (report && write_out(report, &text))
		goto out;
	if (!json && verbosity > 0) {
		strbuf_reset(&text);
		if (strbuf_addf(&text,
				"staged %" PRIu64 " objects from '%s' into '%s' (summary runs=%" PRIu64
				" sum_max=%" PRIu64,
				sum.staged, file, so.profile_dir ? so.profile_dir : so.objtree,
				sum.runs, sum.sum_max) ||
		    (sum.scale > 1 &&
		     strbuf_addf(&text,
				 ", counters divided by %" PRIu64 " to fit GCC's 32-bit sum_max",
				 sum.scale)) ||
		    strbuf_addstr(&text, ")\n") ||
		    kpgo_stage_summary_lists(&sum, verbosity > 1 ? SIZE_MAX : 10, &text)) {
			error("out of memory");
			goto out;
		}
		fwrite(text.buf, 1, text.len, stdout);
	}
	ret = 0;
out:
	kpgo_stage_summary_release(&sum);
	strbuf_release(&text);
	kpgo_manifest_release(&m);
	return ret;
}
