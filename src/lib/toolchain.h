/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_TOOLCHAIN_H
#define KPGO_TOOLCHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

/*
 * What kpgo asks of the compilers: the flags of an optimized build, for
 * GCC with a staged gcov profile or Clang with a sample profile, and the
 * gcov version GCC writes.
 */

enum kpgo_compiler {
	KPGO_COMPILER_GCC,
	KPGO_COMPILER_CLANG,
};

/* "gcc" or "clang" as the compiler; -EINVAL for anything else. */
int kpgo_compiler_parse(const char *name, enum kpgo_compiler *c);

/* Clang's LTO: "thin" (ThinLTO, false) or "full" (true); -EINVAL for anything else. */
int kpgo_lto_parse(const char *name, bool *full);

/**
 * struct kpgo_flags_opts - the optimized build
 * @profile_dir: GCC: where kpgo stage --profile-dir put the profile, or
 *	NULL for beside the objects
 * @partial_training: GCC: optimise code the training never ran as without
 *	a profile, not for size
 * @sample_profile: Clang: the sample profile (required)
 */
struct kpgo_flags_opts {
	enum kpgo_compiler compiler;
	const char *profile_dir;
	bool partial_training;
	const char *sample_profile;
};

/**
 * kpgo_flags() - the flags of the optimized build
 * @cflags: the compiler's (KCFLAGS), appended
 * @ldflags: the linker's (with ThinLTO the back end runs in the link),
 *	appended; none for GCC
 *
 * Words separated by single blanks. GCC: -fprofile-use[=DIR]
 * -fprofile-correction -Wno-error=coverage-mismatch
 * -Wno-error=missing-profile [-fprofile-partial-training]. Clang:
 * -fprofile-sample-use=FILE -gline-tables-only and the two -mllvm options
 * that make clang report each function's coverage (which kpgo report
 * --afdo counts); the linker --lto-sample-profile=FILE. A path must be
 * one word on a make command line: -EINVAL with "the profile directory
 * must not ..." in @err when it has blanks, control characters, quotes,
 * backslashes or '$', or for an option of the other compiler.
 */
int kpgo_flags(const struct kpgo_flags_opts *o, struct strbuf *cflags, struct strbuf *ldflags,
	       struct kpgo_error *err);

/**
 * kpgo_compiler_gcov_version() - the gcov version stamp the compiler @cc writes
 * @cc: a compiler command, split on blanks, no shell ("gcc", "ccache gcc-12")
 *
 * Compiles an empty file with coverage in a private temporary directory
 * and reads its .gcno header, so that the answer is the compiler's own,
 * not a guess from its version string. Returns 0, -EINVAL for an empty
 * @cc, the errno of a compiler that cannot be run, -ENOEXEC when it fails
 * to compile, or another negative errno.
 */
int kpgo_compiler_gcov_version(const char *cc, uint32_t *stamp);

/**
 * kpgo_ccache_split() - the options of @flags that ccache 4.7 compiles uncached
 * @kept: appended: " @flags " with the first " WORD " of each such word
 *	made " " (the blanks of @flags otherwise kept)
 * @specs: appended: a specs file's text that gives them to cc1,
 *	"*cc1_options:\n+ WORD..." (no final newline); nothing when none
 *
 * The options: -fprofile-partial-training and -fprofile-update=*. Words
 * are separated by blanks, tabs or newlines. Returns how many words moved,
 * or -ENOMEM.
 */
int kpgo_ccache_split(const char *flags, struct strbuf *kept, struct strbuf *specs);

/*
 * The name of the specs file of the text @specs (kpgo_ccache_split()): the
 * first 16 hex digits of its SHA-256, ".specs". 0 or -ENOMEM.
 */
int kpgo_ccache_specs_name(const struct strbuf *specs, char name[24]);

/**
 * kpgo_ccache_specs() - @flags as ccache caches them
 * @dir: the directory of the specs files (in ccache's cache directory),
 *	made when missing
 * @out: appended: @flags with the options kpgo_ccache_split() finds taken
 *	out and -specs=@dir/NAME.specs at the end, NAME from
 *	kpgo_ccache_specs_name(); @flags unchanged when it has none of them
 *
 * The specs file (its text and a blank line) is written atomically when
 * missing, never rewritten: ccache hashes its mtime. Returns 0, or a
 * negative errno with "cannot write the specs file ..." in @err; @out
 * then has @flags unchanged (ccache compiles uncached, correctly).
 */
int kpgo_ccache_specs(const char *flags, const char *dir, struct strbuf *out,
		      struct kpgo_error *err);

#endif
