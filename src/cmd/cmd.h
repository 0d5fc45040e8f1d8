/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_CMD_H
#define KPGO_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Each subcommand parses its options, calls the library and reports an
 * error once, git style ("kpgo: cannot read 'x': reason"). Exit codes:
 * 0 ok, 1 failure, 2 usage.
 */
#define EXIT_USAGE 2

int cmd_collect(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_stage(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_flags(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Writes to GCOV_DIR/reset; records the time when @live. Prints its error. */
int reset_counters(const char *gcov_dir, bool live);

/* -q / -v: 0 quiet, 1 normal, 2 verbose. */
extern int verbosity;

/* "kpgo: MESSAGE" on stderr; returns 1 for `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "kpgo: warning: MESSAGE" on stderr, unless quiet. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and notes on stderr: shown when verbose, or at @level 1 unless quiet. */
void note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "kpgo CMD: MESSAGE" and a pointer to --help; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes @s as a JSON string literal, quotes included. */
void json_str(FILE *f, const char *s);

/* Running kernel facts for manifests; "" when unknown. */
void kernel_release(char *buf, size_t len);
void machine_arch(char *buf, size_t len);
/* Hex GNU build id from an ELF notes file such as /sys/kernel/notes. */
int read_build_id(const char *notes_path, char *buf, size_t len);

/* Runs @argv (no shell); its exit status, or a negative errno. */
int run_argv(char *const argv[], bool quiet);
/*
 * The gcov version stamp the compiler @cc writes ("gcc", "ccache gcc-12"):
 * compiles an empty file with coverage and reads its .gcno header, so the
 * answer is the compiler's own, not a guess from its version string.
 */
int compiler_gcov_version(const char *cc, uint32_t *stamp);

#endif
