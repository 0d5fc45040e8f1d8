// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo reset: zero the kernel's gcov counters. */
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kernel.h"

static const char usage_text[] = "usage: kpgo reset [-d|--gcov-dir DIR]\n"
				 "\n"
				 "Zeroes all gcov counters by writing to DIR/reset (default\n"
				 "/sys/kernel/debug/gcov/reset) and records the time in\n"
				 "$KPGO_STATE_DIR/last-reset (default /var/lib/kpgo) for the next\n"
				 "collection's window.\n";

int cmd_reset(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gcov-dir", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = KPGO_GCOV_DIR_DEFAULT;
	int c;

	while ((c = getopt_long(argc, argv, "d:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("reset", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("reset", "unexpected argument '%s'", argv[optind]);
	return collect_reset(dir, !strcmp(dir, KPGO_GCOV_DIR_DEFAULT));
}
