// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo afdo: a profile as an LLVM sample profile, for Clang's -fprofile-sample-use. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "cmd/cmd.h"

static const char usage_text[] =
	"usage: kpgo afdo [--objtree DIR] [--gcov GCOV] [--defs DEFS] [--summary FILE]\n"
	"                 [--inlined] [--add PROFILE.txt [--add-places DEFS]]\n"
	"                 -o OUT.afdo.txt FILE.kpgo\n"
	"   or: kpgo afdo --list-objects --objtree DIR [-z]\n"
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
	"                      BUILD_ROOT); a copy of its .gcno files and of the\n"
	"                      objects --list-objects names will do\n"
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
	"      --summary FILE  also the summary as JSON (as --json prints it, with\n"
	"                      the sha256 of OUT), for kpgo report --afdo-summary\n"
	"                      (written atomically, last)\n"
	"      --json          print the summary as JSON on stdout\n"
	"      --inlined       also write the lines of functions GCC inlined before\n"
	"                      instrumenting (gcov names no function for them) into\n"
	"                      those functions' own records, under their names, found\n"
	"                      in the other objects' .gcno or in the source; flat, no\n"
	"                      call-site context, no entry count of their own\n"
	"      --add PROFILE.txt  then the functions of another sample profile (text\n"
	"                      format, checked whole) whose names gcov has no\n"
	"                      function of, as they are: the code gcov cannot see\n"
	"                      (noinstr, GCOV_PROFILE := n), e.g. llvm-profgen's\n"
	"                      profile of an uninstrumented kernel's blocks\n"
	"      --add-places DEFS  where those functions are: a definitions table\n"
	"                      whose 'profile' lines give each one's SOURCE and\n"
	"                      LINE; a function without one is left out. Required\n"
	"                      with --add and --defs (the table names them all)\n"
	"      --list-objects  print the objects of the object tree DIR that the\n"
	"                      conversion reads besides the .gcno files, one path\n"
	"                      (relative to DIR) a line: those that define a\n"
	"                      function some object defines weak, and the weak ones\n"
	"  -z, --null          with --list-objects: end each path with NUL instead\n"
	"  -q, --quiet / -v, --verbose (lists what was left out, and why gcov\n"
	"                      named no function for lines, with examples)\n";

static void print_list(const char *title, const struct kpgo_strlist *l)
{
	size_t i;

	if (!l->n)
		return;
	fprintf(stderr, "%s: %zu\n", title, l->n);
	for (i = 0; i < l->n; i++)
		fprintf(stderr, "  %s\n", l->items[i]);
}

/* kpgo afdo --list-objects */
static int list_objects(const char *objtree, bool nul)
{
	struct kpgo_strlist objects = { 0 };
	struct kpgo_error err;
	size_t i;
	int ret = 0;

	if (kpgo_afdo_objects(objtree, &objects, &err))
		ret = error("%s", err.msg);
	for (i = 0; !ret && i < objects.n; i++)
		printf("%s%c", objects.items[i], nul ? '\0' : '\n');
	if (!ret && fflush(stdout))
		ret = error("cannot write to standard output: %s", strerror(errno));
	kpgo_strlist_clear(&objects);
	return ret;
}

int cmd_afdo(int argc, char **argv)
{
	enum {
		OPT_GCOV = 256,
		OPT_JSON,
		OPT_DEFS,
		OPT_SUMMARY,
		OPT_LIST,
		OPT_INLINED,
		OPT_ADD,
		OPT_ADD_PLACES
	};
	static const struct option opts[] = {
		{ "objtree", required_argument, NULL, 't' },
		{ "gcov", required_argument, NULL, OPT_GCOV },
		{ "output", required_argument, NULL, 'o' },
		{ "defs", required_argument, NULL, OPT_DEFS },
		{ "summary", required_argument, NULL, OPT_SUMMARY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "list-objects", no_argument, NULL, OPT_LIST },
		{ "inlined", no_argument, NULL, OPT_INLINED },
		{ "add", required_argument, NULL, OPT_ADD },
		{ "add-places", required_argument, NULL, OPT_ADD_PLACES },
		{ "null", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_afdo_opts o = { 0 };
	struct kpgo_afdo_result res;
	const struct kpgo_afdo_summary *sum = &res.sum;
	const char *out = NULL, *defs = NULL, *summary = NULL, *file;
	struct strbuf text = STRBUF_INIT;
	struct kpgo_error err;
	bool json = false, list = false, nul = false;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "t:o:zqvh", opts, NULL)) != -1) {
		switch (c) {
		case 't': o.gcno_dir = optarg; break;
		case OPT_GCOV: o.gcov = optarg; break;
		case 'o': out = optarg; break;
		case OPT_DEFS: defs = optarg; break;
		case OPT_SUMMARY: summary = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_LIST: list = true; break;
		case OPT_INLINED: o.inlined = true; break;
		case OPT_ADD: o.add = optarg; break;
		case OPT_ADD_PLACES: o.add_places = optarg; break;
		case 'z': nul = true; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("afdo", "bad option");
		}
	}
	if (list) {
		if (optind != argc)
			return usage_error("afdo", "--list-objects takes no profile archive");
		if (!o.gcno_dir || !*o.gcno_dir)
			return usage_error("afdo", "--list-objects needs --objtree DIR");
		if (out || defs || summary || json || o.gcov || o.inlined || o.add || o.add_places)
			return usage_error("afdo",
					   "--list-objects only lists: no -o, --defs, --summary, --json, --gcov or --add");
		return list_objects(o.gcno_dir, nul);
	}
	if (nul)
		return usage_error("afdo", "-z is for --list-objects");
	if (optind + 1 != argc)
		return usage_error("afdo", "expected one profile archive");
	if (!out || !*out)
		return usage_error("afdo", "-o OUT is required");
	if (o.gcov && !*o.gcov)
		return usage_error("afdo", "--gcov needs a program");
	if (defs && !*defs)
		return usage_error("afdo", "--defs needs a file");
	if (summary && !*summary)
		return usage_error("afdo", "--summary needs a file");
	if ((o.add && !*o.add) || (o.add_places && !*o.add_places))
		return usage_error("afdo", "--add and --add-places need a file");
	if (o.add_places && !o.add)
		return usage_error("afdo", "--add-places is for --add");
	if (o.add && defs && !o.add_places)
		return usage_error("afdo",
				   "--add with --defs needs --add-places (the table names every function)");
	if (defs && !strcmp(defs, out))
		return usage_error("afdo", "--defs and -o name the same file");
	if (summary && (!strcmp(summary, out) || (defs && !strcmp(summary, defs))))
		return usage_error("afdo", "--summary and %s name the same file",
				   strcmp(summary, out) ? "--defs" : "-o");
	file = argv[optind];
	kpgo_afdo_result_init(&res);
	if (kpgo_afdo_convert(file, &o, &res, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (!sum->st.functions) {
		error("no function of '%s' was executed: nothing to write", file);
		goto out;
	}
	if (kpgo_afdo_summary_set_files(&res.sum, out, &res.text, defs)) {
		error("out of memory");
		goto out;
	}
	if (write_out(out, &res.text) || (defs && write_out(defs, &res.defs)))
		goto out;
	if (kpgo_afdo_summary_json(sum, &text)) {
		error("out of memory");
		goto out;
	}
	if (summary && write_out(summary, &text))
		goto out;
	strbuf_reset(&text);
	if (kpgo_afdo_summary_warning(sum, &text)) {
		error("out of memory");
		goto out;
	}
	if (text.len)
		warning("%s", text.buf);
	if (json) {
		strbuf_reset(&text);
		if (kpgo_afdo_summary_json(sum, &text)) {
			error("out of memory");
			goto out;
		}
		fwrite(text.buf, 1, text.len, stdout);
	}
	strbuf_reset(&text);
	if (kpgo_afdo_summary_format(sum, &text)) {
		error("out of memory");
		goto out;
	}
	if (verbosity > 0)
		fputs(text.buf, stderr);
	if (verbosity > 1) {
		strbuf_reset(&text);
		if (kpgo_afdo_summary_format_causes(sum, &text)) {
			error("out of memory");
			goto out;
		}
		fputs(text.buf, stderr);
		print_list("names with several definitions, left out", &sum->ambiguous);
		print_list("objects without .gcno", &sum->no_gcno);
		print_list("objects whose .gcno is of another build", &sum->other_build);
		print_list("objects whose .gcno is of another compilation, paired by checksums",
			   &sum->rebuilt);
	}
	ret = 0;
out:
	strbuf_release(&text);
	kpgo_afdo_result_release(&res);
	return ret;
}
