// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo spool: the machine side of collection. Settings, the spool of
 * finished profiles, retention; collect, upload and the systemd and kernel
 * hooks' helpers are in spool-*.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>

#include "cmd/cmd.h"
#include "config.h"
#include "kernel.h"
#include "spool.h"

static const char usage_text[] =
	"usage: kpgo spool [--config FILE] [--spool DIR] <command> [<args>]\n"
	"\n"
	"  init [--probe]          check the settings and create the spool\n"
	"  collect [--snapshot]    collect the running kernel's profile into the spool\n"
	"  upload [--force]        hand each finished profile to KPGO_UPLOAD_COMMAND\n"
	"  prune                   apply the retention settings\n"
	"  list [--json]           the profiles waiting (with failed attempts) and sent\n"
	"  config                  print the settings in effect\n"
	"  prepare --release R     for kernel install hooks: prepare collection if\n"
	"                          kernel R is instrumented\n"
	"  systemd-generator DIR   write unit drop-ins from the settings (a systemd\n"
	"                          generator)\n"
	"\n"
	"Settings: --config FILE, else $KPGO_SETTINGS, else " KPGO_CONFIG_DEBIAN
	" or\n" KPGO_CONFIG_RPM " (see kpgo(1)). The spool: --spool DIR, else\n"
	"KPGO_SPOOL_DIR (default " KPGO_SPOOL_DEFAULT ").\n"
	"Every command takes -q/--quiet, -v/--verbose and -h/--help.\n";

static const char init_usage[] =
	"usage: kpgo spool init [--probe] [--debugfs DIR]\n"
	"\n"
	"Checks the settings and creates the spool. With --probe, also says in one\n"
	"line whether the running kernel has gcov data to collect (mounting debugfs\n"
	"if it is not), as kpgo-collect.service does at boot.\n";

static const char prune_usage[] =
	"usage: kpgo spool prune\n"
	"\n"
	"Keeps the newest KPGO_KEEP_COUNT uploaded profiles (in sent/) that are\n"
	"younger than KPGO_KEEP_AGE, and at most KPGO_SPOOL_MAX waiting ones (the\n"
	"oldest go first, each with a warning). Upload and collect prune too.\n";

static const char list_usage[] = "usage: kpgo spool list [--json]\n"
				 "\n"
				 "The upload's backoff when uploads fail, then one line per profile:\n"
				 "'waiting' ones with their failed attempts, then 'sent' ones.\n";

static const char config_usage[] =
	"usage: kpgo spool config\n"
	"\n"
	"Reads and checks the settings file and prints every setting in effect as\n"
	"KEY='VALUE'. Exit 1, with the file and line, when the file is bad.\n";

static const char *config_opt, *spool_opt;

int spool_common_option(int c, const char *cmd, const char *usage)
{
	switch (c) {
	case OPT_SPOOL_CONFIG: config_opt = optarg; return 256;
	case OPT_SPOOL_DIR: spool_opt = optarg; return 256;
	case 'q': verbosity = 0; return 256;
	case 'v': verbosity = 2; return 256;
	case 'h': fputs(usage, stdout); return 0;
	default: return usage_error(cmd, "bad option");
	}
}

int spool_load_config(struct kpgo_config *c)
{
	const char *env = getenv("KPGO_SETTINGS");
	bool explicit = (config_opt && *config_opt) || (env && *env);
	struct kpgo_error err;
	size_t i;

	if (kpgo_config_load(c, kpgo_config_default_path(config_opt), explicit, &err))
		return error("%s", err.msg);
	for (i = 0; i < c->warnings.n; i++)
		warning("%s", c->warnings.items[i]);
	return 0;
}

const char *spool_dir(const struct kpgo_config *c)
{
	return spool_opt && *spool_opt ? spool_opt : c->spool_dir;
}

int spool_prune(struct kpgo_spool *sp, const struct kpgo_config *c, bool wait)
{
	struct kpgo_spool_retention o = {
		.keep_count = c->keep_count,
		.keep_age = c->keep_age,
		.spool_max = c->spool_max,
		.now = (int64_t)time(NULL),
	};
	struct kpgo_strlist removed = { 0 }, dropped = { 0 };
	struct kpgo_error err;
	int r, ret = 0;
	size_t i;

	r = kpgo_spool_lock(sp, KPGO_SPOOL_UPLOAD_LOCK, wait, &err);
	if (r == -EWOULDBLOCK)
		return 0; /* an upload runs; it prunes when it is done */
	if (r)
		return error("%s", err.msg);
	r = kpgo_spool_prune(sp, &o, &removed, &dropped, &err);
	kpgo_spool_unlock(sp, KPGO_SPOOL_UPLOAD_LOCK);
	for (i = 0; i < removed.n; i++)
		note(2, "removed 'sent/%s' (KPGO_KEEP_COUNT=%" PRIu64 ", KPGO_KEEP_AGE)",
		     removed.items[i], c->keep_count);
	for (i = 0; i < dropped.n; i++)
		warning("dropped the unsent profile '%s': more than KPGO_SPOOL_MAX=%" PRIu64
			" are waiting",
			dropped.items[i], c->spool_max);
	if (r)
		ret = error("%s", err.msg);
	kpgo_strlist_clear(&removed);
	kpgo_strlist_clear(&dropped);
	return ret;
}

/* Options, then no arguments: the shape of most spool commands. */
static int no_args(int argc, char **argv, const char *cmd, const char *usage)
{
	static const struct option opts[] = { SPOOL_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	int c, ret;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1)
		if ((ret = spool_common_option(c, cmd, usage)) != 256)
			return ret;
	if (optind != argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return 256;
}

static int spool_init(int argc, char **argv)
{
	enum { OPT_PROBE = 256, OPT_DEBUGFS };
	static const struct option opts[] = {
		{ "probe", no_argument, NULL, OPT_PROBE },
		{ "debugfs", required_argument, NULL, OPT_DEBUGFS },
		SPOOL_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *debugfs = KPGO_DEBUGFS_DEFAULT;
	char why[512], release[256];
	struct kpgo_config cfg;
	struct kpgo_error err;
	struct kpgo_spool sp;
	bool probe = false, mounted;
	int c, ret, r;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		if (c == OPT_PROBE) {
			probe = true;
			continue;
		}
		if (c == OPT_DEBUGFS) {
			debugfs = optarg;
			continue;
		}
		if ((ret = spool_common_option(c, "spool init", init_usage)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool init", "unexpected argument '%s'", argv[optind]);
	if (spool_load_config(&cfg))
		return 1;
	ret = 0;
	if (kpgo_spool_open(&sp, spool_dir(&cfg), true, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	kpgo_spool_close(&sp);
	if (!probe) {
		note(1, "the spool '%s' is ready", spool_dir(&cfg));
		goto out;
	}
	kpgo_kernel_release(release, sizeof(release));
	r = kpgo_gcov_probe(debugfs, true, &mounted, why, sizeof(why));
	if (r < 0)
		ret = error("out of memory");
	else if (r == 0)
		note(1, "the running kernel %s has no gcov data (%s): nothing will be collected",
		     release, why);
	else
		note(1, "the running kernel %s is instrumented: profiles go to '%s'", release,
		     spool_dir(&cfg));
	/* systemd's sys-kernel-debug.mount keeps it mounted; else leave it as found. */
	if (mounted)
		umount2(debugfs, MNT_DETACH);
out:
	kpgo_config_release(&cfg);
	return ret;
}

static int spool_config(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_config cfg;
	int ret = no_args(argc, argv, "spool config", config_usage);

	if (ret != 256)
		return ret;
	if (spool_load_config(&cfg))
		return 1;
	ret = 0;
	if (kpgo_config_format(&cfg, &out))
		ret = error("out of memory");
	else
		printf("# %s\n%s", cfg.path ? cfg.path : "built-in defaults (no settings file)",
		       out.buf);
	strbuf_release(&out);
	kpgo_config_release(&cfg);
	return ret;
}

static int spool_prune_cmd(int argc, char **argv)
{
	struct kpgo_config cfg;
	struct kpgo_error err;
	struct kpgo_spool sp;
	int ret = no_args(argc, argv, "spool prune", prune_usage);

	if (ret != 256)
		return ret;
	if (spool_load_config(&cfg))
		return 1;
	if (kpgo_spool_open(&sp, spool_dir(&cfg), false, &err)) {
		kpgo_config_release(&cfg);
		return error("%s", err.msg);
	}
	if (verbosity == 1)
		verbosity = 2; /* asked for: say what goes */
	ret = spool_prune(&sp, &cfg, true);
	kpgo_spool_close(&sp);
	kpgo_config_release(&cfg);
	return ret;
}

static void list_item(const struct kpgo_spool_item *it, const char *area, struct kpgo_json_writer *w)
{
	char last[32], mtime[32];

	kpgo_format_time(it->last_try, last);
	kpgo_format_time(it->mtime, mtime);
	if (w) {
		kpgo_jw_object_begin_inline(w, NULL);
		kpgo_jw_string(w, "area", area);
		kpgo_jw_string(w, "name", it->name);
		kpgo_jw_u64(w, "size", it->size);
		kpgo_jw_string(w, "mtime", mtime);
		kpgo_jw_u64(w, "failed_attempts", it->attempts);
		if (it->attempts) {
			kpgo_jw_string(w, "last_try", last);
			kpgo_jw_string(w, "last_error", it->last_error);
		}
		kpgo_jw_end(w);
	} else if (it->attempts) {
		printf("%-7s  %s  %" PRIu64 " bytes  %u failed attempts, the last at %s: %s\n",
		       area, it->name, it->size, it->attempts, last, it->last_error);
	} else {
		printf("%-7s  %s  %" PRIu64 " bytes\n", area, it->name, it->size);
	}
}

static int spool_list_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		SPOOL_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_spool_list waiting = { 0 }, sent = { 0 };
	struct kpgo_json_writer jw, *w = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_spool_state st;
	struct kpgo_config cfg;
	char next[32];
	struct kpgo_error err;
	struct kpgo_spool sp;
	bool json = false;
	int c, ret;
	size_t i;

	while ((c = getopt_long(argc, argv, "jqvh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
			continue;
		}
		if ((ret = spool_common_option(c, "spool list", list_usage)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool list", "unexpected argument '%s'", argv[optind]);
	if (spool_load_config(&cfg))
		return 1;
	ret = 1;
	if (kpgo_spool_open(&sp, spool_dir(&cfg), false, &err)) {
		error("%s", err.msg);
		goto out_cfg;
	}
	if (kpgo_spool_list(&sp, KPGO_SPOOL_WAITING, &waiting, &err) ||
	    kpgo_spool_list(&sp, KPGO_SPOOL_SENT, &sent, &err)) {
		error("%s", err.msg);
		goto out;
	}
	kpgo_spool_state_read(&sp, &st);
	kpgo_format_time(st.next_try, next);
	if (json) {
		w = &jw;
		kpgo_jw_init(w, &sb);
		kpgo_jw_object_begin(w, NULL);
		kpgo_jw_object_begin_inline(w, "upload");
		kpgo_jw_u64(w, "failed_runs", st.failures);
		if (st.failures) {
			kpgo_jw_string(w, "next_try", next);
			kpgo_jw_string(w, "last_error", st.last_error);
		}
		kpgo_jw_end(w);
		kpgo_jw_array_begin(w, "profiles");
	} else if (st.failures) {
		printf("upload: %u failed runs in a row, next try %s: %s\n", st.failures, next,
		       st.last_error);
	}
	for (i = 0; i < waiting.n; i++)
		list_item(&waiting.items[i], "waiting", w);
	for (i = 0; i < sent.n; i++)
		list_item(&sent.items[i], "sent", w);
	if (w) {
		kpgo_jw_end(w);
		kpgo_jw_end(w);
		if (print_json_doc(w))
			goto out;
	}
	if (waiting.strays)
		warning("%zu other files in '%s' are not profiles and are ignored", waiting.strays,
			sp.dir);
	ret = 0;
out:
	kpgo_spool_list_release(&waiting);
	kpgo_spool_list_release(&sent);
	kpgo_spool_close(&sp);
out_cfg:
	kpgo_config_release(&cfg);
	return ret;
}

static const struct subcommand_entry subcommands[] = {
	{ "init", spool_init },	      { "collect", spool_collect },
	{ "upload", spool_upload },   { "prune", spool_prune_cmd },
	{ "list", spool_list_cmd },   { "config", spool_config },
	{ "prepare", spool_prepare }, { "systemd-generator", spool_systemd_generator },
};

int cmd_spool(int argc, char **argv)
{
	static const struct option opts[] = { SPOOL_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	int c, ret;

	/* Options before the command; '+' stops at the command's name. */
	while ((c = getopt_long(argc, argv, "+qvh", opts, NULL)) != -1)
		if ((ret = spool_common_option(c, "spool", usage_text)) != 256)
			return ret;
	return run_subcommand("spool", subcommands, sizeof(subcommands) / sizeof(subcommands[0]),
			      argc, argv);
}
