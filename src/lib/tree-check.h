/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_TREE_CHECK_H
#define KPGO_TREE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "kconfig.h"
#include "strbuf.h"
#include "util.h"

/*
 * A kernel tree built out of tree (O=OBJTREE) by kpgo-kbuild, checked after
 * the build: is it the flavour it was built as? And the flavour's report
 * (OBJTREE/pgo-instr-report, OBJTREE/kbuild-report) from what the checks
 * counted.
 */

/**
 * struct kpgo_tree_check_opts - the tree to check
 * @objtree: the build directory (vmlinux, init/.main.o.cmd, the objects)
 * @srctree: the kernel source tree the objects were compiled from
 * @clang: built by Clang with ThinLTO (pgo, baseline, o3)
 * @full_lto: built by Clang with full LTO instead of ThinLTO
 */
struct kpgo_tree_check_opts {
	enum kpgo_kflavour flavour;
	const char *objtree;
	const char *srctree;
	bool clang;
	bool full_lto;
};

/**
 * struct kpgo_tree_facts - what the checks found
 * @counters: pgo-instr: symbols of gcov counters (__gcov0.*) in vmlinux
 * @objects: pgo-instr: the kernel's objects compiled from C: the *.o below
 *	the objtree (not in its scripts/ or tools/, not *.mod.o) with a .c of
 *	the same name in the source tree
 * @gcno: pgo-instr: the .gcno files below the objtree
 * @opt_level: baseline, o3: the last -O on init/main.o's compiler line
 * @vmlinux_bytes: the size of vmlinux
 */
struct kpgo_tree_facts {
	uint64_t counters;
	uint64_t objects;
	uint64_t gcno;
	char opt_level[16];
	uint64_t vmlinux_bytes;
};

/**
 * kpgo_tree_last_opt_level() - the last -O option on a kbuild .cmd file's lines
 * @cmd: the .cmd file's text (the command kbuild ran)
 * @out: the option ("-O2"), "" when there is none
 *
 * What `grep -o ' -O[0-9sgz]* '` finds last: options between blanks, each
 * blank used by one match only (so of " -O2 -O3 " only -O2 counts).
 */
void kpgo_tree_last_opt_level(const char *cmd, char out[16]);

/**
 * kpgo_tree_check() - is the tree @o the flavour it was built as?
 *
 * pgo-instr: vmlinux defines __gcov_init and has gcov counters. pgo,
 * baseline, o3: no symbol with "__gcov" in its name in vmlinux or any .ko
 * below the objtree. Clang: init/main.o compiled with -flto=thin, vmlinux's
 * .comment names clang. baseline: init/main.o compiled -O2 last, o3 -O3,
 * neither with -fprofile-use nor -fprofile-sample-use; pgo: with
 * -fprofile-use (GCC) or -fprofile-sample-use=OBJTREE/kpgo.afdo (Clang).
 * Fills @f. Returns 0, -EBADMSG with the first failed check in @err (one
 * sentence naming the file), or another negative errno for a file that
 * cannot be read.
 */
int kpgo_tree_check(const struct kpgo_tree_check_opts *o, struct kpgo_tree_facts *f,
		    struct kpgo_error *err);

/**
 * struct kpgo_tree_report_info - the report's lines that are not counted
 * @release: the kernel release
 * @build_seconds: how long the build took ("" unknown)
 * @source_names: pgo-instr: how GCC saw the source file names
 * @compiler: baseline, o3: the compiler's version line
 * @kcflags: baseline, o3: the KCFLAGS of the build ("" for none)
 */
struct kpgo_tree_report_info {
	const char *release;
	const char *build_seconds;
	const char *source_names;
	const char *compiler;
	const char *kcflags;
};

/**
 * kpgo_tree_report() - the flavour's report on a checked tree, appended to @out
 *
 * pgo-instr: pgo-instr-report's lines; baseline, o3: kbuild-report's.
 * -EINVAL for pgo (kpgo report writes its report), -ENOMEM.
 */
int kpgo_tree_report(const struct kpgo_tree_check_opts *o, const struct kpgo_tree_facts *f,
		     const struct kpgo_tree_report_info *ri, struct strbuf *out);

#endif
