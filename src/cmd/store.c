// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo store: the build farm's profiles, content-addressed, and the choice of one. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "toolchain.h"
#include "gcda.h"
#include "profile-archive.h"
#include "store.h"
#include "store-policy.h"

static const char usage_text[] =
	"usage: kpgo store [--store DIR] <command> [<args>]\n"
	"\n"
	"  add FILE.kpgo...        verify archives and store them (prints each sha256)\n"
	"  list [--json]           one line per stored profile\n"
	"  show [--json] SHA       a profile's manifest and file (a unique prefix will do)\n"
	"  select --release R ...  the best profile to build release R with\n"
	"  policy                  the freshness policy select enforces\n"
	"  verify [--repair]       re-hash and re-verify everything, check the index\n"
	"  gc --keep N [--dry-run] keep the newest N profiles of each kernel release\n"
	"  ingest DROPDIR          add a drop directory's profiles, merge per kernel build\n"
	"\n"
	"The store is --store DIR, else $KPGO_STORE, else " KPGO_STORE_DEFAULT ".\n"
	"Every command takes -q/--quiet, -v/--verbose and -h/--help.\n";

static const char add_usage[] =
	"usage: kpgo store add FILE.kpgo...\n"
	"\n"
	"Verifies every archive completely (payload hash, totals, entry names), then\n"
	"stores them by the sha256 of their bytes and prints each sha256. All or\n"
	"none: one bad archive leaves the store unchanged. Adding an archive the\n"
	"store has is not an error. The store is created by the first add.\n";

static const char list_usage[] =
	"usage: kpgo store list [--json]\n"
	"\n"
	"One line per profile: short sha256, kernel release, gcov version,\n"
	"workload, runs, end of the collection window; by release, then window.\n";

static const char show_usage[] =
	"usage: kpgo store show [--json] SHA\n"
	"\n"
	"The manifest and the file of the profile whose sha256 starts with SHA.\n";

static const char select_usage[] =
	"usage: kpgo store select --release R [--build-id ID] [--gcov-version V | --cc CC]\n"
	"                         [--arch A] [--json] [--explain] [--override-policy]\n"
	"                         [--now TIME]\n"
	"\n"
	"Prints the file of the best profile for building release R, and why on\n"
	"stderr. Best is, in order: the same build id; the same release; the\n"
	"nearest older release of the same series (6.1.0-13 for 6.1.0-17; releases\n"
	"compare as dpkg compares versions); and, only when the store's policy\n"
	"allows crossing series, the newest release of an older series. Never a\n"
	"newer release. The gcov version (what 'kpgo info' shows, e.g. 'B33*'; --cc\n"
	"asks the compiler CC) and the arch must match when given, since GCC\n"
	"ignores a profile of another version. Ties go to the most profiles merged\n"
	"(what the store counted, never a profile's own RUNS), then the newest\n"
	"added. The chosen object is verified first; a missing or corrupt one is\n"
	"passed over.\n"
	"\n"
	"The store's freshness policy (kpgo store policy) leaves out profiles\n"
	"collected too long ago or too many releases behind, and warns past its\n"
	"warning age. Exit 1, with the reason, when nothing fits.\n"
	"\n"
	"  --explain          every profile considered and the verdict on it (stderr)\n"
	"  --override-policy  take the best profile even if the policy refuses it\n"
	"                     (said on stderr and in --json: the build records it)\n"
	"  --now TIME         measure ages at TIME (YYYY-MM-DDTHH:MM:SSZ), not now\n";

const char *store_dir_opt;

enum {
	OPT_RELEASE = 256,
	OPT_BUILD_ID,
	OPT_GCOV,
	OPT_CC,
	OPT_ARCH,
	OPT_EXPLAIN,
	OPT_OVERRIDE,
	OPT_NOW
};

int store_common_option(int c, const char *cmd, const char *usage)
{
	switch (c) {
	case OPT_STORE_DIR: store_dir_opt = optarg; return 256;
	case 'q': verbosity = 0; return 256;
	case 'v': verbosity = 2; return 256;
	case 'h': fputs(usage, stdout); return 0;
	case '?': return usage_error(cmd, "bad option");
	default: return -1;
	}
}

int store_open(struct kpgo_store *s)
{
	if (kpgo_store_init(s, kpgo_store_default_dir(store_dir_opt)))
		return error("out of memory");
	return 0;
}

static int read_index(struct kpgo_store *s, struct kpgo_store_index *idx)
{
	struct kpgo_error err;

	if (store_open(s))
		return 1;
	if (kpgo_store_index_read(s, idx, &err))
		return error("%s", err.msg);
	return 0;
}

/* One profile of the index, as an inline object (member @key, or an item). */
static void json_entry(struct kpgo_json_writer *w, const char *key,
		       const struct kpgo_store_entry *e, const char *path)
{
	kpgo_jw_object_begin_inline(w, key);
	kpgo_jw_string(w, "sha256", e->sha);
	kpgo_jw_string(w, "release", e->release);
	kpgo_jw_string(w, "build_id", e->build_id);
	kpgo_jw_string(w, "arch", e->arch);
	kpgo_jw_string(w, "gcov_version", e->gcov_version);
	kpgo_jw_string(w, "workload", e->workload);
	kpgo_jw_u64(w, "runs", e->runs);
	kpgo_jw_u64(w, "merged_profiles", e->merged);
	kpgo_jw_string(w, "window_end", e->window_end);
	kpgo_jw_string(w, "added", e->added);
	kpgo_jw_string(w, "path", path);
	kpgo_jw_end(w);
}

static int store_add(int argc, char **argv)
{
	static const struct option opts[] = { STORE_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	struct kpgo_store_added *res;
	struct kpgo_error err;
	struct kpgo_store s;
	int c, i, n, ret;

	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1)
		if ((ret = store_common_option(c, "store add", add_usage)) != 256)
			return ret < 0 ? usage_error("store add", "bad option") : ret;
	if (optind >= argc)
		return usage_error("store add", "no profile archives to add");
	n = argc - optind;
	res = calloc((size_t)n, sizeof(*res));
	if (!res)
		return error("out of memory");
	if (store_open(&s)) {
		free(res);
		return 1;
	}
	ret = 0;
	if (kpgo_store_add(&s, (const char *const *)argv + optind, (size_t)n, res, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		printf("%s\n", res[i].sha);
		if (res[i].existed)
			note(1, "'%s' is already in the store as %.12s", argv[optind + i],
			     res[i].sha);
		else
			note(1, "added '%s' as %.12s", argv[optind + i], res[i].sha);
	}
out:
	kpgo_store_release(&s);
	free(res);
	return ret;
}

const char *store_or_dash(const char *s)
{
	return *s ? s : "-";
}

static int store_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf jsb = STRBUF_INIT;
	struct kpgo_json_writer w;
	struct kpgo_store_index idx = { 0 };
	struct strbuf path = STRBUF_INIT;
	int c, ret, wr = 1, ww = 1;
	struct kpgo_store s;
	bool json = false;
	size_t i;

	while ((c = getopt_long(argc, argv, "jqvh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
			continue;
		}
		if ((ret = store_common_option(c, "store list", list_usage)) != 256)
			return ret < 0 ? usage_error("store list", "bad option") : ret;
	}
	if (optind != argc)
		return usage_error("store list", "unexpected argument '%s'", argv[optind]);
	ret = read_index(&s, &idx);
	if (ret)
		goto out;
	kpgo_store_index_sort(&idx);
	for (i = 0; i < idx.n; i++) {
		if ((int)strlen(idx.e[i].release) > wr)
			wr = (int)strlen(idx.e[i].release);
		if ((int)strlen(idx.e[i].workload) > ww)
			ww = (int)strlen(idx.e[i].workload);
	}
	if (json) {
		kpgo_jw_init(&w, &jsb);
		kpgo_jw_array_begin(&w, NULL);
	}
	for (i = 0; i < idx.n; i++) {
		const struct kpgo_store_entry *e = &idx.e[i];

		if (json) {
			if (kpgo_store_object_path(&s, e->sha, &path)) {
				ret = error("out of memory");
				goto out;
			}
			json_entry(&w, NULL, e, path.buf);
		} else {
			printf("%.12s  %-*s  %-4s  %-*s  %4" PRIu64 "  %s\n", e->sha, wr,
			       store_or_dash(e->release), store_or_dash(e->gcov_version), ww,
			       store_or_dash(e->workload), e->runs, store_or_dash(e->window_end));
		}
	}
	if (json) {
		kpgo_jw_end(&w);
		ret = print_json_doc(&w);
	}
out:
	strbuf_release(&jsb);
	strbuf_release(&path);
	kpgo_store_index_release(&idx);
	kpgo_store_release(&s);
	return ret;
}

static int store_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf jsb = STRBUF_INIT;
	struct kpgo_json_writer w;
	struct kpgo_store_index idx = { 0 };
	struct strbuf path = STRBUF_INIT;
	const struct kpgo_store_entry *e;
	const struct kpgo_manifest *m;
	struct kpgo_archive *a = NULL;
	struct kpgo_error err;
	struct kpgo_store s;
	bool json = false;
	int c, ret;
	size_t i;

	while ((c = getopt_long(argc, argv, "jqvh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
			continue;
		}
		if ((ret = store_common_option(c, "store show", show_usage)) != 256)
			return ret < 0 ? usage_error("store show", "bad option") : ret;
	}
	if (optind + 1 != argc)
		return usage_error("store show", "expected one sha256 (or a unique prefix)");
	ret = read_index(&s, &idx);
	if (ret)
		goto out;
	if (kpgo_store_lookup(&idx, argv[optind], &e, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	if (kpgo_store_object_path(&s, e->sha, &path)) {
		ret = error("out of memory");
		goto out;
	}
	if (kpgo_archive_open(&a, path.buf, &err)) {
		ret = error("cannot read '%s': %s", path.buf, err.msg);
		goto out;
	}
	m = kpgo_archive_manifest(a);
	if (json) {
		kpgo_jw_init(&w, &jsb);
		kpgo_jw_object_begin(&w, NULL);
		kpgo_jw_string(&w, "sha256", e->sha);
		kpgo_jw_string(&w, "path", path.buf);
		kpgo_jw_string(&w, "added", e->added);
		kpgo_jw_object_begin(&w, "manifest");
		for (i = 0; i < m->n; i++)
			kpgo_jw_string(&w, m->e[i].key, m->e[i].value);
		kpgo_jw_end(&w);
		kpgo_jw_end(&w);
		ret = print_json_doc(&w);
	} else {
		printf("sha256: %s\nfile: %s\nadded: %s\n\nmanifest:\n", e->sha, path.buf, e->added);
		for (i = 0; i < m->n; i++)
			printf("  %s=%s\n", m->e[i].key, m->e[i].value);
	}
out:
	kpgo_archive_close(a);
	strbuf_release(&path);
	kpgo_store_index_release(&idx);
	kpgo_store_release(&s);
	return ret;
}

static int store_select(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "release", required_argument, NULL, OPT_RELEASE },
		{ "build-id", required_argument, NULL, OPT_BUILD_ID },
		{ "gcov-version", required_argument, NULL, OPT_GCOV },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "json", no_argument, NULL, 'j' },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
		{ "override-policy", no_argument, NULL, OPT_OVERRIDE },
		{ "now", required_argument, NULL, OPT_NOW },
		STORE_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf jsb = STRBUF_INIT;
	struct kpgo_json_writer w;
	struct kpgo_store_query q = { 0 };
	struct kpgo_store_policy policy;
	struct kpgo_strlist explained = { 0 };
	const char *now = NULL;
	bool explain = false;
	size_t i;
	struct kpgo_store_index idx = { 0 };
	struct strbuf path = STRBUF_INIT;
	struct kpgo_store_choice ch;
	const char *cc = NULL;
	struct kpgo_error err;
	struct kpgo_store s;
	char gv[5];
	bool json = false;
	uint32_t stamp;
	unsigned expect;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jqvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_RELEASE: q.release = optarg; continue;
		case OPT_BUILD_ID: q.build_id = optarg; continue;
		case OPT_GCOV: q.gcov_version = optarg; continue;
		case OPT_CC: cc = optarg; continue;
		case OPT_ARCH: q.arch = optarg; continue;
		case 'j': json = true; continue;
		case OPT_EXPLAIN: explain = true; continue;
		case OPT_OVERRIDE: q.override = true; continue;
		case OPT_NOW: now = optarg; continue;
		}
		if ((ret = store_common_option(c, "store select", select_usage)) != 256)
			return ret < 0 ? usage_error("store select", "bad option") : ret;
	}
	if (optind != argc)
		return usage_error("store select", "unexpected argument '%s'", argv[optind]);
	if (!q.release || !*q.release || !kpgo_manifest_value_ok(q.release))
		return usage_error("store select", "a kernel release is required (--release R)");
	if (cc && q.gcov_version)
		return usage_error("store select", "--gcov-version and --cc exclude each other");
	if (q.gcov_version && kpgo_gcc_version_parse(q.gcov_version, &stamp))
		return usage_error("store select",
				   "bad gcov version '%s' (four characters, e.g. 'B33*')",
				   q.gcov_version);
	if (cc) {
		if (cc_gcov_version(cc, gv))
			return 1;
		q.gcov_version = gv;
	}
	if (now && kpgo_parse_utc(now, &q.now))
		return usage_error("store select", "bad time '%s' (YYYY-MM-DDTHH:MM:SSZ)", now);
	if (!now)
		q.now = (int64_t)time(NULL);
	ret = read_index(&s, &idx);
	if (ret)
		goto out;
	if (kpgo_store_policy_load(s.dir, &policy, &err)) {
		ret = error("%s", err.msg);
		goto out;
	}
	q.policy = &policy;
	q.explain = explain ? &explained : NULL;
	ret = kpgo_store_select_verified(&s, &idx, &q, &ch, &err);
	for (i = 0; i < explained.n; i++)
		fprintf(stderr, "kpgo: considered %s\n", explained.items[i]);
	if (ch.skipped)
		warning("passed over %zu missing or corrupt object(s) of '%s' (kpgo store verify)",
			ch.skipped, s.dir);
	if (ret) {
		ret = error("%s", err.msg);
		goto out;
	}
	if (ch.overridden)
		warning("the store's policy refuses %.12s (%s): taken because of --override-policy",
			ch.e->sha, ch.policy_why);
	else if (ch.verdict == KPGO_POLICY_WARN)
		warning("profile %.12s is %s", ch.e->sha, ch.policy_why);
	if (kpgo_store_object_path(&s, ch.e->sha, &path)) {
		ret = error("out of memory");
		goto out;
	}
	if (json) {
		kpgo_jw_init(&w, &jsb);
		kpgo_jw_object_begin(&w, NULL);
		kpgo_jw_string(&w, "path", path.buf);
		kpgo_jw_u64(&w, "rank", (uint64_t)ch.rank);
		kpgo_jw_u64(&w, "candidates", ch.candidates);
		kpgo_jw_string(&w, "why", ch.why);
		kpgo_jw_object_begin_inline(&w, "policy");
		kpgo_jw_string(&w, "verdict",
			       ch.overridden		      ? "overridden" :
			       ch.verdict == KPGO_POLICY_WARN ? "warn" :
								"ok");
		kpgo_jw_string(&w, "why", ch.policy_why);
		if (!kpgo_policy_expected_applied(ch.e->release, q.release, &expect)) {
			char pct[16];

			snprintf(pct, sizeof(pct), "%u.%u", expect / 10, expect % 10);
			kpgo_jw_number(&w, "expected_applied", pct);
		} else {
			kpgo_jw_null(&w, "expected_applied");
		}
		kpgo_jw_end(&w);
		json_entry(&w, "profile", ch.e, path.buf);
		kpgo_jw_end(&w);
		ret = print_json_doc(&w);
	} else {
		printf("%s\n", path.buf);
		note(1, "selected %.12s: %s", ch.e->sha, ch.why);
	}
out:
	kpgo_strlist_clear(&explained);
	strbuf_release(&path);
	kpgo_store_index_release(&idx);
	kpgo_store_release(&s);
	return ret;
}

static const struct subcommand_entry subcommands[] = {
	{ "add", store_add },	    { "list", store_list },	{ "show", store_show },
	{ "select", store_select }, { "policy", store_policy }, { "verify", store_verify },
	{ "gc", store_gc },	    { "ingest", store_ingest },
};

int cmd_store(int argc, char **argv)
{
	static const struct option opts[] = { STORE_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	int c, ret;

	/* Options before the command; '+' stops at the command's name. */
	while ((c = getopt_long(argc, argv, "+qvh", opts, NULL)) != -1)
		if ((ret = store_common_option(c, "store", usage_text)) != 256)
			return ret < 0 ? usage_error("store", "bad option") : ret;
	return run_subcommand("store", subcommands, sizeof(subcommands) / sizeof(subcommands[0]),
			      argc, argv);
}
