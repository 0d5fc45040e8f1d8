/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STORE_POLICY_H
#define KPGO_STORE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct kpgo_store_entry;

/*
 * The build farm's freshness policy: which stored profiles `store select`
 * (and so a kernel build with KPGO_STORE) may use for a release. Read from
 * the store's DIR/policy (docs/FORMAT.md, "The freshness policy"):
 *
 *   # comments and blank lines
 *   MAX_AGE_DAYS=42       refuse a profile collected longer ago ("none": no limit)
 *   WARN_AGE_DAYS=14      warn past this age ("none": no warning)
 *   MAX_DISTANCE=none     refuse a profile this many releases older ("none")
 *   CROSS_SERIES=no       yes: a profile of an older series when its own has none
 *   MIN_APPLIED=50        the share (%) a build must apply: select refuses a
 *                         profile expected to apply less (the measured
 *                         decay), the report checks it after the build
 *
 * What the file does not set is kpgo's default, chosen from the decay
 * measured on Debian's releases (docs/FORMAT.md): MAX_AGE_DAYS=210,
 * WARN_AGE_DAYS=60 (none when the file's MAX_AGE_DAYS is under it),
 * MAX_DISTANCE=none, CROSS_SERIES=no, MIN_APPLIED=50.
 */
#define KPGO_POLICY_FILE "policy"
#define KPGO_POLICY_FILE_MAX (64u * 1024)
#define KPGO_POLICY_DAYS_MAX 36500u
#define KPGO_POLICY_NONE UINT64_MAX

struct kpgo_store_policy {
	uint64_t max_age_days;	/* KPGO_POLICY_NONE: no limit */
	uint64_t warn_age_days; /* KPGO_POLICY_NONE: no warning */
	uint64_t max_distance;	/* KPGO_POLICY_NONE: no limit */
	bool cross_series;
	unsigned min_applied; /* percent */
};

void kpgo_store_policy_defaults(struct kpgo_store_policy *p);
/* The text of a policy file; one bad line fails it all, the line in @err. */
int kpgo_store_policy_parse(const char *buf, size_t len, struct kpgo_store_policy *p,
			    struct kpgo_error *err);
/*
 * DIR/policy of store directory @dir, not followed if a symlink; the
 * defaults when there is none.
 */
int kpgo_store_policy_load(const char *dir, struct kpgo_store_policy *p, struct kpgo_error *err);
/* The policy as the file would say it, into @out. */
void kpgo_store_policy_format(const struct kpgo_store_policy *p, struct strbuf *out);

/*
 * Where a kernel release stands in its series: its level is the sublevel
 * ("6.1.192-3-pgo" is level 192, "6.12.118+deb12-cloud-amd64" 118), or,
 * for Debian's ABI names whose sublevel is 0 ("6.1.0-57-cloud-amd64"), the
 * ABI number (57, @abi true). False when @release is not one of these.
 */
bool kpgo_release_level(const char *release, uint64_t *level, bool *abi);
/*
 * How many releases @older is behind @newer: the difference of their
 * levels, when both are of one series and of one kind. -ERANGE when the
 * two cannot be compared that way (another series, a sublevel against an
 * ABI number, or @older newer), -EINVAL when either is not a release.
 */
int kpgo_release_distance(const char *older, const char *newer, uint64_t *d);

/*
 * kpgo_policy_expected_applied() - the share of a profile of release @older
 * that a build of release @newer is expected to apply, in tenths of a
 * percent, from the decay measured on Debian's real releases
 * (docs/BENCHMARKS.md, "Profile decay across releases"): interpolated
 * between the measured distances within one series, extrapolated from the
 * last two points past the farthest (never below 0); for a profile of an
 * older series, the measured 6.1 to 6.12 jump. -ERANGE when the
 * measurement says nothing of the pair: Debian's ABI numbers (their steps
 * are not upstream releases), a newer profile or series; -EINVAL when
 * either is not a release.
 */
int kpgo_policy_expected_applied(const char *older, const char *newer, unsigned *permille);

/* "YYYY-MM-DDTHH:MM:SSZ" (a manifest's WINDOW_END) as seconds since 1970. */
int kpgo_parse_utc(const char *s, int64_t *t);

enum kpgo_policy_verdict {
	KPGO_POLICY_OK = 0,
	KPGO_POLICY_WARN = 1,
	KPGO_POLICY_REFUSE = 2,
};

/*
 * kpgo_store_policy_judge() - may @e build @release at time @now?
 * @why: the reason of a WARN or REFUSE, or what was checked for OK
 *
 * Age is @now minus the profile's WINDOW_END (a profile without one has
 * no known age: refused when there is an age limit). Distance is
 * kpgo_release_distance() from the profile's release; a profile of
 * another series counts as over any distance limit it cannot be measured
 * against. Series crossing itself is select's business (it never offers a
 * profile of another series unless the policy allows it).
 */
enum kpgo_policy_verdict kpgo_store_policy_judge(const struct kpgo_store_policy *p,
						 const struct kpgo_store_entry *e,
						 const char *release, int64_t now, char *why,
						 size_t len);

#endif
