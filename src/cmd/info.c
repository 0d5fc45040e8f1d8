// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo info: what a profile archive holds. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile-archive.h"
#include "cmd/cmd.h"
#include "profile.h"

static const char usage_text[] =
	"usage: kpgo info [--json] [--top N] FILE.kpgo\n"
	"\n"
	"Shows the manifest, the totals and the hottest objects and functions\n"
	"(by the sum of their arc counters). The whole archive is verified.\n";

struct hot {
	char *path;
	uint32_t ident;
	uint32_t lineno_checksum;
	uint64_t count;
};

/* Keeps the @n largest in @top (sorted, descending). */
static void hot_add(struct hot *top, size_t n, size_t *used, const char *path, uint32_t ident,
		    uint32_t cksum, uint64_t count)
{
	size_t i;

	if (count == 0 || (*used == n && (n == 0 || top[n - 1].count >= count)))
		return;
	if (*used < n)
		(*used)++;
	else
		free(top[n - 1].path);
	for (i = *used - 1; i > 0 && top[i - 1].count < count; i--)
		top[i] = top[i - 1];
	top[i].path = strdup(path);
	top[i].ident = ident;
	top[i].lineno_checksum = cksum;
	top[i].count = count;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hot *fns = NULL, *objs = NULL;
	size_t nf = 0, no = 0, i, top = 10;
	const struct kpgo_manifest *m;
	struct kpgo_archive *a = NULL;
	struct kpgo_totals t = { 0 };
	struct kpgo_error err;
	struct kpgo_gcda *g;
	const char *path;
	bool json = false;
	uint64_t v;
	int c, r, ret = 1;

	while ((c = getopt_long(argc, argv, "jt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 't':
			if (kpgo_parse_u64(optarg, &v) || v > 10000)
				return usage_error("info", "bad --top '%s'", optarg);
			top = (size_t)v;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("info", "bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("info", "expected one profile archive");
	fns = calloc(top + 1, sizeof(*fns));
	objs = calloc(top + 1, sizeof(*objs));
	if (!fns || !objs) {
		error("out of memory");
		goto out;
	}
	if (kpgo_archive_open(&a, argv[optind], &err)) {
		error("cannot read '%s': %s", argv[optind], err.msg);
		goto out;
	}
	while ((r = kpgo_archive_next(a, &path, &g, &err)) == 1) {
		kpgo_totals_add(&t, g);
		hot_add(objs, top, &no, path, 0, 0, kpgo_gcda_sum(g));
		for (i = 0; i < g->n_fns; i++)
			hot_add(fns, top, &nf, path, g->fns[i].ident, g->fns[i].lineno_checksum,
				kpgo_gcda_fn_sum(g, &g->fns[i]));
	}
	if (r < 0) {
		error("cannot read '%s': %s", argv[optind], err.msg);
		goto out;
	}
	m = kpgo_archive_manifest(a);
	if (json) {
		printf("{\n  \"file\": ");
		json_str(stdout, argv[optind]);
		printf(",\n  \"manifest\": {");
		for (i = 0; i < m->n; i++) {
			printf("%s\n    ", i ? "," : "");
			json_str(stdout, m->e[i].key);
			printf(": ");
			json_str(stdout, m->e[i].value);
		}
		printf("\n  },\n  \"totals\": {\"objects\": %" PRIu64 ", \"functions\": %" PRIu64
		       ", \"counters\": %" PRIu64 ", \"sum_all\": %" PRIu64 ", \"max\": %" PRIu64
		       "},\n  \"hottest_objects\": [",
		       t.objects, t.functions, t.counters, t.sum_all, t.max);
		for (i = 0; i < no; i++) {
			printf("%s\n    {\"object\": ", i ? "," : "");
			json_str(stdout, objs[i].path);
			printf(", \"count\": %" PRIu64 "}", objs[i].count);
		}
		printf("\n  ],\n  \"hottest_functions\": [");
		for (i = 0; i < nf; i++) {
			printf("%s\n    {\"object\": ", i ? "," : "");
			json_str(stdout, fns[i].path);
			printf(", \"ident\": %u, \"lineno_checksum\": \"0x%08x\", \"count\": %" PRIu64 "}",
			       fns[i].ident, fns[i].lineno_checksum, fns[i].count);
		}
		printf("\n  ]\n}\n");
	} else {
		printf("file: %s\n\nmanifest:\n", argv[optind]);
		for (i = 0; i < m->n; i++)
			printf("  %s=%s\n", m->e[i].key, m->e[i].value);
		printf("\ntotals: %" PRIu64 " objects, %" PRIu64 " functions, %" PRIu64
		       " counters, sum %" PRIu64 ", largest %" PRIu64 "\n",
		       t.objects, t.functions, t.counters, t.sum_all, t.max);
		printf("\nhottest objects (sum of arc counts):\n");
		for (i = 0; i < no; i++)
			printf("  %20" PRIu64 "  %s\n", objs[i].count, objs[i].path);
		printf("\nhottest functions (sum of arc counts; ident within object):\n");
		for (i = 0; i < nf; i++)
			printf("  %20" PRIu64 "  %s  ident %u (lineno checksum 0x%08x)\n",
			       fns[i].count, fns[i].path, fns[i].ident, fns[i].lineno_checksum);
	}
	ret = 0;
out:
	for (i = 0; fns && i < nf; i++)
		free(fns[i].path);
	for (i = 0; objs && i < no; i++)
		free(objs[i].path);
	free(fns);
	free(objs);
	kpgo_archive_close(a);
	return ret;
}
