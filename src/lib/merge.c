// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "merge.h"
#include "profile-archive.h"
#include "profile-writer.h"
#include "records.h"
#include "util.h"

static int append_fn(struct kpgo_gcda *acc, const struct kpgo_gcda *src,
		     const struct kpgo_gcda_fn *f, uint64_t w)
{
	uint32_t i;

	if (acc->n_ctrs + f->n_arcs > KPGO_GCDA_MAX_COUNTERS)
		return -E2BIG;
	if (KPGO_ALLOC_GROW(acc->fns, acc->n_fns + 1, acc->fns_alloc) ||
	    KPGO_ALLOC_GROW(acc->ctrs, acc->n_ctrs + f->n_arcs + 1, acc->ctrs_alloc))
		return -ENOMEM;
	acc->fns[acc->n_fns] = *f;
	acc->fns[acc->n_fns].arcs = acc->n_ctrs;
	for (i = 0; i < f->n_arcs; i++)
		acc->ctrs[acc->n_ctrs + i] = kpgo_sat_mul(src->ctrs[f->arcs + i], w);
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
		if (a->lineno_checksum != s->lineno_checksum ||
		    a->cfg_checksum != s->cfg_checksum || a->n_arcs != s->n_arcs) {
			dropped++;
			continue;
		}
		for (j = 0; j < s->n_arcs; j++)
			acc->ctrs[a->arcs + j] = kpgo_sat_add(acc->ctrs[a->arcs + j],
							      kpgo_sat_mul(src->ctrs[s->arcs + j],
									   w));
	}
	return dropped;
}

struct input {
	const char *name;
	uint64_t w;
	uint64_t num, den;	       /* counters scaled by num / den (the cap), before w */
	struct kpgo_manifest manifest; /* as first read */
	struct kpgo_archive *a;	       /* while its round runs */
	const char *path;	       /* its next object, NULL when done */
};

/* @v * @in's cap ratio, rounded down (num <= den: no overflow). */
static uint64_t capped(const struct input *in, uint64_t v)
{
	if (in->num == in->den)
		return v;
	return (uint64_t)((unsigned __int128)v * in->num / in->den);
}

/* The result so far, carried from one round to the next. */
struct carry {
	struct kpgo_records *spool;
	const char *path; /* its next object, NULL when done */
	const void *data;
	size_t len;
};

static int peek(struct input *in, struct kpgo_error *err)
{
	int r = kpgo_archive_peek(in->a, &in->path, err);

	if (r < 0) {
		kpgo_error_prefix(err, "cannot read '%s'", in->name);
		return r;
	}
	if (r == 0)
		in->path = NULL;
	return 0;
}

static bool same_manifest(const struct kpgo_manifest *a, const struct kpgo_manifest *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->e[i].key, b->e[i].key) || strcmp(a->e[i].value, b->e[i].value))
			return false;
	return true;
}

/* Opens @in, the first time keeping its manifest, later checking it is the same. */
static int open_input(struct input *in, struct strbuf *buf, struct kpgo_error *err)
{
	const struct kpgo_manifest *m;
	int r;

	r = kpgo_archive_open(&in->a, in->name, err);
	if (r) {
		kpgo_error_prefix(err, "cannot read '%s'", in->name);
		return r;
	}
	m = kpgo_archive_manifest(in->a);
	if (!in->manifest.n) {
		if (kpgo_manifest_copy(&in->manifest, m))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
	} else if (!same_manifest(&in->manifest, m)) {
		return kpgo_error_set(err, -EBUSY, "'%s' changed while it was being merged",
				      in->name);
	}
	kpgo_archive_share_buffer(in->a, buf);
	return 0;
}

static void close_input(struct input *in)
{
	kpgo_archive_close(in->a);
	in->a = NULL;
	in->path = NULL;
}

static const char *mget(const struct input *in, const char *key)
{
	const char *v = kpgo_manifest_get(&in->manifest, key);

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

/* HOSTS and HOSTS_TOTAL of the result (kpgo_hosts_add()). */
static int merge_hosts(struct input *in, size_t n, struct kpgo_manifest *m)
{
	struct kpgo_hosts h = { 0 };
	size_t i;
	int r = 0;

	for (i = 0; i < n && !r; i++)
		r = kpgo_hosts_add(&h, &in[i].manifest);
	if (r) {
		kpgo_hosts_release(&h);
		return r;
	}
	return kpgo_hosts_set(&h, m);
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
		if (kpgo_manifest_get(&in[0].manifest, identity[i]))
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
		if (kpgo_manifest_get_u64(&in[i].manifest, MF_RUNS, &v))
			v = 1;
		runs = kpgo_sat_add(runs, kpgo_sat_mul(v, in[i].w));
		if (kpgo_manifest_get_u64(&in[i].manifest, MF_SUM_MAX, &v))
			v = 0;
		sum_max = kpgo_sat_add(sum_max, kpgo_sat_mul(capped(&in[i], v), in[i].w));
		if (kpgo_manifest_get_u64(&in[i].manifest, MF_MERGED, &v))
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
	    kpgo_manifest_set_u64(m, MF_MISMATCHED, st->mismatched_functions) ||
	    merge_hosts(in, n, m))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/*
 * An object of the result so far, as it is in memory: what a round writes
 * is read back only by the next round of the same process, so it need not
 * be parsed and checked again, and merging in rounds costs little more
 * than copying the result from round to round.
 */
struct carry_rec {
	uint32_t version;
	uint32_t stamp;
	uint32_t checksum;
	uint32_t runs;
	uint64_t sum_max;
	uint64_t has_summary;
	uint64_t n_fns;
	uint64_t n_ctrs;
};

static int carry_put(struct kpgo_records *to, const char *path, const struct kpgo_gcda *g,
		     struct strbuf *buf)
{
	struct carry_rec h = {
		.version = g->version,
		.stamp = g->stamp,
		.checksum = g->checksum,
		.runs = g->runs,
		.sum_max = g->sum_max,
		.has_summary = g->has_summary,
		.n_fns = g->n_fns,
		.n_ctrs = g->n_ctrs,
	};

	strbuf_reset(buf);
	if (strbuf_add(buf, &h, sizeof(h)) || strbuf_add(buf, g->fns, g->n_fns * sizeof(*g->fns)) ||
	    strbuf_add(buf, g->ctrs, g->n_ctrs * sizeof(*g->ctrs)))
		return -ENOMEM;
	return kpgo_records_add(to, path, buf->buf, buf->len);
}

static int carry_get(const void *data, size_t len, struct kpgo_gcda *g)
{
	const char *p = data;
	struct carry_rec h;

	kpgo_gcda_init(g);
	if (len < sizeof(h))
		return -EIO;
	memcpy(&h, p, sizeof(h));
	if (h.n_fns > KPGO_GCDA_MAX_COUNTERS || h.n_ctrs > KPGO_GCDA_MAX_COUNTERS ||
	    len != sizeof(h) + h.n_fns * sizeof(*g->fns) + h.n_ctrs * sizeof(*g->ctrs))
		return -EIO;
	g->fns = malloc(h.n_fns ? h.n_fns * sizeof(*g->fns) : 1);
	g->ctrs = malloc(h.n_ctrs ? h.n_ctrs * sizeof(*g->ctrs) : 1);
	if (!g->fns || !g->ctrs) {
		kpgo_gcda_release(g);
		return -ENOMEM;
	}
	p += sizeof(h);
	memcpy(g->fns, p, h.n_fns * sizeof(*g->fns));
	p += h.n_fns * sizeof(*g->fns);
	memcpy(g->ctrs, p, h.n_ctrs * sizeof(*g->ctrs));
	g->version = h.version;
	g->stamp = h.stamp;
	g->checksum = h.checksum;
	g->runs = h.runs;
	g->sum_max = h.sum_max;
	g->has_summary = h.has_summary;
	g->n_fns = h.n_fns;
	g->n_ctrs = h.n_ctrs;
	return 0;
}

static int carry_next(struct carry *c, struct kpgo_error *err)
{
	int r = kpgo_records_next(c->spool, &c->path, &c->data, &c->len);

	if (r < 0)
		return kpgo_error_set(err, r, "cannot read back the merge so far: %s", strerror(-r));
	if (r == 0)
		c->path = NULL;
	return 0;
}

/*
 * One round: inputs @in[0..@n) plus the result of the rounds before
 * (@from, NULL in the first), object by object in name order, into @to (a
 * spool for the next round) or @w (the last round).
 */
static int merge_round(struct input *in, size_t n, const struct input *first,
		       struct kpgo_records *from, struct kpgo_records *to,
		       struct kpgo_profile_writer *w, const struct kpgo_merge_opts *o,
		       struct kpgo_merge_stats *st, struct kpgo_error *err)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	struct carry c = { .spool = from };
	struct kpgo_gcda acc;
	uint32_t want = 0;
	size_t i;
	int r = 0;

	kpgo_gcda_init(&acc);
	/* The result's gcov version is the first input's (its manifest, checked). */
	kpgo_gcc_version_parse(mget(first, MF_GCOV_VERSION), &want);
	if (from) {
		r = kpgo_records_rewind(from);
		if (r)
			r = kpgo_error_set(err, r, "cannot read back the merge so far: %s",
					   strerror(-r));
		else
			r = carry_next(&c, err);
	}
	while (!r) {
		const char *min = c.path;

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
		/* What the inputs of the rounds before made of this object comes first. */
		if (c.path && !strcmp(c.path, path.buf)) {
			r = carry_get(c.data, c.len, &acc);
			if (r)
				r = kpgo_error_set(err, r, "cannot read back the merge so far: %s",
						   strerror(-r));
			else
				r = carry_next(&c, err);
		}
		for (i = 0; i < n && !r; i++) {
			struct kpgo_gcda *g;
			const char *rel;
			long d;

			if (!in[i].path || strcmp(in[i].path, path.buf))
				continue;
			r = kpgo_archive_next(in[i].a, &rel, &g, err);
			if (r < 0) {
				kpgo_error_prefix(err, "cannot read '%s'", in[i].name);
				break;
			}
			r = 0;
			if (g->version != want && !o->allow_mismatch) {
				r = kpgo_error_set(err, -EINVAL,
						   "'%s' in '%s' has another gcov version",
						   path.buf, in[i].name);
				break;
			}
			/*
			 * Counters of another compiler's object mean nothing to
			 * the first's (GCC refuses a profile of another version,
			 * and the checksums of unchanged functions agree across
			 * versions): with --allow-mismatch the whole object is left
			 * out and all its functions are counted as mismatched.
			 */
			if (g->version != want) {
				st->mismatched_functions += g->n_fns;
				r = peek(&in[i], err);
				continue;
			}
			if (in[i].num != in[i].den) {
				size_t j;

				for (j = 0; j < g->n_ctrs; j++)
					g->ctrs[j] = capped(&in[i], g->ctrs[j]);
			}
			d = kpgo_gcda_merge(&acc, g, in[i].w);
			if (d < 0) {
				r = kpgo_error_set(err, (int)d, "cannot merge '%s' from '%s': %s",
						   path.buf, in[i].name, strerror((int)-d));
				break;
			}
			if (d > 0 && !o->allow_mismatch) {
				r = kpgo_error_set(err, -EINVAL,
						   "'%s': %ld functions in '%s' do not match the same functions in '%s' (checksums differ; --allow-mismatch leaves them out)",
						   path.buf, d, in[i].name, first->name);
				break;
			}
			st->mismatched_functions += (uint64_t)d;
			r = peek(&in[i], err);
		}
		if (!r && !acc.version) {
			/* Only other versions' copies of this object: nothing to keep. */
		} else if (!r && w) {
			r = kpgo_profile_writer_add(w, path.buf, &acc, err);
		} else if (!r) {
			r = carry_put(to, path.buf, &acc, &buf);
			if (r)
				r = kpgo_error_set(err, r, "cannot keep the merge so far: %s",
						   strerror(-r));
		}
		if (w && acc.version)
			st->objects++;
		kpgo_gcda_release(&acc);
	}
	strbuf_release(&path);
	strbuf_release(&buf);
	return r;
}

int kpgo_merge_files(const char *const *inputs, size_t n, const struct kpgo_merge_opts *o,
		     const char *out, struct kpgo_merge_stats *st, struct kpgo_error *err)
{
	size_t per_round = o->open_max ? o->open_max : KPGO_MERGE_OPEN_MAX;
	struct kpgo_records *from = NULL, *to = NULL;
	struct kpgo_profile_writer *w = NULL;
	struct strbuf buf = STRBUF_INIT;
	struct kpgo_manifest m;
	struct input *in;
	size_t i, lo;
	int r = 0;

	memset(st, 0, sizeof(*st));
	kpgo_manifest_init(&m);
	if (n == 0)
		return kpgo_error_set(err, -EINVAL, "nothing to merge");
	in = calloc(n, sizeof(*in));
	if (!in)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		in[i].name = inputs[i];
		in[i].w = o->weights ? o->weights[i] : 1;
		in[i].num = in[i].den = 1;
		if (o->sums && o->cap && o->sums[i] > o->cap) {
			in[i].num = o->cap;
			in[i].den = o->sums[i];
		}
		kpgo_manifest_init(&in[i].manifest);
	}
	/*
	 * Every input's manifest first, so that inputs that do not belong
	 * together are refused before any work; those of later rounds are
	 * closed again (reading the first block of those twice).
	 */
	for (i = 0; i < n && !r; i++) {
		r = open_input(&in[i], &buf, err);
		if (!r && i >= per_round)
			close_input(&in[i]);
	}
	if (!r)
		r = check_inputs(in, n, o->allow_mismatch, err);
	if (!r)
		r = kpgo_profile_writer_open(&w, out, err);
	for (lo = 0; lo < n && !r; lo += per_round) {
		size_t k = n - lo < per_round ? n - lo : per_round;
		bool last = lo + k == n;

		for (i = lo; i < lo + k && !r; i++)
			if (!in[i].a)
				r = open_input(&in[i], &buf, err);
		for (i = lo; i < lo + k && !r; i++)
			r = peek(&in[i], err);
		if (!r && !last)
			r = kpgo_records_open(&to, out, err);
		if (!r)
			r = merge_round(in + lo, k, &in[0], from, to, last ? w : NULL, o, st, err);
		for (i = lo; i < lo + k; i++)
			close_input(&in[i]);
		kpgo_records_free(from);
		from = to;
		to = NULL;
	}
	if (!r)
		r = merge_manifest(in, n, st, &m, err);
	for (i = 0; !r && o->set && o->set[i] && o->set[i + 1]; i += 2)
		if (kpgo_manifest_set(&m, o->set[i], o->set[i + 1]))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		close_input(&in[i]);
		kpgo_manifest_release(&in[i].manifest);
	}
	free(in);
	kpgo_records_free(from);
	if (!r)
		r = kpgo_profile_writer_commit(w, &m, err);
	kpgo_profile_writer_free(w);
	kpgo_manifest_release(&m);
	strbuf_release(&buf);
	return r;
}
