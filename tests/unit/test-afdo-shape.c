// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-shape.c: which gcov versions are the profile's GCC's, and source
 * file names as one key.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "afdo.h"
#include "tap.h"

/* 'B22*', GCC 12.2's gcov version stamp. */
#define V12 (((uint32_t)'B' << 24) | ('2' << 16) | ('2' << 8) | '*')

static void test_versions(void)
{
	static const struct {
		const char *v;
		bool match;
	} t[] = {
		{ "12.2.0", true },	   { "12.2", true },	{ "12.2.1-14", true },
		{ "12.2 (Debian)", true }, { "12.3.0", false }, { "13.2.0", false },
		{ "1.2.0", false },	   { "12", false },	{ "", false },
		{ "abc", false },	   { "12.2x", false },	{ "12.22.0", false },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_int(kpgo_afdo_version_matches(t[i].v, V12), t[i].match, "'%s' %s GCC 12.2",
		       t[i].v, t[i].match ? "is" : "is not");
	ok(!kpgo_afdo_version_matches("12.2.0", 0x12345678), "no stamp, no match");
}

static void test_source_keys(void)
{
	static const struct {
		const char *cwd, *file, *key;
	} t[] = {
		{ "/a/b", "c.c", "/a/b/c.c" },
		{ "/a/b", "../c.c", "/a/c.c" },
		{ "/a/b", "./c//d.h", "/a/b/c/d.h" },
		{ "/a", "/x/./y/../z.h", "/x/z.h" },
		{ "/", "../../x", "/x" },
		{ "", "a/../../b", "../b" },
		{ "", "../..", "../.." },
		{ "rel", "x.c", "rel/x.c" },
		{ "", "", "." },
		{ "/k", "include/linux/list.h", "/k/include/linux/list.h" },
		{ "/k/build", "../include/../include/linux/x.h", "/k/include/linux/x.h" },
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		strbuf_reset(&sb);
		is_int(kpgo_afdo_source_key(t[i].cwd, t[i].file, &sb), 0, "key of '%s' in '%s'",
		       t[i].file, t[i].cwd);
		is_str(sb.buf, t[i].key, "is '%s'", t[i].key);
	}
	strbuf_release(&sb);
}

int main(void)
{
	test_versions();
	test_source_keys();
	return done_testing();
}
