// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the .gcda reader: whatever it accepts must write
 * back and read back identically, with and without a summary, and survive
 * scaling and merging; whatever it refuses must leave an empty result and
 * a message with an offset.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcda.h"
#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Round trips of the biggest all-zero files cost seconds; parsing is checked. */
#define ROUND_TRIP_MAX_COUNTERS (1u << 20)

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void check_same(const struct kpgo_gcda *a, const struct kpgo_gcda *b)
{
	size_t i;

	check(a->version == b->version && a->stamp == b->stamp && a->checksum == b->checksum);
	check(a->n_fns == b->n_fns && a->n_ctrs == b->n_ctrs);
	for (i = 0; i < a->n_fns; i++)
		check(a->fns[i].ident == b->fns[i].ident &&
		      a->fns[i].lineno_checksum == b->fns[i].lineno_checksum &&
		      a->fns[i].cfg_checksum == b->fns[i].cfg_checksum &&
		      a->fns[i].n_arcs == b->fns[i].n_arcs && a->fns[i].arcs == b->fns[i].arcs);
	check(!a->n_ctrs || !memcmp(a->ctrs, b->ctrs, a->n_ctrs * sizeof(*a->ctrs)));
}

static void check_empty(const struct kpgo_gcda *g)
{
	check(!g->fns && !g->ctrs && !g->n_fns && !g->n_ctrs && !g->version);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct kpgo_gcda g, g2, acc;
	struct kpgo_gcc_version v;
	struct kpgo_error err;
	size_t i, next = 0;
	int r;

	err.msg[0] = '\0';
	r = kpgo_gcda_parse(data, size, &g, &err);
	if (r) {
		check(r == -EINVAL || r == -EPROTONOSUPPORT || r == -ENOMEM);
		check(err.msg[0] != '\0' && strlen(err.msg) < sizeof(err.msg));
		check_empty(&g);
		return 0;
	}

	/* The arrays describe each other: functions' counters are consecutive. */
	check(kpgo_gcc_version_decode(g.version, &v) == 0);
	for (i = 0; i < g.n_fns; i++) {
		check(g.fns[i].arcs == next);
		next += g.fns[i].n_arcs;
	}
	check(next == g.n_ctrs && g.n_ctrs <= KPGO_GCDA_MAX_COUNTERS);
	check(g.sum_max <= UINT32_MAX);
	if (g.n_ctrs > ROUND_TRIP_MAX_COUNTERS)
		goto out;

	/* Kernel layout: the same data, no summary; writing is idempotent. */
	check(kpgo_gcda_write(&g, 0, &out) == 0);
	check(kpgo_gcda_parse(out.buf, out.len, &g2, &err) == 0);
	check_same(&g, &g2);
	check(!g2.has_summary);
	check(kpgo_gcda_write(&g2, 0, &again) == 0);
	check(again.len == out.len && !memcmp(again.buf, out.buf, out.len));
	kpgo_gcda_release(&g2);

	/* With a summary where the version has one. */
	strbuf_reset(&out);
	r = kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out);
	if (v.major < 9) {
		check(r == -EPROTONOSUPPORT);
	} else {
		check(r == 0);
		check(kpgo_gcda_parse(out.buf, out.len, &g2, &err) == 0);
		check_same(&g, &g2);
		check(g2.has_summary && g2.runs == g.runs && g2.sum_max == g.sum_max);
		kpgo_gcda_release(&g2);
	}

	/* Scaling keeps "executed" and never grows a count. */
	check(kpgo_gcda_copy(&g2, &g) == 0);
	kpgo_gcda_scale(&g2, 3);
	for (i = 0; i < g.n_ctrs; i++)
		check((g.ctrs[i] == 0) == (g2.ctrs[i] == 0) && g2.ctrs[i] <= g.ctrs[i]);
	kpgo_gcda_release(&g2);

	/* Merging with itself doubles every counter (saturating). */
	kpgo_gcda_init(&acc);
	check(kpgo_gcda_merge(&acc, &g, 1) == 0);
	check(kpgo_gcda_merge(&acc, &g, 1) == 0);
	check(acc.n_ctrs == g.n_ctrs && acc.n_fns == g.n_fns);
	for (i = 0; i < g.n_ctrs; i++)
		check(acc.ctrs[i] == kpgo_sat_add(g.ctrs[i], g.ctrs[i]));
	kpgo_gcda_release(&acc);
out:
	kpgo_gcda_release(&g);
	strbuf_release(&out);
	strbuf_release(&again);
	return 0;
}
