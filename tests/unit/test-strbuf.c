// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strbuf.h: the growable buffer's invariants (never NULL, always
 * terminated, the shared empty string never written), growth that fails
 * without harm, detach and release.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tap.h"

/*
 * Under AddressSanitizer a realloc() of SIZE_MAX bytes aborts by default;
 * the tests want to see it fail the way libc's does.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static bool sb_ok(const struct strbuf *sb)
{
	return sb->buf && sb->buf[sb->len] == '\0' && (!sb->alloc || sb->len < sb->alloc);
}

static void test_strbuf(void)
{
	struct strbuf a = STRBUF_INIT, b;
	char big[10000];
	size_t len = 99, alloc;
	char *p;

	ok(a.buf && a.buf[0] == '\0' && a.len == 0 && a.alloc == 0,
	   "STRBUF_INIT is an empty string");
	strbuf_init(&b);
	ok(b.buf == kpgo_strbuf_empty && b.len == 0 && b.alloc == 0, "strbuf_init is the same");
	strbuf_reset(&b);
	ok(sb_ok(&b) && kpgo_strbuf_empty[0] == '\0', "reset of an unallocated buffer");
	strbuf_release(&b);
	ok(b.buf == kpgo_strbuf_empty && b.alloc == 0, "release of an unallocated buffer");

	is_int(strbuf_add(&a, "", 0), 0, "add nothing");
	ok(sb_ok(&a) && a.len == 0, "still empty and terminated");
	is_int(strbuf_addstr(&a, "abc"), 0, "addstr");
	is_int(strbuf_addch(&a, 'd'), 0, "addch");
	is_int(strbuf_add(&a, "e\0f", 3), 0, "add bytes with a NUL");
	ok(sb_ok(&a) && a.len == 7 && !memcmp(a.buf, "abcde\0f", 8),
	   "binary bytes kept, terminated");
	is_int(strbuf_addf(&a, "-%d-%s", 42, "x"), 0, "addf");
	ok(sb_ok(&a) && a.len == 12 && !memcmp(a.buf + 7, "-42-x", 6), "addf appends");

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(strbuf_addf(&a, "%s|", big), 0, "addf of 10000 bytes grows the buffer");
	ok(sb_ok(&a) && a.len == 12 + 9999 + 1 && a.buf[a.len - 1] == '|' && a.buf[12] == 'z',
	   "long addf complete and terminated");

	alloc = a.alloc;
	p = a.buf;
	is_int(strbuf_grow(&a, SIZE_MAX), -ENOMEM, "growing by SIZE_MAX fails");
	is_int(strbuf_grow(&a, SIZE_MAX - a.len - 1), -ENOMEM, "growing to SIZE_MAX fails");
	ok(a.buf == p && a.alloc == alloc && a.len == 10012 && sb_ok(&a),
	   "a failed grow leaves the buffer as it was");
	is_int(strbuf_add(&a, big, SIZE_MAX), -ENOMEM, "add of SIZE_MAX bytes fails");
	ok(a.len == 10012 && sb_ok(&a), "a failed add leaves the buffer as it was");

	strbuf_reset(&a);
	ok(a.len == 0 && a.buf[0] == '\0' && a.alloc == alloc, "reset keeps the allocation");

	strbuf_addstr(&a, "hello");
	p = strbuf_detach(&a, &len);
	ok(p && !strcmp(p, "hello") && len == 5, "detach hands over the bytes");
	ok(a.buf == kpgo_strbuf_empty && a.len == 0 && a.alloc == 0, "detach re-initialises");
	free(p);
	p = strbuf_detach(&a, &len);
	ok(p && p != kpgo_strbuf_empty && p[0] == '\0' && len == 0,
	   "detach of an empty buffer gives a freeable empty string");
	free(p);

	strbuf_addstr(&a, "x");
	strbuf_release(&a);
	ok(a.buf == kpgo_strbuf_empty && a.len == 0 && a.alloc == 0, "release re-initialises");
	ok(kpgo_strbuf_empty[0] == '\0', "the shared empty string was never written");
}

int main(void)
{
	test_strbuf();
	return done_testing();
}
