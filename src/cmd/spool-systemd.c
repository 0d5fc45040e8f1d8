// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hooks' helpers: a systemd generator that turns the settings into unit
 * drop-ins, and the decision a kernel install hook needs (is the installed
 * kernel instrumented?). The hooks themselves are thin shell in hooks/.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "config.h"
#include "kernel.h"
#include "spool.h"

static const char generator_usage[] =
	"usage: kpgo spool systemd-generator NORMAL_DIR [EARLY_DIR LATE_DIR]\n"
	"\n"
	"A systemd generator (installed as kpgo-generator): systemd runs it at boot\n"
	"and on every 'systemctl daemon-reload'. It writes drop-ins to NORMAL_DIR:\n"
	"the snapshot timer's interval (KPGO_SNAPSHOT_INTERVAL), the collection\n"
	"services' time limits (KPGO_COLLECT_TIMEOUT plus 30 s, as TimeoutStopSec\n"
	"and TimeoutStartSec; kpgo itself gives up at KPGO_COLLECT_TIMEOUT), and\n"
	"RequiresMountsFor=KPGO_SPOOL_DIR and ReadWritePaths=-KPGO_SPOOL_DIR (the units\n"
	"see the rest of the system read-only). With bad settings it writes nothing (the\n"
	"units' defaults stay) and says why.\n";

static const char prepare_usage[] =
	"usage: kpgo spool prepare --release R [--image PATH] [--kernel-config FILE]\n"
	"\n"
	"For kernel install hooks. Prints 'instrumented' when the config of kernel\n"
	"R has CONFIG_GCOV_KERNEL=y, after checking the settings and creating the\n"
	"spool; else 'not-instrumented'. The config is FILE, else the first of\n"
	"/boot/config-R, config-R beside the image, /lib/modules/R/config and\n"
	"/usr/lib/modules/R/config. The hook then enables the units.\n";

/* Seconds kpgo's own timeout gets before systemd kills it. */
#define SYSTEMD_MARGIN 30

/* Writes DIR/UNIT.d/50-kpgo-settings.conf: a header naming @src, then @fmt. */
static int write_dropin(const char *dir, const char *unit, const char *src, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int write_dropin(const char *dir, const char *unit, const char *src, const char *fmt, ...)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	va_list ap;
	int r;

	r = strbuf_addf(&text, "# Written by 'kpgo spool systemd-generator' from %s\n", src);
	if (!r) {
		va_start(ap, fmt);
		r = strbuf_vaddf(&text, fmt, ap);
		va_end(ap);
	}
	if (!r)
		r = strbuf_addf(&path, "%s/%s.d", dir, unit);
	if (!r && mkdir(path.buf, 0755) < 0 && errno != EEXIST)
		r = -errno;
	if (!r)
		r = strbuf_addstr(&path, "/50-kpgo-settings.conf");
	if (!r)
		r = kpgo_write_file_atomic(path.buf, text.buf, text.len, 0644);
	if (r)
		error("cannot write '%s': %s", path.buf, strerror(-r));
	strbuf_release(&path);
	strbuf_release(&text);
	return r ? 1 : 0;
}

int spool_systemd_generator(int argc, char **argv)
{
	static const struct option opts[] = { SPOOL_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	const char *src, *dir;
	struct kpgo_config cfg;
	uint64_t limit;
	int c, ret;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1)
		if ((ret = spool_common_option(c, "spool systemd-generator", generator_usage)) != 256)
			return ret;
	if (argc - optind != 1 && argc - optind != 3)
		return usage_error("spool systemd-generator", "one or three directories expected");
	dir = argv[optind];
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return error("cannot create '%s': %s", dir, strerror(errno));
	if (spool_load_config(&cfg))
		return 1;
	src = cfg.path ? cfg.path : "built-in defaults";
	limit = cfg.collect_timeout + SYSTEMD_MARGIN;
	ret = 0;
	ret |= write_dropin(dir, "kpgo-collect.service", src,
			    "[Unit]\nRequiresMountsFor=%s\n\n[Service]\nReadWritePaths=-%s\n"
			    "TimeoutStopSec=%" PRIu64 "s\nTimeoutStartSec=%" PRIu64 "s\n",
			    spool_dir(&cfg), spool_dir(&cfg), limit, limit);
	ret |= write_dropin(dir, "kpgo-snapshot.service", src,
			    "[Unit]\nRequiresMountsFor=%s\n\n[Service]\nReadWritePaths=-%s\n"
			    "TimeoutStartSec=%" PRIu64 "s\n",
			    spool_dir(&cfg), spool_dir(&cfg), limit);
	ret |= write_dropin(dir, "kpgo-upload.service", src,
			    "[Unit]\nRequiresMountsFor=%s\n\n[Service]\nReadWritePaths=-%s\n",
			    spool_dir(&cfg), spool_dir(&cfg));
	/* Empty assignments reset the unit's own values first. */
	if (cfg.snapshot_interval)
		ret |= write_dropin(dir, "kpgo-collect.timer", src,
				    "[Timer]\nOnBootSec=\nOnBootSec=%" PRIu64
				    "s\nOnUnitActiveSec=\nOnUnitActiveSec=%" PRIu64 "s\n",
				    cfg.snapshot_interval, cfg.snapshot_interval);
	kpgo_config_release(&cfg);
	return ret;
}

int spool_prepare(int argc, char **argv)
{
	enum { OPT_RELEASE = 256, OPT_IMAGE, OPT_KCONFIG };
	static const struct option opts[] = {
		{ "release", required_argument, NULL, OPT_RELEASE },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "kernel-config", required_argument, NULL, OPT_KCONFIG },
		SPOOL_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *release = NULL, *image = NULL, *kconfig = NULL;
	struct strbuf path = STRBUF_INIT;
	struct kpgo_config cfg;
	struct kpgo_error err;
	struct kpgo_spool sp;
	int c, ret, r;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_RELEASE: release = optarg; continue;
		case OPT_IMAGE: image = optarg; continue;
		case OPT_KCONFIG: kconfig = optarg; continue;
		}
		if ((ret = spool_common_option(c, "spool prepare", prepare_usage)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool prepare", "unexpected argument '%s'", argv[optind]);
	if (!release || !kpgo_kernel_release_ok(release))
		return usage_error("spool prepare",
				   "a kernel release is required (--release R, [A-Za-z0-9._+~-])");
	r = kpgo_kernel_config_gcov(release, image, kconfig, &path);
	if (r < 0 && r != -ENOENT) {
		ret = error("cannot read the config of kernel %s '%s': %s", release, path.buf,
			    strerror(-r));
		goto out;
	}
	if (r <= 0) {
		if (r == -ENOENT)
			note(1, "no config found for kernel %s: taken as not instrumented", release);
		printf("not-instrumented\n");
		ret = 0;
		goto out;
	}
	if (spool_load_config(&cfg)) {
		ret = 1;
		goto out;
	}
	if (kpgo_spool_open(&sp, spool_dir(&cfg), true, &err)) {
		ret = error("%s", err.msg);
	} else {
		kpgo_spool_close(&sp);
		note(1, "kernel %s is instrumented: its profiles will be collected into '%s'",
		     release, spool_dir(&cfg));
		printf("instrumented\n");
		ret = 0;
	}
	kpgo_config_release(&cfg);
out:
	strbuf_release(&path);
	return ret;
}
