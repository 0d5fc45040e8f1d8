/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny Test Anything Protocol helper for the C unit tests, header-only.
 *
 *	plan(3);                      (or no plan: done_testing() prints it)
 *	ok(x == 1, "x is %d", 1);
 *	is_int(f(), 0, "f succeeds");
 *	is_str(err.msg, "bad magic", "message");
 *	return done_testing();        (exit status 1 on any failure)
 *
 * Every check prints "ok N - what" or "not ok N - what", and on failure a
 * "# got/expected" diagnostic with the file and line of the check.
 */
#ifndef KPGO_TAP_H
#define KPGO_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static inline int tap_vok(int cond, const char *file, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static inline int tap_vok(int cond, const char *file, int line, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return cond;
}

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(cond, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static inline int tap_is_int(long long got, long long want, const char *file, int line,
			     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int tap_is_int(long long got, long long want, const char *file, int line,
			     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#          got: %lld\n#     expected: %lld\n", got, want);
	fflush(stdout);
	return r;
}

static inline int tap_is_str(const char *got, const char *want, const char *file, int line,
			     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int tap_is_str(const char *got, const char *want, const char *file, int line,
			     const char *fmt, ...)
{
	va_list ap;
	int same = (!got && !want) || (got && want && !strcmp(got, want));
	int r;

	va_start(ap, fmt);
	r = tap_vok(same, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#          got: %s%s%s\n#     expected: %s%s%s\n", got ? "'" : "",
		       got ? got : "NULL", got ? "'" : "", want ? "'" : "", want ? want : "NULL",
		       want ? "'" : "");
	fflush(stdout);
	return r;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                                                     \
	tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

/* Counts as a passed test that did not run: "ok N # SKIP why". */
static inline void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void skip(const char *fmt, ...)
{
	va_list ap;

	tap_run++;
	printf("ok %d # SKIP ", tap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Prints the plan if none was given; returns the process exit status. */
static inline int done_testing(void)
{
	if (tap_planned < 0) {
		printf("1..%d\n", tap_run);
	} else if (tap_planned != tap_run) {
		printf("# planned %d tests but ran %d\n", tap_planned, tap_run);
		fflush(stdout);
		return 1;
	}
	if (tap_failed)
		printf("# failed %d of %d tests\n", tap_failed, tap_run);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

/* Stops the run: something the remaining tests need is missing. */
static inline void bail_out(const char *why) __attribute__((noreturn));
static inline void bail_out(const char *why)
{
	printf("Bail out! %s\n", why);
	fflush(stdout);
	exit(1);
}

#endif
