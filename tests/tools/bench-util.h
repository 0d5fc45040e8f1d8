/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmark report tools (bench-report.c, decay-report.c) share:
 * failing with one message, allocation that cannot fail, a strbuf
 * printf, tab-separated fields, the median, and SVG text and grid steps.
 * Each tool defines BENCH_TOOL (its name, the messages' prefix) first.
 */
#ifndef KPGO_BENCH_UTIL_H
#define KPGO_BENCH_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#ifndef BENCH_TOOL
#error "define BENCH_TOOL (the tool's name) before including bench-util.h"
#endif

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static inline void die(const char *fmt, ...)
{
	va_list ap;

	fputs(BENCH_TOOL ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static inline char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

static inline void out(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void out(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	if (r)
		die("out of memory");
}

/* Splits @line at tabs into exactly @n fields; false when the count differs. */
static inline bool split(char *line, char **f, size_t n)
{
	size_t i = 0;

	for (;;) {
		char *tab = strchr(line, '\t');

		if (i == n)
			return false;
		f[i++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	return i == n;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @s escaped for SVG text and attributes. */
static inline void svg_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': out(sb, "&amp;"); break;
		case '<': out(sb, "&lt;"); break;
		case '>': out(sb, "&gt;"); break;
		case '"': out(sb, "&quot;"); break;
		default: out(sb, "%c", *s);
		}
	}
}

/* The grid step for a range: at most about 12 lines. */
static inline double tick_step(double lo, double hi)
{
	static const double steps[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100 };
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]) - 1; i++)
		if ((hi - lo) / steps[i] <= 12)
			break;
	return steps[i];
}

#endif
