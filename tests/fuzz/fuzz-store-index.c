// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the store's index reader: read leniently it never
 * fails, and what it keeps is sorted, unique, of valid shas and values;
 * read strictly it fails exactly when the lenient read set lines aside;
 * what it keeps formats to text that reads back to the same entries, and
 * formats the same again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "store-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static bool same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static bool same_entry(const struct kpgo_store_entry *a, const struct kpgo_store_entry *b)
{
	return !strcmp(a->sha, b->sha) && same_str(a->release, b->release) &&
	       same_str(a->build_id, b->build_id) && same_str(a->arch, b->arch) &&
	       same_str(a->gcov_version, b->gcov_version) && same_str(a->workload, b->workload) &&
	       same_str(a->window_end, b->window_end) && same_str(a->added, b->added) &&
	       a->runs == b->runs && a->merged == b->merged && a->sum == b->sum;
}

static bool same_index(const struct kpgo_store_index *a, const struct kpgo_store_index *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!same_entry(&a->e[i], &b->e[i]))
			return false;
	return true;
}

static char *text_of(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	check(t != NULL);
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpgo_store_index idx = { 0 }, strict = { 0 }, back = { 0 };
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct kpgo_strlist bad = { 0 };
	struct kpgo_error err;
	char *t1, *t2;
	size_t i;
	int r;

	if (size > 1 << 20)
		return 0;
	t1 = text_of(data, size);
	t2 = text_of(data, size);
	err.msg[0] = '\0';
	check(kpgo_store_index_parse(t1, &idx, &bad, &err) == 0);
	for (i = 0; i < idx.n; i++) {
		const struct kpgo_store_entry *e = &idx.e[i];

		check(kpgo_store_sha_ok(e->sha));
		check(i == 0 || strcmp(idx.e[i - 1].sha, e->sha) < 0);
		check(kpgo_manifest_value_ok(e->release) && kpgo_manifest_value_ok(e->build_id) &&
		      kpgo_manifest_value_ok(e->arch) && kpgo_manifest_value_ok(e->gcov_version) &&
		      kpgo_manifest_value_ok(e->workload) &&
		      kpgo_manifest_value_ok(e->window_end) && kpgo_manifest_value_ok(e->added));
		check(kpgo_store_index_find(&idx, e->sha) == e);
	}
	for (i = 0; i < bad.n; i++)
		check(bad.items[i] && *bad.items[i]);

	err.msg[0] = '\0';
	r = kpgo_store_index_parse(t2, &strict, NULL, &err);
	if (bad.n)
		check(r == -EBADMSG && err.msg[0] != '\0');
	else
		check(r == 0 && same_index(&strict, &idx));

	check(kpgo_store_index_format(&idx, &out) == 0);
	check(kpgo_store_index_parse(out.buf, &back, NULL, &err) == 0);
	check(same_index(&back, &idx));
	check(kpgo_store_index_format(&back, &again) == 0);
	strbuf_release(&out);
	check(kpgo_store_index_format(&idx, &out) == 0);
	check(again.len == out.len && !memcmp(again.buf, out.buf, out.len));

	kpgo_store_index_release(&idx);
	kpgo_store_index_release(&strict);
	kpgo_store_index_release(&back);
	kpgo_strlist_clear(&bad);
	strbuf_release(&out);
	strbuf_release(&again);
	free(t1);
	free(t2);
	return 0;
}
