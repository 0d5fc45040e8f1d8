/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_CMD_H
#define KPGO_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collect.h"
#include "profile.h"
#include "sha256.h"

/*
 * Each subcommand parses its options, calls the library and reports an
 * error once, git style ("kpgo: cannot read 'x': reason"). Exit codes:
 * 0 ok, 1 failure, 2 usage.
 */
#define EXIT_USAGE 2

int cmd_collect(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_stage(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_flags(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_spool(int argc, char **argv);
int cmd_afdo(int argc, char **argv);
int cmd_plan(int argc, char **argv);

#define DEFAULT_GCOV_DIR "/sys/kernel/debug/gcov"

/**
 * struct collect_request - what collect_profile() reads and how it names it
 * @gcov_dir: laid out like /sys/kernel/debug/gcov
 * @build_root, @release, @build_id: NULL to find them (the last two from the
 *	running kernel when @live)
 * @live: @gcov_dir is the running kernel's
 */
struct collect_request {
	const char *gcov_dir;
	const char *workload;
	const char *build_root;
	const char *release;
	const char *build_id;
	bool live;
};

/* kpgo store --store DIR (NULL when not given) */
extern const char *store_dir_opt;
int store_ingest(int argc, char **argv);

/* --- kpgo report, shared by src/cmd/report*.c ---------------------------- */

/* The options of both modes. */
struct report_opts {
	const char *profile;
	const char *afdo;
	const char *defs;
	const char *objtree;
	const char *log;
	const char *stage;
	const char *release;
	const char *output;
	struct kpgo_strlist headers;
	unsigned min_applied;
	bool json;
};

/* GCC's report (--profile) is in report.c, Clang's (--afdo) in report-clang.c. */
int report_clang(const struct report_opts *o);
/*
 * The kernel release (--kernel-release or the object tree's) and the
 * profile's checksum, for the report's head; 1 after the error message.
 */
int report_head(const struct report_opts *o, const char *profile, struct strbuf *rel,
		char sha[KPGO_SHA256_HEX]);
/* Refuses a log without compiler lines; warns about skipped long lines. */
int report_check_log(const char *log, size_t cc_lines, size_t long_lines);
/* The report to -o (atomically) or, without --json, to stdout; 1 after the message. */
int report_write(const struct report_opts *o, const struct strbuf *text);
/* After the JSON or the count lines: 0 when @ok, else 1 after one line. */
int report_verdict(const struct report_opts *o, bool ok, const char *pct);
/* The JSON members both modes print first ("mode" to "report"), and one more. */
void report_json_head(const char *mode, const char *release, const char *profile,
		      const char *sha, const char *output);
void report_json_u64(const char *key, uint64_t v);

/* --- kpgo spool, shared by src/cmd/spool*.c ---------------------------- */

struct kpgo_config;
struct kpgo_spool;

enum { OPT_SPOOL_CONFIG = 1000, OPT_SPOOL_DIR };
#define SPOOL_COMMON_OPTIONS                                                    \
	{ "config", required_argument, NULL, OPT_SPOOL_CONFIG },               \
	{ "spool", required_argument, NULL, OPT_SPOOL_DIR },                   \
	{ "quiet", no_argument, NULL, 'q' }, { "verbose", no_argument, NULL, 'v' }, \
	{ "help", no_argument, NULL, 'h' }

/* --config, --spool, -q, -v, -h and errors: 256 to go on, else the exit code. */
int spool_common_option(int c, const char *cmd, const char *usage);
/* The settings file (--config, $KPGO_CONFIG, the default); prints its warnings or error. */
int spool_load_config(struct kpgo_config *c);
/* --spool, else KPGO_SPOOL_DIR. */
const char *spool_dir(const struct kpgo_config *c);
/* Retention under the upload lock (skipped when held, unless @wait); prints what goes. */
int spool_prune(struct kpgo_spool *sp, const struct kpgo_config *c, bool wait);
/*
 * Is there gcov data below @debugfs? 1 yes, 0 no (why in @why), <0 error.
 * With @may_mount, mounts debugfs there when it is not, and sets *@mounted
 * when the caller must unmount it (only when the data is there).
 */
int gcov_probe(const char *debugfs, bool may_mount, bool *mounted, char *why, size_t len);
int spool_collect(int argc, char **argv);
int spool_upload(int argc, char **argv);
int spool_systemd_generator(int argc, char **argv);
int spool_prepare(int argc, char **argv);

/* Checks @rq's labels and ids; prints a usage error for @cmd (exit 2). */
int collect_check_args(const char *cmd, const struct collect_request *rq);
/*
 * Reads @rq->gcov_dir into @p (initialised here) with its complete
 * manifest. Returns 0 or a negative errno with @err set; -ENOENT when
 * there is no .gcda file at all.
 */
int collect_profile(const struct collect_request *rq, struct kpgo_profile *p,
		    struct kpgo_collect_stats *st, struct kpgo_error *err);

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

/* A command of a command with commands (kpgo store add, kpgo spool collect). */
struct subcommand_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
};
/*
 * Runs the command named at argv[optind] (after the caller's own options)
 * with argv from that name on, or says which exist; returns its status.
 */
int run_subcommand(const char *cmd, const struct subcommand_entry *t, size_t n, int argc,
		   char **argv);

/* --- kpgo info and kpgo diff ------------------------------------------- */

/* The format versions of their JSON (docs/kpgo.1). */
#define KPGO_INFO_JSON_VERSION 1
#define KPGO_DIFF_JSON_VERSION 1

struct kpgo_pstat;
struct kpgo_pstat_fn;
/* A function's members (object, ident, checksums, names), no braces. */
void json_pstat_fn(const struct kpgo_pstat *ps, const struct kpgo_pstat_fn *f);
/* The "names" object of a profile named from @objtree, or null. */
void json_pstat_names(const struct kpgo_pstat *ps, const char *objtree);

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
