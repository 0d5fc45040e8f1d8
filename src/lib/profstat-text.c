// SPDX-License-Identifier: GPL-2.0-or-later
/* The text of `kpgo info`: a profile's statistics for a terminal. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "profstat.h"

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0.0;
}

static int format_names(const struct kpgo_pstat *ps, struct strbuf *out)
{
	const struct kpgo_pstat_names *n = &ps->names;
	int r = 0;

	r |= strbuf_addf(out, "names: .gcno of %zu of %zu objects read", n->objects_gcno,
			 ps->n_objs);
	if (n->objects_other_build)
		r |= strbuf_addf(out, " (%zu of another compilation: matched by checksums)",
				 n->objects_other_build);
	r |= strbuf_addf(out,
			 "; %zu of %zu functions named (%zu exact, %zu changed since), %zu not; "
			 "the named hold %.1f%% of the counts\n",
			 n->fns_exact + n->fns_changed, ps->n_fns, n->fns_exact, n->fns_changed,
			 n->fns_none, 100.0 * kpgo_pstat_share(ps, n->count_named));
	return r;
}

int kpgo_pstat_format(const struct kpgo_pstat *ps, const char *file, size_t top, struct strbuf *out)
{
	struct strbuf label = STRBUF_INIT;
	size_t *idx = NULL;
	ssize_t n, i;
	int r = 0;

	r |= strbuf_addf(out, "file: %s\n\nmanifest:\n", file);
	for (i = 0; i < (ssize_t)ps->manifest.n; i++)
		r |= strbuf_addf(out, "  %s=%s\n", ps->manifest.e[i].key, ps->manifest.e[i].value);
	r |= strbuf_addf(out,
			 "\ntotals: %zu objects, %zu functions, %" PRIu64 " counters, sum %" PRIu64
			 ", largest %" PRIu64 "\n",
			 ps->n_objs, ps->n_fns, ps->counters, ps->sum, ps->max);
	r |= strbuf_addf(out,
			 "coverage: %zu of %zu objects (%.1f%%) and %zu of %zu functions (%.1f%%) have counts\n",
			 ps->objs_run, ps->n_objs, pct((double)ps->objs_run, (double)ps->n_objs),
			 ps->fns_run, ps->n_fns, pct((double)ps->fns_run, (double)ps->n_fns));
	if (ps->named)
		r |= format_names(ps, out);
	if (r)
		return -ENOMEM;

	n = kpgo_pstat_hottest_groups(ps, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out,
			 "\nhottest subsystems (objects by their first %u directory levels):\n"
			 "   share                count    objects run  functions run  directory\n",
			 ps->depth);
	for (i = 0; i < n; i++) {
		const struct kpgo_pstat_group *g = &ps->groups[idx[i]];

		r |= strbuf_addf(out, "  %5.1f%%  %19" PRIu64 "  %6zu/%-6zu  %6zu/%-6zu  %s\n",
				 100.0 * kpgo_pstat_share(ps, g->count), g->count, g->n_objs_run,
				 g->n_objs, g->n_fns_run, g->n_fns, g->dir);
	}
	free(idx);

	n = kpgo_pstat_hottest_objs(ps, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addstr(out, "\nhottest objects:\n   share                count  object\n");
	for (i = 0; i < n; i++) {
		const struct kpgo_pstat_obj *o = &ps->objs[idx[i]];

		r |= strbuf_addf(out, "  %5.1f%%  %19" PRIu64 "  %s\n",
				 100.0 * kpgo_pstat_share(ps, o->count), o->count, o->path);
	}
	free(idx);

	n = kpgo_pstat_hottest_fns(ps, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addstr(out, "\nhottest functions (sum of arc counts):\n"
				"   share                count  function\n");
	for (i = 0; i < n; i++) {
		const struct kpgo_pstat_fn *f = &ps->fns[idx[i]];

		strbuf_reset(&label);
		r |= kpgo_pstat_fn_label(ps, f, &label);
		r |= strbuf_addf(out, "  %5.1f%%  %19" PRIu64 "  %s%s\n",
				 100.0 * kpgo_pstat_share(ps, f->count), f->count, label.buf,
				 f->state == KPGO_NAME_CHANGED ? " (changed)" : "");
	}
	free(idx);
	strbuf_release(&label);
	return r ? -ENOMEM : 0;
}
