// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo plan --store: the profile of the optimized flavour, chosen from a store. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "store.h"
#include "store-policy.h"

/*
 * Selects the profile for @release from store @dir under the store's
 * freshness policy (--override-policy: @override), ages measured at @now
 * (-1: the clock's time): its path into @out.
 */
int plan_store_profile(const char *dir, const char *release, const char *cc, bool override,
		       int64_t now, struct strbuf *out, struct plan_policy *pp)
{
	struct kpgo_store_query q = { .release = release, .override = override };
	struct kpgo_store_index idx = { 0 };
	struct kpgo_store_policy policy;
	struct kpgo_store_choice ch;
	struct kpgo_error err;
	struct kpgo_store s;
	char gv[5];
	int64_t end;
	uint64_t d;
	int ret = 1;

	if (cc) {
		if (cc_gcov_version(cc, gv))
			return 1;
		q.gcov_version = gv;
	}
	if (kpgo_store_init(&s, dir))
		return error("out of memory");
	if (kpgo_store_index_read(&s, &idx, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (kpgo_store_policy_load(dir, &policy, &err)) {
		error("%s", err.msg);
		goto out;
	}
	q.policy = &policy;
	q.now = now >= 0 ? now : (int64_t)time(NULL);
	if (kpgo_store_select_verified(&s, &idx, &q, &ch, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (kpgo_store_object_path(&s, ch.e->sha, out)) {
		error("out of memory");
		goto out;
	}
	note(1, "store '%s': %s", dir, ch.why);
	if (ch.overridden)
		warning("the store's policy refuses %.12s (%s): built with it because of "
			"--override-policy (the package's pgo-report says so)",
			ch.e->sha, ch.policy_why);
	else if (ch.verdict == KPGO_POLICY_WARN)
		warning("profile %.12s is %s", ch.e->sha, ch.policy_why);
	pp->verdict = ch.overridden ? "overridden" : ch.verdict == KPGO_POLICY_WARN ? "warn" : "ok";
	if (!kpgo_parse_utc(ch.e->window_end, &end))
		snprintf(pp->age, sizeof(pp->age), "%lld",
			 (long long)(end >= q.now ? 0 : (q.now - end) / 86400));
	if (!kpgo_release_distance(ch.e->release, release, &d))
		snprintf(pp->behind, sizeof(pp->behind), "%llu", (unsigned long long)d);
	snprintf(pp->min_applied, sizeof(pp->min_applied), "%u", policy.min_applied);
	ret = 0;
out:
	kpgo_store_index_release(&idx);
	kpgo_store_release(&s);
	return ret;
}
