// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo: profile-guided kernels. One table of subcommands, as in git.c and
 * kmod's tools/kmod.c; each lives in src/cmd/<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct subcommand commands[] = {
	{ "collect", cmd_collect, "read the kernel's gcov data into a profile archive" },
	{ "reset", cmd_reset, "zero the kernel's gcov counters" },
	{ "info", cmd_info, "show a profile: hottest functions, subsystems, coverage" },
	{ "diff", cmd_diff, "compare two profiles: similarity, what gained or lost" },
	{ "merge", cmd_merge, "merge profiles, weighted, in one pass" },
	{ "stage", cmd_stage, "put a profile where GCC's -fprofile-use finds it" },
	{ "store", cmd_store, "add, list, select, verify and prune stored profiles" },
	{ "flags", cmd_flags, "print the compiler flags for the optimized build" },
	{ "report", cmd_report, "how much of the profile an optimized build applied" },
	{ "afdo", cmd_afdo, "convert a profile for Clang (LLVM sample profile)" },
	{ "spool", cmd_spool, "on a machine: collect into the spool, upload, prune" },
	{ "plan", cmd_plan, "what a kernel package build makes: releases, versions, profile" },
	{ "kconfig", cmd_kconfig, "check a kernel's .config: fragments, key files, flavour" },
	{ "tree", cmd_tree, "check a built kernel tree against its flavour; its report" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: kpgo [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'kpgo <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kpgo %s\n", KPGO_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "kpgo: '%s' is not a kpgo command; see 'kpgo --help'\n", argv[1]);
	return EXIT_USAGE;
}
