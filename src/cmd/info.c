// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo info: what a profile archive holds. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile-archive.h"
#include "cmd/cmd.h"
#include "json-writer.h"
#include "profile.h"
#include "summary.h"

static const char usage_text[] =
	"usage: kpgo info [--json] [--top N] FILE.kpgo\n"
	"\n"
	"Shows the manifest, the totals and the hottest objects and functions\n"
	"(by the sum of their arc counters). The whole archive is verified.\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf text = STRBUF_INIT;
	const struct kpgo_manifest *m;
	struct kpgo_archive *a = NULL;
	const struct kpgo_totals *t;
	struct kpgo_summary s;
	struct kpgo_error err;
	size_t i, top = 10;
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
	if (kpgo_summary_init(&s, top))
		return error("out of memory");
	if (kpgo_archive_open(&a, argv[optind], &err)) {
		error("cannot read '%s': %s", argv[optind], err.msg);
		goto out;
	}
	while ((r = kpgo_archive_next(a, &path, &g, &err)) == 1) {
		if (kpgo_summary_add(&s, path, g)) {
			error("out of memory");
			goto out;
		}
	}
	if (r < 0) {
		error("cannot read '%s': %s", argv[optind], err.msg);
		goto out;
	}
	m = kpgo_archive_manifest(a);
	t = &s.totals;
	if (json) {
		struct kpgo_json_writer w;
		char checksum[16];

		kpgo_jw_init(&w, &text);
		kpgo_jw_object_begin(&w, NULL);
		kpgo_jw_string(&w, "file", argv[optind]);
		kpgo_jw_object_begin(&w, "manifest");
		for (i = 0; i < m->n; i++)
			kpgo_jw_string(&w, m->e[i].key, m->e[i].value);
		kpgo_jw_end(&w);
		kpgo_jw_object_begin_inline(&w, "totals");
		kpgo_jw_u64(&w, "objects", t->objects);
		kpgo_jw_u64(&w, "functions", t->functions);
		kpgo_jw_u64(&w, "counters", t->counters);
		kpgo_jw_u64(&w, "sum_all", t->sum_all);
		kpgo_jw_u64(&w, "max", t->max);
		kpgo_jw_end(&w);
		kpgo_jw_array_begin(&w, "hottest_objects");
		for (i = 0; i < s.n_objs; i++) {
			kpgo_jw_object_begin_inline(&w, NULL);
			kpgo_jw_string(&w, "object", s.objs[i].path);
			kpgo_jw_u64(&w, "count", s.objs[i].count);
			kpgo_jw_end(&w);
		}
		kpgo_jw_end(&w);
		kpgo_jw_array_begin(&w, "hottest_functions");
		for (i = 0; i < s.n_fns; i++) {
			snprintf(checksum, sizeof(checksum), "0x%08x", s.fns[i].lineno_checksum);
			kpgo_jw_object_begin_inline(&w, NULL);
			kpgo_jw_string(&w, "object", s.fns[i].path);
			kpgo_jw_u64(&w, "ident", s.fns[i].ident);
			kpgo_jw_string(&w, "lineno_checksum", checksum);
			kpgo_jw_u64(&w, "count", s.fns[i].count);
			kpgo_jw_end(&w);
		}
		kpgo_jw_end(&w);
		kpgo_jw_end(&w);
		if (print_json_doc(&w))
			goto out;
	} else {
		if (kpgo_summary_format(&s, argv[optind], m, &text)) {
			error("out of memory");
			goto out;
		}
		fwrite(text.buf, 1, text.len, stdout);
	}
	ret = 0;
out:
	strbuf_release(&text);
	kpgo_summary_release(&s);
	kpgo_archive_close(a);
	return ret;
}
