// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo spool upload: the spool's finished profiles to the build farm. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "config.h"
#include "spool.h"

static const char usage_text[] =
	"usage: kpgo spool upload [--force] [--user NAME]\n"
	"\n"
	"Hands each finished profile in the spool, oldest first, to\n"
	"KPGO_UPLOAD_COMMAND: its words (no shell), with '{}' replaced by the\n"
	"profile's path or, without '{}', the path appended; KPGO_PROFILE,\n"
	"KPGO_PROFILE_NAME and KPGO_PROFILE_SHA256 are in its environment. Each\n"
	"profile is verified first; a bad one goes to rejected/ and is never sent.\n"
	"Exit status 0 moves the profile to sent/. A failure, or a command running\n"
	"past KPGO_UPLOAD_TIMEOUT, keeps it and ends the run: the next upload waits\n"
	"1 minute, then 2, 4, ... up to KPGO_UPLOAD_RETRY_MAX while failures go on\n"
	"(the backoff is the build farm's, not one profile's). Profiles that failed\n"
	"less often go first, so that one the farm refuses does not hold up the\n"
	"rest. Only one upload runs at a time; another finds the lock held and\n"
	"exits 0.\n"
	"\n"
	"Delivery is at least once: if kpgo dies after the command succeeded and\n"
	"before the profile is recorded as sent, it is sent again. Spool names\n"
	"carry the profile's sha256 and the build farm's store is content-addressed,\n"
	"so the second copy changes nothing there.\n"
	"\n"
	"      --force      upload now, even while the backoff runs\n"
	"      --user NAME  run the command as NAME, with a copy of each profile only\n"
	"                   NAME can read, when KPGO_UPLOAD_USER is not set\n"
	"                   (kpgo-upload.service names its DynamicUser=)\n"
	"\n"
	"One line per profile on stdout: sent, failed or rejected ('waiting' with\n"
	"-v). Exit 1 when a profile failed or was rejected.\n";

static void report(void *ctx, const struct kpgo_upload_event *ev)
{
	const struct kpgo_spool_item *it = ev->item;
	char next[32];

	(void)ctx;
	kpgo_format_time(ev->state->next_try, next);
	switch (ev->what) {
	case KPGO_UPLOAD_SENT: printf("sent %s\n", it->name); break;
	case KPGO_UPLOAD_FAILED:
		printf("failed %s: %s (attempt %u; next try %s)\n", it->name, ev->detail,
		       it->attempts, next);
		break;
	case KPGO_UPLOAD_WAITING:
		if (verbosity > 1)
			printf("waiting %s: next try %s\n", it->name, next);
		break;
	case KPGO_UPLOAD_REJECTED: printf("rejected %s: %s\n", it->name, ev->detail); break;
	}
	fflush(stdout);
}

int spool_upload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "user", required_argument, NULL, 'u' },
		SPOOL_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_upload_opts o = { 0 };
	const char *user = NULL;
	struct kpgo_upload_result res;
	struct kpgo_config cfg;
	struct kpgo_error err;
	struct kpgo_spool sp;
	int c, ret, r;

	while ((c = getopt_long(argc, argv, "fqvh", opts, NULL)) != -1) {
		if (c == 'f') {
			o.force = true;
			continue;
		}
		if (c == 'u') {
			user = optarg;
			continue;
		}
		if ((ret = spool_common_option(c, "spool upload", usage_text)) != 256)
			return ret;
	}
	if (optind != argc)
		return usage_error("spool upload", "unexpected argument '%s'", argv[optind]);
	if (user && !kpgo_user_name_ok(user))
		return usage_error("spool upload", "bad --user '%s': a user name is needed", user);
	if (spool_load_config(&cfg))
		return 1;
	ret = 0;
	if (!cfg.upload_argv.n) {
		note(1, "no upload command is set (KPGO_UPLOAD_COMMAND): profiles stay in '%s'",
		     spool_dir(&cfg));
		goto out_cfg;
	}
	if (kpgo_spool_open(&sp, spool_dir(&cfg), true, &err)) {
		ret = error("%s", err.msg);
		goto out_cfg;
	}
	o.argv = &cfg.upload_argv;
	o.timeout = cfg.upload_timeout;
	/* The operator's KPGO_UPLOAD_USER before the unit's dynamic user. */
	o.user = *cfg.upload_user ? cfg.upload_user : user;
	o.retry_max = cfg.retry_max;
	o.now = (int64_t)time(NULL);
	r = kpgo_spool_upload(&sp, &o, report, NULL, &res, &err);
	if (r == -EWOULDBLOCK) {
		note(1, "another upload is running; nothing to do");
		goto out;
	}
	if (r) {
		ret = error("%s", err.msg);
		goto out;
	}
	if (res.failed)
		ret = error("the upload failed; the profiles in '%s' wait for the next run", sp.dir);
	else if (res.rejected)
		ret = error("%zu files in '%s' were not valid profiles: see '%s/rejected'",
			    res.rejected, sp.dir, sp.dir);
	else if (res.waiting) {
		struct kpgo_spool_state st;
		char next[32];

		kpgo_spool_state_read(&sp, &st);
		kpgo_format_time(st.next_try, next);
		note(1, "%zu profiles wait for the next try at %s (after %u failed uploads: %s)",
		     res.waiting, next, st.failures, st.last_error);
	} else {
		note(2, "sent %zu profiles", res.sent);
	}
	if (spool_prune(&sp, &cfg, false))
		ret = 1;
out:
	kpgo_spool_close(&sp);
out_cfg:
	kpgo_config_release(&cfg);
	return ret;
}
