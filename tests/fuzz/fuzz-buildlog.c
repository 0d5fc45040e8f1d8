// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the build log reader: any bytes, cut anywhere, give
 * the same warnings as read whole; no string it keeps has a control
 * character; each count is at most the number of warnings of its kind.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buildlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static const char *const trees[] = { "/build/pgo", "/" };

static int parse(const uint8_t *data, size_t size, size_t cut, struct kpgo_buildlog *log)
{
	struct kpgo_error err;
	int r;

	check(kpgo_buildlog_init(log, trees, 2) == 0);
	r = kpgo_buildlog_feed(log, data, cut, &err);
	if (!r)
		r = kpgo_buildlog_feed(log, data + cut, size - cut, &err);
	if (!r)
		r = kpgo_buildlog_finish(log, &err);
	return r;
}

static bool clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpgo_buildlog a, b;
	size_t i, k, n, total;
	int ra, rb;

	ra = parse(data, size, 0, &a);
	rb = parse(data, size, size ? data[0] % (size + 1) : 0, &b);
	check(ra == rb);
	check(!ra || ra == -EBADMSG);
	if (!ra) {
		check(a.n == b.n && a.cc_lines == b.cc_lines && a.in.lines == b.in.lines &&
		      a.in.long_lines == b.in.long_lines);
		for (i = 0; i < a.n; i++) {
			check(a.w[i].kind == b.w[i].kind && !strcmp(a.w[i].obj, b.w[i].obj) &&
			      !strcmp(a.w[i].where, b.w[i].where) &&
			      !strcmp(a.w[i].fn, b.w[i].fn) && !strcmp(a.w[i].msg, b.w[i].msg));
			check(clean(a.w[i].obj) && clean(a.w[i].where) && clean(a.w[i].fn) &&
			      clean(a.w[i].msg));
			check(a.w[i].kind < KPGO_WARN_KINDS);
		}
		for (k = 0; k < KPGO_WARN_KINDS; k++) {
			for (i = 0, total = 0; i < a.n; i++)
				total += a.w[i].kind == k;
			check(kpgo_buildlog_count(&a, (enum kpgo_warn_kind)k, &n) == 0 && n <= total);
		}
	}
	kpgo_buildlog_release(&a);
	kpgo_buildlog_release(&b);
	return 0;
}
