// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stage-summary.h: kpgo stage's result as data. Taken from a staging, as
 * JSON and back, hostile documents refused, the lists as printed and the
 * --report text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage-summary.h"
#include "tap.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void make(struct kpgo_stage_summary *s)
{
	struct kpgo_stage_result res;
	int i;

	memset(&res, 0, sizeof(res));
	res.staged = 3;
	res.runs = 2;
	res.sum_max = 900;
	res.scale = 1;
	kpgo_strlist_add(&res.missing, "gone/x.gcda");
	for (i = 0; i < 12; i++) {
		char name[32];

		snprintf(name, sizeof(name), "drivers/d%02d.o", i);
		kpgo_strlist_add(&res.unprofiled, name);
	}
	kpgo_stage_summary_init(s);
	if (kpgo_stage_summary_take(s, "p.kpgo", SHA, &res))
		bail_out("out of memory");
	ok(!res.missing.n && !res.unprofiled.items, "the lists are taken from the result");
	kpgo_stage_result_release(&res);
}

static void test_round_trip(void)
{
	struct kpgo_stage_summary s, t;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct kpgo_error err;

	make(&s);
	is_int(kpgo_stage_summary_json(&s, &a), 0, "as JSON");
	kpgo_stage_summary_init(&t);
	is_int(kpgo_stage_summary_parse(&t, a.buf, a.len, &err), 0, "  reads back");
	kpgo_stage_summary_json(&t, &b);
	is_str(b.buf, a.buf, "  to the same document");
	ok(t.staged == 3 && t.sum_max == 900 && t.unprofiled.n == 12 &&
		   !strcmp(t.payload_sha256, SHA),
	   "  with its counts and lists");

	strbuf_reset(&a);
	kpgo_stage_summary_report(&s, &a);
	ok(!strncmp(a.buf,
		    "profile: p.kpgo\npayload_sha256: " SHA "\nstaged: 3\n"
		    "profiled objects missing from the tree: 1\n  gone/x.gcda\n"
		    "objects in the tree without profile: 12\n  drivers/d00.o\n",
		    167),
	   "the --report text: head, then every list whole");
	ok(strstr(a.buf, "  drivers/d11.o\nstale .gcda files removed: 0\n") != NULL,
	   "  to its last item");
	strbuf_reset(&a);
	kpgo_stage_summary_lists(&s, 10, &a);
	ok(strstr(a.buf, "  drivers/d09.o\n  ... 2 more (see --report or -v)\n") &&
		   !strstr(a.buf, "d10"),
	   "the lists as printed: 10 items, then how many more");
	kpgo_stage_summary_release(&s);
	kpgo_stage_summary_release(&t);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_hostile(void)
{
	static const struct {
		const char *doc, *msg;
	} bad[] = {
		{ "[]", "not a summary of kpgo stage: not a JSON object" },
		{ "{\"profile\": \"p\"}",
		  "not a summary of kpgo stage: 'payload_sha256' is missing" },
		{ "{\"profile\": 1}",
		  "not a summary of kpgo stage: 'profile' is a number, not a string" },
		{ "{\"profile\": \"p\\u0007\"}",
		  "not a summary of kpgo stage: 'profile' has control characters or is not UTF-8" },
		{ "{\"profile\": \"caf\xe9\"}",
		  "not a summary of kpgo stage: 'profile' has control characters or is not UTF-8" },
		{ "{\"profile\": \"p\", \"payload_sha256\": \"abc\", \"staged\": 1, \"runs\": 1, "
		  "\"sum_max\": 1, \"scale\": 1, \"missing_from_tree\": [], \"tree_without_profile\": [], "
		  "\"removed_stale\": []}",
		  "not a summary of kpgo stage: 'payload_sha256' is not a sha256" },
		{ "{\"profile\": \"p\", \"payload_sha256\": \"" SHA "\", \"staged\": 1.5}",
		  "not a summary of kpgo stage: 'staged' is not a count (an integer, 0 or more)" },
		{ "{\"profile\": \"p\", \"payload_sha256\": \"" SHA "\", \"staged\": 1, \"runs\": 1, "
		  "\"sum_max\": 1, \"scale\": 1, \"missing_from_tree\": [3]}",
		  "not a summary of kpgo stage: 'missing_from_tree' item 1 is not text" },
		{ "{\"profile\": \"p\",", "expected a string key at offset 16" },
	};
	struct kpgo_stage_summary s;
	struct kpgo_error err;
	size_t i;

	kpgo_stage_summary_init(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(kpgo_stage_summary_parse(&s, bad[i].doc, strlen(bad[i].doc), &err), -EINVAL,
		       "refused: %s", bad[i].doc);
		is_str(err.msg, bad[i].msg, "  says why");
		ok(!s.profile && !s.missing.n, "  nothing kept");
	}
	is_int(kpgo_stage_summary_read(&s, "/nonexistent/s.json", &err), -ENOENT, "a missing file");
}

int main(void)
{
	test_round_trip();
	test_hostile();
	return done_testing();
}
