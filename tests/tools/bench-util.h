/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmark report tools (bench-report.c, decay-report.c) share:
 * failing with one message, allocation that cannot fail, a strbuf
 * printf, tab-separated files, writing the outputs, the median's compare,
 * and SVG text and grid steps.
 * Each tool defines BENCH_TOOL (its name, the messages' prefix) first.
 */
#ifndef KPGO_BENCH_UTIL_H
#define KPGO_BENCH_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

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

/*
 * Calls @fn for each line after the header of the tab-separated text file
 * @path (at most @max bytes), split into exactly @n fields (at most 16);
 * the first line must be @header. Dies on anything else.
 */
static inline void read_tsv(const char *path, size_t max, const char *header, size_t n,
			    void (*fn)(char **f, const char *path, size_t lineno, void *arg),
			    void *arg)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *f[16];
	size_t lineno = 0;
	int r;

	if (n > sizeof(f) / sizeof(f[0]))
		die("read_tsv: %zu fields", n);
	r = kpgo_read_file(path, &sb, max);
	if (r)
		die("cannot read '%s': %s", path, strerror(-r));
	if (memchr(sb.buf, '\0', sb.len))
		die("'%s': not a text file", path);
	line = sb.buf;
	while (*line) {
		char *nl = strchr(line, '\n');

		if (!nl)
			die("'%s' line %zu: no newline at the end", path, lineno + 1);
		*nl = '\0';
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, header))
				die("'%s': the first line is not the header '%s'", path, header);
		} else if (!split(line, f, n)) {
			die("'%s' line %zu: not %zu tab-separated fields", path, lineno, n);
		} else {
			fn(f, path, lineno, arg);
		}
		line = nl + 1;
	}
	strbuf_release(&sb);
	if (lineno == 0)
		die("'%s' is empty", path);
}

/* @sb to the file @path (atomically), or to stdout when @path is NULL. */
static inline void write_out(const char *path, const struct strbuf *sb)
{
	int r;

	if (!path) {
		if (fwrite(sb->buf, 1, sb->len, stdout) != sb->len || fflush(stdout))
			die("cannot write the report: %s", strerror(errno));
		return;
	}
	r = kpgo_write_file_atomic(path, sb->buf, sb->len, 0644);
	if (r)
		die("cannot write '%s': %s", path, strerror(-r));
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
