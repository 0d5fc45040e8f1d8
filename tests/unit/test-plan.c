// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan.h: the kernel's version from its Makefile, a package from dpkg's
 * status file, config names, profile stamps, and the releases and versions
 * a build makes of them (the scheme in plan.h and the README).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "tap.h"

static const char makefile[] = "# SPDX-License-Identifier: GPL-2.0\n"
			       "VERSION = 6\n"
			       "PATCHLEVEL = 1\n"
			       "SUBLEVEL = 192\n"
			       "EXTRAVERSION =\n"
			       "NAME = Curry Ramen\n"
			       "\n"
			       "# VERSION = 9 (a comment)\n";

static void test_kernel_version(void)
{
	struct kpgo_kernel_version v;
	struct kpgo_error err;
	char buf[64];

	is_int(kpgo_kernel_version_parse(makefile, sizeof(makefile) - 1, &v, &err), 0,
	       "a kernel Makefile parses");
	kpgo_kernel_version_str(&v, buf, sizeof(buf));
	is_str(buf, "6.1.192", "its version");
	kpgo_kernel_series_str(&v, buf, sizeof(buf));
	is_str(buf, "6.1", "its series");

	static const char rc[] = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION = -rc3\n";
	is_int(kpgo_kernel_version_parse(rc, sizeof(rc) - 1, &v, &err), 0, "an -rc Makefile");
	kpgo_kernel_version_str(&v, buf, sizeof(buf));
	is_str(buf, "6.12.0-rc3", "EXTRAVERSION is part of the version");

	static const char nosub[] = "VERSION = 6\nPATCHLEVEL = 1\n";
	is_int(kpgo_kernel_version_parse(nosub, sizeof(nosub) - 1, &v, &err), -EINVAL,
	       "no SUBLEVEL: refused");
	is_str(err.msg, "the kernel Makefile has no SUBLEVEL line", "and said");

	static const char notnum[] = "VERSION = 6\nPATCHLEVEL = x1\nSUBLEVEL = 2\n";
	is_int(kpgo_kernel_version_parse(notnum, sizeof(notnum) - 1, &v, &err), -EINVAL,
	       "a PATCHLEVEL that is not a number: refused");

	static const char evil[] =
		"VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 2\nEXTRAVERSION = $(shell x)\n";
	is_int(kpgo_kernel_version_parse(evil, sizeof(evil) - 1, &v, &err), -EINVAL,
	       "an EXTRAVERSION with make syntax: refused");

	/* cut in the middle of a line, no final newline */
	static const char cut[] = "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 19";
	is_int(kpgo_kernel_version_parse(cut, sizeof(cut) - 1, &v, &err), 0,
	       "a text without final newline");
	is_int((int)v.sublevel, 19, "reads what is there");
}

static const char status[] = "Package: linux-source-6.1\n"
			     "Status: deinstall ok config-files\n"
			     "Version: 6.1.170-3\n"
			     "\n"
			     "Package: linux-image-6.1.0-57-cloud-amd64\n"
			     "Status: install ok installed\n"
			     "Source: linux-signed-amd64 (6.1.192+3)\n"
			     "Version: 6.1.192-3\n"
			     "Description: Linux\n"
			     " Version: 9 (a continuation line)\n"
			     "\n"
			     "Package: linux-source-6.12\n"
			     "Status: install ok installed\n"
			     "Source: linux-6.12\n"
			     "Version: 6.12.118-1~deb12u1\n"
			     "\n"
			     "Package: linux-source-6.1x\n"
			     "Status: install ok installed\n"
			     "Version: 1\n";

static void test_dpkg_status(void)
{
	struct kpgo_dpkg_package p;
	struct kpgo_error err;

	is_int(kpgo_dpkg_status_lookup(status, sizeof(status) - 1, "linux-source-6.1", &p, &err),
	       -ENOENT, "a package removed but not purged is not installed");
	is_int(kpgo_dpkg_status_lookup(status, sizeof(status) - 1, "linux-source-6.12", &p, &err),
	       0, "an installed package is found");
	is_str(p.version, "6.12.118-1~deb12u1", "its version");
	is_str(p.source, "linux-6.12", "its source");
	is_str(p.source_version, "6.12.118-1~deb12u1", "the source's version is its own");
	is_int(kpgo_dpkg_status_lookup(status, sizeof(status) - 1,
				       "linux-image-6.1.0-57-cloud-amd64", &p, &err),
	       0, "a package of a source of another version");
	is_str(p.source, "linux-signed-amd64", "the source's name");
	is_str(p.source_version, "6.1.192+3", "the source's own version");
	is_str(p.version, "6.1.192-3", "not the continuation line's");
	is_int(kpgo_dpkg_status_lookup(status, sizeof(status) - 1, "linux-source", &p, &err),
	       -ENOENT, "a prefix of a name is not the name");

	static const char bad[] = "Package: a\nStatus: install ok installed\nVersion: 1 2\n";
	is_int(kpgo_dpkg_status_lookup(bad, sizeof(bad) - 1, "a", &p, &err), -EINVAL,
	       "a version with a blank: refused");
	static const char badsrc[] =
		"Package: a\nStatus: install ok installed\nVersion: 1\nSource: b (2\n";
	is_int(kpgo_dpkg_status_lookup(badsrc, sizeof(badsrc) - 1, "a", &p, &err), -EINVAL,
	       "a Source with an unclosed version: refused");
}

static void test_config_names(void)
{
	struct kpgo_config_name c;
	struct kpgo_error err;

	is_int(kpgo_config_name_parse("small", 0, &c, &err), 0, "small");
	ok(c.kind == KPGO_CONFIG_FRAGMENT && !*c.tag, "is a fragment, no tag");
	is_int(kpgo_config_name_parse("debian-cloud", 0, &c, &err), 0, "debian-cloud");
	is_str(c.name, "debian-cloud-amd64", "is Debian's cloud-amd64");
	is_str(c.tag, "cloud-amd64", "its tag is Debian's flavour");
	is_str(c.file, "config.amd64_none_cloud-amd64.xz", "its file in linux-config");
	is_int(kpgo_config_name_parse("debian-rt-amd64", 0, &c, &err), 0, "debian-rt-amd64");
	is_str(c.file, "config.amd64_rt_amd64.xz", "the rt featureset's file");
	is_int(kpgo_config_name_parse("debian-arm64", 0, &c, &err), -EINVAL, "an unknown flavour");
	is_int(kpgo_config_name_parse("custom", 0, &c, &err), -EINVAL,
	       "a custom name without a complete config");
	is_int(kpgo_config_name_parse("fleet-a.2", 1, &c, &err), 0, "a complete config's own name");
	is_str(c.tag, "fleet-a.2", "is its tag");
	is_int(kpgo_config_name_parse("Fleet", 1, &c, &err), -EINVAL, "uppercase: refused");
	is_int(kpgo_config_name_parse("a/../b", 1, &c, &err), -EINVAL, "a path: refused");
	is_int(kpgo_config_name_parse("debian-x", 1, &c, &err), -EINVAL,
	       "a complete config may not pose as Debian's");
}

static void test_stamp(void)
{
	struct kpgo_error err;
	char s[15];

	is_int(kpgo_profile_stamp("2026-12-03T15:26:30Z", s, &err), 0, "a window end");
	is_str(s, "20261203152630", "gives its stamp");
	is_int(kpgo_profile_stamp("2026-12-03 15:26:30", s, &err), -EINVAL, "another form: refused");
	is_int(kpgo_profile_stamp("2026-12-03T15:26:30+01:00", s, &err), -EINVAL,
	       "not UTC: refused");
	is_int(kpgo_profile_stamp(NULL, s, &err), -EINVAL, "none: refused");
}

static void test_plan(void)
{
	struct kpgo_kernel_version kv = { 6, 1, 192, "" };
	struct kpgo_config_name small, cloud;
	struct kpgo_plan_input in = { 0 };
	struct kpgo_error err;
	struct kpgo_plan p;

	kpgo_config_name_parse("small", 0, &small, &err);
	kpgo_config_name_parse("debian-cloud", 0, &cloud, &err);
	in.kver = &kv;
	in.config = &small;
	in.tool_version = "0.1.0";
	in.source_version = "6.1.192-3";

	is_int(kpgo_plan_make(&in, &p, &err), 0, "small, no profile");
	is_str(p.rel_instr, "6.1.192-3-pgo-instr", "the instrumented release carries the revision");
	is_str(p.rel_pgo, "", "no optimized release without a profile");
	is_str(p.deb_instr, "6.1.192-3+kpgo0.1.0", "the instrumented deb version");
	is_str(p.rpm_release_instr, "3.kpgo0.1.0", "its rpm release");
	is_str(p.tree_instr, "pgo-instr", "the small config's tree");
	is_str(p.source_name, "linux-pgo-6.1-small", "the source package's name");

	in.stamp = "20261203152630";
	is_int(kpgo_plan_make(&in, &p, &err), 0, "small, with a profile");
	is_str(p.rel_pgo, "6.1.192-3.20261203152630-pgo", "a new profile is a new release");
	is_str(p.deb_pgo, "6.1.192-3+kpgo20261203152630", "and a higher version");
	is_str(p.rpm_release_pgo, "3.kpgo20261203152630", "its rpm release");
	is_str(p.source_version, "6.1.192+3+kpgo20261203152630", "the source's native version");

	in.config = &cloud;
	in.serial = 2;
	is_int(kpgo_plan_make(&in, &p, &err), 0, "cloud, rebuilt");
	is_str(p.rel_pgo, "6.1.192-3.20261203152630-cloud-amd64-pgo",
	       "the release names the flavour");
	is_str(p.rel_instr, "6.1.192-3-cloud-amd64-pgo-instr", "both releases do");
	is_str(p.deb_pgo, "6.1.192-3+kpgo20261203152630.2", "a rebuild's version");
	is_str(p.tree_pgo, "cloud-pgo", "the cloud config's tree");

	struct kpgo_kernel_version k12 = { 6, 12, 118, "" };

	in.kver = &k12;
	in.source_version = "6.12.118-1~deb12u1";
	in.serial = 0;
	is_int(kpgo_plan_make(&in, &p, &err), 0, "6.12 from bookworm-security");
	is_str(p.rel_instr, "6.12.118-1.deb12u1-cloud-amd64-pgo-instr", "'~' is '.' in a release");
	is_str(p.deb_instr, "6.12.118-1~deb12u1+kpgo0.1.0",
	       "the version keeps the revision as it is");
	ok(strlen(p.rel_pgo) <= KPGO_RELEASE_MAX, "the longest release fits uname (%zu)",
	   strlen(p.rel_pgo));

	in.series = "6.1";
	is_int(kpgo_plan_make(&in, &p, &err), -EINVAL, "a source of another series: refused");
	in.series = NULL;
	in.source_version = "6.12.117-1";
	is_int(kpgo_plan_make(&in, &p, &err), -EINVAL,
	       "a package version of another kernel: refused");
	in.source_version = "6.12.118";
	is_int(kpgo_plan_make(&in, &p, &err), -EINVAL, "a version without revision: refused");
	in.source_version = NULL;
	is_int(kpgo_plan_make(&in, &p, &err), 0, "a tree of no package");
	is_str(p.rel_instr, "6.12.118-0-cloud-amd64-pgo-instr", "counts as revision 0");
	in.stamp = "2026";
	is_int(kpgo_plan_make(&in, &p, &err), -EINVAL, "a short stamp: refused");

	/* versions sort as apt sorts them: checked by the CLI tests with dpkg */
	struct kpgo_config_name longname;

	kpgo_config_name_parse("abcdefghijabcdefghijabcdefghij12", 1, &longname, &err);
	in.config = &longname;
	in.stamp = "20261203152630";
	in.source_version = "6.12.118-1~deb12u1";
	is_int(kpgo_plan_make(&in, &p, &err), -EINVAL, "a release over 64 characters: refused");
}

int main(void)
{
	test_kernel_version();
	test_dpkg_status();
	test_config_names();
	test_stamp();
	test_plan();
	return done_testing();
}
