/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_TOOLCHAIN_H
#define KPGO_TOOLCHAIN_H

#include <stdint.h>

/*
 * What kpgo asks of the compilers: the gcov version GCC writes.
 */

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

#endif
