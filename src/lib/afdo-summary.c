// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo afdo's summary: the lines it prints, and the JSON it hands kpgo
 * report, which puts the same lines in the report's head. See afdo.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "json-writer.h"

void kpgo_afdo_summary_init(struct kpgo_afdo_summary *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->gcov_first_message);
}

void kpgo_afdo_summary_release(struct kpgo_afdo_summary *s)
{
	free(s->output);
	free(s->defs);
	free(s->added_from);
	kpgo_strlist_clear(&s->no_gcno);
	kpgo_strlist_clear(&s->other_build);
	kpgo_strlist_clear(&s->rebuilt);
	kpgo_strlist_clear(&s->ambiguous);
	kpgo_strlist_clear(&s->unplaced_examples);
	strbuf_release(&s->gcov_first_message);
	kpgo_afdo_summary_init(s);
}

int kpgo_afdo_summary_set_files(struct kpgo_afdo_summary *s, const char *output,
				const struct strbuf *text, const char *defs)
{
	struct kpgo_sha256 *h = kpgo_sha256_new();
	char *o = strdup(output), *d = defs ? strdup(defs) : NULL;

	if (!h || !o || (defs && !d)) {
		kpgo_sha256_free(h);
		free(o);
		free(d);
		return -ENOMEM;
	}
	kpgo_sha256_update(h, text->buf, text->len);
	kpgo_sha256_final_hex(h, s->output_sha256); /* frees @h */
	free(s->output);
	free(s->defs);
	s->output = o;
	s->defs = d;
	return 0;
}

/* The counts, in the order of the document: one table for the writer and the reader. */
#define COUNTS(X)                                                                                  \
	X("profile_objects", s->profile_objects)                                                   \
	X("objects", s->st.objects)                                                                \
	X("functions", s->st.functions)                                                            \
	X("lines", s->st.lines)                                                                    \
	X("samples", s->st.samples)                                                                \
	X("unexecuted", s->st.unexecuted)                                                          \
	X("ambiguous_names", s->st.ambiguous_names)                                                \
	X("ambiguous_definitions", s->st.ambiguous_defs)                                           \
	X("ambiguous_samples", s->st.ambiguous_samples)                                            \
	X("weak_names", s->st.weak_names)                                                          \
	X("weak_definitions", s->st.weak_defs)                                                     \
	X("merged_definitions", s->st.merged_defs)                                                 \
	X("merged_copies", s->st.merged_copies)                                                    \
	X("unplaced_lines", s->st.unplaced_lines)                                                  \
	X("unplaced_samples", s->st.unplaced_samples)                                              \
	X("far_lines", s->st.far_lines)                                                            \
	X("negative_counts", s->st.negative_counts)                                                \
	X("gcov_messages", s->gcov_messages)

/* What kpgo afdo --add added (after "added_from"): written always, read when there. */
#define ADDED_COUNTS(X)                                                                            \
	X("added_functions", s->st.added_functions)                                                \
	X("added_records", s->st.added_records)                                                    \
	X("added_samples", s->st.added_samples)                                                    \
	X("added_known", s->st.added_known)                                                        \
	X("added_no_place", s->st.added_no_place)

int kpgo_afdo_summary_json(const struct kpgo_afdo_summary *s, struct strbuf *out)
{
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, out);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_string(&w, "output", s->output);
	kpgo_jw_string(&w, "output_sha256", s->output_sha256);
	kpgo_jw_string(&w, "defs", s->defs);
#define WRITE(key, field) kpgo_jw_u64(&w, key, field);
	COUNTS(WRITE)
#undef WRITE
	kpgo_jw_string(&w, "gcov_first_message", s->gcov_first_message.buf);
	kpgo_jw_strlist(&w, "without_gcno", &s->no_gcno);
	kpgo_jw_strlist(&w, "other_build", &s->other_build);
	kpgo_jw_strlist(&w, "ambiguous", &s->ambiguous);
	kpgo_jw_strlist(&w, "rebuilt", &s->rebuilt);
	kpgo_jw_u64(&w, "changed_functions", s->changed_functions);
	kpgo_jw_u64(&w, "moved_functions", s->moved_functions);
	/* Written, not read back: a summary without them is still one. */
	kpgo_jw_bool(&w, "inlined", s->inlined);
	kpgo_jw_u64(&w, "recovered_lines", s->st.recovered_lines);
	kpgo_jw_u64(&w, "recovered_samples", s->st.recovered_samples);
	kpgo_jw_string(&w, "added_from", s->added_from);
#define WRITE(key, field) kpgo_jw_u64(&w, key, field);
	ADDED_COUNTS(WRITE)
#undef WRITE
	kpgo_jw_object_begin(&w, "unplaced_causes");
	for (int c = 0; c < KPGO_AFDO_CAUSES; c++) {
		kpgo_jw_object_begin(&w, kpgo_afdo_cause_name(c));
		kpgo_jw_u64(&w, "lines", s->st.causes[c].lines);
		kpgo_jw_u64(&w, "samples", s->st.causes[c].samples);
		kpgo_jw_u64(&w, "header_samples", s->st.causes[c].header_samples);
		kpgo_jw_end(&w);
	}
	kpgo_jw_end(&w);
	kpgo_jw_strlist(&w, "unplaced_examples", &s->unplaced_examples);
	kpgo_jw_end(&w);
	return kpgo_jw_finish(&w);
}

static bool sha256_hex_ok(const char *s)
{
	return strlen(s) == KPGO_SHA256_HEX - 1 &&
	       strspn(s, "0123456789abcdef") == KPGO_SHA256_HEX - 1;
}

/* A count into a size_t or uint64_t field, whichever it is. */
static int get_count(const struct kpgo_json *doc, const char *key, void *field, size_t size,
		     struct kpgo_error *err)
{
	uint64_t v;
	size_t z;
	int r = kpgo_json_get_u64(doc, key, &v, err);

	if (r)
		return r;
	if (size == sizeof(v)) {
		memcpy(field, &v, sizeof(v));
		return 0;
	}
	if (v > SIZE_MAX)
		return kpgo_error_set(err, -EINVAL, "'%s' is too large", key);
	z = (size_t)v;
	memcpy(field, &z, sizeof(z));
	return 0;
}

/* One count of the document into its field, while none has failed (@r). */
#define READ(key, field)                                                                           \
	if (!r)                                                                                    \
		r = get_count(doc, key, &(field), sizeof(field), err);

static int parse_members(struct kpgo_afdo_summary *s, const struct kpgo_json *doc,
			 struct kpgo_error *err)
{
	const char *output, *sha, *defs, *first;
	int r = 0;

	if (doc->type != KPGO_JSON_OBJECT)
		return kpgo_error_set(err, -EINVAL, "not a JSON object");
	if ((r = kpgo_json_get_text(doc, "output", false, &output, err)) ||
	    (r = kpgo_json_get_text(doc, "output_sha256", false, &sha, err)) ||
	    (r = kpgo_json_get_text(doc, "defs", true, &defs, err)) ||
	    (r = kpgo_json_get_text(doc, "gcov_first_message", false, &first, err)))
		return r;
	if (!sha256_hex_ok(sha))
		return kpgo_error_set(err, -EINVAL, "'output_sha256' is not a sha256");
	COUNTS(READ)
	if (r)
		return r;
	if ((r = kpgo_json_get_textlist(doc, "without_gcno", &s->no_gcno, err)) ||
	    (r = kpgo_json_get_textlist(doc, "other_build", &s->other_build, err)) ||
	    (r = kpgo_json_get_textlist(doc, "ambiguous", &s->ambiguous, err)))
		return r;
	/* Objects of another compilation of the same code: optional (older summaries lack it). */
	if (kpgo_json_get(doc, "rebuilt")) {
		if ((r = kpgo_json_get_textlist(doc, "rebuilt", &s->rebuilt, err)))
			return r;
		READ("changed_functions", s->changed_functions)
		READ("moved_functions", s->moved_functions)
		if (r)
			return r;
	}
	/* What --add added, when it was given: optional (summaries before it lack it). */
	if (kpgo_json_get(doc, "added_from")) {
		const char *from;

		if ((r = kpgo_json_get_text(doc, "added_from", true, &from, err)))
			return r;
		ADDED_COUNTS(READ)
		if (r)
			return r;
		if (from && !(s->added_from = strdup(from)))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	memcpy(s->output_sha256, sha, KPGO_SHA256_HEX);
	s->output = strdup(output);
	s->defs = defs ? strdup(defs) : NULL;
	if (!s->output || (defs && !s->defs) || strbuf_addstr(&s->gcov_first_message, first))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	return 0;
}
#undef READ

static int parse_doc(void *ctx, const struct kpgo_json *doc, struct kpgo_error *err)
{
	int r = parse_members(ctx, doc, err);

	if (r)
		kpgo_error_prefix(err, "not a summary of kpgo afdo");
	return r;
}

int kpgo_afdo_summary_parse(struct kpgo_afdo_summary *s, const char *text, size_t len,
			    struct kpgo_error *err)
{
	int r;

	kpgo_afdo_summary_release(s);
	r = kpgo_json_doc_parse(text, len, parse_doc, s, err);
	if (r)
		kpgo_afdo_summary_release(s);
	return r;
}

int kpgo_afdo_summary_read(struct kpgo_afdo_summary *s, const char *path, struct kpgo_error *err)
{
	int r;

	kpgo_afdo_summary_release(s);
	r = kpgo_json_doc_read(path, KPGO_AFDO_SUMMARY_MAX, parse_doc, s, err);
	if (r)
		kpgo_afdo_summary_release(s);
	return r;
}

int kpgo_afdo_summary_warning(const struct kpgo_afdo_summary *s, struct strbuf *out)
{
	size_t start = out->len, i;
	int r;

	if (!s->gcov_messages)
		return 0;
	r = strbuf_addf(out, "gcov printed %zu message%s, the first: %s", s->gcov_messages,
			s->gcov_messages == 1 ? "" : "s", s->gcov_first_message.buf);
	/* gcov's own words: one line, whatever it printed. */
	for (i = start; !r && i < out->len; i++)
		if ((unsigned char)out->buf[i] < 0x20 || out->buf[i] == 0x7f)
			out->buf[i] = '?';
	return r;
}

/* @part as a percentage of @whole, for the summary. */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int kpgo_afdo_summary_format(const struct kpgo_afdo_summary *s, struct strbuf *out)
{
	const struct kpgo_afdo_stats *st = &s->st;
	uint64_t all = kpgo_sat_add(kpgo_sat_add(st->samples, st->ambiguous_samples),
				    st->unplaced_samples);
	int r;

	r = strbuf_addf(out,
			"kpgo afdo: wrote %zu functions (%zu lines) to '%s' from %zu of %zu objects; "
			"left out: %zu names with several definitions (%zu functions, %.1f%% of the "
			"line counts), %.1f%% of the line counts in no function, %zu unexecuted "
			"functions, %zu objects without .gcno, %zu of another build; %zu copies of %zu "
			"functions merged; %zu weak definitions of %zu names overridden by a strong "
			"one\n",
			st->functions, st->lines, s->output, st->objects, s->profile_objects,
			st->ambiguous_names, st->ambiguous_defs, pct(st->ambiguous_samples, all),
			pct(st->unplaced_samples, all), st->unexecuted, s->no_gcno.n,
			s->other_build.n, st->merged_copies, st->merged_defs, st->weak_defs,
			st->weak_names);
	if (!r && s->rebuilt.n)
		r = strbuf_addf(out,
				"kpgo afdo: %zu objects' .gcno of another compilation, paired by their "
				"functions' idents and control flow checksums: %zu functions changed "
				"since (or gone) left out, %zu whose source lines moved kept with the "
				".gcno's lines\n",
				s->rebuilt.n, s->changed_functions, s->moved_functions);
	if (!r && s->added_from)
		r = strbuf_addf(out,
				"kpgo afdo: added %zu functions (%zu lines) of '%s', whose names gcov has "
				"no function of; kept gcov's counts for %zu of its functions, left out %zu "
				"without a place\n",
				st->added_functions, st->added_records, s->added_from,
				st->added_known, st->added_no_place);
	if (!r && (st->far_lines || st->negative_counts))
		r = strbuf_addf(out,
				"kpgo afdo: also left out: %zu lines 65536 or more past their "
				"function's first line; %zu negative counts taken as 0\n",
				st->far_lines, st->negative_counts);
	return r;
}

int kpgo_afdo_summary_format_causes(const struct kpgo_afdo_summary *s, struct strbuf *out)
{
	const struct kpgo_afdo_stats *st = &s->st;
	/* All line counts, as before any was recovered. */
	uint64_t all = kpgo_sat_add(kpgo_sat_add(st->samples, st->ambiguous_samples),
				    st->unplaced_samples);
	int r = strbuf_addstr(out,
			      "kpgo afdo: line counts in no function, by cause (of all line counts):");
	size_t i;

	for (i = 0; i < KPGO_AFDO_CAUSES && !r; i++)
		r = strbuf_addf(out, "%s %s %.1f%% (%zu lines)", i ? "," : "",
				kpgo_afdo_cause_name(i), pct(st->causes[i].samples, all),
				st->causes[i].lines);
	if (!r)
		r = strbuf_addf(out,
				"\nkpgo afdo: %s: %zu lines, %.1f%% of all line counts, into "
				"the inlined functions' own records\n",
				s->inlined ? "recovered (--inlined)" : "recoverable with --inlined",
				s->inlined ? st->recovered_lines : 0,
				s->inlined ?
					pct(st->recovered_samples, all) :
					pct(kpgo_sat_add(st->causes[KPGO_AFDO_INLINED_BODY].samples,
							 st->causes[KPGO_AFDO_INLINED_SOURCE].samples),
					    all));
	for (i = 0; i < s->unplaced_examples.n && !r; i++)
		r = strbuf_addf(out, "  %s\n", s->unplaced_examples.items[i]);
	return r;
}
