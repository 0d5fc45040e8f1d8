// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the spool's state files (retry/<name>, a profile's
 * failed attempts, and retry/.upload, the upload's backoff): a refused
 * file is no state at all; an accepted one holds numbers within their
 * bounds and an error without control characters, formats to text that
 * reads back the same, and its backoff stays within its cap.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static bool error_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static void fuzz_item(const char *text, size_t size)
{
	struct kpgo_spool_item it, back;
	struct strbuf out = STRBUF_INIT;

	memset(&it, 0x5a, sizeof(it));
	if (kpgo_spool_retry_parse(text, size, &it)) {
		check(it.attempts == 0 && it.last_try == 0 && it.last_error[0] == '\0');
		return;
	}
	check(it.attempts <= KPGO_SPOOL_FAILURES_MAX && it.last_try >= 0);
	check(error_ok(it.last_error, sizeof(it.last_error)));
	check(kpgo_spool_retry_format(&it, &out) == 0);
	memset(&back, 0, sizeof(back));
	check(kpgo_spool_retry_parse(out.buf, out.len, &back) == 0);
	check(back.attempts == it.attempts && back.last_try == it.last_try &&
	      !strcmp(back.last_error, it.last_error));
	strbuf_release(&out);
}

static void fuzz_state(const char *text, size_t size)
{
	struct kpgo_spool_state st, back;
	struct strbuf out = STRBUF_INIT;
	uint64_t cap, d;

	memset(&st, 0x5a, sizeof(st));
	if (kpgo_spool_state_parse(text, size, &st)) {
		check(st.failures == 0 && st.next_try == 0 && st.last_error[0] == '\0');
		return;
	}
	check(st.failures <= KPGO_SPOOL_FAILURES_MAX && st.next_try >= 0);
	check(error_ok(st.last_error, sizeof(st.last_error)));
	check(kpgo_spool_state_format(&st, &out) == 0);
	memset(&back, 0, sizeof(back));
	check(kpgo_spool_state_parse(out.buf, out.len, &back) == 0);
	check(back.failures == st.failures && back.next_try == st.next_try &&
	      !strcmp(back.last_error, st.last_error));
	strbuf_release(&out);
	/* The settings allow a retry cap of 60 s to 7 days; try past them too. */
	for (cap = 60; cap; cap = cap < UINT64_MAX / 16 ? cap * 16 : 0) {
		d = kpgo_spool_backoff(st.failures, cap);
		check(d <= cap && d >= (cap < KPGO_SPOOL_RETRY_BASE ? cap : KPGO_SPOOL_RETRY_BASE));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	fuzz_item((const char *)data, size);
	fuzz_state((const char *)data, size);
	return 0;
}
