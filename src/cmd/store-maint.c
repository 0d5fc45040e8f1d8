// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo store policy, verify and gc: the store's upkeep. */
#include <getopt.h>

#include "cmd/cmd.h"
#include "store.h"
#include "store-policy.h"

static const char policy_usage[] =
	"usage: kpgo store policy [--json]\n"
	"\n"
	"The freshness policy of the store, from its file DIR/policy or, without\n"
	"one, the defaults; in the file's own KEY=VALUE form (docs/FORMAT.md).\n";

static const char verify_usage[] =
	"usage: kpgo store verify [--repair]\n"
	"\n"
	"Re-hashes every object against its name, verifies every archive fully and\n"
	"compares the index with the objects both ways. Prints one line per problem\n"
	"and exits 1 if there is any. With --repair, moves bad objects to corrupt/\n"
	"and rebuilds the index from the good ones.\n";

static const char gc_usage[] =
	"usage: kpgo store gc --keep N [--dry-run]\n"
	"\n"
	"Keeps the newest N profiles (by window end, then time added) of each\n"
	"kernel release and removes the others; removes files in tmp/ older than\n"
	"an hour, left by interrupted adds. Prints what it removes.\n";

enum { OPT_REPAIR = 256, OPT_KEEP, OPT_DRY_RUN };

/* A policy limit: null for none. */
static void limit_json(struct kpgo_json_writer *w, const char *key, uint64_t v)
{
	if (v == KPGO_POLICY_NONE)
		kpgo_jw_null(w, key);
	else
		kpgo_jw_u64(w, key, v);
}

int store_policy(int argc, char **argv)
{
	struct kpgo_json_writer w;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_store_policy p;
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_error err;
	struct kpgo_store s;
	bool json = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jqvh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
			continue;
		}
		if ((ret = store_common_option(c, "store policy", policy_usage)) != 256)
			return ret < 0 ? usage_error("store policy", "bad option") : ret;
	}
	if (optind != argc)
		return usage_error("store policy", "unexpected argument '%s'", argv[optind]);
	if (kpgo_store_init(&s, kpgo_store_default_dir(store_dir_opt)))
		return error("out of memory");
	ret = 0;
	if (kpgo_store_policy_load(s.dir, &p, &err)) {
		ret = error("%s", err.msg);
	} else if (json) {
		kpgo_jw_init(&w, &sb);
		kpgo_jw_object_begin(&w, NULL);
		limit_json(&w, "max_age_days", p.max_age_days);
		limit_json(&w, "warn_age_days", p.warn_age_days);
		limit_json(&w, "max_distance", p.max_distance);
		kpgo_jw_bool(&w, "cross_series", p.cross_series);
		kpgo_jw_u64(&w, "min_applied", p.min_applied);
		kpgo_jw_end(&w);
		ret = print_json_doc(&w);
	} else {
		kpgo_store_policy_format(&p, &sb);
		fputs(sb.buf, stdout);
	}
	strbuf_release(&sb);
	kpgo_store_release(&s);
	return ret;
}

int store_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repair", no_argument, NULL, OPT_REPAIR },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_store_report rep;
	struct kpgo_error err;
	struct kpgo_store s;
	bool repair = false;
	int c, ret;
	size_t i;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		if (c == OPT_REPAIR) {
			repair = true;
			continue;
		}
		if ((ret = store_common_option(c, "store verify", verify_usage)) != 256)
			return ret < 0 ? usage_error("store verify", "bad option") : ret;
	}
	if (optind != argc)
		return usage_error("store verify", "unexpected argument '%s'", argv[optind]);
	if (store_open(&s))
		return 1;
	if (kpgo_store_verify(&s, repair, &rep, &err)) {
		kpgo_store_release(&s);
		return error("%s", err.msg);
	}
	for (i = 0; i < rep.problems.n; i++)
		printf("%s\n", rep.problems.items[i]);
	for (i = 0; i < rep.repairs.n; i++)
		printf("repaired: %s\n", rep.repairs.items[i]);
	ret = 0;
	if (rep.problems.n && !repair)
		ret = error("%zu problems in the store '%s' (see 'kpgo store verify --help')",
			    rep.problems.n, s.dir);
	else if (rep.problems.n)
		note(1, "repaired %zu problems; the store '%s' holds %zu good profiles",
		     rep.problems.n, s.dir, rep.objects);
	else
		note(1, "the store '%s' is consistent: %zu profiles", s.dir, rep.objects);
	kpgo_store_report_release(&rep);
	kpgo_store_release(&s);
	return ret;
}

int store_gc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_store_index removed = { 0 };
	struct kpgo_strlist tmp = { 0 };
	struct kpgo_error err;
	struct kpgo_store s;
	bool dry_run = false;
	uint64_t keep = 0;
	const char *verb;
	int c, ret;
	size_t i;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		if (c == OPT_KEEP) {
			if (kpgo_parse_u64(optarg, &keep) || keep == 0 || keep > 1000000)
				return usage_error("store gc", "bad --keep '%s' (1 or more)",
						   optarg);
			continue;
		}
		if (c == OPT_DRY_RUN) {
			dry_run = true;
			continue;
		}
		if ((ret = store_common_option(c, "store gc", gc_usage)) != 256)
			return ret < 0 ? usage_error("store gc", "bad option") : ret;
	}
	if (optind != argc)
		return usage_error("store gc", "unexpected argument '%s'", argv[optind]);
	if (!keep)
		return usage_error("store gc", "how many to keep of each release? (--keep N)");
	if (store_open(&s))
		return 1;
	ret = 0;
	if (kpgo_store_gc(&s, (unsigned)keep, dry_run, &removed, &tmp, &err))
		ret = error("%s", err.msg);
	verb = dry_run ? "would remove" : "removed";
	for (i = 0; i < removed.n; i++)
		printf("%s %s  %s  %s  %s\n", verb, removed.e[i].sha,
		       store_or_dash(removed.e[i].release), store_or_dash(removed.e[i].workload),
		       store_or_dash(removed.e[i].window_end));
	for (i = 0; i < tmp.n; i++)
		printf("%s tmp/%s\n", verb, tmp.items[i]);
	kpgo_store_index_release(&removed);
	kpgo_strlist_clear(&tmp);
	kpgo_store_release(&s);
	return ret;
}
