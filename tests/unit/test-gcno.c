// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .gcno reader (gcno.h). Files are built word by word here in both
 * layouts (GCC 12's bytes and GCC 11's words); where GCC 12 and GCC 11 are
 * installed, their own notes files are read and checked against what the
 * compiled source says, and against the .gcda the program writes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcda.h"
#include "gcno.h"
#include "tap.h"

static uint32_t stamp_of(const char *s)
{
	return (uint32_t)(unsigned char)s[0] << 24 | (uint32_t)(unsigned char)s[1] << 16 |
	       (uint32_t)(unsigned char)s[2] << 8 | (uint32_t)(unsigned char)s[3];
}

static void w32(struct strbuf *b, uint32_t v)
{
	if (strbuf_add(b, &v, 4))
		bail_out("out of memory");
}

/* A string in GCC 12's layout (@words false) or GCC 11's. */
static void wstr(struct strbuf *b, bool words, const char *s)
{
	size_t n = strlen(s) + 1;

	if (!words) {
		w32(b, (uint32_t)n);
		if (strbuf_add(b, s, n))
			bail_out("out of memory");
		return;
	}
	w32(b, (uint32_t)((n + 3) / 4));
	if (strbuf_add(b, s, n))
		bail_out("out of memory");
	while (n++ % 4)
		if (strbuf_addch(b, '\0'))
			bail_out("out of memory");
}

struct fn_spec {
	uint32_t ident, lck, cfg;
	const char *name;
	uint32_t artificial;
	const char *file;
	uint32_t line, column, end_line, end_column;
};

static void header(struct strbuf *b, const char *ver, bool words, const char *cwd)
{
	w32(b, KPGO_GCNO_MAGIC);
	w32(b, stamp_of(ver));
	w32(b, 0x41e2553a);
	if (!words)
		w32(b, 0); /* the checksum of GCC >= 12 */
	wstr(b, words, cwd);
	w32(b, 1);
}

/* A record whose length is filled in afterwards: returns where the length is. */
static size_t rec_begin(struct strbuf *b, uint32_t tag)
{
	w32(b, tag);
	w32(b, 0);
	return b->len - 4;
}

static void rec_end(struct strbuf *b, size_t at, bool words)
{
	uint32_t len = (uint32_t)(b->len - at - 4);

	if (words)
		len /= 4;
	memcpy(b->buf + at, &len, 4);
}

static void fn(struct strbuf *b, bool words, const struct fn_spec *f)
{
	size_t at = rec_begin(b, KPGO_TAG_FUNCTION);

	w32(b, f->ident);
	w32(b, f->lck);
	w32(b, f->cfg);
	wstr(b, words, f->name);
	w32(b, f->artificial);
	wstr(b, words, f->file);
	w32(b, f->line);
	w32(b, f->column);
	w32(b, f->end_line);
	w32(b, f->end_column);
	rec_end(b, at, words);
}

/* BLOCKS, ARCS and LINES records as GCC writes after each function. */
static void cfg_records(struct strbuf *b, bool words, const char *file)
{
	size_t at;

	at = rec_begin(b, 0x01410000);
	w32(b, 4);
	rec_end(b, at, words);
	at = rec_begin(b, 0x01430000);
	w32(b, 0);
	w32(b, 2);
	w32(b, 4);
	rec_end(b, at, words);
	at = rec_begin(b, 0x01450000);
	w32(b, 2);
	w32(b, 0);
	wstr(b, words, file);
	w32(b, 7);
	w32(b, 0);
	wstr(b, words, "");
	rec_end(b, at, words);
}

static const struct fn_spec specs[] = {
	{ 108032747, 0xca6e5820, 0xf6544a7d, "main", 0, "../t.c", 12, 5, 20, 1 },
	{ 1014406867, 0x9e3bc3d1, 0xdb5de9e8, "helper", 0, "../include/h.h", 3, 19, 5, 1 },
	{ 7, 0x11111111, 0x22222222, "_GLOBAL__sub_I_00100_0_main", 1, "../t.c", 22, 1, 22, 1 },
	{ 70510028, 0x4c22020d, 0xdb5de9e8, "f<&\"'>", 0, "", 1, 1, 1, 1 },
};
#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

static void build(struct strbuf *b, const char *ver, bool words)
{
	size_t i;

	strbuf_reset(b);
	header(b, ver, words, "/build/obj");
	for (i = 0; i < N_SPECS; i++) {
		fn(b, words, &specs[i]);
		cfg_records(b, words, specs[i].file);
	}
}

static void check_parsed(const struct kpgo_gcno *g, const char *ver, const char *what)
{
	size_t i;
	bool same = g->n_fns == N_SPECS;

	is_int(g->n_fns, N_SPECS, "%s: every function", what);
	ok(g->version == stamp_of(ver) && g->stamp == 0x41e2553a, "%s: version and stamp", what);
	is_str(g->cwd, "/build/obj", "%s: working directory", what);
	for (i = 0; same && i < N_SPECS; i++) {
		const struct kpgo_gcno_fn *f = &g->fns[i];
		const struct fn_spec *s = &specs[i];

		same = f->ident == s->ident && f->lineno_checksum == s->lck &&
		       f->cfg_checksum == s->cfg && !strcmp(f->name, s->name) &&
		       f->artificial == (s->artificial != 0) && !strcmp(f->file, s->file) &&
		       f->line == s->line && f->column == s->column && f->end_line == s->end_line;
		if (!same)
			diag("function %zu: '%s' in '%s' line %u", i, f->name, f->file, f->line);
	}
	ok(same, "%s: idents, checksums, names, files and lines as written, in file order", what);
	ok(kpgo_gcno_find(g, 1014406867) == &g->fns[1], "%s: find by ident", what);
	ok(kpgo_gcno_find(g, 7) == &g->fns[2], "%s: find the smallest ident", what);
	ok(kpgo_gcno_find(g, 8) == NULL && kpgo_gcno_find(g, 0) == NULL &&
		   kpgo_gcno_find(g, UINT32_MAX) == NULL,
	   "%s: an ident that is not there", what);
}

static void test_layouts(void)
{
	struct strbuf b = STRBUF_INIT;
	struct kpgo_gcno g;
	struct kpgo_error err;

	build(&b, "B22*", false);
	if (is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "GCC 12 layout parses"))
		check_parsed(&g, "B22*", "GCC 12");
	kpgo_gcno_release(&g);
	build(&b, "B42*", false);
	if (is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "GCC 14 stamp: GCC 12's layout"))
		check_parsed(&g, "B42*", "GCC 14");
	kpgo_gcno_release(&g);
	build(&b, "B13*", true);
	if (is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "GCC 11 layout parses"))
		check_parsed(&g, "B13*", "GCC 11");
	kpgo_gcno_release(&g);

	/* A later GCC's unknown record is skipped by its length. */
	build(&b, "B22*", false);
	w32(&b, 0x01470000);
	w32(&b, 8);
	w32(&b, 1);
	w32(&b, 2);
	fn(&b, false, &specs[0]);
	is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "an unknown record is skipped");
	is_int(g.n_fns, N_SPECS + 1, "and the function after it read");
	kpgo_gcno_release(&g);

	/* No functions at all (an object of data only). */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "a file without functions parses");
	ok(g.n_fns == 0 && kpgo_gcno_find(&g, 1) == NULL, "and has none");
	kpgo_gcno_release(&g);

	/* The first of a repeated ident is found. */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn(&b, false, &specs[1]);
	fn(&b, false, &specs[0]);
	fn(&b, false, &specs[1]);
	is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "a repeated ident parses");
	ok(kpgo_gcno_find(&g, specs[1].ident) == &g.fns[0],
	   "the first of a repeated ident is found");
	kpgo_gcno_release(&g);
	strbuf_release(&b);
}

static void check_bad(const char *what, const struct strbuf *b, int want_r, const char *want_msg)
{
	struct kpgo_gcno g;
	struct kpgo_error err;
	int r;

	err.msg[0] = '\0';
	r = kpgo_gcno_parse(b->buf, b->len, &g, &err);
	is_int(r, want_r, "%s: refused", what);
	ok(!g.fns && !g.strings && !g.n_fns && !g.cwd, "%s: nothing left allocated", what);
	if (!ok(strstr(err.msg, want_msg) && strstr(err.msg, " at offset "),
		"%s: message says '%s' and where", what, want_msg))
		diag("message: %s", err.msg);
}

static void test_hostile(void)
{
	struct strbuf b = STRBUF_INIT, good = STRBUF_INIT;
	struct fn_spec s = specs[0];
	struct kpgo_gcno g;
	struct kpgo_error err;
	size_t n, refused = 0, fn_at;

	build(&good, "B22*", false);
	/* Every truncation of a good file is refused (or ends at a record boundary). */
	for (n = 0; n < good.len; n++) {
		int r = kpgo_gcno_parse(good.buf, n, &g, &err);

		if (r)
			refused++;
		kpgo_gcno_release(&g);
	}
	ok(refused >= good.len - 2 * N_SPECS * 4, "truncations: %zu of %zu refused", refused,
	   good.len);
	ok(kpgo_gcno_parse(good.buf, 3, &g, &err) == -EINVAL && strstr(err.msg, "truncated header"),
	   "three bytes: truncated header");

	strbuf_reset(&b);
	w32(&b, KPGO_GCDA_MAGIC);
	w32(&b, stamp_of("B22*"));
	check_bad("a .gcda", &b, -EINVAL, "not a .gcno file");

	strbuf_reset(&b);
	w32(&b, __builtin_bswap32(KPGO_GCNO_MAGIC));
	w32(&b, stamp_of("B22*"));
	check_bad("other byte order", &b, -EPROTONOSUPPORT, "other byte order");

	strbuf_reset(&b);
	header(&b, "B05*", true, "/");
	check_bad("GCC 10", &b, -EPROTONOSUPPORT, "GCC 10.5");

	strbuf_reset(&b);
	w32(&b, KPGO_GCNO_MAGIC);
	w32(&b, 0xdeadbeef);
	w32(&b, 1);
	check_bad("garbage version", &b, -EINVAL, "bad version stamp");

	/* A record length past the end. */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	w32(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1000);
	w32(&b, 1);
	check_bad("record past the end", &b, -EINVAL, "past the end of the file");

	strbuf_reset(&b);
	header(&b, "B13*", true, "/");
	w32(&b, 0x01410000);
	w32(&b, 0x40000001); /* words: times 4 wraps a 32-bit size */
	check_bad("GCC 11 record length that overflows", &b, -EINVAL, "past the end of the file");

	/* A function record cut short inside its fixed fields. */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	w32(&b, KPGO_TAG_FUNCTION);
	w32(&b, 8);
	w32(&b, 1);
	w32(&b, 2);
	check_bad("function record of 8 bytes", &b, -EINVAL, "truncated function record");

	/* A name longer than its record. */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn_at = rec_begin(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	w32(&b, 4000);
	w32(&b, 0x41414141);
	rec_end(&b, fn_at, false);
	check_bad("name past its record", &b, -EINVAL, "function name of 4000 bytes past the end");

	/* GCC 11: a name length in words that overflows. */
	strbuf_reset(&b);
	header(&b, "B13*", true, "/");
	fn_at = rec_begin(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	w32(&b, 0x40000002);
	w32(&b, 0);
	rec_end(&b, fn_at, true);
	check_bad("GCC 11 name of 2^30 words", &b, -EINVAL, "past the end of its record");

	/* A name without its NUL, and one with a NUL inside. */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn_at = rec_begin(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	w32(&b, 4);
	w32(&b, 0x41414141);
	w32(&b, 0);
	wstr(&b, false, "a.c");
	w32(&b, 1);
	rec_end(&b, fn_at, false);
	check_bad("name without NUL", &b, -EINVAL, "function name without its terminating NUL");

	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn_at = rec_begin(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	w32(&b, 4);
	w32(&b, 0x00410041);
	w32(&b, 0);
	wstr(&b, false, "a.c");
	w32(&b, 1);
	rec_end(&b, fn_at, false);
	check_bad("name with a NUL inside", &b, -EINVAL, "function name with a NUL inside");

	/* The working directory string past the end of the file. */
	strbuf_reset(&b);
	w32(&b, KPGO_GCNO_MAGIC);
	w32(&b, stamp_of("B22*"));
	w32(&b, 1);
	w32(&b, 0);
	w32(&b, 64);
	check_bad("working directory past the end", &b, -EINVAL, "working directory of 64 bytes");

	s.artificial = 2;
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn(&b, false, &s);
	check_bad("artificial flag 2", &b, -EINVAL, "artificial flag 2");

	/* Bytes that are no UTF-8 and control characters pass through as they are. */
	s = specs[0];
	s.name = "\x1b[31mred\xff";
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn(&b, false, &s);
	is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0, "any bytes but NUL in a name parse");
	ok(g.n_fns == 1 && !strcmp(g.fns[0].name, s.name), "and are kept as they are");
	kpgo_gcno_release(&g);

	/* Without column and end line (the reader needs neither). */
	strbuf_reset(&b);
	header(&b, "B22*", false, "/");
	fn_at = rec_begin(&b, KPGO_TAG_FUNCTION);
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	wstr(&b, false, "f");
	w32(&b, 0);
	wstr(&b, false, "a.c");
	w32(&b, 9);
	rec_end(&b, fn_at, false);
	is_int(kpgo_gcno_parse(b.buf, b.len, &g, &err), 0,
	       "a record that ends after the line parses");
	ok(g.n_fns == 1 && g.fns[0].line == 9 && g.fns[0].column == 0 && g.fns[0].end_line == 0,
	   "line kept, column and end line 0");
	kpgo_gcno_release(&g);

	strbuf_release(&b);
	strbuf_release(&good);
}

/* --- notes files of a real GCC ------------------------------------------- */

static const char prog_c[] = "static int twice(int x)\n"
			     "{\n"
			     "\treturn 2 * x;\n"
			     "}\n"
			     "\n"
			     "int add(int a, int b)\n"
			     "{\n"
			     "\treturn a + twice(b);\n"
			     "}\n"
			     "\n"
			     "int main(int argc, char **argv)\n"
			     "{\n"
			     "\t(void)argv;\n"
			     "\treturn add(argc, 1) == 3 ? 0 : 1;\n"
			     "}\n";

static bool have_cc(const char *cc)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", cc);
	return system(cmd) == 0;
}

static void test_real_gcc(const char *cc, unsigned major)
{
	char dir[] = "/tmp/kpgo-test-gcno.XXXXXX", cmd[1024], path[512];
	struct strbuf data = STRBUF_INIT, gcda = STRBUF_INIT;
	const struct kpgo_gcno_fn *f;
	struct kpgo_gcc_version v;
	struct kpgo_gcno g;
	struct kpgo_gcda d;
	struct kpgo_error err;
	size_t i, matched = 0;
	FILE *fp;

	if (!have_cc(cc)) {
		skip("%s is not installed", cc);
		return;
	}
	if (!mkdtemp(dir))
		bail_out("mkdtemp failed");
	snprintf(path, sizeof(path), "%s/p.c", dir);
	fp = fopen(path, "w");
	if (!fp || fputs(prog_c, fp) < 0 || fclose(fp))
		bail_out("cannot write the test program");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && %s -O0 --coverage p.c -o p >/dev/null 2>&1 && ./p >/dev/null", dir, cc);
	if (system(cmd) != 0) {
		ok(0, "%s: compile and run a --coverage program", cc);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/p-p.gcno", dir);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/p.gcno", dir);
	is_int(kpgo_read_file(path, &data, KPGO_GCNO_FILE_MAX), 0, "%s: read its .gcno", cc);
	if (!is_int(kpgo_gcno_parse(data.buf, data.len, &g, &err), 0, "%s: its .gcno parses", cc)) {
		diag("%s", err.msg);
		goto out;
	}
	ok(kpgo_gcc_version_decode(g.version, &v) == 0 && v.major == major,
	   "%s: version stamp says GCC %u", cc, major);
	is_str(g.cwd, dir, "%s: working directory", cc);
	is_int(g.n_fns, 3, "%s: three functions", cc);
	for (i = 0; i < g.n_fns; i++) {
		f = &g.fns[i];
		if (!strcmp(f->file, "p.c") && !f->artificial &&
		    ((!strcmp(f->name, "twice") && f->line == 1) ||
		     (!strcmp(f->name, "add") && f->line == 6) ||
		     (!strcmp(f->name, "main") && f->line == 11)))
			matched++;
		else
			diag("unexpected: '%s' in '%s' line %u", f->name, f->file, f->line);
	}
	is_int(matched, 3, "%s: twice, add and main with their file and first line", cc);

	/* The .gcda the program wrote has the same idents and checksums. */
	snprintf(path, sizeof(path), "%s/p-p.gcda", dir);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/p.gcda", dir);
	if (kpgo_read_file(path, &gcda, 1 << 20) || kpgo_gcda_parse(gcda.buf, gcda.len, &d, &err)) {
		ok(0, "%s: read the program's .gcda", cc);
		kpgo_gcno_release(&g);
		goto out;
	}
	matched = 0;
	for (i = 0; i < d.n_fns; i++) {
		f = kpgo_gcno_find(&g, d.fns[i].ident);
		matched += f && f->lineno_checksum == d.fns[i].lineno_checksum &&
			   f->cfg_checksum == d.fns[i].cfg_checksum;
	}
	ok(d.stamp == g.stamp, "%s: the .gcda has the .gcno's stamp", cc);
	ok(d.n_fns == 3 && matched == 3, "%s: every .gcda function found by ident, checksums equal",
	   cc);
	kpgo_gcda_release(&d);
	kpgo_gcno_release(&g);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	strbuf_release(&data);
	strbuf_release(&gcda);
}

int main(void)
{
	test_layouts();
	test_hostile();
	test_real_gcc("gcc-12", 12);
	test_real_gcc("gcc-11", 11);
	return done_testing();
}
