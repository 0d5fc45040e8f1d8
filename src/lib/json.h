/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_JSON_H
#define KPGO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * A small, strict JSON reader (RFC 8259) for what gcov --json-format
 * prints: the whole document becomes a tree. Strict about the grammar (no
 * trailing commas, comments, single quotes, leading zeros, bare words, or
 * a key twice in one object); bytes above 0x7f in strings are passed
 * through as they are, as GCC's own writer does with file names.
 * Nesting is bounded by KPGO_JSON_DEPTH_MAX.
 */
#define KPGO_JSON_DEPTH_MAX 64

enum kpgo_json_type {
	KPGO_JSON_NULL,
	KPGO_JSON_FALSE,
	KPGO_JSON_TRUE,
	KPGO_JSON_NUMBER,
	KPGO_JSON_STRING,
	KPGO_JSON_ARRAY,
	KPGO_JSON_OBJECT,
};

/**
 * struct kpgo_json - one value
 * @type: what it is
 * @is_int: a NUMBER written without fraction or exponent that fits @i
 * @i: its value when @is_int
 * @s, @len: a STRING, decoded and NUL-terminated (a "\u0000" escape is
 *           refused, so @s is a complete C string)
 * @n: members of an ARRAY or OBJECT
 * @v: their values
 * @k: an OBJECT's keys, in document order (NULL for an ARRAY)
 */
struct kpgo_json {
	enum kpgo_json_type type;
	bool is_int;
	int64_t i;
	char *s;
	size_t len;
	size_t n;
	struct kpgo_json *v;
	char **k;
};

/**
 * kpgo_json_parse() - parse one value from @text
 * @text, @len: the bytes (not trusted; need not be NUL-terminated)
 * @used: set to the bytes consumed, trailing whitespace included, so that
 *        a caller can read a sequence of documents (gcov prints one per
 *        input file); NULL when the value must fill all of @text
 * @out: the value on success; on failure left as KPGO_JSON_NULL with
 *       nothing allocated
 * @err: on failure "<problem> at offset N"
 *
 * Returns 0, -EINVAL for bad JSON, -ENOMEM.
 */
int kpgo_json_parse(const char *text, size_t len, size_t *used, struct kpgo_json *out,
		    struct kpgo_error *err);
void kpgo_json_release(struct kpgo_json *j);

/* The member @key of an OBJECT; NULL when absent or @obj is no object. */
const struct kpgo_json *kpgo_json_get(const struct kpgo_json *obj, const char *key);

/* "object", "string", ... for messages. */
const char *kpgo_json_type_name(enum kpgo_json_type t);

/*
 * The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF) at @s, 0 when there is
 * none; 1 for an ASCII byte.
 */
size_t kpgo_json_utf8_len(const unsigned char *s);

/*
 * kpgo's own documents (one step's summary for the next): @text parsed as
 * one document and handed to @fn, whose return is returned, or the parse
 * error. _read() reads the file at @path first, at most @max bytes
 * (-EFBIG: "larger than N MiB"; other errors: strerror).
 */
typedef int (*kpgo_json_doc_fn)(void *ctx, const struct kpgo_json *doc, struct kpgo_error *err);
int kpgo_json_doc_parse(const char *text, size_t len, kpgo_json_doc_fn fn, void *ctx,
			struct kpgo_error *err);
int kpgo_json_doc_read(const char *path, size_t max, kpgo_json_doc_fn fn, void *ctx,
		       struct kpgo_error *err);

/*
 * Members of kpgo's own documents, which one step writes for the next and
 * which are read as untrusted: an integer from 0 to INT64_MAX, text (a
 * UTF-8 string without control characters; with @nullable, null gives NULL),
 * an array of text. Each fails with -EINVAL and "'KEY' is missing" or
 * "'KEY' is a string, not an integer" (or the like) in @err; the strings
 * point into @obj.
 */
int kpgo_json_get_u64(const struct kpgo_json *obj, const char *key, uint64_t *v,
		      struct kpgo_error *err);
int kpgo_json_get_text(const struct kpgo_json *obj, const char *key, bool nullable, const char **s,
		       struct kpgo_error *err);
/* Appends the array's strings to @l. */
int kpgo_json_get_textlist(const struct kpgo_json *obj, const char *key, struct kpgo_strlist *l,
			   struct kpgo_error *err);

#endif
