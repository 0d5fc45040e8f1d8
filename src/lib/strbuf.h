/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STRBUF_H
#define KPGO_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/**
 * struct strbuf - growable byte buffer, after git's strbuf
 * @buf: the bytes; never NULL, always followed by a NUL byte
 * @len: bytes in use (not counting the terminating NUL)
 * @alloc: bytes allocated, 0 while @buf points at the shared empty string
 *
 * Invariants: @buf is never NULL and @buf[@len] is always '\0', so a
 * strbuf can be passed where a C string is wanted. Functions that grow the
 * buffer return 0 or -ENOMEM; on -ENOMEM the buffer is left as it was.
 */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char kpgo_strbuf_empty[];
#define STRBUF_INIT                                                                                \
	{                                                                                          \
		.buf = kpgo_strbuf_empty, .len = 0, .alloc = 0                                     \
	}

void strbuf_init(struct strbuf *sb);
/* Frees the bytes and leaves @sb as after strbuf_init(). */
void strbuf_release(struct strbuf *sb);
/* Empties @sb but keeps its allocation. */
void strbuf_reset(struct strbuf *sb);
int strbuf_grow(struct strbuf *sb, size_t extra);
int strbuf_add(struct strbuf *sb, const void *data, size_t len);
int strbuf_addstr(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, char c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hands the bytes to the caller (who frees them) and re-initialises @sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

#endif
