// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo diff: how two profiles differ, and how alike they are. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "json-writer.h"
#include "profdiff.h"
#include "profstat.h"

static const char usage_text[] =
	"usage: kpgo diff [options] A.kpgo B.kpgo\n"
	"\n"
	"Compares two profiles of the same kernel: the similarity of the two,\n"
	"the subsystems and functions that gained or lost share from A to B, and\n"
	"the functions that ran in one only. Each profile's counts are taken as\n"
	"shares of its own sum, so profiles of runs of any length compare.\n"
	"\n"
	"Similarity is the overlap of the functions' shares, the sum over all\n"
	"functions of the smaller of the two shares: the part of the work both\n"
	"profiles put on the same functions (1: the same shape, 0: nothing in\n"
	"common). Functions are matched by object and GCC's ident.\n"
	"\n"
	"  -t, --objtree DIR        name the functions from the instrumented build's\n"
	"                           .gcno files (see kpgo info)\n"
	"  -n, --top N              how many of each list (default 10; 0: all)\n"
	"  -d, --depth N            directory levels of a subsystem (default 2)\n"
	"  -m, --min-similarity S   fail (exit 1) when the similarity is below S (0 to 1)\n"
	"      --json               print JSON (format version 1, see kpgo(1))\n"
	"  -h, --help               this text\n"
	"\n"
	"Exit status: 0 compared (and similar enough), 1 failure or below\n"
	"--min-similarity, 2 usage error.\n";

enum { OPT_JSON = 1000 };

/* The side of @f to name it by: A's when A has it. */
static const struct kpgo_pstat_fn *side(const struct kpgo_pdiff_fn *f, const struct kpgo_pstat *a,
					const struct kpgo_pstat *b, const struct kpgo_pstat **ps)
{
	if (f->a && (f->a->name || !f->b || !f->b->name)) {
		*ps = a;
		return f->a;
	}
	*ps = b;
	return f->b;
}

static int describe(const char *tag, const char *file, const struct kpgo_pstat *ps,
		    struct strbuf *out)
{
	const char *wl = kpgo_manifest_get(&ps->manifest, MF_WORKLOAD);
	const char *rel = kpgo_manifest_get(&ps->manifest, MF_RELEASE);
	const char *merged = kpgo_manifest_get(&ps->manifest, MF_MERGED);

	return strbuf_addf(out,
			   "%s: %s (workload %s, kernel %s, collections merged %s, sum %" PRIu64
			   ")\n",
			   tag, file, wl ? wl : "?", rel ? rel : "?", merged ? merged : "?",
			   ps->sum);
}

static int fn_rows(const struct kpgo_pdiff *d, const struct kpgo_pstat *a,
		   const struct kpgo_pstat *b, const size_t *idx, ssize_t n, struct strbuf *out)
{
	struct strbuf label = STRBUF_INIT;
	ssize_t i;
	int r = 0;

	for (i = 0; i < n; i++) {
		const struct kpgo_pdiff_fn *f = &d->fns[idx[i]];
		const struct kpgo_pstat *ps;
		const struct kpgo_pstat_fn *fn = side(f, a, b, &ps);

		strbuf_reset(&label);
		r |= kpgo_pstat_fn_label(ps, fn, &label);
		r |= strbuf_addf(out, "  %7.2f%%  %7.2f%%  %+7.2f  %s%s\n", 100.0 * f->share_a,
				 100.0 * f->share_b, 100.0 * (f->share_b - f->share_a), label.buf,
				 !f->a ? " (only in b)" :
				 !f->b ? " (only in a)" :
					 "");
	}
	strbuf_release(&label);
	return r;
}

static int format_text(const struct kpgo_pdiff *d, const char *fa, const struct kpgo_pstat *a,
		       const char *fb, const struct kpgo_pstat *b, size_t top, struct strbuf *out)
{
	static const char head[] = "         a         b   change  ";
	size_t *idx = NULL;
	ssize_t n, i;
	int r = 0;

	r |= describe("a", fa, a, out);
	r |= describe("b", fb, b, out);
	r |= strbuf_addf(out,
			 "\nsimilarity: %.4f (overlap of the functions' shares: 1 the same shape, 0 nothing in common)\n"
			 "subsystem similarity: %.4f (the same over subsystems)\n"
			 "functions: %zu in both (%zu changed: other checksums), %zu only in a, %zu only in b\n"
			 "functions run: %zu in both, %zu only in a (%.2f%% of a), %zu only in b (%.2f%% of b)\n"
			 "objects: %zu in both, %zu only in a, %zu only in b\n",
			 d->similarity, d->subsystem_similarity, d->fns_both, d->fns_changed,
			 d->fns_only_a, d->fns_only_b, d->run_both, d->run_only_a,
			 100.0 * d->share_run_only_a, d->run_only_b, 100.0 * d->share_run_only_b,
			 d->objs_both, d->objs_only_a, d->objs_only_b);

	n = kpgo_pdiff_group_movers(d, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out,
			 "\nsubsystems by change of share (first %u directory levels; change in points):\n"
			 "%sdirectory\n",
			 a->depth, head);
	for (i = 0; i < n; i++) {
		const struct kpgo_pdiff_group *g = &d->groups[idx[i]];

		r |= strbuf_addf(out, "  %7.2f%%  %7.2f%%  %+7.2f  ", 100.0 * g->share_a,
				 100.0 * g->share_b, 100.0 * (g->share_b - g->share_a));
		r |= kpgo_strbuf_add_printable(out, g->dir);
		r |= strbuf_addch(out, '\n');
	}
	free(idx);

	n = kpgo_pdiff_movers(d, true, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out, "\nfunctions that gained share in b:\n%sfunction\n", head);
	r |= fn_rows(d, a, b, idx, n, out);
	free(idx);
	n = kpgo_pdiff_movers(d, false, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out, "\nfunctions that lost share in b:\n%sfunction\n", head);
	r |= fn_rows(d, a, b, idx, n, out);
	free(idx);
	n = kpgo_pdiff_run_only(d, true, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out, "\nfunctions that ran in a only:\n%sfunction\n", head);
	r |= fn_rows(d, a, b, idx, n, out);
	free(idx);
	n = kpgo_pdiff_run_only(d, false, top, &idx);
	if (n < 0)
		return -ENOMEM;
	r |= strbuf_addf(out, "\nfunctions that ran in b only:\n%sfunction\n", head);
	r |= fn_rows(d, a, b, idx, n, out);
	free(idx);
	return r ? -ENOMEM : 0;
}

static void json_side(struct kpgo_json_writer *w, const char *key, const char *file,
		      const struct kpgo_pstat *ps, const char *objtree)
{
	kpgo_jw_object_begin_inline(w, key);
	kpgo_jw_string(w, "file", file);
	kpgo_jw_string(w, "workload", kpgo_manifest_get(&ps->manifest, MF_WORKLOAD));
	kpgo_jw_string(w, "kernel_release", kpgo_manifest_get(&ps->manifest, MF_RELEASE));
	kpgo_jw_u64(w, "sum_all", ps->sum);
	kpgo_jw_u64(w, "objects", ps->n_objs);
	kpgo_jw_u64(w, "functions", ps->n_fns);
	json_pstat_names(w, ps, objtree);
	kpgo_jw_end(w);
}

/* The list @key of the functions @idx[0..@n) names; frees @idx. */
static void json_fns(struct kpgo_json_writer *w, const char *key, const struct kpgo_pdiff *d,
		     const struct kpgo_pstat *a, const struct kpgo_pstat *b, ssize_t n, size_t *idx)
{
	ssize_t i;

	if (n < 0) {
		if (!w->err)
			w->err = -ENOMEM;
		return;
	}
	kpgo_jw_array_begin(w, key);
	for (i = 0; i < n; i++) {
		const struct kpgo_pdiff_fn *f = &d->fns[idx[i]];
		const struct kpgo_pstat *ps;
		const struct kpgo_pstat_fn *fn = side(f, a, b, &ps);

		kpgo_jw_object_begin_inline(w, NULL);
		json_pstat_fn(w, ps, fn);
		kpgo_jw_bool(w, "in_a", f->a);
		kpgo_jw_bool(w, "in_b", f->b);
		kpgo_jw_bool(w, "changed",
			     f->a && f->b &&
				     (f->a->lineno_checksum != f->b->lineno_checksum ||
				      f->a->cfg_checksum != f->b->cfg_checksum));
		kpgo_jw_u64(w, "count_a", f->a ? f->a->count : 0);
		kpgo_jw_u64(w, "count_b", f->b ? f->b->count : 0);
		kpgo_jw_fraction(w, "share_a", f->share_a);
		kpgo_jw_fraction(w, "share_b", f->share_b);
		kpgo_jw_end(w);
	}
	kpgo_jw_end(w);
	free(idx);
}

static int print_json(const struct kpgo_pdiff *d, const char *fa, const struct kpgo_pstat *a,
		      const char *fb, const struct kpgo_pstat *b, const char *objtree, size_t top)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_json_writer w;
	size_t *idx = NULL;
	ssize_t n, i;

	kpgo_jw_init(&w, &out);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_u64(&w, "version", KPGO_DIFF_JSON_VERSION);
	json_side(&w, "a", fa, a, objtree);
	json_side(&w, "b", fb, b, objtree);
	kpgo_jw_string(&w, "measure", "overlap");
	kpgo_jw_fraction(&w, "similarity", d->similarity);
	kpgo_jw_fraction(&w, "subsystem_similarity", d->subsystem_similarity);
	kpgo_jw_object_begin_inline(&w, "functions");
	kpgo_jw_u64(&w, "both", d->fns_both);
	kpgo_jw_u64(&w, "changed", d->fns_changed);
	kpgo_jw_u64(&w, "only_a", d->fns_only_a);
	kpgo_jw_u64(&w, "only_b", d->fns_only_b);
	kpgo_jw_end(&w);
	kpgo_jw_object_begin_inline(&w, "functions_run");
	kpgo_jw_u64(&w, "both", d->run_both);
	kpgo_jw_u64(&w, "only_a", d->run_only_a);
	kpgo_jw_u64(&w, "only_b", d->run_only_b);
	kpgo_jw_fraction(&w, "share_only_a", d->share_run_only_a);
	kpgo_jw_fraction(&w, "share_only_b", d->share_run_only_b);
	kpgo_jw_end(&w);
	kpgo_jw_object_begin_inline(&w, "objects");
	kpgo_jw_u64(&w, "both", d->objs_both);
	kpgo_jw_u64(&w, "only_a", d->objs_only_a);
	kpgo_jw_u64(&w, "only_b", d->objs_only_b);
	kpgo_jw_end(&w);
	kpgo_jw_u64(&w, "subsystem_depth", a->depth);
	kpgo_jw_array_begin(&w, "subsystems");
	n = kpgo_pdiff_group_movers(d, top, &idx);
	for (i = 0; i < n; i++) {
		const struct kpgo_pdiff_group *g = &d->groups[idx[i]];

		kpgo_jw_object_begin_inline(&w, NULL);
		kpgo_jw_string(&w, "directory", g->dir);
		kpgo_jw_u64(&w, "count_a", g->a ? g->a->count : 0);
		kpgo_jw_u64(&w, "count_b", g->b ? g->b->count : 0);
		kpgo_jw_fraction(&w, "share_a", g->share_a);
		kpgo_jw_fraction(&w, "share_b", g->share_b);
		kpgo_jw_end(&w);
	}
	free(idx);
	kpgo_jw_end(&w);
	if (n < 0) {
		if (!w.err)
			w.err = -ENOMEM;
		return print_json_doc(&w);
	}
	n = kpgo_pdiff_movers(d, true, top, &idx);
	json_fns(&w, "gained", d, a, b, n, idx);
	n = kpgo_pdiff_movers(d, false, top, &idx);
	json_fns(&w, "lost", d, a, b, n, idx);
	n = kpgo_pdiff_run_only(d, true, top, &idx);
	json_fns(&w, "run_only_a", d, a, b, n, idx);
	n = kpgo_pdiff_run_only(d, false, top, &idx);
	json_fns(&w, "run_only_b", d, a, b, n, idx);
	kpgo_jw_end(&w);
	return print_json_doc(&w);
}

/* A number 0..1 as "0.8" or "1" (no locale, no exponent). */
static int parse_fraction(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || v < 0 || v > 1)
		return -EINVAL;
	*out = v;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "objtree", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'n' },
		{ "depth", required_argument, NULL, 'd' },
		{ "min-similarity", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned depth = KPGO_PSTAT_DEPTH_DEFAULT;
	struct strbuf text = STRBUF_INIT;
	const char *objtree = NULL;
	struct kpgo_pstat a, b;
	struct kpgo_pdiff d;
	double min_sim = -1;
	bool json = false;
	size_t top = 10;
	int c, i, ret = 1;

	while ((c = getopt_long(argc, argv, "t:n:d:m:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case 't': objtree = optarg; break;
		case 'n':
			if (parse_top("diff", optarg, &top))
				return EXIT_USAGE;
			break;
		case 'd':
			if (parse_depth("diff", optarg, &depth))
				return EXIT_USAGE;
			break;
		case 'm':
			if (parse_fraction(optarg, &min_sim))
				return usage_error("diff", "bad --min-similarity '%s' (0 to 1)",
						   optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("diff", "bad option");
		}
	}
	if (optind + 2 != argc)
		return usage_error("diff", "expected two profile archives");
	kpgo_pstat_init(&a);
	kpgo_pstat_init(&b);
	memset(&d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		if (pstat_open(i ? &b : &a, argv[optind + i], depth, objtree))
			goto out;
	}
	if (kpgo_pdiff_compute(&d, &a, &b)) {
		error("out of memory");
		goto out;
	}
	if (json) {
		if (print_json(&d, argv[optind], &a, argv[optind + 1], &b, objtree, top))
			goto out;
	} else {
		if (format_text(&d, argv[optind], &a, argv[optind + 1], &b, top, &text)) {
			error("out of memory");
			goto out;
		}
		fwrite(text.buf, 1, text.len, stdout);
	}
	fflush(stdout);
	if (min_sim >= 0 && d.similarity < min_sim) {
		error("'%s' and '%s' differ: similarity %.4f is below %g", argv[optind],
		      argv[optind + 1], d.similarity, min_sim);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&text);
	kpgo_pdiff_release(&d);
	kpgo_pstat_release(&a);
	kpgo_pstat_release(&b);
	return ret;
}
