// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the JSON reader and kpgo afdo's reading of gcov's
 * documents: the input is a sequence of documents, as gcov prints them.
 * What the reader accepts is a well-formed tree (terminated strings of the
 * stated length, keys unique); what it refuses leaves nothing behind and a
 * message with an offset. Every accepted document goes to the conversion,
 * whose text must be lines of "NAME:TOTAL:HEAD" and " OFFSET: COUNT", and
 * whose definitions table must read back and fit the profile it came with.
 * The whole input is also read as the steps' summaries (kpgo afdo's and
 * kpgo stage's): one that is accepted writes a document that reads back
 * to the same.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "afdo.h"
#include "json.h"
#include "stage-summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define V12 (((uint32_t)'B' << 24) | ('2' << 16) | ('2' << 8) | '*')

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void check_tree(const struct kpgo_json *j, unsigned depth)
{
	size_t i;

	check(depth <= KPGO_JSON_DEPTH_MAX + 1);
	switch (j->type) {
	case KPGO_JSON_STRING: check(j->s && strlen(j->s) == j->len && !j->n); break;
	case KPGO_JSON_ARRAY: check(!j->k && !j->s && (j->n == 0 || j->v)); break;
	case KPGO_JSON_OBJECT:
		check(!j->s && (j->n == 0 || (j->v && j->k)));
		for (i = 0; i < j->n; i++)
			check(j->k[i] && kpgo_json_get(j, j->k[i]) == &j->v[i]);
		break;
	default: check(!j->s && !j->n && !j->v && !j->k);
	}
	for (i = 0; i < j->n; i++)
		check_tree(&j->v[i], depth + 1);
}

static void check_text(const struct strbuf *out)
{
	const char *p = out->buf, *e = out->buf + out->len;

	check(!out->len || out->buf[out->len - 1] == '\n');
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));

		check(nl && nl > p);
		if (*p == ' ')
			check(p[1] >= '0' && p[1] <= '9' && memchr(p, ':', (size_t)(nl - p)));
		else
			check(memchr(p, ':', (size_t)(nl - p)) != NULL);
		p = nl + 1;
	}
}

/* The table reads back (but for a line too long for the readers) and fits its profile. */
static void check_defs(const struct strbuf *out, const struct strbuf *table)
{
	struct kpgo_strlist names = { 0 };
	struct kpgo_afdo_defs d;
	struct kpgo_afdo_text t;
	struct kpgo_error err;
	int r;

	kpgo_afdo_defs_init(&d);
	r = kpgo_afdo_defs_parse(&d, table->buf, table->len, &err);
	check(r == 0 || (r == -EINVAL && strstr(err.msg, "longer than")));
	if (!r && !kpgo_afdo_text_parse(&t, out->buf, out->len, &names, &err))
		check(kpgo_afdo_defs_check(&d, &names, &err) == 0);
	kpgo_afdo_defs_release(&d);
	kpgo_strlist_clear(&names);
}

static bool same_list(const struct kpgo_strlist *a, const struct kpgo_strlist *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]))
			return false;
	return true;
}

/* An accepted summary writes JSON that reads back to the same summary. */
static void check_summaries(const char *text, size_t size)
{
	struct kpgo_afdo_summary a, a2;
	struct kpgo_stage_summary s, s2;
	struct strbuf out = STRBUF_INIT;
	struct kpgo_error err;

	kpgo_afdo_summary_init(&a);
	kpgo_afdo_summary_init(&a2);
	if (!kpgo_afdo_summary_parse(&a, text, size, &err)) {
		check(kpgo_afdo_summary_json(&a, &out) == 0);
		check(kpgo_afdo_summary_parse(&a2, out.buf, out.len, &err) == 0);
		check(!strcmp(a.output, a2.output) && !strcmp(a.output_sha256, a2.output_sha256) &&
		      !memcmp(&a.st, &a2.st, sizeof(a.st)) &&
		      !strcmp(a.gcov_first_message.buf, a2.gcov_first_message.buf) &&
		      same_list(&a.ambiguous, &a2.ambiguous) && same_list(&a.no_gcno, &a2.no_gcno));
		strbuf_reset(&out);
		check(kpgo_afdo_summary_format(&a, &out) == 0 &&
		      kpgo_afdo_summary_warning(&a, &out) == 0);
	} else {
		check(err.msg[0] != '\0' && !a.output);
	}
	kpgo_afdo_summary_release(&a);
	kpgo_afdo_summary_release(&a2);
	strbuf_reset(&out);
	kpgo_stage_summary_init(&s);
	kpgo_stage_summary_init(&s2);
	if (!kpgo_stage_summary_parse(&s, text, size, &err)) {
		check(kpgo_stage_summary_json(&s, &out) == 0);
		check(kpgo_stage_summary_parse(&s2, out.buf, out.len, &err) == 0);
		check(!strcmp(s.profile, s2.profile) && s.staged == s2.staged &&
		      same_list(&s.missing, &s2.missing) && same_list(&s.removed, &s2.removed));
		strbuf_reset(&out);
		check(kpgo_stage_summary_report(&s, &out) == 0);
	} else {
		check(!s.profile);
	}
	kpgo_stage_summary_release(&s);
	kpgo_stage_summary_release(&s2);
	strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct strbuf out = STRBUF_INIT, defs = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_afdo *a;
	size_t pos = 0;

	check_summaries(text, size);
	if (kpgo_afdo_new(&a, V12))
		return 0;
	while (pos < size) {
		struct kpgo_json doc;
		struct kpgo_error err;
		size_t used = 0;
		int r;

		err.msg[0] = '\0';
		r = kpgo_json_parse(text + pos, size - pos, &used, &doc, &err);
		if (r) {
			check((r == -EINVAL || r == -ENOMEM) && err.msg[0] != '\0');
			check(doc.type == KPGO_JSON_NULL && !doc.v && !doc.k && !doc.s && !doc.n);
			break;
		}
		check(used > 0 && used <= size - pos);
		check_tree(&doc, 0);
		r = kpgo_afdo_add_gcov(a, &doc, "fuzz.gcda", &err);
		check(r == 0 || ((r == -EINVAL || r == -ENOMEM) && err.msg[0] != '\0'));
		kpgo_json_release(&doc);
		pos += used;
	}
	check(kpgo_afdo_write(a, NULL, NULL, &out, &defs, &st, NULL) == 0);
	check_text(&out);
	check_defs(&out, &defs);
	kpgo_afdo_free(a);
	strbuf_release(&out);
	strbuf_release(&defs);
	return 0;
}
