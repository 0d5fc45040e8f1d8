/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_CMD_H
#define KPGO_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collect.h"
#include "json-writer.h"
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
int cmd_kconfig(int argc, char **argv);
int cmd_tree(int argc, char **argv);

/* --- kpgo store, shared by src/cmd/store*.c ---------------------------- */

struct kpgo_store;

/* kpgo store --store DIR (NULL when not given) */
extern const char *store_dir_opt;

enum { OPT_STORE_DIR = 1000 };
/* Not clang-formatted: clang-format takes the initialisers for a block and breaks them apart. */
/* clang-format off */
#define STORE_COMMON_OPTIONS							\
	{ "store", required_argument, NULL, OPT_STORE_DIR },			\
	{ "quiet", no_argument, NULL, 'q' },					\
	{ "verbose", no_argument, NULL, 'v' },					\
	{ "help", no_argument, NULL, 'h' }
/* clang-format on */

/*
 * The options every store command takes. Returns -1 when @c is not one of
 * them, else the command's exit code (or 256 to go on).
 */
int store_common_option(int c, const char *cmd, const char *usage);
/* The store of --store, $KPGO_STORE or the default; 1 after the error message. */
int store_open(struct kpgo_store *s);
/* @s, or "-" when it is empty. */
const char *store_or_dash(const char *s);
int store_policy(int argc, char **argv);
int store_verify(int argc, char **argv);
int store_gc(int argc, char **argv);
int store_ingest(int argc, char **argv);

/* --- kpgo spool, shared by src/cmd/spool*.c ---------------------------- */

struct kpgo_config;
struct kpgo_spool;

enum { OPT_SPOOL_CONFIG = 1000, OPT_SPOOL_DIR };
#define SPOOL_COMMON_OPTIONS                                                                       \
	{ "config", required_argument, NULL, OPT_SPOOL_CONFIG },                                   \
		{ "spool", required_argument, NULL, OPT_SPOOL_DIR },                               \
		{ "quiet", no_argument, NULL, 'q' }, { "verbose", no_argument, NULL, 'v' },        \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}

/* --config, --spool, -q, -v, -h and errors: 256 to go on, else the exit code. */
int spool_common_option(int c, const char *cmd, const char *usage);
/* The settings file (--config, $KPGO_SETTINGS, the default); prints its warnings or error. */
int spool_load_config(struct kpgo_config *c);
/* --spool, else KPGO_SPOOL_DIR. */
const char *spool_dir(const struct kpgo_config *c);
/* Retention under the upload lock (skipped when held, unless @wait); prints what goes. */
int spool_prune(struct kpgo_spool *sp, const struct kpgo_config *c, bool wait);
int spool_collect(int argc, char **argv);
int spool_upload(int argc, char **argv);
int spool_systemd_generator(int argc, char **argv);
int spool_prepare(int argc, char **argv);

/* The warning about objects outside the build root, when there are any. */
void collect_warn_outside(const struct kpgo_collect_stats *st, const char *root);
/* Resets the counters of @gcov_dir (kpgo_gcov_reset()); 1 after the error message. */
int collect_reset(const char *gcov_dir, bool live);

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
/*
 * A command that is only its commands (kpgo kconfig, kpgo tree): -h prints
 * @usage, then run_subcommand().
 */
int run_command_of(const char *cmd, const char *usage, const struct subcommand_entry *t, size_t n,
		   int argc, char **argv);

/* --- kpgo plan, shared by src/cmd/plan*.c ------------------------------ */

struct kpgo_dpkg_package;
struct kpgo_plan;
struct kpgo_plan_input;

/* What the store's policy said of the profile plan chose from it. */
struct plan_policy {
	const char *verdict; /* none (no store), ok, warn, overridden */
	char age[24];	     /* days, "" unknown */
	char behind[24];     /* releases, "" unknown */
	char min_applied[8]; /* the policy's MIN_APPLIED, "" without a store */
};

/*
 * --store: the profile for @release, and the policy's verdict, ages measured
 * at @now (-1: the clock's time); 1 after the error message.
 */
int plan_store_profile(const char *dir, const char *release, const char *cc, bool override,
		       int64_t now, struct strbuf *out, struct plan_policy *pp);
/* --changelog: the Debian changelog entry of the instr or @pgo packages on stdout. */
int plan_print_changelog(bool pgo, bool as_source, const struct kpgo_plan *p, const char *pkg,
			 const char *maint, long long epoch, const struct kpgo_plan_input *in,
			 const char *cfgname, const char *srcpkg, const struct kpgo_dpkg_package *dp,
			 const char *sha, const struct kpgo_manifest *m);

/* --- kpgo info and kpgo diff ------------------------------------------- */

/* The format versions of their JSON (docs/kpgo.1). */
#define KPGO_INFO_JSON_VERSION 1
#define KPGO_DIFF_JSON_VERSION 1

struct kpgo_json_writer;
struct kpgo_pstat;
struct kpgo_pstat_fn;
/* A function's members (object, ident, checksums, names) into the open object. */
void json_pstat_fn(struct kpgo_json_writer *w, const struct kpgo_pstat *ps,
		   const struct kpgo_pstat_fn *f);
/* The member "names": the naming of a profile from @objtree, or null. */
void json_pstat_names(struct kpgo_json_writer *w, const struct kpgo_pstat *ps, const char *objtree);
/*
 * --top N (0 to 10000) and --depth N (1 to KPGO_PSTAT_DEPTH_MAX) of @cmd:
 * 0, or EXIT_USAGE after the usage error.
 */
int parse_top(const char *cmd, const char *arg, size_t *top);
int parse_depth(const char *cmd, const char *arg, unsigned *depth);
/*
 * Loads the profile @file into @ps, its subsystems @depth directory levels
 * deep, and names its functions from @objtree when given; 1 after the error
 * message.
 */
int pstat_open(struct kpgo_pstat *ps, const char *file, unsigned depth, const char *objtree);

/* Writes @text to @path atomically (mode 0644); 1 after the error message. */
int write_out(const char *path, const struct strbuf *text);
/* @cc's gcov version stamp as text ("B22*") into @gv; 1 after the error message. */
int cc_gcov_version(const char *cc, char gv[5]);
/*
 * Finishes the document of @w and prints it on stdout, releasing its
 * buffer; 1 after the error message.
 */
int print_json_doc(struct kpgo_json_writer *w);

#endif
