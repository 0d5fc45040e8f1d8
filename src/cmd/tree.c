// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo tree check: is a built kernel tree the flavour it was built as?
 * The build driver (kpgo-kbuild) runs it after the build; it writes the
 * flavour's report (pgo-instr-report, kbuild-report).
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "toolchain.h"
#include "tree-check.h"

static const char usage_text[] =
	"usage: kpgo tree check --flavour F --objtree DIR --srctree DIR\n"
	"                       [--compiler gcc|clang [--lto thin|full]]\n"
	"                       [--report FILE [report options]]\n"
	"\n"
	"Checks a kernel tree built out of tree (make O=DIR) after the build:\n"
	"  pgo-instr             vmlinux defines __gcov_init and has gcov counters\n"
	"                        (__gcov0.*)\n"
	"  pgo, baseline, o3     no symbol of gcov (__gcov) in vmlinux or any .ko\n"
	"  baseline, o3          init/main.o compiled with -O2 (o3: -O3) last, and\n"
	"                        without -fprofile-use or -fprofile-sample-use\n"
	"  pgo                   init/main.o compiled with -fprofile-use (GCC) or\n"
	"                        -fprofile-sample-use=DIR/kpgo.afdo (Clang)\n"
	"  --compiler clang      also: init/main.o compiled with -flto=thin, and\n"
	"                        vmlinux's .comment names clang\n"
	"  --lto full            with --compiler clang: init/main.o compiled with\n"
	"                        -flto (full LTO), not -flto=thin (--lto thin, the\n"
	"                        default)\n"
	"The first check that fails is said in one line.\n"
	"\n"
	"  --report FILE         pgo-instr, baseline, o3: write the flavour's report\n"
	"                        to FILE (and print it): the release, the build's\n"
	"                        seconds, pgo-instr: the objects compiled from C (not\n"
	"                        in scripts/ or tools/, not *.mod.o), the .gcno files,\n"
	"                        the counters in vmlinux; baseline, o3: the compiler,\n"
	"                        the -O level, the KCFLAGS; and vmlinux's size\n"
	"  --kernel-release R    the report's kernel release\n"
	"  --build-seconds S     how long the build took\n"
	"  --source-names TEXT   pgo-instr: how GCC saw the source file names\n"
	"  --cc-version TEXT     baseline, o3: the compiler's version line\n"
	"  --kcflags TEXT        baseline, o3: the build's KCFLAGS (default none)\n"
	"\n"
	"Exit status: 0 the tree is as its flavour, 1 it is not (or cannot be\n"
	"read), 2 usage error.\n";

static int tree_check(int argc, char **argv)
{
	enum {
		OPT_FLAVOUR = 256,
		OPT_OBJTREE,
		OPT_SRCTREE,
		OPT_COMPILER,
		OPT_REPORT,
		OPT_RELEASE,
		OPT_SECONDS,
		OPT_NAMES,
		OPT_CCVER,
		OPT_KCFLAGS,
		OPT_LTO
	};
	static const struct option opts[] = {
		{ "flavour", required_argument, NULL, OPT_FLAVOUR },
		{ "objtree", required_argument, NULL, OPT_OBJTREE },
		{ "srctree", required_argument, NULL, OPT_SRCTREE },
		{ "compiler", required_argument, NULL, OPT_COMPILER },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "kernel-release", required_argument, NULL, OPT_RELEASE },
		{ "build-seconds", required_argument, NULL, OPT_SECONDS },
		{ "source-names", required_argument, NULL, OPT_NAMES },
		{ "cc-version", required_argument, NULL, OPT_CCVER },
		{ "kcflags", required_argument, NULL, OPT_KCFLAGS },
		{ "lto", required_argument, NULL, OPT_LTO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_tree_report_info ri = { "", "", "", "", "" };
	struct kpgo_tree_check_opts o = { 0 };
	const char *flavour = NULL, *compiler = "gcc", *report = NULL, *lto = NULL;
	struct strbuf text = STRBUF_INIT;
	struct kpgo_tree_facts f;
	enum kpgo_compiler cc;
	struct kpgo_error err;
	int c, ret;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FLAVOUR: flavour = optarg; break;
		case OPT_OBJTREE: o.objtree = optarg; break;
		case OPT_SRCTREE: o.srctree = optarg; break;
		case OPT_COMPILER: compiler = optarg; break;
		case OPT_REPORT: report = optarg; break;
		case OPT_RELEASE: ri.release = optarg; break;
		case OPT_SECONDS: ri.build_seconds = optarg; break;
		case OPT_NAMES: ri.source_names = optarg; break;
		case OPT_CCVER: ri.compiler = optarg; break;
		case OPT_KCFLAGS: ri.kcflags = optarg; break;
		case OPT_LTO: lto = optarg; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("tree check", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("tree check", "unexpected argument '%s'", argv[optind]);
	if (!flavour || !o.objtree || !o.srctree)
		return usage_error("tree check", "--flavour, --objtree and --srctree are required");
	if (kpgo_kflavour_parse(flavour, &o.flavour))
		return usage_error("tree check",
				   "unknown flavour '%s' (pgo-instr, pgo, baseline or o3)", flavour);
	if (kpgo_compiler_parse(compiler, &cc))
		return usage_error("tree check", "unknown compiler '%s' (gcc or clang)", compiler);
	o.clang = cc == KPGO_COMPILER_CLANG;
	if (lto && !o.clang)
		return usage_error("tree check", "--lto is for --compiler clang");
	if (lto && kpgo_lto_parse(lto, &o.full_lto))
		return usage_error("tree check", "unknown --lto '%s' (thin or full)", lto);
	if (o.clang && o.flavour == KPGO_KFLAVOUR_PGO_INSTR)
		return usage_error("tree check", "the pgo-instr flavour is built with GCC (gcov)");
	if (report && o.flavour == KPGO_KFLAVOUR_PGO)
		return usage_error("tree check", "--report is for pgo-instr, baseline and o3 (kpgo "
						 "report writes the pgo flavour's)");

	if (kpgo_tree_check(&o, &f, &err))
		return error("%s", err.msg);
	if (!report)
		return 0;
	if (kpgo_tree_report(&o, &f, &ri, &text)) {
		strbuf_release(&text);
		return error("out of memory");
	}
	ret = write_out(report, &text);
	if (!ret)
		fwrite(text.buf, 1, text.len, stdout);
	strbuf_release(&text);
	return ret;
}

static const struct subcommand_entry subcommands[] = {
	{ "check", tree_check },
};

int cmd_tree(int argc, char **argv)
{
	return run_command_of("tree", usage_text, subcommands,
			      sizeof(subcommands) / sizeof(subcommands[0]), argc, argv);
}
