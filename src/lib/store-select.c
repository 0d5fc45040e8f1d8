// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Choosing from the store's index: kernel releases in dpkg's order, their
 * series, lookup by sha prefix and select's ranking.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store-internal.h"
#include "store-policy.h"

/* --- releases ---------------------------------------------------------- */

/* dpkg's order of a character in a non-digit run: '~' first, letters, then the rest. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

int kpgo_release_cmp(const char *sa, const char *sb)
{
	const unsigned char *a = (const unsigned char *)sa, *b = (const unsigned char *)sb;

	/* dpkg's verrevcmp(): alternating non-digit and digit runs. */
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit(*a)) || (*b && !isdigit(*b))) {
			int ac = order(*a), bc = order(*b);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit(*a) && isdigit(*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit(*a))
			return 1;
		if (isdigit(*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

bool kpgo_release_series(const char *release, char *out, size_t len)
{
	const char *p = release;
	size_t n;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	n = (size_t)(p - release);
	if (n >= len)
		return false;
	memcpy(out, release, n);
	out[n] = '\0';
	return true;
}

/* --- lookup and select ---------------------------------------------------- */

int kpgo_store_lookup(const struct kpgo_store_index *idx, const char *prefix,
		      const struct kpgo_store_entry **e, struct kpgo_error *err)
{
	size_t i, len = strlen(prefix), hits = 0;

	*e = NULL;
	for (i = 0; i < len; i++)
		if (!kpgo_store_hex_lower(prefix[i]))
			len = 0;
	if (len == 0 || len > KPGO_SHA256_HEX - 1)
		return kpgo_error_set(err, -EINVAL, "'%s' is not a sha256 or a prefix of one",
				      prefix);
	for (i = 0; i < idx->n; i++) {
		if (!strncmp(idx->e[i].sha, prefix, len)) {
			hits++;
			*e = &idx->e[i];
		}
	}
	if (hits == 1)
		return 0;
	*e = NULL;
	if (hits == 0)
		return kpgo_error_set(err, -ENOENT, "no profile '%s' in the store", prefix);
	return kpgo_error_set(err, -EEXIST, "'%s' is ambiguous: %zu profiles start with it", prefix,
			      hits);
}

static bool same_series(const char *release, const char *series)
{
	char s[64];

	return kpgo_release_series(release, s, sizeof(s)) && !strcmp(s, series);
}

/* Is @a (of rank @ra) better than @b (of rank @rb)? */
static bool better(const struct kpgo_store_entry *a, int ra, const struct kpgo_store_entry *b,
		   int rb)
{
	int r;

	if (ra != rb)
		return ra < rb;
	if (ra == KPGO_RANK_OLDER || ra == KPGO_RANK_OTHER_SERIES) {
		r = kpgo_release_cmp(a->release, b->release);
		if (r)
			return r > 0;
	}
	/* What the store counted, never what the uploader wrote (RUNS). */
	if (a->merged != b->merged)
		return a->merged > b->merged;
	r = strcmp(a->added, b->added);
	if (r)
		return r > 0;
	return strcmp(a->sha, b->sha) < 0;
}

/* One line of --explain for @e. */
static void explain2(const struct kpgo_store_query *q, const struct kpgo_store_entry *e, int rank,
		     const char *what, const char *why)
{
	struct strbuf sb = STRBUF_INIT;

	if (!q->explain)
		return;
	strbuf_addf(&sb, "%.12s release %s window end %s: ", e->sha, e->release,
		    *e->window_end ? e->window_end : "unknown");
	if (rank)
		strbuf_addf(&sb, "rank %d, ", rank);
	strbuf_addstr(&sb, what);
	if (why)
		strbuf_addf(&sb, " (%s)", why);
	kpgo_strlist_add(q->explain, sb.buf);
	strbuf_release(&sb);
}

static void explain(const struct kpgo_store_query *q, const struct kpgo_store_entry *e,
		    const char *what)
{
	explain2(q, e, 0, what, NULL);
}

int kpgo_store_select(const struct kpgo_store_index *idx, const struct kpgo_store_query *q,
		      struct kpgo_store_choice *c, struct kpgo_error *err)
{
	char series[64], refusal[512] = "";
	size_t i, n_rank[5] = { 0 }, newer = 0, wrong_gcov = 0, wrong_arch = 0, refused = 0;
	bool has_series = kpgo_release_series(q->release, series, sizeof(series));
	bool cross = q->policy && q->policy->cross_series;
	const struct kpgo_store_entry *best_refused = NULL;
	int best_refused_rank = 0;
	struct strbuf sb = STRBUF_INIT;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < idx->n; i++) {
		const struct kpgo_store_entry *e = &idx->e[i];
		int rank, cmp = kpgo_release_cmp(e->release, q->release);

		if (q->build_id && *q->build_id && !strcmp(e->build_id, q->build_id))
			rank = KPGO_RANK_BUILD_ID;
		else if (cmp == 0)
			rank = KPGO_RANK_RELEASE;
		else if (has_series && cmp < 0 && same_series(e->release, series))
			rank = KPGO_RANK_OLDER;
		else if (cross && has_series && cmp < 0)
			rank = KPGO_RANK_OTHER_SERIES;
		else {
			if (has_series && cmp > 0 && same_series(e->release, series))
				newer++;
			explain(q, e, "left out: a newer release or another series");
			continue;
		}
		if (q->gcov_version && strcmp(e->gcov_version, q->gcov_version)) {
			wrong_gcov++;
			explain(q, e, "left out: another gcov version");
			continue;
		}
		if (q->arch && strcmp(e->arch, q->arch)) {
			wrong_arch++;
			explain(q, e, "left out: another arch");
			continue;
		}
		if (q->policy) {
			char why[256];
			int v = kpgo_store_policy_judge(q->policy, e, q->release, q->now, why,
							sizeof(why));

			if (v == KPGO_POLICY_REFUSE && !q->override) {
				refused++;
				explain2(q, e, rank, "refused by the policy", why);
				if (!best_refused ||
				    better(e, rank, best_refused, best_refused_rank)) {
					best_refused = e;
					best_refused_rank = rank;
					snprintf(refusal, sizeof(refusal),
						 "%.12s (release %.64s) is %s", e->sha, e->release,
						 why);
				}
				continue;
			}
			explain2(q, e, rank,
				 v == KPGO_POLICY_OK   ? "fits" :
				 v == KPGO_POLICY_WARN ? "fits, with a warning" :
							 "refused by the policy, overridden",
				 why);
		} else {
			explain2(q, e, rank, "fits", NULL);
		}
		n_rank[rank]++;
		if (!c->e || better(e, rank, c->e, (int)c->rank)) {
			c->e = e;
			c->rank = (enum kpgo_store_rank)rank;
		}
	}
	if (c->e) {
		const struct kpgo_store_entry *e = c->e;

		c->candidates = n_rank[c->rank];
		if (c->rank == KPGO_RANK_BUILD_ID)
			strbuf_addf(&sb, "same build id %s (release %s)", e->build_id, e->release);
		else if (c->rank == KPGO_RANK_RELEASE)
			strbuf_addf(&sb, "same release %s", e->release);
		else if (c->rank == KPGO_RANK_OLDER)
			strbuf_addf(&sb, "nearest older release %s of series %s (none for %s)",
				    e->release, series, q->release);
		else
			strbuf_addf(&sb,
				    "newest release %s of an older series (none of series %s;"
				    " the policy allows crossing)",
				    e->release, series);
		if (c->candidates > 1)
			strbuf_addf(&sb, "; best of %zu by merged profiles, then time added",
				    c->candidates);
		strbuf_addf(&sb, ": MERGED_PROFILES=%llu added %s", (unsigned long long)e->merged,
			    *e->added ? e->added : "unknown");
		snprintf(c->why, sizeof(c->why), "%s", sb.buf);
		strbuf_release(&sb);
		if (q->policy) {
			c->verdict = kpgo_store_policy_judge(q->policy, e, q->release, q->now,
							     c->policy_why, sizeof(c->policy_why));
			c->overridden = c->verdict == KPGO_POLICY_REFUSE;
		}
		return 0;
	}
	if (q->build_id && *q->build_id)
		strbuf_addf(&sb, "with build id %s, ", q->build_id);
	strbuf_addf(&sb, "for %s", q->release);
	if (has_series)
		strbuf_addf(&sb, " or series %s older than %s", series, q->release);
	if (q->gcov_version)
		strbuf_addf(&sb, " with gcov version '%s'", q->gcov_version);
	if (q->arch)
		strbuf_addf(&sb, " for arch %s", q->arch);
	if (newer || wrong_gcov || wrong_arch)
		strbuf_addf(&sb,
			    " (left out: %zu of a newer release, %zu with another gcov version,"
			    " %zu for another arch)",
			    newer, wrong_gcov, wrong_arch);
	if (refused)
		strbuf_addf(&sb, "; the store's policy refused %zu, the best of them: %s", refused,
			    refusal);
	kpgo_error_set(err, -ENOENT, "no profile %s", sb.buf);
	strbuf_release(&sb);
	return -ENOENT;
}

int kpgo_store_select_verified(struct kpgo_store *s, struct kpgo_store_index *idx,
			       const struct kpgo_store_query *q, struct kpgo_store_choice *c,
			       struct kpgo_error *err)
{
	struct kpgo_store_entry e;
	struct kpgo_error why;
	size_t skipped = 0, i;
	int r;

	for (;;) {
		/* --explain describes the last choice only. */
		if (q->explain)
			kpgo_strlist_clear(q->explain);
		r = kpgo_store_select(idx, q, c, err);
		if (r)
			break;
		i = (size_t)(c->e - idx->e);
		r = kpgo_store_object_check(s, idx->e[i].sha, &e, &why);
		if (r == -ENOMEM)
			return kpgo_error_set(err, r, "out of memory");
		if (r) {
			/* Missing or corrupt: never handed to a build. */
			skipped++;
			kpgo_store_entry_release(&idx->e[i]);
			memmove(&idx->e[i], &idx->e[i + 1], (idx->n - i - 1) * sizeof(*idx->e));
			idx->n--;
			continue;
		}
		if (kpgo_store_entry_same(&idx->e[i], &e) && !strcmp(idx->e[i].added, e.added)) {
			kpgo_store_entry_release(&e);
			break;
		}
		/* The index line lied (edited by hand): choose again by the object's own. */
		kpgo_store_entry_release(&idx->e[i]);
		idx->e[i] = e;
	}
	c->skipped = skipped;
	return r;
}
