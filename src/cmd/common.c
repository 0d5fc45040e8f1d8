// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "cmd/cmd.h"
#include "gcda.h"
#include "toolchain.h"
#include "util.h"

int verbosity = 1;

int error(const char *fmt, ...)
{
	va_list ap;

	fputs("kpgo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	fputs("kpgo: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void note(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kpgo %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'kpgo %s --help'\n", cmd);
	return EXIT_USAGE;
}

int run_subcommand(const char *cmd, const struct subcommand_entry *t, size_t n, int argc,
		   char **argv)
{
	char names[256];
	size_t i, used = 0;

	if (optind >= argc) {
		names[0] = '\0';
		for (i = 0; i < n && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 i ? ", " : "", t[i].name);
		return usage_error(cmd, "which command? (%s)", names);
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[optind], t[i].name)) {
			argc -= optind;
			argv += optind;
			optind = 0; /* glibc: start over, at argv[1] */
			return t[i].fn(argc, argv);
		}
	}
	return usage_error(cmd, "'%s' is not a %s command", argv[optind], cmd);
}

int run_command_of(const char *cmd, const char *usage, const struct subcommand_entry *t, size_t n,
		   int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		return usage_error(cmd, "bad option");
	}
	return run_subcommand(cmd, t, n, argc, argv);
}

int cc_gcov_version(const char *cc, char gv[5])
{
	uint32_t stamp;
	int r = kpgo_compiler_gcov_version(cc, &stamp);

	if (r)
		return error("cannot get the gcov version of '%s': %s", cc,
			     r == -ENOEXEC ? "it failed to compile with --coverage" : strerror(-r));
	kpgo_gcc_version_str(stamp, gv);
	return 0;
}

int write_out(const char *path, const struct strbuf *text)
{
	int r = kpgo_write_file_atomic(path, text->buf, text->len, 0644);

	return r ? error("cannot write '%s': %s", path, strerror(-r)) : 0;
}

int print_json_doc(struct kpgo_json_writer *w)
{
	int r = kpgo_jw_finish(w);

	if (!r)
		fwrite(w->out->buf, 1, w->out->len, stdout);
	strbuf_release(w->out);
	if (r)
		return error("cannot print the JSON: %s", strerror(-r));
	return 0;
}
