/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PLAN_H
#define KPGO_PLAN_H

/*
 * What a kernel package build makes, decided in one place: the kernel
 * series and version, the config, the release strings (uname -r) of both
 * flavours, the package versions, the source package's name and version.
 * debian/rules, the RPM spec, the Makefile and the tests take these from
 * `kpgo plan` and compute none of them themselves.
 *
 * The scheme (see README, "Versions and releases"):
 *   release, instrumented:  KVER-ABI[-TAG]-pgo-instr      ABI = the Debian
 *                           revision of linux-source-SERIES ("3"; '~' and
 *                           '+' become '.'), "0" for another source tree
 *   release, optimized:     KVER-ABI.STAMP[-TAG]-pgo      STAMP = the end of
 *                           the profile's collection window, UTC,
 *                           YYYYMMDDhhmmss: a new profile is a new release,
 *                           installed beside the previous one
 *   deb version:            SRCVER+kpgoTOOLVERSION[.SERIAL] (instrumented),
 *                           SRCVER+kpgoSTAMP[.SERIAL] (optimized), SRCVER
 *                           the Debian version of linux-source-SERIES
 *   rpm:                    Version KVER, Release ABI.kpgoTOOLVERSION or
 *                           ABI.kpgoSTAMP (.SERIAL)
 *   source package:         linux-pgo-SERIES-CONFIG, version
 *                           KVER+DEBREV+kpgoSTAMP (native, as Debian's
 *                           linux-signed-amd64 6.1.192+3)
 */

#include <stddef.h>

#include "util.h"

/* Kernel releases (uname -r) are at most 64 characters (__NEW_UTS_LEN). */
#define KPGO_RELEASE_MAX 64

struct kpgo_kernel_version {
	unsigned version, patchlevel, sublevel;
	char extra[24]; /* EXTRAVERSION, e.g. "-rc1"; usually "" */
};

/**
 * kpgo_kernel_version_parse() - VERSION, PATCHLEVEL, SUBLEVEL and
 * EXTRAVERSION from the text of a kernel's top-level Makefile
 *
 * Returns 0, or -EINVAL with the reason in @err when one is missing, not a
 * number, or EXTRAVERSION holds more than [-.A-Za-z0-9].
 */
int kpgo_kernel_version_parse(const char *text, size_t len, struct kpgo_kernel_version *v,
			      struct kpgo_error *err);

/* "6.1.192" (and EXTRAVERSION) into @buf; "6.1" into @series. */
void kpgo_kernel_version_str(const struct kpgo_kernel_version *v, char *buf, size_t len);
void kpgo_kernel_series_str(const struct kpgo_kernel_version *v, char *buf, size_t len);

/**
 * struct kpgo_dpkg_package - an installed package, from dpkg's status file
 * @version: its version
 * @source: its source package ("linux"); the package's own name without one
 * @source_version: the source's version (that of @version unless the Source
 *	field names another, "linux-signed-amd64 (6.1.192+3)")
 */
struct kpgo_dpkg_package {
	char version[128];
	char source[128];
	char source_version[128];
};

/**
 * kpgo_dpkg_status_lookup() - find @package in the text of dpkg's status
 * file (/var/lib/dpkg/status)
 *
 * Only a package whose Status is "install ok installed" counts. Returns 0,
 * -ENOENT when it is not installed, -EINVAL (reason in @err) when its
 * stanza has fields too long or malformed.
 */
int kpgo_dpkg_status_lookup(const char *text, size_t len, const char *package,
			    struct kpgo_dpkg_package *p, struct kpgo_error *err);

/* What a config name stands for. */
enum kpgo_config_kind {
	KPGO_CONFIG_FRAGMENT, /* a fragment on top of tinyconfig (small) */
	KPGO_CONFIG_DEBIAN,   /* Debian's config of a flavour (linux-config-SERIES) */
	KPGO_CONFIG_FULL,     /* a complete .config given by path */
};

/**
 * struct kpgo_config_name - a config name resolved
 * @name: as normalised: "small", "debian-cloud-amd64", or a custom name
 * @tag: what the release strings carry ("" for small, "cloud-amd64", ...)
 * @file: the Debian config's file name in /usr/src/linux-config-SERIES
 *	("config.amd64_none_cloud-amd64.xz"), or "" for other kinds
 */
struct kpgo_config_name {
	enum kpgo_config_kind kind;
	char name[48];
	char tag[40];
	char file[80];
};

/**
 * kpgo_config_name_parse() - resolve a config name
 * @name: "small"; "debian-amd64", "debian-cloud" (or "debian-cloud-amd64"),
 *	"debian-rt" (or "debian-rt-amd64"): Debian's flavour configs; with
 *	@full set, a name of one's own for a complete config ([a-z0-9.-],
 *	starting with a letter or digit, at most 32 characters)
 * @full: a complete .config is given (KPGO_FULL_CONFIG)
 *
 * -EINVAL with the reason in @err for an unknown or malformed name.
 */
int kpgo_config_name_parse(const char *name, int full, struct kpgo_config_name *c,
			   struct kpgo_error *err);

/**
 * kpgo_profile_stamp() - "YYYYMMDDhhmmss" from a manifest's WINDOW_END
 * ("2026-12-03T15:26:30Z"); -EINVAL when it is not that form
 */
int kpgo_profile_stamp(const char *window_end, char stamp[15], struct kpgo_error *err);

/**
 * struct kpgo_plan_input - what the plan is made from
 * @kver: the kernel source's version
 * @series: NULL, or the series asked for: must be @kver's
 * @source_version: the Debian version of linux-source-SERIES, or NULL for
 *	another source tree (then the revision counts as "0")
 * @config: resolved config name
 * @stamp: the profile's stamp (kpgo_profile_stamp), or NULL: no optimized
 *	flavour
 * @tool_version: kpgo's version
 * @serial: a rebuild number the farm bumps (0: none)
 */
struct kpgo_plan_input {
	const struct kpgo_kernel_version *kver;
	const char *series;
	const char *source_version;
	const struct kpgo_config_name *config;
	const char *stamp;
	const char *tool_version;
	unsigned serial;
};

struct kpgo_plan {
	char series[16];
	char kver[48];
	char debrev[64]; /* the Debian revision, or "0" */
	char abi_instr[80];
	char abi_pgo[96];
	char rel_instr[KPGO_RELEASE_MAX + 1];
	char rel_pgo[KPGO_RELEASE_MAX + 1]; /* "" without a profile */
	char deb_instr[192];
	char deb_pgo[192];
	char rpm_version[48];
	char rpm_release_instr[128];
	char rpm_release_pgo[128];
	char tree_instr[64]; /* build tree names, directly inside the source tree */
	char tree_pgo[64];
	char source_name[96]; /* the generated source package */
	char source_version[192];
};

/**
 * kpgo_plan_make() - the release strings, versions and names of a build
 *
 * -EINVAL with the reason in @err when an input is malformed, the series
 * does not match, or a release would pass 64 characters.
 */
int kpgo_plan_make(const struct kpgo_plan_input *in, struct kpgo_plan *p, struct kpgo_error *err);

#endif
