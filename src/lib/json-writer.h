/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_JSON_WRITER_H
#define KPGO_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "strbuf.h"
#include "util.h"

/*
 * Writing JSON (RFC 8259) into a strbuf, as git's json-writer.h does: the
 * commands' --json output and the files one step hands the next. Every
 * string is escaped; bytes that are not UTF-8 become U+FFFD, so what is
 * written always parses. Containers are laid out one member a line,
 * indented by two spaces, or all on one line when begun "inline" (and
 * everything nested in those too):
 *
 *	struct kpgo_json_writer w;
 *
 *	kpgo_jw_init(&w, &sb);
 *	kpgo_jw_object_begin(&w, NULL);
 *	kpgo_jw_string(&w, "profile", path);
 *	kpgo_jw_u64(&w, "staged", n);
 *	kpgo_jw_end(&w);
 *	if (kpgo_jw_finish(&w))
 *		return -ENOMEM;
 *
 * Members of an object need a key, items of an array and the top value
 * none. The first failure (-ENOMEM, or -EINVAL for a misuse such as a
 * missing key, an end too many or nesting past %KPGO_JSON_DEPTH_MAX)
 * sticks: later calls do nothing, and kpgo_jw_finish() returns it.
 */
struct kpgo_json_writer {
	struct strbuf *out;
	int err;
	unsigned depth;
	bool done;
	struct {
		bool object;
		bool inline_;
		bool empty;
	} level[KPGO_JSON_DEPTH_MAX];
};

/* Appends to @out. */
void kpgo_jw_init(struct kpgo_json_writer *w, struct strbuf *out);

void kpgo_jw_object_begin(struct kpgo_json_writer *w, const char *key);
void kpgo_jw_object_begin_inline(struct kpgo_json_writer *w, const char *key);
void kpgo_jw_array_begin(struct kpgo_json_writer *w, const char *key);
void kpgo_jw_array_begin_inline(struct kpgo_json_writer *w, const char *key);
/* Closes the innermost object or array. */
void kpgo_jw_end(struct kpgo_json_writer *w);

/* @s escaped; NULL writes null. */
void kpgo_jw_string(struct kpgo_json_writer *w, const char *key, const char *s);
void kpgo_jw_u64(struct kpgo_json_writer *w, const char *key, uint64_t v);
void kpgo_jw_bool(struct kpgo_json_writer *w, const char *key, bool v);
void kpgo_jw_null(struct kpgo_json_writer *w, const char *key);
/*
 * A number as the caller printed it ("99.8"); -EINVAL unless it is one
 * (-?(0|[1-9][0-9]*)(.[0-9]+)?, no exponent).
 */
void kpgo_jw_number(struct kpgo_json_writer *w, const char *key, const char *text);
/*
 * A share or ratio as a fixed-point number with six decimals ("0.123457");
 * null when @v is not finite.
 */
void kpgo_jw_fraction(struct kpgo_json_writer *w, const char *key, double v);
/* The strings of @l as an array. */
void kpgo_jw_strlist(struct kpgo_json_writer *w, const char *key, const struct kpgo_strlist *l);

/*
 * Ends the document with a newline; -EINVAL if a container is still
 * open or nothing was written. Returns 0 or the first error.
 */
int kpgo_jw_finish(struct kpgo_json_writer *w);

/* @s as a JSON string literal, quotes included, appended to @out. */
int kpgo_json_quote(struct strbuf *out, const char *s);

#endif
