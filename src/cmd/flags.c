// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo flags: the compiler flags of the optimized build. The packaging takes
 * them from here and nowhere else.
 */
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util.h"

static const char usage_text[] =
	"usage: kpgo flags [--profile-dir DIR] [--compiler gcc] [--no-partial-training] [--make]\n"
	"\n"
	"Prints the flags for a build that uses a staged profile, on one line:\n"
	"  -fprofile-use[=DIR]            read the profile (DIR: kpgo stage --profile-dir)\n"
	"  -fprofile-correction           the kernel's counters are updated without\n"
	"                                 atomics, so SMP counts are slightly inconsistent\n"
	"  -Wno-error=coverage-mismatch   a stale function (changed since the profile was\n"
	"                                 taken) falls back to static heuristics, with a\n"
	"                                 warning the profile report counts\n"
	"  -Wno-error=missing-profile     likewise for objects without a profile\n"
	"  -fprofile-partial-training     code the training never ran is optimised as\n"
	"                                 without a profile, not for size as \"never\n"
	"                                 executed\": a fleet runs what a training\n"
	"                                 workload missed (docs/BENCHMARKS.md measures it)\n"
	"--no-partial-training leaves that one out (smaller code; the untrained\n"
	"paths slower). --partial-training, the default, is accepted.\n"
	"--make prints KCFLAGS=... for a kernel make command line.\n";

int cmd_flags(int argc, char **argv)
{
	enum { OPT_PARTIAL = 256, OPT_NO_PARTIAL, OPT_COMPILER, OPT_MAKE };
	static const struct option opts[] = {
		{ "profile-dir", required_argument, NULL, 'p' },
		{ "compiler", required_argument, NULL, OPT_COMPILER },
		{ "partial-training", no_argument, NULL, OPT_PARTIAL },
		{ "no-partial-training", no_argument, NULL, OPT_NO_PARTIAL },
		{ "make", no_argument, NULL, OPT_MAKE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *compiler = "gcc";
	bool partial = true, make = false;
	struct strbuf sb = STRBUF_INIT;
	int c;

	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': dir = optarg; break;
		case OPT_COMPILER: compiler = optarg; break;
		case OPT_PARTIAL: partial = true; break;
		case OPT_NO_PARTIAL: partial = false; break;
		case OPT_MAKE: make = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("flags", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("flags", "unexpected argument '%s'", argv[optind]);
	if (strcmp(compiler, "gcc"))
		return error("compiler '%s' is not supported yet (gcc only; Clang needs a sample profile)",
			     compiler);
	if (dir && (!*dir || strchr(dir, ' ') || strchr(dir, '\t') || strchr(dir, '\n') ||
		    strchr(dir, '\'') || strchr(dir, '"')))
		return usage_error("flags", "the profile directory must not contain blanks or quotes");
	strbuf_addstr(&sb, "-fprofile-use");
	if (dir)
		strbuf_addf(&sb, "=%s", dir);
	strbuf_addstr(&sb, " -fprofile-correction -Wno-error=coverage-mismatch"
			   " -Wno-error=missing-profile");
	if (partial)
		strbuf_addstr(&sb, " -fprofile-partial-training");
	if (make)
		printf("KCFLAGS=%s\n", sb.buf);
	else
		printf("%s\n", sb.buf);
	strbuf_release(&sb);
	return 0;
}
