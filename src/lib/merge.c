// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "merge.h"
#include "profile-archive.h"
#include "profile-writer.h"

static int append_fn(struct kpgo_gcda *acc, const struct kpgo_gcda *src,
		     const struct kpgo_gcda_fn *f, uint64_t w)
{
	struct kpgo_gcda_fn *nf;
	uint64_t *nc;
	uint32_t i;

	if (acc->n_ctrs + f->n_arcs > KPGO_GCDA_MAX_COUNTERS)
		return -E2BIG;
	nf = realloc(acc->fns, (acc->n_fns + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	acc->fns = nf;
	nc = realloc(acc->ctrs, (acc->n_ctrs + f->n_arcs + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	acc->ctrs = nc;
	nf[acc->n_fns] = *f;
	nf[acc->n_fns].arcs = acc->n_ctrs;
	for (i = 0; i < f->n_arcs; i++)
		nc[acc->n_ctrs + i] = kpgo_sat_mul(src->ctrs[f->arcs + i], w);
	acc->n_fns++;
	acc->n_ctrs += f->n_arcs;
	return 0;
}

long kpgo_gcda_merge(struct kpgo_gcda *acc, const struct kpgo_gcda *src, uint64_t w)
{
	long dropped = 0;
	size_t i;
	uint32_t j;
	int r;

	if (!acc->version) {
		r = kpgo_gcda_copy(acc, src);
		if (r)
			return r;
		acc->has_summary = false;
		if (w != 1)
			for (i = 0; i < acc->n_ctrs; i++)
				acc->ctrs[i] = kpgo_sat_mul(acc->ctrs[i], w);
		return 0;
	}
	for (i = 0; i < src->n_fns; i++) {
		const struct kpgo_gcda_fn *s = &src->fns[i];
		const struct kpgo_gcda_fn *a = kpgo_gcda_find(acc, s->ident, i);

		if (!a) {
			r = append_fn(acc, src, s, w);
			if (r)
				return r;
			continue;
		}
		if (a->lineno_checksum != s->lineno_checksum || a->cfg_checksum != s->cfg_checksum ||
		    a->n_arcs != s->n_arcs) {
			dropped++;
			continue;
		}
		for (j = 0; j < s->n_arcs; j++)
			acc->ctrs[a->arcs + j] = kpgo_sat_add(acc->ctrs[a->arcs + j],
							      kpgo_sat_mul(src->ctrs[s->arcs + j], w));
	}
	return dropped;
}

struct input {
	const char *name;
	struct kpgo_archive *a;
	const char *path; /* current object, NULL when done */
	struct kpgo_gcda *g;
	uint64_t w;
};

static int advance(struct input *in, struct kpgo_error *err)
{
	int r = kpgo_archive_next(in->a, &in->path, &in->g, err);

	if (r < 0) {
		kpgo_error_prefix(err, "cannot read '%s'", in->name);
		return r;
	}
	if (r == 0)
		in->path = NULL;
	return 0;
}

static const char *mget(const struct input *in, const char *key)
{
	const char *v = kpgo_manifest_get(kpgo_archive_manifest(in->a), key);

	return v ? v : "";
}

/* Same kernel build: the build ids agree, or without them the releases. */
static bool same_build(const struct input *a, const struct input *b)
{
	const char *ia = mget(a, MF_BUILD_ID), *ib = mget(b, MF_BUILD_ID);

	if (*ia && *ib)
		return !strcmp(ia, ib);
	return !strcmp(mget(a, MF_RELEASE), mget(b, MF_RELEASE)) &&
	       !strcmp(mget(a, MF_BUILD_ROOT), mget(b, MF_BUILD_ROOT));
}

static int check_inputs(struct input *in, size_t n, bool allow, struct kpgo_error *err)
{
	size_t i;

	for (i = 1; i < n && !allow; i++) {
		if (strcmp(mget(&in[0], MF_GCOV_VERSION), mget(&in[i], MF_GCOV_VERSION)))
			return kpgo_error_set(err, -EINVAL,
					      "'%s' is from gcov version '%s', '%s' from '%s' (--allow-mismatch merges them anyway)",
					      in[i].name, mget(&in[i], MF_GCOV_VERSION), in[0].name,
					      mget(&in[0], MF_GCOV_VERSION));
		if (!same_build(&in[0], &in[i]))
			return kpgo_error_set(err, -EINVAL,
					      "'%s' and '%s' are from different kernel builds ('%s' vs '%s'; --allow-mismatch merges them anyway)",
					      in[0].name, in[i].name, mget(&in[0], MF_RELEASE),
					      mget(&in[i], MF_RELEASE));
	}
	return 0;
}

/* The result's manifest: the first input's identity, summed statistics. */
static int merge_manifest(struct input *in, size_t n, const struct kpgo_merge_stats *st,
			  struct kpgo_manifest *m, struct kpgo_error *err)
{
	static const char *const identity[] = {
		MF_RELEASE, MF_BUILD_ID, MF_ARCH, MF_GCOV_VERSION, MF_COMPILER, MF_BUILD_ROOT,
	};
	const char *wstart = NULL, *wend = NULL, *workload = NULL;
	uint64_t runs = 0, sum_max = 0, merged = 0, v;
	bool mixed = false;
	size_t i;

	kpgo_manifest_set_u64(m, MF_FORMAT, KPGO_FORMAT_VERSION);
	for (i = 0; i < sizeof(identity) / sizeof(identity[0]); i++)
		if (kpgo_manifest_get(kpgo_archive_manifest(in[0].a), identity[i]))
			kpgo_manifest_set(m, identity[i], mget(&in[0], identity[i]));
	for (i = 0; i < n; i++) {
		const char *s = mget(&in[i], MF_WINDOW_START), *e = mget(&in[i], MF_WINDOW_END);
		const char *wl = mget(&in[i], MF_WORKLOAD);

		if (*s && (!wstart || strcmp(s, wstart) < 0))
			wstart = s;
		if (*e && (!wend || strcmp(e, wend) > 0))
			wend = e;
		if (!workload)
			workload = wl;
		else if (strcmp(workload, wl))
			mixed = true;
		if (kpgo_manifest_get_u64(kpgo_archive_manifest(in[i].a), MF_RUNS, &v))
			v = 1;
		runs = kpgo_sat_add(runs, kpgo_sat_mul(v, in[i].w));
		if (kpgo_manifest_get_u64(kpgo_archive_manifest(in[i].a), MF_SUM_MAX, &v))
			v = 0;
		sum_max = kpgo_sat_add(sum_max, kpgo_sat_mul(v, in[i].w));
		if (kpgo_manifest_get_u64(kpgo_archive_manifest(in[i].a), MF_MERGED, &v))
			v = 1;
		merged = kpgo_sat_add(merged, v);
	}
	if (runs == 0)
		return kpgo_error_set(err, -EINVAL, "all weights are zero");
	if (kpgo_manifest_set(m, MF_WORKLOAD, mixed ? "mixed" : workload) ||
	    (wstart && kpgo_manifest_set(m, MF_WINDOW_START, wstart)) ||
	    (wend && kpgo_manifest_set(m, MF_WINDOW_END, wend)) ||
	    kpgo_manifest_set_u64(m, MF_RUNS, runs) ||
	    kpgo_manifest_set_u64(m, MF_SUM_MAX, sum_max) ||
	    kpgo_manifest_set_u64(m, MF_MERGED, merged) ||
	    kpgo_manifest_set_u64(m, MF_MISMATCHED, st->mismatched_functions))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

int kpgo_merge_files(const char *const *inputs, size_t n, const struct kpgo_merge_opts *o,
		     const char *out, struct kpgo_merge_stats *st, struct kpgo_error *err)
{
	struct kpgo_profile_writer *w = NULL;
	struct strbuf path = STRBUF_INIT;
	struct kpgo_manifest m;
	struct kpgo_gcda acc;
	struct input *in;
	size_t i;
	int r = 0;

	memset(st, 0, sizeof(*st));
	kpgo_manifest_init(&m);
	kpgo_gcda_init(&acc);
	if (n == 0)
		return kpgo_error_set(err, -EINVAL, "nothing to merge");
	in = calloc(n, sizeof(*in));
	if (!in)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n && !r; i++) {
		in[i].name = inputs[i];
		in[i].w = o->weights ? o->weights[i] : 1;
		r = kpgo_archive_open(&in[i].a, inputs[i], err);
		if (r)
			kpgo_error_prefix(err, "cannot read '%s'", inputs[i]);
		else
			r = advance(&in[i], err);
	}
	if (!r)
		r = check_inputs(in, n, o->allow_mismatch, err);
	if (!r)
		r = kpgo_profile_writer_open(&w, out, err);
	/* Each merged object goes to the writer's spool as soon as it is complete. */
	while (!r) {
		const char *min = NULL;

		for (i = 0; i < n; i++)
			if (in[i].path && (!min || strcmp(in[i].path, min) < 0))
				min = in[i].path;
		if (!min)
			break;
		strbuf_reset(&path);
		if (strbuf_addstr(&path, min)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		for (i = 0; i < n && !r; i++) {
			long d;

			if (!in[i].path || strcmp(in[i].path, path.buf))
				continue;
			if (acc.version && acc.version != in[i].g->version && !o->allow_mismatch) {
				r = kpgo_error_set(err, -EINVAL, "'%s' in '%s' has another gcov version",
						   path.buf, in[i].name);
				break;
			}
			d = kpgo_gcda_merge(&acc, in[i].g, in[i].w);
			if (d < 0) {
				r = kpgo_error_set(err, (int)d, "cannot merge '%s' from '%s': %s",
						   path.buf, in[i].name, strerror((int)-d));
				break;
			}
			if (d > 0 && !o->allow_mismatch) {
				r = kpgo_error_set(err, -EINVAL,
						   "'%s': %ld functions in '%s' do not match the same functions in '%s' (checksums differ; --allow-mismatch leaves them out)",
						   path.buf, d, in[i].name, in[0].name);
				break;
			}
			st->mismatched_functions += (uint64_t)d;
			r = advance(&in[i], err);
		}
		if (!r)
			r = kpgo_profile_writer_add(w, path.buf, &acc, err);
		kpgo_gcda_release(&acc);
		st->objects++;
	}
	if (!r)
		r = merge_manifest(in, n, st, &m, err);
	for (i = 0; i < n; i++)
		kpgo_archive_close(in[i].a);
	free(in);
	if (!r)
		r = kpgo_profile_writer_commit(w, &m, err);
	kpgo_profile_writer_free(w);
	kpgo_manifest_release(&m);
	strbuf_release(&path);
	return r;
}
