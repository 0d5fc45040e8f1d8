/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wl.h: what the workload programs (tests/bench/wl-*.c) share: options,
 * timing, the result line and error exits. Each program is one kernel path
 * mix, built static so that it runs in any guest (tests/e2e) and on any
 * host (benchmarks), and prints one line:
 *
 *   wl-NAME ops=N seconds=S ops_per_sec=R what="..."
 *
 * S in microseconds' resolution: under QEMU -icount, where the guest's
 * clock counts instructions, a run of a few milliseconds is still read to
 * a thousandth.
 *
 * Options every program takes: -n COUNT (operations), -h.
 */
#ifndef KPGO_WL_H
#define KPGO_WL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct wl {
	const char *name;
	const char *what;
	unsigned long ops;
	struct timespec start;
};

static inline void wl_die(const struct wl *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static inline void wl_usage(const struct wl *w, const char *extra, int status)
	__attribute__((noreturn));

/* "wl-NAME: MESSAGE: strerror(errno)" on stderr, exit 1. */
static inline void wl_die(const struct wl *w, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fprintf(stderr, "%s: ", w->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (e)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
	exit(1);
}

static inline void wl_usage(const struct wl *w, const char *extra, int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-n COUNT]%s\n  %s (default count %lu)\n",
		w->name, extra, w->what, w->ops);
	exit(status);
}

/* A count for -n: a positive decimal number. */
static inline unsigned long wl_count(const struct wl *w, const char *s)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n == 0 || s[0] == '-') {
		errno = 0;
		wl_die(w, "bad count '%s'", s);
	}
	return n;
}

/* The options of a program that takes -n COUNT and -h only. */
static inline void wl_options(struct wl *w, int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:h")) != -1) {
		switch (c) {
		case 'n': w->ops = wl_count(w, optarg); break;
		case 'h': wl_usage(w, "", 0); break;
		default: wl_usage(w, "", 2);
		}
	}
}

static inline void wl_start(struct wl *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->start);
}

static inline void wl_report(const struct wl *w)
{
	struct timespec end;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &end);
	secs = (double)(end.tv_sec - w->start.tv_sec) +
	       (double)(end.tv_nsec - w->start.tv_nsec) / 1e9;
	if (secs <= 0)
		secs = 1e-9;
	printf("%s ops=%lu seconds=%.6f ops_per_sec=%.1f what=\"%s\"\n", w->name, w->ops, secs,
	       (double)w->ops / secs, w->what);
	fflush(stdout);
}

/* write() or read() all of it; a short transfer is an error. */
static inline void wl_write_all(const struct wl *w, int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			wl_die(w, "write");
		p += r;
		len -= (size_t)r;
	}
}

static inline void wl_read_all(const struct wl *w, int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			wl_die(w, "read");
		if (r == 0) {
			errno = 0;
			wl_die(w, "read: unexpected end of file");
		}
		p += r;
		len -= (size_t)r;
	}
}

#endif
