// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo afdo: a profile as an LLVM sample profile, for Clang's -fprofile-sample-use. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "json-writer.h"
#include "cmd/cmd.h"

static const char usage_text[] =
	"usage: kpgo afdo [--objtree DIR] [--gcov GCOV] [--defs DEFS] -o OUT.afdo.txt FILE.kpgo\n"
	"\n"
	"Converts a profile into an LLVM sample profile, in the AutoFDO text format\n"
	"that `llvm-profdata merge --sample` reads, for Clang's -fprofile-sample-use\n"
	"and ThinLTO's --lto-sample-profile. GCC's gcov turns each object's counters\n"
	"and the instrumented build's .gcno into line counts; each function gets its\n"
	"entry count and its lines' counts by offset from its first line. A name\n"
	"with several definitions (static functions of one name in different files)\n"
	"is left out, unless one is strong and the others weak (OBJ.o tells);\n"
	"copies of one definition (a header's static inline function) are merged.\n"
	"What was written and left out is summed up on stderr.\n"
	"\n"
	"  -t, --objtree DIR   the instrumented build's object tree, with OBJ.gcno\n"
	"                      for each profiled OBJ.gcda (default: the profile's\n"
	"                      BUILD_ROOT); a copy of its .gcno files will do\n"
	"      --gcov GCOV     the gcov of the GCC that built it (default: gcov-MAJOR\n"
	"                      of the profile's GCC when in PATH, else gcov)\n"
	"  -o, --output FILE   the sample profile (written atomically)\n"
	"      --defs DEFS     also the table of the definitions behind the profile,\n"
	"                      for kpgo report --defs (written atomically, after -o):\n"
	"                      a line '" KPGO_AFDO_DEFS_HEAD "', then one line per\n"
	"                      name and definition, NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE,\n"
	"                      in byte order of the names. ROLE: profile (its counts\n"
	"                      are NAME's), weak (a weak definition the strong one\n"
	"                      overrides; clang gives it NAME's counts too) or\n"
	"                      left-out (NAME has several definitions). SOURCE: the\n"
	"                      file as GCC was given it, '.' and 'dir/..' removed\n"
	"                      (clang's names read alike); LINE: the name's line\n"
	"      --json          print the summary as JSON on stdout\n"
	"  -q, --quiet / -v, --verbose (lists what was left out)\n";

static void print_list(const char *title, const struct kpgo_strlist *l)
{
	size_t i;

	if (!l->n)
		return;
	fprintf(stderr, "%s: %zu\n", title, l->n);
	for (i = 0; i < l->n; i++)
		fprintf(stderr, "  %s\n", l->items[i]);
}

static int print_json(const char *out, const char *defs, const struct kpgo_afdo_result *res)
{
	const struct kpgo_afdo_stats *st = &res->st;
	struct kpgo_json_writer w;
	struct strbuf sb = STRBUF_INIT;

	kpgo_jw_init(&w, &sb);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_string(&w, "output", out);
	kpgo_jw_string(&w, "defs", defs);
	kpgo_jw_u64(&w, "profile_objects", res->profile_objects);
	kpgo_jw_u64(&w, "objects", st->objects);
	kpgo_jw_u64(&w, "functions", st->functions);
	kpgo_jw_u64(&w, "lines", st->lines);
	kpgo_jw_u64(&w, "samples", st->samples);
	kpgo_jw_u64(&w, "unexecuted", st->unexecuted);
	kpgo_jw_u64(&w, "ambiguous_names", st->ambiguous_names);
	kpgo_jw_u64(&w, "ambiguous_definitions", st->ambiguous_defs);
	kpgo_jw_u64(&w, "ambiguous_samples", st->ambiguous_samples);
	kpgo_jw_u64(&w, "weak_names", st->weak_names);
	kpgo_jw_u64(&w, "weak_definitions", st->weak_defs);
	kpgo_jw_u64(&w, "merged_definitions", st->merged_defs);
	kpgo_jw_u64(&w, "merged_copies", st->merged_copies);
	kpgo_jw_u64(&w, "unplaced_lines", st->unplaced_lines);
	kpgo_jw_u64(&w, "unplaced_samples", st->unplaced_samples);
	kpgo_jw_u64(&w, "far_lines", st->far_lines);
	kpgo_jw_u64(&w, "negative_counts", st->negative_counts);
	kpgo_jw_u64(&w, "gcov_messages", res->gcov_messages);
	kpgo_jw_strlist(&w, "without_gcno", &res->no_gcno);
	kpgo_jw_strlist(&w, "other_build", &res->other_build);
	kpgo_jw_strlist(&w, "ambiguous", &res->ambiguous);
	kpgo_jw_end(&w);
	return print_json_doc(&w);
}

/* @part as a percentage of @whole, for the summary. */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int cmd_afdo(int argc, char **argv)
{
	enum { OPT_GCOV = 256, OPT_JSON, OPT_DEFS };
	static const struct option opts[] = {
		{ "objtree", required_argument, NULL, 't' },
		{ "gcov", required_argument, NULL, OPT_GCOV },
		{ "output", required_argument, NULL, 'o' },
		{ "defs", required_argument, NULL, OPT_DEFS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_afdo_opts o = { 0 };
	struct kpgo_afdo_result res;
	const struct kpgo_afdo_stats *st = &res.st;
	const char *out = NULL, *defs = NULL, *file;
	struct kpgo_error err;
	bool json = false;
	uint64_t all;
	int c, r, ret = 1;

	while ((c = getopt_long(argc, argv, "t:o:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 't': o.gcno_dir = optarg; break;
		case OPT_GCOV: o.gcov = optarg; break;
		case 'o': out = optarg; break;
		case OPT_DEFS: defs = optarg; break;
		case OPT_JSON: json = true; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("afdo", "bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("afdo", "expected one profile archive");
	if (!out || !*out)
		return usage_error("afdo", "-o OUT is required");
	if (o.gcov && !*o.gcov)
		return usage_error("afdo", "--gcov needs a program");
	if (defs && !*defs)
		return usage_error("afdo", "--defs needs a file");
	if (defs && !strcmp(defs, out))
		return usage_error("afdo", "--defs and -o name the same file");
	file = argv[optind];
	kpgo_afdo_result_init(&res);
	if (kpgo_afdo_convert(file, &o, &res, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (!st->functions) {
		error("no function of '%s' was executed: nothing to write", file);
		goto out;
	}
	r = kpgo_write_file_atomic(out, res.text.buf, res.text.len, 0644);
	if (r) {
		error("cannot write '%s': %s", out, strerror(-r));
		goto out;
	}
	if (defs) {
		r = kpgo_write_file_atomic(defs, res.defs.buf, res.defs.len, 0644);
		if (r) {
			error("cannot write '%s': %s", defs, strerror(-r));
			goto out;
		}
	}
	if (res.gcov_messages)
		warning("gcov printed %zu message%s, the first: %s", res.gcov_messages,
			res.gcov_messages == 1 ? "" : "s", res.gcov_first_message.buf);
	if (json && print_json(out, defs, &res))
		goto out;
	all = kpgo_sat_add(kpgo_sat_add(st->samples, st->ambiguous_samples), st->unplaced_samples);
	note(1, "kpgo afdo: wrote %zu functions (%zu lines) to '%s' from %zu of %zu objects; left out: "
		"%zu names with several definitions (%zu functions, %.1f%% of the line counts), "
		"%.1f%% of the line counts in no function, %zu unexecuted functions, "
		"%zu objects without .gcno, %zu of another build; %zu copies of %zu functions merged; "
		"%zu weak definitions of %zu names overridden by a strong one",
	     st->functions, st->lines, out, st->objects, res.profile_objects, st->ambiguous_names,
	     st->ambiguous_defs, pct(st->ambiguous_samples, all), pct(st->unplaced_samples, all),
	     st->unexecuted, res.no_gcno.n, res.other_build.n, st->merged_copies,
	     st->merged_defs, st->weak_defs, st->weak_names);
	if (st->far_lines || st->negative_counts)
		note(1, "kpgo afdo: also left out: %zu lines 65536 or more past their function's first line; "
			"%zu negative counts taken as 0",
		     st->far_lines, st->negative_counts);
	if (verbosity > 1) {
		print_list("names with several definitions, left out", &res.ambiguous);
		print_list("objects without .gcno", &res.no_gcno);
		print_list("objects whose .gcno is of another build", &res.other_build);
	}
	ret = 0;
out:
	kpgo_afdo_result_release(&res);
	return ret;
}
