/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_KCONFIG_GEN_H
#define KPGO_KCONFIG_GEN_H

#include <stdbool.h>

#include "util.h"

/*
 * The config fragments a kernel build generates from its options, merged
 * after the flavour's fragment: the release (CONFIG_LOCALVERSION), the
 * module signing key, debug information. kpgo-kbuild writes them into the
 * build directory as kpgo-gen-release.config, kpgo-gen-signing.config and
 * kpgo-gen-debug.config.
 */

/**
 * kpgo_signing_key_check() - is @path a module signing key the kernel takes?
 * @abs: on success, @path made absolute (realpath; the caller frees it)
 *
 * CONFIG_MODULE_SIG_KEY takes one PEM file with the private key and its
 * X.509 certificate: a line with "-----BEGIN " and then "PRIVATE
 * KEY-----" on it, and one with "-----BEGIN CERTIFICATE-----". The
 * absolute path must be a config string as it is: only letters, digits
 * and "-./_". Returns 0, or a negative errno with "cannot read signing
 * key 'PATH'", "the signing key's path ... has characters a config string
 * cannot hold" or "'PATH' is not a PEM file with a private key and its
 * certificate" (-EINVAL) in @err.
 */
int kpgo_signing_key_check(const char *path, char **abs, struct kpgo_error *err);

/**
 * struct kpgo_kconfig_gen - what the build asks for beyond the fragments
 * @localversion: CONFIG_LOCALVERSION (the release's part after the kernel
 *	version), NULL for none
 * @signing_key: the checked, absolute key file (kpgo_signing_key_check()),
 *	NULL for none
 * @debug_info: DWARF debug information, as the toolchain defaults
 */
struct kpgo_kconfig_gen {
	const char *localversion;
	const char *signing_key;
	bool debug_info;
};

/**
 * kpgo_kconfig_gen_write() - the generated fragments in the build directory @dir
 * @written: the paths of the fragments written, appended, in merge order
 *	(release, signing, debug)
 *
 * Removes the kpgo-gen-*.config of an earlier configuration first. Each
 * file begins with a comment naming the kpgo-kbuild option. Returns 0, or
 * a negative errno with the file in @err (-EINVAL for a localversion that
 * is not a config string: quotes, backslashes, control characters).
 */
int kpgo_kconfig_gen_write(const struct kpgo_kconfig_gen *g, const char *dir,
			   struct kpgo_strlist *written, struct kpgo_error *err);

#endif
