// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo reset: zero the kernel's gcov counters. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util.h"

static const char usage_text[] =
	"usage: kpgo reset [-d|--gcov-dir DIR]\n"
	"\n"
	"Zeroes all gcov counters by writing to DIR/reset (default\n"
	"/sys/kernel/debug/gcov/reset) and records the time in\n"
	"$KPGO_STATE_DIR/last-reset (default /var/lib/kpgo) for the next\n"
	"collection's window.\n";

int reset_counters(const char *gcov_dir, bool live)
{
	const char *state = getenv("KPGO_STATE_DIR");
	char path[4096], stamp[32];
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/reset", gcov_dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return error("gcov directory name too long");
	/* No O_CREAT: a missing reset file means this is no gcov debugfs. */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error("cannot reset counters: cannot open '%s': %s", path, strerror(errno));
	if (write(fd, "1\n", 2) != 2) {
		int e = errno;

		close(fd);
		return error("cannot reset counters: cannot write '%s': %s", path, strerror(e));
	}
	if (close(fd) < 0)
		return error("cannot reset counters: '%s': %s", path, strerror(errno));
	if (live || state) {
		snprintf(path, sizeof(path), "%s/last-reset", state ? state : "/var/lib/kpgo");
		n = snprintf(stamp, sizeof(stamp), "%" PRId64 "\n", (int64_t)time(NULL));
		if (kpgo_write_file_atomic(path, stamp, (size_t)n, 0644))
			warning("counters reset, but the time could not be recorded in '%s'", path);
	}
	return 0;
}

int cmd_reset(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gcov-dir", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "/sys/kernel/debug/gcov";
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
	return reset_counters(dir, !strcmp(dir, "/sys/kernel/debug/gcov"));
}
