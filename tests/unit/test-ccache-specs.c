// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * toolchain.h, kpgo_ccache_*(): the options ccache 4.7 compiles uncached
 * moved to a specs file named by its content, as kpgo-kbuild's shell did
 * it (the same names, so that ccache's cache still hits): which words move,
 * the blanks of what stays, the file's text, written once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "toolchain.h"

static void split(const char *flags, const char *kept, const char *specs, int moved)
{
	struct strbuf k = STRBUF_INIT, s = STRBUF_INIT;

	is_int(kpgo_ccache_split(flags, &k, &s), moved, "'%s': %d moved", flags, moved);
	is_str(k.buf, kept, "  kept");
	is_str(s.buf, specs, "  the specs text");
	strbuf_release(&k);
	strbuf_release(&s);
}

static void test_split(void)
{
	split("-fprofile-use -fprofile-correction -fprofile-partial-training",
	      " -fprofile-use -fprofile-correction ", "*cc1_options:\n+ -fprofile-partial-training",
	      1);
	split("-fprofile-arcs -ftest-coverage -fprofile-update=prefer-atomic",
	      " -fprofile-arcs -ftest-coverage ", "*cc1_options:\n+ -fprofile-update=prefer-atomic",
	      1);
	split("-O3", " -O3 ", "", 0);
	split("", "  ", "", 0);
	split("-fprofile-update=single  -a -fprofile-update=single\t-b -fprofile-partial-training",
	      "  -a -fprofile-update=single\t-b ",
	      "*cc1_options:\n+ -fprofile-update=single -fprofile-update=single "
	      "-fprofile-partial-training",
	      3);
	split("-fprofile-partial-trainingx -fprofile-update",
	      " -fprofile-partial-trainingx -fprofile-update ", "", 0);
}

static void test_specs(void)
{
	char top[] = "/tmp/kpgo-specs-XXXXXX", dir[64], path[128], text[256], cmd[96];
	struct strbuf out = STRBUF_INIT, s = STRBUF_INIT;
	struct kpgo_error err;
	struct stat st1, st2;
	char name[24];
	FILE *f;
	size_t n;

	if (!mkdtemp(top))
		bail_out("mkdtemp");
	strbuf_addstr(&s, "*cc1_options:\n+ -fprofile-partial-training");
	kpgo_ccache_specs_name(&s, name);
	/* what `printf '%s' "$text" | sha256sum | cut -c1-16` said */
	is_str(name, "bcba39cf975dd12b.specs", "the name: the text's sha256, 16 hex digits");
	snprintf(dir, sizeof(dir), "%s/cache/kpgo-specs", top);
	is_int(kpgo_ccache_specs("-fprofile-use -fprofile-partial-training", dir, &out, &err), 0,
	       "a specs file in a directory made for it");
	snprintf(path, sizeof(path), "%s/bcba39cf975dd12b.specs", dir);
	snprintf(text, sizeof(text), "-fprofile-use -specs=%s", path);
	is_str(out.buf, text, "  the flags: the rest, then -specs=FILE");
	f = fopen(path, "r");
	n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	is_str(text, "*cc1_options:\n+ -fprofile-partial-training\n\n", "  the file's text");
	stat(path, &st1);
	chmod(dir, 0555);
	strbuf_reset(&out);
	is_int(kpgo_ccache_specs("-fprofile-use -fprofile-partial-training", dir, &out, &err), 0,
	       "the same flags again, the directory read-only: the file is there");
	stat(path, &st2);
	ok(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec &&
		   st1.st_ino == st2.st_ino,
	   "  not written again (ccache hashes its mtime)");
	strbuf_reset(&out);
	if (geteuid() == 0) {
		skip("root writes in a read-only directory");
	} else {
		is_int(kpgo_ccache_specs("-a -fprofile-update=atomic", dir, &out, &err), -EACCES,
		       "a new file in a directory that cannot be written: the error");
		is_str(out.buf, "-a -fprofile-update=atomic", "  the flags unchanged");
	}
	strbuf_reset(&out);
	is_int(kpgo_ccache_specs("-O3", "/nonexistent/x", &out, &err), 0,
	       "nothing to move: nothing written");
	is_str(out.buf, "-O3", "  the flags unchanged");
	chmod(dir, 0755);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		diag("cannot remove %s", top);
	strbuf_release(&out);
	strbuf_release(&s);
}

int main(void)
{
	test_split();
	test_specs();
	return done_testing();
}
