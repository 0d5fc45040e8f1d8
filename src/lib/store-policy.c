// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The freshness policy of a store: its file, release levels and distances,
 * profile ages, and the verdict on one stored profile.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store-policy.h"
#include "store.h"

void kpgo_store_policy_defaults(struct kpgo_store_policy *p)
{
	/*
	 * Chosen from the decay measured on Debian's 6.1 releases
	 * (docs/BENCHMARKS.md, "Profile decay across releases"; the reasons in
	 * docs/FORMAT.md, "The freshness policy"): the oldest profile measured,
	 * 202 days and 22 releases behind, still kept 95% of the gain, so the
	 * limits stop just past what was measured, and the warning comes where
	 * the gain kept fell under 97% (between 41 and 80 days). Across
	 * series 6.1's profile on 6.12 kept about 30% of the gain: not by default.
	 */
	p->max_age_days = 210;
	p->warn_age_days = 60;
	p->max_distance = KPGO_POLICY_NONE;
	p->cross_series = false;
	p->min_applied = 50;
}

/* "none" or a decimal number up to @max. */
static int limit_value(const char *v, uint64_t max, uint64_t *out)
{
	if (!strcmp(v, "none")) {
		*out = KPGO_POLICY_NONE;
		return 0;
	}
	if (kpgo_parse_u64(v, out) || *out > max)
		return -EINVAL;
	return 0;
}

int kpgo_store_policy_parse(const char *buf, size_t len, struct kpgo_store_policy *p,
			    struct kpgo_error *err)
{
	static const char *const keys[] = { "MAX_AGE_DAYS", "WARN_AGE_DAYS", "MAX_DISTANCE",
					    "CROSS_SERIES", "MIN_APPLIED" };
	unsigned seen = 0, lineno = 0;
	size_t off = 0;

	kpgo_store_policy_defaults(p);
	if (len > KPGO_POLICY_FILE_MAX)
		return kpgo_error_set(err, -EFBIG, "the policy is over %u bytes",
				      KPGO_POLICY_FILE_MAX);
	if (memchr(buf, '\0', len))
		return kpgo_error_set(err, -EINVAL, "the policy is not text (a NUL byte)");
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off, k;
		char line[256], *eq, *v;
		uint64_t x;

		lineno++;
		if (n >= sizeof(line))
			return kpgo_error_set(err, -EINVAL, "policy line %u: too long", lineno);
		memcpy(line, buf + off, n);
		line[n] = '\0';
		off += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			return kpgo_error_set(err, -EINVAL, "policy line %u: not KEY=VALUE", lineno);
		*eq = '\0';
		v = eq + 1;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(line, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return kpgo_error_set(err, -EINVAL,
					      "policy line %u: unknown setting '%.64s'", lineno,
					      line);
		if (seen & (1u << k))
			return kpgo_error_set(err, -EINVAL, "policy line %u: %s given twice",
					      lineno, keys[k]);
		seen |= 1u << k;
		switch (k) {
		case 0:
		case 1:
			if (limit_value(v, KPGO_POLICY_DAYS_MAX, &x))
				goto bad;
			*(k == 0 ? &p->max_age_days : &p->warn_age_days) = x;
			break;
		case 2:
			if (limit_value(v, 1000000, &x))
				goto bad;
			p->max_distance = x;
			break;
		case 3:
			if (strcmp(v, "yes") && strcmp(v, "no"))
				goto bad;
			p->cross_series = !strcmp(v, "yes");
			break;
		case 4:
			if (kpgo_parse_u64(v, &x) || x > 100)
				goto bad;
			p->min_applied = (unsigned)x;
			break;
		}
		continue;
	bad:
		return kpgo_error_set(err, -EINVAL, "policy line %u: bad value '%.64s' for %s",
				      lineno, v, keys[k]);
	}
	/* a file's age limit under kpgo's default warning age: no warning */
	if (!(seen & 2u) && p->warn_age_days != KPGO_POLICY_NONE &&
	    p->max_age_days != KPGO_POLICY_NONE && p->warn_age_days > p->max_age_days)
		p->warn_age_days = KPGO_POLICY_NONE;
	if (p->warn_age_days != KPGO_POLICY_NONE && p->max_age_days != KPGO_POLICY_NONE &&
	    p->warn_age_days > p->max_age_days)
		return kpgo_error_set(err, -EINVAL,
				      "the policy warns at %" PRIu64
				      " days, after refusing at %" PRIu64,
				      p->warn_age_days, p->max_age_days);
	return 0;
}

int kpgo_store_policy_load(const char *dir, struct kpgo_store_policy *p, struct kpgo_error *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct stat st;
	int fd, r;

	kpgo_store_policy_defaults(p);
	if (strbuf_addf(&path, "%s/%s", dir, KPGO_POLICY_FILE)) {
		strbuf_release(&path);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	fd = open(path.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			r = 0;
		else
			kpgo_error_set(err, r, "cannot open %s: %s", path.buf,
				       r == -ELOOP ? "it is a symlink" : strerror(-r));
		strbuf_release(&path);
		return r;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		r = kpgo_error_set(err, -EINVAL, "%s is not a regular file", path.buf);
		goto out;
	}
	r = kpgo_read_fd(fd, &text, KPGO_POLICY_FILE_MAX + 1);
	if (r) {
		kpgo_error_set(err, r, "cannot read %s: %s", path.buf, strerror(-r));
		goto out;
	}
	r = kpgo_store_policy_parse(text.buf ? text.buf : "", text.len, p, err);
	if (r) {
		struct kpgo_error e = *err;

		kpgo_error_set(err, r, "%s: %s", path.buf, e.msg);
	}
out:
	close(fd);
	strbuf_release(&text);
	strbuf_release(&path);
	return r;
}

static void limit_format(struct strbuf *out, const char *key, uint64_t v)
{
	if (v == KPGO_POLICY_NONE)
		strbuf_addf(out, "%s=none\n", key);
	else
		strbuf_addf(out, "%s=%" PRIu64 "\n", key, v);
}

void kpgo_store_policy_format(const struct kpgo_store_policy *p, struct strbuf *out)
{
	limit_format(out, "MAX_AGE_DAYS", p->max_age_days);
	limit_format(out, "WARN_AGE_DAYS", p->warn_age_days);
	limit_format(out, "MAX_DISTANCE", p->max_distance);
	strbuf_addf(out, "CROSS_SERIES=%s\n", p->cross_series ? "yes" : "no");
	strbuf_addf(out, "MIN_APPLIED=%u\n", p->min_applied);
}

/* --- releases --------------------------------------------------------------- */

/* A decimal run at *@s (at most 9 digits) into @v; @s moves past it. */
static bool number(const char **s, uint64_t *v)
{
	const char *p = *s;

	if (!isdigit((unsigned char)*p))
		return false;
	*v = 0;
	while (isdigit((unsigned char)*p)) {
		if (p - *s >= 9)
			return false;
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	}
	*s = p;
	return true;
}

bool kpgo_release_level(const char *release, uint64_t *level, bool *abi)
{
	const char *p = release;
	uint64_t major, minor, sub, n;

	if (!number(&p, &major) || *p++ != '.' || !number(&p, &minor) || *p++ != '.' ||
	    !number(&p, &sub))
		return false;
	*abi = false;
	*level = sub;
	if (sub == 0 && *p == '-') {
		const char *q = p + 1;

		/* Debian's 6.1.0-57-cloud-amd64: the ABI number counts */
		if (number(&q, &n) && (*q == '\0' || *q == '-')) {
			*abi = true;
			*level = n;
		}
	}
	return true;
}

int kpgo_release_distance(const char *older, const char *newer, uint64_t *d)
{
	char so[64], sn[64];
	uint64_t lo, ln;
	bool ao, an;

	if (!kpgo_release_level(older, &lo, &ao) || !kpgo_release_level(newer, &ln, &an) ||
	    !kpgo_release_series(older, so, sizeof(so)) ||
	    !kpgo_release_series(newer, sn, sizeof(sn)))
		return -EINVAL;
	if (strcmp(so, sn) || ao != an || lo > ln)
		return -ERANGE;
	*d = ln - lo;
	return 0;
}

/*
 * The share of its functions a profile applied on a newer release of its
 * series, by upstream stable releases apart: `make bench-decay`, small
 * config, 6.1.170-3, 6.1.187-1, 6.1.190-1 and 6.1.192-3's own profiles
 * on 6.1.192-3 (2026-12-06; docs/BENCHMARKS.md).
 */
static const struct {
	unsigned apart, permille;
} decay_measured[] = { { 0, 998 }, { 2, 988 }, { 5, 984 }, { 22, 977 } };

/*
 * And across series: 6.1.192-3's profile on 6.12.118-1~deb12u1, the same
 * benchmark (2026-12-06). One pair: said as the estimate of every crossing.
 */
#define DECAY_ACROSS_SERIES_PERMILLE 698

int kpgo_policy_expected_applied(const char *older, const char *newer, unsigned *permille)
{
	const size_t n = sizeof(decay_measured) / sizeof(decay_measured[0]);
	char so[64], sn[64];
	uint64_t lo, ln, d;
	bool ao, an;
	size_t i;
	int r;

	if (!kpgo_release_level(older, &lo, &ao) || !kpgo_release_level(newer, &ln, &an) ||
	    !kpgo_release_series(older, so, sizeof(so)) ||
	    !kpgo_release_series(newer, sn, sizeof(sn)))
		return -EINVAL;
	if (ao || an)
		return -ERANGE;
	if (strcmp(so, sn)) {
		/* an older series only (dpkg's order of "6.1" and "6.12") */
		if (kpgo_release_cmp(so, sn) >= 0)
			return -ERANGE;
		*permille = DECAY_ACROSS_SERIES_PERMILLE;
		return 0;
	}
	r = kpgo_release_distance(older, newer, &d);
	if (r)
		return r;
	for (i = 1; i < n - 1 && d > decay_measured[i].apart; i++)
		;
	{
		/* the segment [i-1, i], or past the last one the last segment's slope */
		int64_t x0 = decay_measured[i - 1].apart, x1 = decay_measured[i].apart;
		int64_t y0 = decay_measured[i - 1].permille, y1 = decay_measured[i].permille;
		int64_t x = d > 1000000 ? 1000000 : (int64_t)d;
		int64_t y = y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);

		*permille = y < 0 ? 0 : y > 1000 ? 1000 : (unsigned)y;
	}
	return 0;
}

int kpgo_parse_utc(const char *s, int64_t *t)
{
	struct tm tm = { 0 };
	char check[32];
	time_t v;

	if (strlen(s) != 20)
		return -EINVAL;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec) != 6)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	v = timegm(&tm);
	if (v == (time_t)-1)
		return -EINVAL;
	/* a date that does not exist (02-30) comes back as another */
	kpgo_format_time((int64_t)v, check);
	if (strcmp(check, s))
		return -EINVAL;
	*t = (int64_t)v;
	return 0;
}

/* --- the verdict ------------------------------------------------------------ */

enum kpgo_policy_verdict kpgo_store_policy_judge(const struct kpgo_store_policy *p,
						 const struct kpgo_store_entry *e,
						 const char *release, int64_t now, char *why,
						 size_t len)
{
	uint64_t dist = 0, age_days = 0;
	bool age_known = false;
	unsigned expect;
	int64_t end;
	int dr;

	if (!kpgo_parse_utc(e->window_end, &end)) {
		age_known = true;
		age_days = end >= now ? 0 : (uint64_t)(now - end) / 86400;
	}
	dr = kpgo_release_distance(e->release, release, &dist);
	if (p->max_age_days != KPGO_POLICY_NONE) {
		if (!age_known) {
			snprintf(why, len,
				 "its age is unknown (WINDOW_END '%.32s'), limit %" PRIu64 " days",
				 e->window_end, p->max_age_days);
			return KPGO_POLICY_REFUSE;
		}
		if (age_days > p->max_age_days) {
			snprintf(why, len, "%" PRIu64 " days old, limit %" PRIu64 " days", age_days,
				 p->max_age_days);
			return KPGO_POLICY_REFUSE;
		}
	}
	if (p->max_distance != KPGO_POLICY_NONE) {
		if (dr) {
			snprintf(why, len,
				 "release %.64s cannot be measured against %.64s, limit %" PRIu64
				 " releases",
				 e->release, release, p->max_distance);
			return KPGO_POLICY_REFUSE;
		}
		if (dist > p->max_distance) {
			snprintf(why, len, "%" PRIu64 " releases behind %.64s, limit %" PRIu64,
				 dist, release, p->max_distance);
			return KPGO_POLICY_REFUSE;
		}
	}
	if (!kpgo_policy_expected_applied(e->release, release, &expect) &&
	    expect < p->min_applied * 10u) {
		if (dr)
			snprintf(why, len,
				 "expected to apply about %u.%u%% of its functions (another series:"
				 " the measured 6.1 to 6.12 jump), MIN_APPLIED %u%%",
				 expect / 10, expect % 10, p->min_applied);
		else
			snprintf(why, len,
				 "expected to apply about %u.%u%% of its functions (%" PRIu64
				 " releases behind: the measured decay), MIN_APPLIED %u%%",
				 expect / 10, expect % 10, dist, p->min_applied);
		return KPGO_POLICY_REFUSE;
	}
	if (p->warn_age_days != KPGO_POLICY_NONE && age_known && age_days > p->warn_age_days) {
		snprintf(why, len, "%" PRIu64 " days old, past the warning age of %" PRIu64 " days",
			 age_days, p->warn_age_days);
		return KPGO_POLICY_WARN;
	}
	if (age_known && !dr && !kpgo_policy_expected_applied(e->release, release, &expect))
		snprintf(why, len,
			 "%" PRIu64 " days old, %" PRIu64 " releases behind, expected to apply"
			 " about %u.%u%%",
			 age_days, dist, expect / 10, expect % 10);
	else if (age_known && !dr)
		snprintf(why, len, "%" PRIu64 " days old, %" PRIu64 " releases behind", age_days,
			 dist);
	else if (age_known && !kpgo_policy_expected_applied(e->release, release, &expect))
		snprintf(why, len,
			 "%" PRIu64 " days old, another series, expected to apply about %u.%u%%",
			 age_days, expect / 10, expect % 10);
	else if (age_known)
		snprintf(why, len, "%" PRIu64 " days old, another series or release scheme",
			 age_days);
	else
		snprintf(why, len, "age unknown");
	return KPGO_POLICY_OK;
}
