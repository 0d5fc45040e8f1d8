/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_KCONFIG_H
#define KPGO_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/*
 * Kernel configs as kconfig writes and merge_config.sh reads them: a
 * .config or a fragment is lines "CONFIG_X=value" and "# CONFIG_X is not
 * set"; every other line is a comment. And what a build of one flavour
 * needs of its final .config: each fragment's lines, the key files it
 * names, the flavour's own options.
 */

/* The largest config file read (a distro's .config is about 300 KiB). */
#define KPGO_KCONFIG_MAX (16u << 20)
/* The longest line of a config file or a Kconfig file. */
#define KPGO_KCONFIG_LINE_MAX 65536

/**
 * struct kpgo_kconfig_line - one setting
 * @sym: the symbol with its prefix, "CONFIG_X"
 * @line: the whole line, "CONFIG_X=y" or "# CONFIG_X is not set"
 * @lineno: where it is, from 1
 */
struct kpgo_kconfig_line {
	char *sym;
	char *line;
	size_t lineno;
};

/**
 * struct kpgo_kconfig - the settings of a .config or a fragment
 * @lines: in the file's order
 * @index: @lines sorted by symbol, then by position
 *
 * A symbol set twice has the value of its last line, as for kconfig.
 */
struct kpgo_kconfig {
	size_t n;
	size_t alloc;
	struct kpgo_kconfig_line *lines;
	struct kpgo_kconfig_line **index;
};

void kpgo_kconfig_init(struct kpgo_kconfig *c);
void kpgo_kconfig_release(struct kpgo_kconfig *c);

/**
 * kpgo_kconfig_parse() - the settings of the config text @text
 * @c: initialised and empty
 * @name: the file's name, for messages
 *
 * A NUL byte or a line longer than %KPGO_KCONFIG_LINE_MAX is an error
 * ("NAME: line N: ..."): a check must not pass over a line it did not read.
 */
int kpgo_kconfig_parse(struct kpgo_kconfig *c, const char *name, const char *text, size_t len,
		       struct kpgo_error *err);
/* The same, of the file at @path (at most %KPGO_KCONFIG_MAX bytes): "cannot read 'PATH': ..." */
int kpgo_kconfig_read(struct kpgo_kconfig *c, const char *path, struct kpgo_error *err);

/* The line that sets @sym ("CONFIG_X"), the last one; NULL when none does. */
const struct kpgo_kconfig_line *kpgo_kconfig_get(const struct kpgo_kconfig *c, const char *sym);
/* True when @c holds exactly @line ("CONFIG_X=y") as the setting of its symbol. */
bool kpgo_kconfig_has(const struct kpgo_kconfig *c, const char *line);

/**
 * kpgo_kconfig_symbols() - the symbols the Kconfig files below @srctree define
 * @syms: cleared, then "X" for every "config X" and "menuconfig X", sorted
 *
 * Reads every regular file named Kconfig* (not through symbolic links),
 * but for the top directories that hold a .config: build trees (O=) in
 * the source tree. A line longer than %KPGO_KCONFIG_LINE_MAX is skipped.
 * Returns 0 or a negative errno with the file in @err.
 */
int kpgo_kconfig_symbols(const char *srctree, struct kpgo_strlist *syms, struct kpgo_error *err);
/* Whether @sym ("X", no prefix) is in the sorted @syms. */
bool kpgo_kconfig_symbol_known(const struct kpgo_strlist *syms, const char *sym);

enum kpgo_kconfig_problem_kind {
	KPGO_KCONFIG_MISMATCH,	/* a fragment's line is not the .config's (@have NULL: absent) */
	KPGO_KCONFIG_LEFT_OUT,	/* a fragment's symbol this kernel does not have: no failure */
	KPGO_KCONFIG_KEY_FILE,	/* @sym names the key file @want, which cannot be read */
	KPGO_KCONFIG_REQUIRED,	/* the flavour needs the line @want; @have is the .config's */
	KPGO_KCONFIG_FORBIDDEN, /* the flavour must not have the line @want */
};

/**
 * struct kpgo_kconfig_problem - what a check found
 * @file: the fragment (%KPGO_KCONFIG_MISMATCH, %KPGO_KCONFIG_LEFT_OUT), else NULL
 * @sym: "CONFIG_X"
 * @want: the line wanted, or the key file's name
 * @have: the .config's line of @sym, NULL when it has none
 */
struct kpgo_kconfig_problem {
	enum kpgo_kconfig_problem_kind kind;
	const char *file;
	const char *sym;
	const char *want;
	const char *have;
};

/* Told each problem in order; a negative return stops the check and is returned. */
typedef int (*kpgo_kconfig_problem_fn)(void *ctx, const struct kpgo_kconfig_problem *p);

/**
 * kpgo_kconfig_check_fragments() - did the fragments take?
 * @config: the final .config
 * @frags, @names: the fragments in the order they were merged, and their names
 * @known: the symbols of this kernel (kpgo_kconfig_symbols())
 *
 * Every line of each fragment must be the .config's, but for the symbols a
 * later fragment sets (merged over it). A "# CONFIG_X is not set" line may
 * be absent (X not visible), and so may a symbol this kernel's Kconfig
 * files do not define at all: a fragment serves more than one kernel
 * series (%KPGO_KCONFIG_LEFT_OUT). Problems come in the fragments' order
 * and, within one, in the order of its lines.
 *
 * Returns the number of failures (not counting what was left out), or
 * @fn's negative return.
 */
int kpgo_kconfig_check_fragments(const struct kpgo_kconfig *config,
				 const struct kpgo_kconfig *frags, const char *const *names,
				 size_t n, const struct kpgo_strlist *known,
				 kpgo_kconfig_problem_fn fn, void *ctx);

/**
 * kpgo_kconfig_check_key_files() - can the build read the key files @config names?
 * @srctree, @objtree: where a relative name is looked for (@srctree may be NULL)
 *
 * CONFIG_SYSTEM_TRUSTED_KEYS, CONFIG_SYSTEM_REVOCATION_KEYS,
 * CONFIG_MODULE_SIG_KEY and CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE: a distro
 * config may name files of its own build (Debian's debian/certs/...) that
 * are not in the source tree, and the build would stop late. "" (none),
 * the default certs/signing_key.pem (the build makes it) and "pkcs11:"
 * URIs are fine. Returns the number of failures, or @fn's negative return.
 */
int kpgo_kconfig_check_key_files(const struct kpgo_kconfig *config, const char *srctree,
				 const char *objtree, kpgo_kconfig_problem_fn fn, void *ctx);

/* The kernel flavours kpgo builds. */
enum kpgo_kflavour {
	KPGO_KFLAVOUR_PGO_INSTR, /* gcov on every object */
	KPGO_KFLAVOUR_PGO,	 /* built with the profile */
	KPGO_KFLAVOUR_BASELINE,	 /* for benchmarks: no profile */
	KPGO_KFLAVOUR_O3,	 /* the same, -O3 */
};

/* "pgo-instr", "pgo", "baseline", "o3"; -EINVAL for anything else. */
int kpgo_kflavour_parse(const char *s, enum kpgo_kflavour *f);

/**
 * struct kpgo_kflavour_opts - a build whose .config is checked
 * @clang: built by Clang, with ThinLTO
 * @full_lto: built by Clang with full LTO instead of ThinLTO
 * @module_sig: the modules are signed at install (with a key of the build farm)
 */
struct kpgo_kflavour_opts {
	enum kpgo_kflavour flavour;
	bool clang;
	bool full_lto;
	bool module_sig;
};

/**
 * kpgo_kconfig_check_flavour() - does @config make the kernel @o asks for?
 *
 * pgo-instr: gcov on every object (CONFIG_GCOV_KERNEL=y,
 * CONFIG_GCOV_PROFILE_ALL=y); every other flavour: no CONFIG_GCOV_KERNEL=y.
 * Clang: CONFIG_LTO_CLANG_THIN=y (@full_lto: CONFIG_LTO_CLANG_FULL=y). Signed modules: CONFIG_MODULE_SIG_ALL=y.
 * Returns the number of failures, or @fn's negative return.
 */
int kpgo_kconfig_check_flavour(const struct kpgo_kconfig *config, const struct kpgo_kflavour_opts *o,
			       kpgo_kconfig_problem_fn fn, void *ctx);

#endif
