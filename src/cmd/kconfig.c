// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo kconfig check: does a configured kernel tree's .config make the
 * kernel a flavour's build asks for? The build driver (kpgo-kbuild) runs
 * it after olddefconfig, before anything is compiled.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kconfig-gen.h"
#include "kconfig.h"
#include "toolchain.h"

static const char usage_text[] =
	"usage: kpgo kconfig check --config FILE [--src DIR] [--flavour F]\n"
	"                          [--compiler gcc|clang [--lto thin|full]] [--module-sig]\n"
	"                          [-q] [FRAGMENT...]\n"
	"   or: kpgo kconfig fragments --dir DIR [--localversion S] [--signing-key FILE]\n"
	"                              [--debug-info]\n"
	"\n"
	"Checks a kernel's final .config (FILE, in the build directory) and says\n"
	"each problem on a line of its own:\n"
	"  FRAGMENT...           the fragments merged into it, in their order: each\n"
	"                        line must be in FILE, but for the symbols a later\n"
	"                        fragment sets; a \"# CONFIG_X is not set\" line may be\n"
	"                        absent, and so may a symbol the Kconfig files of\n"
	"                        --src do not define (a fragment for another kernel\n"
	"                        series: said, and left out)\n"
	"  --src DIR             the kernel source tree (required with fragments)\n"
	"  key files             CONFIG_SYSTEM_TRUSTED_KEYS, _REVOCATION_KEYS,\n"
	"                        CONFIG_MODULE_SIG_KEY and\n"
	"                        CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE must name a file\n"
	"                        the build can read (relative: in DIR or beside\n"
	"                        FILE), the build's own certs/signing_key.pem, a\n"
	"                        pkcs11: URI or nothing; a distro's config names keys\n"
	"                        of its own build\n"
	"  --flavour F           pgo-instr: CONFIG_GCOV_KERNEL=y and\n"
	"                        CONFIG_GCOV_PROFILE_ALL=y; pgo, baseline, o3: no\n"
	"                        CONFIG_GCOV_KERNEL=y\n"
	"  --compiler clang      with --flavour: CONFIG_LTO_CLANG_THIN=y (gcc, the\n"
	"                        default: nothing more)\n"
	"  --lto full            with --compiler clang: CONFIG_LTO_CLANG_FULL=y instead\n"
	"                        (--lto thin, the default: ThinLTO)\n"
	"  --module-sig          with --flavour: the modules are signed at install,\n"
	"                        CONFIG_MODULE_SIG_ALL=y\n"
	"  -q, --quiet           do not say which fragment symbols were left out\n"
	"\n"
	"Exit status: 0 the config is as asked, 1 it is not (or cannot be read),\n"
	"2 usage error.\n"
	"\n"
	"kpgo kconfig fragments writes the fragments a build generates from its\n"
	"options into the build directory DIR (removing those of an earlier\n"
	"configuration), to be merged after the flavour's, and prints their paths:\n"
	"  --localversion S      kpgo-gen-release.config: CONFIG_LOCALVERSION=\"S\"\n"
	"  --signing-key FILE    kpgo-gen-signing.config: the modules signed with\n"
	"                        FILE (SHA-256, at install); FILE must be a PEM file\n"
	"                        with the private key and its X.509 certificate, its\n"
	"                        absolute path a config string as it is\n"
	"  --debug-info          kpgo-gen-debug.config: DWARF, as the toolchain defaults\n";

struct check {
	const char *flavour;
};

static int report(void *ctx, const struct kpgo_kconfig_problem *p)
{
	const struct check *c = ctx;

	switch (p->kind) {
	case KPGO_KCONFIG_LEFT_OUT:
		note(1, "%s: %s is not an option of this kernel: left out", p->file, p->sym);
		break;
	case KPGO_KCONFIG_MISMATCH:
		error("%s: requested \"%s\", got \"%s\"", p->file, p->want,
		      p->have ? p->have : "(absent)");
		break;
	case KPGO_KCONFIG_KEY_FILE:
		error("the config's %s names '%s', which this build cannot read (a distro's own "
		      "key?): set it to \"\" in a fragment, or give the build a key of its own "
		      "(kpgo-kbuild --signing-key)",
		      p->sym, p->want);
		break;
	case KPGO_KCONFIG_REQUIRED:
		if (p->have)
			error("the %s config lacks %s (it has \"%s\")", c->flavour, p->want,
			      p->have);
		else
			error("the %s config lacks %s", c->flavour, p->want);
		break;
	case KPGO_KCONFIG_FORBIDDEN: error("the %s config has %s", c->flavour, p->want); break;
	}
	return 0;
}

/* The directory of @path: where a relative key file may be, beside the .config. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

static int kconfig_check(int argc, char **argv)
{
	enum { OPT_SRC = 256, OPT_FLAVOUR, OPT_COMPILER, OPT_MODULE_SIG, OPT_LTO };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "flavour", required_argument, NULL, OPT_FLAVOUR },
		{ "compiler", required_argument, NULL, OPT_COMPILER },
		{ "module-sig", no_argument, NULL, OPT_MODULE_SIG },
		{ "lto", required_argument, NULL, OPT_LTO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = NULL, *src = NULL, *flavour = NULL, *compiler = "gcc", *lto = NULL;
	struct kpgo_kflavour_opts fo = { 0 };
	struct kpgo_strlist known = { 0 };
	struct kpgo_kconfig config, *frags = NULL;
	struct check ck;
	enum kpgo_compiler cc;
	struct kpgo_error err;
	char *objtree = NULL;
	size_t i, nfrags;
	int c, r, bad = 0, ret = 1;

	while ((c = getopt_long(argc, argv, "c:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config_path = optarg; break;
		case OPT_SRC: src = optarg; break;
		case OPT_FLAVOUR: flavour = optarg; break;
		case OPT_COMPILER: compiler = optarg; break;
		case OPT_MODULE_SIG: fo.module_sig = true; break;
		case OPT_LTO: lto = optarg; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("kconfig check", "bad option");
		}
	}
	nfrags = (size_t)(argc - optind);
	if (!config_path)
		return usage_error("kconfig check", "--config FILE is required");
	if (nfrags && !src)
		return usage_error("kconfig check",
				   "fragments need --src (the kernel's Kconfig files)");
	if (flavour && kpgo_kflavour_parse(flavour, &fo.flavour))
		return usage_error("kconfig check",
				   "unknown flavour '%s' (pgo-instr, pgo, baseline or o3)", flavour);
	if (kpgo_compiler_parse(compiler, &cc))
		return usage_error("kconfig check", "unknown compiler '%s' (gcc or clang)",
				   compiler);
	fo.clang = cc == KPGO_COMPILER_CLANG;
	if (lto && !fo.clang)
		return usage_error("kconfig check", "--lto is for --compiler clang");
	if (lto && kpgo_lto_parse(lto, &fo.full_lto))
		return usage_error("kconfig check", "unknown --lto '%s' (thin or full)", lto);
	if ((fo.clang || fo.module_sig) && !flavour)
		return usage_error("kconfig check", "--compiler and --module-sig need --flavour");
	ck.flavour = flavour;

	kpgo_kconfig_init(&config);
	frags = calloc(nfrags ? nfrags : 1, sizeof(*frags));
	objtree = dir_of(config_path);
	if (!frags || !objtree) {
		error("out of memory");
		goto out;
	}
	for (i = 0; i < nfrags; i++)
		kpgo_kconfig_init(&frags[i]);
	if (kpgo_kconfig_read(&config, config_path, &err)) {
		error("%s", err.msg);
		goto out;
	}
	for (i = 0; i < nfrags; i++) {
		if (kpgo_kconfig_read(&frags[i], argv[optind + i], &err)) {
			error("%s", err.msg);
			goto out;
		}
	}
	if (nfrags && kpgo_kconfig_symbols(src, &known, &err)) {
		error("%s", err.msg);
		goto out;
	}
	/* each check says its problems; the first error of the callback stops them */
	r = kpgo_kconfig_check_fragments(&config, frags, (const char *const *)argv + optind, nfrags,
					 &known, report, &ck);
	if (r >= 0) {
		bad += r;
		r = kpgo_kconfig_check_key_files(&config, src, objtree, report, &ck);
	}
	if (r >= 0 && flavour) {
		bad += r;
		r = kpgo_kconfig_check_flavour(&config, &fo, report, &ck);
	}
	if (r < 0) {
		error("%s", strerror(-r));
		goto out;
	}
	ret = bad + r ? 1 : 0;
out:
	for (i = 0; frags && i < nfrags; i++)
		kpgo_kconfig_release(&frags[i]);
	free(frags);
	free(objtree);
	kpgo_kconfig_release(&config);
	kpgo_strlist_clear(&known);
	return ret;
}

static int kconfig_fragments(int argc, char **argv)
{
	enum { OPT_DIR = 256, OPT_LOCALVERSION, OPT_SIGNING_KEY, OPT_DEBUG_INFO };
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "localversion", required_argument, NULL, OPT_LOCALVERSION },
		{ "signing-key", required_argument, NULL, OPT_SIGNING_KEY },
		{ "debug-info", no_argument, NULL, OPT_DEBUG_INFO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_strlist written = { 0 };
	struct kpgo_kconfig_gen g = { 0 };
	const char *dir = NULL, *key = NULL;
	struct kpgo_error err;
	char *abs = NULL;
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DIR: dir = optarg; break;
		case OPT_LOCALVERSION: g.localversion = optarg; break;
		case OPT_SIGNING_KEY: key = optarg; break;
		case OPT_DEBUG_INFO: g.debug_info = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("kconfig fragments", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("kconfig fragments", "unexpected argument '%s'", argv[optind]);
	if (!dir)
		return usage_error("kconfig fragments", "--dir DIR is required");
	if (key && kpgo_signing_key_check(key, &abs, &err))
		return error("%s", err.msg);
	g.signing_key = abs;
	if (kpgo_kconfig_gen_write(&g, dir, &written, &err)) {
		error("%s", err.msg);
		goto out;
	}
	for (i = 0; i < written.n; i++)
		printf("%s\n", written.items[i]);
	ret = 0;
out:
	free(abs);
	kpgo_strlist_clear(&written);
	return ret;
}

static const struct subcommand_entry subcommands[] = {
	{ "check", kconfig_check },
	{ "fragments", kconfig_fragments },
};

int cmd_kconfig(int argc, char **argv)
{
	return run_command_of("kconfig", usage_text, subcommands,
			      sizeof(subcommands) / sizeof(subcommands[0]), argc, argv);
}
