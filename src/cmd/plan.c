// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo plan: what a kernel package build makes (series, version, config,
 * release strings, package versions, the profile), decided here once for
 * debian/rules, the RPM spec, the Makefile and the tests.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "json-writer.h"
#include "plan.h"
#include "profile-archive.h"
#include "report.h"
#include "store-policy.h"
#include "util.h"

static const char usage_text[] =
	"usage: kpgo plan [--series S] [--src DIR] [--source-package PKG | --source-version V]\n"
	"                 [--config NAME | --full-config FILE [--config NAME]] [--kconfig-dir DIR]\n"
	"                 [--profile FILE | --store DIR [--cc CC] [--override-policy] [--now T]]\n"
	"                 [--serial N]\n"
	"                 [--format shell|make|rpm|json]\n"
	"\n"
	"Decides what a kernel package build makes, and prints it as KEY=VALUE lines\n"
	"(or a make include, or JSON): the kernel series and version, the Debian\n"
	"version of its source, the config, the kernel releases (uname -r) of both\n"
	"flavours, the package versions and the profile. See README, \"Versions and\n"
	"releases\".\n"
	"\n"
	"  --series S           6.1, 6.12, ... (default: the source's, else 6.1)\n"
	"  --src DIR            a kernel source tree (default: Debian's\n"
	"                       /usr/src/linux-source-SERIES.tar.xz, read in place)\n"
	"  --source-package PKG the Debian package the source is from (default\n"
	"                       linux-source-SERIES without --src, none with it);\n"
	"                       its version is read from dpkg's status\n"
	"  --source-version V   that version, given (e.g. 6.1.192-3)\n"
	"  --dpkg-status FILE   dpkg's status file (default /var/lib/dpkg/status)\n"
	"  --config NAME        small (default), debian-amd64, debian-cloud, debian-rt;\n"
	"                       with --full-config, a name of one's own (default custom)\n"
	"  --full-config FILE   a complete .config (e.g. /boot/config-$(uname -r))\n"
	"  --kconfig-dir DIR    where small.config and the flavour fragments are\n"
	"  --debian-config-dir DIR  Debian's configs (default /usr/src/linux-config-SERIES)\n"
	"  --profile FILE       the profile of the optimized flavour\n"
	"  --profiles-store DIR without --profile or --store: DIR/SERIES/CONFIG.kpgo\n"
	"                       when there is one (the profiles kept with kpgo)\n"
	"  --store DIR          a profile store instead: the profile `kpgo store select`\n"
	"                       picks for the instrumented release (--cc: its compiler),\n"
	"                       under the store's freshness policy (kpgo store policy):\n"
	"                       a profile it refuses stops the plan (exit 1)\n"
	"  --override-policy    build with the profile the policy refuses; the plan says\n"
	"                       so (PROFILE_POLICY=overridden) and the report records it\n"
	"  --now T              measure the profile's age at T (YYYY-MM-DDTHH:MM:SSZ), not now\n"
	"  --serial N           a rebuild number, appended to the versions\n"
	"  --format F           shell (default: KEY=VALUE), make (KEY := VALUE), rpm\n"
	"                       (%kpgo_plan_key value, for %{load:FILE}), json\n"
	"  --changelog F        print a Debian changelog entry for the packages of\n"
	"                       flavour F (instr, pgo) instead: the kernel source,\n"
	"                       config, release and profile they are built from\n"
	"  --package NAME       the changelog's source name (default kpgo)\n"
	"  --as-source          the entry of the generated source package: its name\n"
	"                       and version (SOURCE_NAME, SOURCE_PKG_VERSION)\n"
	"  --maintainer M       its trailer's maintainer (default $DEBFULLNAME\n"
	"                       <$DEBEMAIL>, else kpgo developers)\n"
	"  --date-epoch N       its date (default: the profile's window end for\n"
	"                       pgo, $SOURCE_DATE_EPOCH for instr)\n"
	"Without a profile the keys of the optimized flavour are empty.\n";

/* Values printed must be safe unquoted in sh and make: no blanks, quotes, $, \, #. */
static bool value_ok(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= ' ' || strchr("'\"$\\`#;&|<>()*?[]{}!", *v) || *v == 0x7f)
			return false;
	return true;
}

/* The top-level Makefile of linux-source-SERIES in Debian's tarball. */
static int tarball_makefile(const char *tarball, const char *series, struct strbuf *out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	struct strbuf want = STRBUF_INIT;
	int r, ret = -ENOENT;

	if (!a || strbuf_addf(&want, "linux-source-%s/Makefile", series)) {
		ret = -ENOMEM;
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, tarball, 1 << 16) != ARCHIVE_OK) {
		ret = error("cannot read '%s': %s", tarball, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
		const char *p = archive_entry_pathname(ent);
		char buf[8192];
		la_ssize_t n;

		if (!p || strcmp(p, want.buf))
			continue;
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
			if (out->len + (size_t)n > (1 << 20) || strbuf_add(out, buf, (size_t)n)) {
				ret = error("'%s' in '%s' is too large", want.buf, tarball);
				goto out;
			}
		}
		ret = n < 0 ? error("cannot read '%s': %s", tarball, archive_error_string(a)) : 0;
		goto out;
	}
	if (r != ARCHIVE_EOF)
		ret = error("cannot read '%s': %s", tarball, archive_error_string(a));
	else
		ret = error("'%s' has no %s", tarball, want.buf);
out:
	if (a)
		archive_read_free(a);
	strbuf_release(&want);
	return ret;
}

struct plan_out {
	enum { FMT_SHELL, FMT_MAKE, FMT_RPM, FMT_JSON } fmt;
	size_t n;
	const char *key[40];
	const char *value[40];
};

static void put(struct plan_out *o, const char *key, const char *value)
{
	if (o->n < sizeof(o->key) / sizeof(o->key[0])) {
		o->key[o->n] = key;
		o->value[o->n] = value ? value : "";
		o->n++;
	}
}

/* Checks every value, then prints them all, or nothing. */
static int print_plan(const struct plan_out *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (!value_ok(o->value[i]))
			return error("'%s' is not a value a build can use (KPGO_%s): blanks, quotes "
				     "and shell characters are refused",
				     o->value[i], o->key[i]);
	if (o->fmt == FMT_JSON) {
		struct strbuf out = STRBUF_INIT;
		struct kpgo_json_writer w;

		kpgo_jw_init(&w, &out);
		kpgo_jw_object_begin(&w, NULL);
		kpgo_jw_u64(&w, "version", 1);
		for (i = 0; i < o->n; i++)
			kpgo_jw_string(&w, o->key[i], o->value[i]);
		kpgo_jw_end(&w);
		if (kpgo_jw_finish(&w)) {
			strbuf_release(&out);
			return error("out of memory");
		}
		fwrite(out.buf, 1, out.len, stdout);
		strbuf_release(&out);
		return 0;
	}
	for (i = 0; i < o->n; i++) {
		switch (o->fmt) {
		case FMT_SHELL: printf("KPGO_%s=%s\n", o->key[i], o->value[i]); break;
		case FMT_MAKE: printf("KPGO_%s := %s\n", o->key[i], o->value[i]); break;
		case FMT_RPM: {
			const char *k;

			/* rpm macros: %kpgo_plan_kver 6.1.192 (%{nil} when empty) */
			printf("%%kpgo_plan_");
			for (k = o->key[i]; *k; k++)
				putchar(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
			printf(" %s\n", *o->value[i] ? o->value[i] : "%{nil}");
			break;
		}
		case FMT_JSON: break; /* above */
		}
	}
	return 0;
}

static int read_text(const char *path, struct strbuf *sb, size_t max)
{
	int r = kpgo_read_file(path, sb, max);

	if (r)
		return error("cannot read '%s': %s", path, strerror(-r));
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	enum {
		OPT_SERIES = 256,
		OPT_SRC,
		OPT_SRCPKG,
		OPT_SRCVER,
		OPT_DPKG,
		OPT_CONFIG,
		OPT_FULL,
		OPT_KCONFIG,
		OPT_DEBCONFIG,
		OPT_PROFILE,
		OPT_STORE,
		OPT_CC,
		OPT_SERIAL,
		OPT_FORMAT,
		OPT_CHANGELOG,
		OPT_PACKAGE,
		OPT_MAINT,
		OPT_EPOCH,
		OPT_PSTORE,
		OPT_AS_SOURCE,
		OPT_OVERRIDE,
		OPT_NOW,
	};
	static const struct option opts[] = {
		{ "series", required_argument, NULL, OPT_SERIES },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "source-package", required_argument, NULL, OPT_SRCPKG },
		{ "source-version", required_argument, NULL, OPT_SRCVER },
		{ "dpkg-status", required_argument, NULL, OPT_DPKG },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "full-config", required_argument, NULL, OPT_FULL },
		{ "kconfig-dir", required_argument, NULL, OPT_KCONFIG },
		{ "debian-config-dir", required_argument, NULL, OPT_DEBCONFIG },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "profiles-store", required_argument, NULL, OPT_PSTORE },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "override-policy", no_argument, NULL, OPT_OVERRIDE },
		{ "now", required_argument, NULL, OPT_NOW },
		{ "serial", required_argument, NULL, OPT_SERIAL },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "changelog", required_argument, NULL, OPT_CHANGELOG },
		{ "package", required_argument, NULL, OPT_PACKAGE },
		{ "as-source", no_argument, NULL, OPT_AS_SOURCE },
		{ "maintainer", required_argument, NULL, OPT_MAINT },
		{ "date-epoch", required_argument, NULL, OPT_EPOCH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *series = NULL, *src = NULL, *srcpkg = NULL, *srcver = NULL, *config = NULL;
	const char *dpkg_status = NULL, *full = NULL, *kconfig_dir = NULL, *debconfig_dir = NULL;
	const char *profile = NULL, *store = NULL, *cc = NULL, *changelog = NULL;
	const char *package = "kpgo", *maint = NULL, *epoch_arg = NULL, *pstore = NULL;
	const char *now_arg = NULL;
	struct strbuf defprof = STRBUF_INIT;
	struct strbuf maintbuf = STRBUF_INIT;
	long long epoch = -1;
	struct strbuf makefile = STRBUF_INIT, path = STRBUF_INIT, status = STRBUF_INIT;
	struct strbuf cfgfile = STRBUF_INIT, tarball = STRBUF_INIT, prof = STRBUF_INIT;
	struct plan_out o = { .fmt = FMT_SHELL };
	struct kpgo_kernel_version kv;
	struct kpgo_config_name cn;
	struct kpgo_dpkg_package dp = { 0 };
	struct kpgo_plan_input in = { 0 };
	struct kpgo_archive *a = NULL;
	struct kpgo_plan p;
	struct kpgo_error err;
	char sha[KPGO_SHA256_HEX] = "", stamp[15], ser[16], defpkg[48], minap[8];
	const struct kpgo_manifest *m = NULL;
	unsigned long serial = 0;
	int64_t now = -1;
	bool have_pkg = false, as_source = false, override = false;
	struct plan_policy pp = { .verdict = "none" };
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SERIES: series = optarg; break;
		case OPT_SRC: src = optarg; break;
		case OPT_SRCPKG: srcpkg = optarg; break;
		case OPT_SRCVER: srcver = optarg; break;
		case OPT_DPKG: dpkg_status = optarg; break;
		case OPT_CONFIG: config = optarg; break;
		case OPT_FULL: full = optarg; break;
		case OPT_KCONFIG: kconfig_dir = optarg; break;
		case OPT_DEBCONFIG: debconfig_dir = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_STORE: store = optarg; break;
		case OPT_PSTORE: pstore = optarg; break;
		case OPT_CC: cc = optarg; break;
		case OPT_OVERRIDE: override = true; break;
		case OPT_NOW: now_arg = optarg; break;
		case OPT_SERIAL: {
			char *end;

			errno = 0;
			serial = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || serial > 99999)
				return usage_error("plan", "bad --serial '%s' (0 to 99999)", optarg);
			break;
		}
		case OPT_FORMAT:
			if (!strcmp(optarg, "shell"))
				o.fmt = FMT_SHELL;
			else if (!strcmp(optarg, "make"))
				o.fmt = FMT_MAKE;
			else if (!strcmp(optarg, "rpm"))
				o.fmt = FMT_RPM;
			else if (!strcmp(optarg, "json"))
				o.fmt = FMT_JSON;
			else
				return usage_error("plan",
						   "unknown format '%s' (shell, make, rpm, json)",
						   optarg);
			break;
		case OPT_CHANGELOG:
			if (strcmp(optarg, "instr") && strcmp(optarg, "pgo"))
				return usage_error("plan", "--changelog is instr or pgo, not '%s'",
						   optarg);
			changelog = optarg;
			break;
		case OPT_PACKAGE: package = optarg; break;
		case OPT_AS_SOURCE: as_source = true; break;
		case OPT_MAINT: maint = optarg; break;
		case OPT_EPOCH: epoch_arg = optarg; break;
		case 'q': verbosity = 0; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("plan", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("plan", "unexpected argument '%s'", argv[optind]);
	if (profile && store)
		return usage_error("plan", "--profile and --store exclude each other");
	if (pstore && (profile || store))
		return usage_error("plan",
				   "--profiles-store is for when neither --profile nor --store is given");
	if (cc && !store)
		return usage_error("plan", "--cc is for --store");
	if (override && !store)
		return usage_error("plan", "--override-policy is for --store");
	if (now_arg && !store)
		return usage_error("plan", "--now is for --store");
	if (now_arg && kpgo_parse_utc(now_arg, &now))
		return usage_error("plan", "bad --now '%s' (YYYY-MM-DDTHH:MM:SSZ)", now_arg);
	if (srcpkg && srcver)
		return usage_error("plan",
				   "--source-package and --source-version exclude each other");
	if (series && (strlen(series) > 8 || strspn(series, "0123456789.") != strlen(series) ||
		       !strchr(series, '.')))
		return usage_error("plan", "bad --series '%s' (e.g. 6.1)", series);
	if (kpgo_config_name_parse(config ? config : full ? "custom" : "small", !!full, &cn, &err))
		return usage_error("plan", "%s", err.msg);
	if (!epoch_arg && getenv("SOURCE_DATE_EPOCH") && *getenv("SOURCE_DATE_EPOCH"))
		epoch_arg = getenv("SOURCE_DATE_EPOCH");
	if (epoch_arg) {
		char *end;

		errno = 0;
		epoch = strtoll(epoch_arg, &end, 10);
		if (errno || *end || !*epoch_arg || epoch < 0)
			return usage_error("plan", "bad date epoch '%s'", epoch_arg);
	}
	if (package && (!*package || strspn(package, "abcdefghijklmnopqrstuvwxyz0123456789.+-") !=
					     strlen(package)))
		return usage_error("plan", "bad --package '%s'", package);
	if (!maint) {
		const char *n = getenv("DEBFULLNAME"), *e = getenv("DEBEMAIL");

		if (n && *n && e && *e && !strbuf_addf(&maintbuf, "%s <%s>", n, e))
			maint = maintbuf.buf;
		else
			maint = "kpgo developers <kpgo-devel@example.org>";
	}
	if (strchr(maint, '\n'))
		return usage_error("plan", "bad --maintainer");

	/* the kernel's version: its Makefile */
	if (src) {
		if (strbuf_addf(&path, "%s/Makefile", src) ||
		    read_text(path.buf, &makefile, 1 << 20))
			goto out;
	} else {
		if (strbuf_addf(&tarball, "/usr/src/linux-source-%s.tar.xz", series ? series : "6.1"))
			goto oom;
		if (tarball_makefile(tarball.buf, series ? series : "6.1", &makefile))
			goto out;
	}
	if (kpgo_kernel_version_parse(makefile.buf, makefile.len, &kv, &err)) {
		error("%s: %s", src ? path.buf : tarball.buf, err.msg);
		goto out;
	}
	in.kver = &kv;
	in.series = series;
	in.config = &cn;
	in.tool_version = KPGO_VERSION;
	in.serial = (unsigned)serial;

	/* the Debian version of the source */
	if (srcver) {
		in.source_version = srcver;
	} else {
		char ks[16];

		kpgo_kernel_series_str(&kv, ks, sizeof(ks));
		snprintf(defpkg, sizeof(defpkg), "linux-source-%s", ks);
		if (!src && !srcpkg)
			srcpkg = defpkg;
		if (srcpkg && strcmp(srcpkg, "none")) {
			const char *admin = getenv("DPKG_ADMINDIR");
			struct strbuf def = STRBUF_INIT;

			if (!dpkg_status) {
				if (strbuf_addf(&def, "%s/status",
						admin && *admin ? admin : "/var/lib/dpkg"))
					goto oom;
			}
			if (read_text(dpkg_status ? dpkg_status : def.buf, &status, 64u << 20)) {
				strbuf_release(&def);
				goto out;
			}
			strbuf_release(&def);
			int r = kpgo_dpkg_status_lookup(status.buf, status.len, srcpkg, &dp, &err);

			if (r == -ENOENT) {
				error("the kernel source package '%s' is not installed", srcpkg);
				goto out;
			} else if (r) {
				error("%s", err.msg);
				goto out;
			}
			in.source_version = dp.version;
			have_pkg = true;
		}
	}

	/* the profile: its window's end is the optimized flavour's stamp */
	if (kpgo_plan_make(&in, &p, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (store) {
		if (plan_store_profile(store, p.rel_instr, cc, override, now, &prof, &pp))
			goto out;
		profile = prof.buf;
	} else if (!profile && pstore) {
		if (strbuf_addf(&defprof, "%s/%s/%s.kpgo", pstore, p.series, cn.name))
			goto oom;
		if (!access(defprof.buf, F_OK))
			profile = defprof.buf;
	}
	if (profile) {
		if (access(profile, R_OK)) {
			error("cannot read profile '%s' for the optimized flavour: %s", profile,
			      strerror(errno));
			goto out;
		}
		if (kpgo_archive_open(&a, profile, &err)) {
			error("%s", err.msg);
			goto out;
		}
		m = kpgo_archive_manifest(a);
		if (kpgo_profile_stamp(kpgo_manifest_get(m, MF_WINDOW_END), stamp, &err)) {
			error("'%s': %s", profile, err.msg);
			goto out;
		}
		int r = kpgo_sha256_file(profile, sha);

		if (r) {
			error("cannot read '%s': %s", profile, strerror(-r));
			goto out;
		}
		in.stamp = stamp;
		if (kpgo_plan_make(&in, &p, &err)) {
			error("%s", err.msg);
			goto out;
		}
	}

	/* the config file */
	switch (cn.kind) {
	case KPGO_CONFIG_FRAGMENT:
		if (strbuf_addf(&cfgfile, "%s/small.config",
				kconfig_dir ? kconfig_dir : "hooks/build/kconfig"))
			goto oom;
		break;
	case KPGO_CONFIG_DEBIAN:
		if (debconfig_dir ?
			    strbuf_addf(&cfgfile, "%s/%s", debconfig_dir, cn.file) :
			    strbuf_addf(&cfgfile, "/usr/src/linux-config-%s/%s", p.series, cn.file))
			goto oom;
		break;
	case KPGO_CONFIG_FULL:
		if (strbuf_addstr(&cfgfile, full))
			goto oom;
		break;
	}
	if (access(cfgfile.buf, R_OK)) {
		error("cannot read the config '%s' (%s)%s", cfgfile.buf, strerror(errno),
		      cn.kind == KPGO_CONFIG_DEBIAN ?
			      ": install the linux-config package of the series" :
			      "");
		goto out;
	}

	if (changelog) {
		bool pgo = !strcmp(changelog, "pgo");

		if (pgo && !m) {
			error("--changelog pgo needs a profile (--profile or --store)");
			goto out;
		}
		if (epoch < 0 && pgo) {
			const char *we = kpgo_manifest_get(m, MF_WINDOW_END);
			int64_t t;

			if (we && kpgo_parse_utc(we, &t) == 0)
				epoch = (long long)t;
		}
		if (epoch < 0) {
			error("--changelog %s needs a date: --date-epoch or SOURCE_DATE_EPOCH",
			      changelog);
			goto out;
		}
		ret = plan_print_changelog(pgo, as_source, &p, package, maint, epoch, &in, cn.name,
					   have_pkg ? srcpkg : NULL, &dp, sha, m);
		goto out;
	}
	put(&o, "SERIES", p.series);
	put(&o, "KVER", p.kver);
	put(&o, "SOURCE_PACKAGE", have_pkg ? srcpkg : "");
	put(&o, "SOURCE_VERSION", in.source_version ? in.source_version : "");
	put(&o, "DEBREV", p.debrev);
	/* Built-Using's "linux (= 6.1.192-3)" is two keys: no blanks in values */
	put(&o, "BUILT_USING_SOURCE", have_pkg ? dp.source : "");
	put(&o, "BUILT_USING_VERSION", have_pkg ? dp.source_version : "");
	put(&o, "CONFIG", cn.name);
	put(&o, "CONFIG_KIND",
	    cn.kind == KPGO_CONFIG_FRAGMENT ? "fragment" :
	    cn.kind == KPGO_CONFIG_DEBIAN   ? "debian" :
					      "full");
	put(&o, "CONFIG_FILE", cfgfile.buf);
	put(&o, "CONFIG_TAG", cn.tag);
	put(&o, "REL_INSTR", p.rel_instr);
	put(&o, "REL_PGO", p.rel_pgo);
	put(&o, "TREE_INSTR", p.tree_instr);
	put(&o, "TREE_PGO", p.tree_pgo);
	put(&o, "DEB_VERSION_INSTR", p.deb_instr);
	put(&o, "DEB_VERSION_PGO", p.deb_pgo);
	put(&o, "RPM_VERSION", p.rpm_version);
	put(&o, "RPM_RELEASE_INSTR", p.rpm_release_instr);
	put(&o, "RPM_RELEASE_PGO", p.rpm_release_pgo);
	put(&o, "SOURCE_NAME", p.source_name);
	put(&o, "SOURCE_PKG_VERSION", p.source_version);
	snprintf(ser, sizeof(ser), "%lu", serial);
	put(&o, "SERIAL", ser);
	put(&o, "PROFILE", profile);
	put(&o, "PROFILE_SHA256", sha);
	put(&o, "PROFILE_STAMP", in.stamp);
	put(&o, "PROFILE_RELEASE", m ? kpgo_manifest_get(m, MF_RELEASE) : "");
	put(&o, "PROFILE_WORKLOAD", m ? kpgo_manifest_get(m, MF_WORKLOAD) : "");
	put(&o, "PROFILE_WINDOW_END", m ? kpgo_manifest_get(m, MF_WINDOW_END) : "");
	put(&o, "PROFILE_POLICY", pp.verdict);
	put(&o, "PROFILE_AGE_DAYS", pp.age);
	put(&o, "PROFILE_RELEASES_BEHIND", pp.behind);
	put(&o, "POLICY_MIN_APPLIED", pp.min_applied);
	/* the pgo build's floor: the policy's, else kpgo report's default */
	snprintf(minap, sizeof(minap), "%u", KPGO_REPORT_MIN_APPLIED);
	put(&o, "PGO_MIN_APPLIED", pp.min_applied[0] ? pp.min_applied : minap);
	ret = print_plan(&o);
	goto out;
oom:
	ret = error("out of memory");
out:
	if (a)
		kpgo_archive_close(a);
	strbuf_release(&makefile);
	strbuf_release(&path);
	strbuf_release(&status);
	strbuf_release(&cfgfile);
	strbuf_release(&tarball);
	strbuf_release(&prof);
	strbuf_release(&maintbuf);
	strbuf_release(&defprof);
	return ret;
}
