// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

char kpgo_strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = kpgo_strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need, n;
	char *p;

	if (extra > SIZE_MAX - sb->len - 1)
		return -ENOMEM;
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	p = realloc(sb->alloc ? sb->buf : NULL, n);
	if (!p)
		return -ENOMEM;
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (strbuf_grow(sb, len))
		return -ENOMEM;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_addstr(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, char c)
{
	return strbuf_add(sb, &c, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -EINVAL;
	if (strbuf_grow(sb, (size_t)n))
		return -ENOMEM;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	if (!sb->alloc) {
		p = calloc(1, 1);
	} else {
		p = sb->buf;
	}
	strbuf_init(sb);
	return p;
}
