// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "json.h"
#include "stage-summary.h"

#define SUMMARY_MAX (64u << 20)

void kpgo_stage_summary_init(struct kpgo_stage_summary *s)
{
	memset(s, 0, sizeof(*s));
}

void kpgo_stage_summary_release(struct kpgo_stage_summary *s)
{
	free(s->profile);
	kpgo_strlist_clear(&s->missing);
	kpgo_strlist_clear(&s->unprofiled);
	kpgo_strlist_clear(&s->removed);
	kpgo_stage_summary_init(s);
}

static void move_list(struct kpgo_strlist *to, struct kpgo_strlist *from)
{
	kpgo_strlist_clear(to);
	*to = *from;
	memset(from, 0, sizeof(*from));
}

int kpgo_stage_summary_take(struct kpgo_stage_summary *s, const char *profile,
			    const char *payload_sha256, struct kpgo_stage_result *res)
{
	char *p = strdup(profile);

	if (!p)
		return -ENOMEM;
	free(s->profile);
	s->profile = p;
	snprintf(s->payload_sha256, sizeof(s->payload_sha256), "%s",
		 payload_sha256 ? payload_sha256 : "");
	s->staged = res->staged;
	s->runs = res->runs;
	s->sum_max = res->sum_max;
	s->scale = res->scale;
	move_list(&s->missing, &res->missing);
	move_list(&s->unprofiled, &res->unprofiled);
	move_list(&s->removed, &res->removed);
	return 0;
}

int kpgo_stage_summary_json(const struct kpgo_stage_summary *s, struct strbuf *out)
{
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, out);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_string(&w, "profile", s->profile);
	kpgo_jw_string(&w, "payload_sha256", s->payload_sha256);
	kpgo_jw_u64(&w, "staged", s->staged);
	kpgo_jw_u64(&w, "runs", s->runs);
	kpgo_jw_u64(&w, "sum_max", s->sum_max);
	kpgo_jw_u64(&w, "scale", s->scale);
	kpgo_jw_strlist(&w, "missing_from_tree", &s->missing);
	kpgo_jw_strlist(&w, "tree_without_profile", &s->unprofiled);
	kpgo_jw_strlist(&w, "removed_stale", &s->removed);
	kpgo_jw_end(&w);
	return kpgo_jw_finish(&w);
}

static int parse_members(struct kpgo_stage_summary *s, const struct kpgo_json *doc,
			 struct kpgo_error *err)
{
	const char *profile, *sha;
	int r;

	if (doc->type != KPGO_JSON_OBJECT)
		return kpgo_error_set(err, -EINVAL, "not a JSON object");
	if ((r = kpgo_json_get_text(doc, "profile", false, &profile, err)) ||
	    (r = kpgo_json_get_text(doc, "payload_sha256", false, &sha, err)) ||
	    (r = kpgo_json_get_u64(doc, "staged", &s->staged, err)) ||
	    (r = kpgo_json_get_u64(doc, "runs", &s->runs, err)) ||
	    (r = kpgo_json_get_u64(doc, "sum_max", &s->sum_max, err)) ||
	    (r = kpgo_json_get_u64(doc, "scale", &s->scale, err)) ||
	    (r = kpgo_json_get_textlist(doc, "missing_from_tree", &s->missing, err)) ||
	    (r = kpgo_json_get_textlist(doc, "tree_without_profile", &s->unprofiled, err)) ||
	    (r = kpgo_json_get_textlist(doc, "removed_stale", &s->removed, err)))
		return r;
	if (strlen(sha) != KPGO_SHA256_HEX - 1 ||
	    strspn(sha, "0123456789abcdef") != KPGO_SHA256_HEX - 1)
		return kpgo_error_set(err, -EINVAL, "'payload_sha256' is not a sha256");
	memcpy(s->payload_sha256, sha, KPGO_SHA256_HEX);
	s->profile = strdup(profile);
	return s->profile ? 0 : kpgo_error_set(err, -ENOMEM, "out of memory");
}

static int parse_doc(void *ctx, const struct kpgo_json *doc, struct kpgo_error *err)
{
	int r = parse_members(ctx, doc, err);

	if (r)
		kpgo_error_prefix(err, "not a summary of kpgo stage");
	return r;
}

int kpgo_stage_summary_parse(struct kpgo_stage_summary *s, const char *text, size_t len,
			     struct kpgo_error *err)
{
	int r;

	kpgo_stage_summary_release(s);
	r = kpgo_json_doc_parse(text, len, parse_doc, s, err);
	if (r)
		kpgo_stage_summary_release(s);
	return r;
}

int kpgo_stage_summary_read(struct kpgo_stage_summary *s, const char *path, struct kpgo_error *err)
{
	int r;

	kpgo_stage_summary_release(s);
	r = kpgo_json_doc_read(path, SUMMARY_MAX, parse_doc, s, err);
	if (r)
		kpgo_stage_summary_release(s);
	return r;
}

static int list(struct strbuf *out, const char *title, const struct kpgo_strlist *l, size_t max)
{
	size_t i;
	int r = strbuf_addf(out, "%s: %zu\n", title, l->n);

	for (i = 0; !r && i < l->n && i < max; i++)
		r = strbuf_addf(out, "  %s\n", l->items[i]);
	if (!r && l->n > max)
		r = strbuf_addf(out, "  ... %zu more (see --report or -v)\n", l->n - max);
	return r;
}

int kpgo_stage_summary_lists(const struct kpgo_stage_summary *s, size_t max, struct strbuf *out)
{
	int r = list(out, "profiled objects missing from the tree", &s->missing, max);

	if (!r)
		r = list(out, "objects in the tree without profile", &s->unprofiled, max);
	if (!r)
		r = list(out, "stale .gcda files removed", &s->removed, max);
	return r;
}

int kpgo_stage_summary_report(const struct kpgo_stage_summary *s, struct strbuf *out)
{
	int r = strbuf_addf(out, "profile: %s\npayload_sha256: %s\nstaged: %" PRIu64 "\n",
			    s->profile, s->payload_sha256, s->staged);

	return r ? r : kpgo_stage_summary_lists(s, SIZE_MAX, out);
}
