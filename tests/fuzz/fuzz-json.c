// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the JSON reader and kpgo afdo's reading of gcov's
 * documents: the input is a sequence of documents, as gcov prints them.
 * What the reader accepts is a well-formed tree (terminated strings of the
 * stated length, keys unique); what it refuses leaves nothing behind and a
 * message with an offset. Every accepted document goes to the conversion,
 * whose text must be lines of "NAME:TOTAL:HEAD" and " OFFSET: COUNT", and
 * whose definitions table must read back and fit the profile it came with.
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
	case KPGO_JSON_STRING:
		check(j->s && strlen(j->s) == j->len && !j->n);
		break;
	case KPGO_JSON_ARRAY:
		check(!j->k && !j->s && (j->n == 0 || j->v));
		break;
	case KPGO_JSON_OBJECT:
		check(!j->s && (j->n == 0 || (j->v && j->k)));
		for (i = 0; i < j->n; i++)
			check(j->k[i] && kpgo_json_get(j, j->k[i]) == &j->v[i]);
		break;
	default:
		check(!j->s && !j->n && !j->v && !j->k);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct strbuf out = STRBUF_INIT, defs = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_afdo *a;
	size_t pos = 0;

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
