// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo.c: gcov's JSON documents as AutoFDO text. Line offsets, which lines
 * belong to a function, merged copies and left-out names, documents whose
 * shape is refused (afdo-shape.c's checks, through the conversion).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "gcda.h"
#include "tap.h"

/* 'B22*', GCC 12.2's gcov version stamp. */
#define V12 (((uint32_t)'B' << 24) | ('2' << 16) | ('2' << 8) | '*')

/* A function record and a line record as gcov prints them. */
#define FN(name, start, end, count)                                                                \
	"{\"blocks\": 4, \"end_column\": 1, \"start_line\": " #start ", \"name\": \"" name         \
	"\", \"blocks_executed\": 4, \"execution_count\": " #count ", \"demangled_name\": \"" name \
	"\", \"start_column\": 5, \"end_line\": " #end "}"
#define LN(line, count, fn)                                                                        \
	"{\"branches\": [], \"count\": " #count ", \"line_number\": " #line                        \
	", \"unexecuted_block\": false, \"function_name\": \"" fn "\"}"
#define LN0(line, count)                                                                           \
	"{\"branches\": [], \"count\": " #count ", \"line_number\": " #line                        \
	", \"unexecuted_block\": false}"
#define DOC(cwd, data, files)                                                                      \
	"{\"gcc_version\": \"12.2.0\", \"files\": [" files "], \"format_version\": \"1\", "        \
	"\"current_working_directory\": \"" cwd "\", \"data_file\": \"" data "\"}"
#define FILE_(name, fns, lines)                                                                    \
	"{\"lines\": [" lines "], \"functions\": [" fns "], \"file\": \"" name "\"}"

static int add(struct kpgo_afdo *a, const char *text, const char *object, struct kpgo_error *err)
{
	struct kpgo_json doc;
	int r;

	r = kpgo_json_parse(text, strlen(text), NULL, &doc, err);
	if (r) {
		diag("bad test document: %s", err->msg);
		return r;
	}
	r = kpgo_afdo_add_gcov(a, &doc, object, err);
	kpgo_json_release(&doc);
	return r;
}

/* The text, definitions table and stats of everything added to a new conversion. */
static int convert_defs(const char *const *docs, struct strbuf *out, struct strbuf *defs,
			struct kpgo_afdo_stats *st, struct kpgo_strlist *amb, struct kpgo_error *err)
{
	struct kpgo_afdo *a;
	int r;

	if (kpgo_afdo_new(&a, V12))
		return -ENOMEM;
	for (r = 0; *docs && !r; docs++)
		r = add(a, *docs, "obj.gcda", err);
	if (!r)
		r = kpgo_afdo_write(a, NULL, NULL, out, defs, st, amb);
	kpgo_afdo_free(a);
	return r;
}

static int convert(const char *const *docs, struct strbuf *out, struct kpgo_afdo_stats *st,
		   struct kpgo_strlist *amb, struct kpgo_error *err)
{
	return convert_defs(docs, out, NULL, st, amb, err);
}

static void test_offsets(void)
{
	/* f starts on line 10: offsets count from there; g is a one-line macro function. */
	const char *docs[] = {
		DOC("/b", "obj.gcda",
		    FILE_("f.c", FN("f", 10, 16, 7) "," FN("g", 20, 20, 3),
			  LN(10, 7, "f") "," LN(12, 70, "f") "," LN(13, 0, "f") "," LN(
				  15, 7, "f") "," LN(20, 3, "g") "," LN0(30, 5) "," LN(17, 4, "f"))),
		NULL,
	};
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_error err;

	is_int(convert(docs, &out, &st, NULL, &err), 0, "one object converts");
	is_str(out.buf,
	       "f:84:7\n 0: 7\n 2: 70\n 3: 0\n 5: 7\n"
	       "g:3:3\n 0: 3\n",
	       "offsets from the first line; a line never run is a 0, not left out");
	is_int(st.functions, 2, "two functions");
	is_int(st.lines, 5, "five lines");
	is_int(st.samples, 87, "their counts");
	is_int(st.unplaced_lines, 2, "a line of no function and one past f's last line: unplaced");
	is_int(st.unplaced_samples, 9, "with their counts");
	is_int(st.objects, 1, "one document");
	strbuf_release(&out);
}

static void test_merge_and_ambiguous(void)
{
	/*
	 * Two objects: both have h() of inc/h.h (named from two directories),
	 * each its own static s(), and one a static t() in two places of one
	 * header (an #ifdef).
	 */
	const char *docs[] = {
		DOC("/b", "a.gcda",
		    FILE_("a.c", FN("s", 3, 5, 2) "," FN("a", 7, 9, 1),
			  LN(3, 2, "s") "," LN(4, 2, "s") "," LN(
				  7, 1,
				  "a")) "," FILE_("inc/h.h", FN("h", 1, 4, 10) "," FN("t", 8, 9, 0),
						  LN(1, 10,
						     "h") "," LN(2, 6, "h") "," LN(3, 4,
										   "h") "," LN(8, 0,
											       "t"))),
		DOC("/b/sub", "sub/c.gcda",
		    FILE_("c.c", FN("s", 3, 5, 5),
			  LN(3, 5,
			     "s") "," LN(5, 5,
					 "s")) "," FILE_("../inc/./h.h",
							 FN("h", 1, 4, 1) "," FN("t", 12, 13, 1),
							 LN(1, 1,
							    "h") "," LN(3, 1,
									"h") "," LN(12, 1,
										    "t") "," LN(13, 1,
												"t"))),
		NULL,
	};
	struct strbuf out = STRBUF_INIT, defs = STRBUF_INIT;
	struct kpgo_strlist amb = { 0 };
	struct kpgo_afdo_stats st;
	struct kpgo_error err;

	is_int(convert_defs(docs, &out, &defs, &st, &amb, &err), 0, "two objects convert");
	is_str(out.buf, "a:1:1\n 0: 1\nh:22:11\n 0: 11\n 1: 6\n 2: 5\n",
	       "h merged line by line; s and t left out");
	/*
	 * The table names each file as GCC was given it, the first copy's
	 * name for h, and lists t and s although t never ran in a.gcda.
	 */
	is_str(defs.buf,
	       KPGO_AFDO_DEFS_HEAD "\n"
				   "a\tprofile\ta.c\t7\n"
				   "h\tprofile\tinc/h.h\t1\n"
				   "s\tleft-out\ta.c\t3\n"
				   "s\tleft-out\tc.c\t3\n"
				   "t\tleft-out\tinc/h.h\t8\n"
				   "t\tleft-out\t../inc/h.h\t12\n",
	       "the definitions table: profile and left-out lines");
	strbuf_release(&defs);
	is_int(st.merged_defs, 1, "one definition merged");
	is_int(st.merged_copies, 1, "from one more copy");
	is_int(st.ambiguous_names, 2, "two names left out");
	is_int(st.ambiguous_defs, 4, "with four definitions");
	is_int(st.ambiguous_samples, 4 + 10 + 0 + 2, "and their counts");
	is_int(amb.n, 2, "both listed");
	if (amb.n == 2) {
		is_str(amb.items[0], "s (/b/a.c:3, /b/sub/c.c:3)", "two files");
		is_str(amb.items[1], "t (/b/inc/h.h:8, /b/inc/h.h:12)", "two places in one file");
	}
	kpgo_strlist_clear(&amb);
	strbuf_release(&out);
}

/* Bindings for test_weak(): "OBJECT:NAME=B" entries, B one of l g w. */
static const char *bindings;

static enum kpgo_elf_binding fake_binding(void *ctx, const char *object, const char *name)
{
	char key[256];
	const char *p;

	(void)ctx;
	snprintf(key, sizeof(key), "%s:%s=", object, name);
	p = strstr(bindings, key);
	if (!p)
		return KPGO_ELF_UNKNOWN;
	switch (p[strlen(key)]) {
	case 'l': return KPGO_ELF_LOCAL;
	case 'g': return KPGO_ELF_GLOBAL;
	case 'w': return KPGO_ELF_WEAK;
	}
	return KPGO_ELF_UNKNOWN;
}

static void test_weak(void)
{
	/* pick: weak in a, strong in b, weak in c; dup: as bindings say. */
	static const char *const docs[] = {
		DOC("/b", "a.gcda",
		    FILE_("a.c", FN("pick", 1, 3, 0) "," FN("dup", 5, 6, 1),
			  LN(1, 0, "pick") "," LN(5, 1, "dup"))),
		DOC("/b", "b.gcda",
		    FILE_("b.c", FN("pick", 10, 12, 4) "," FN("dup", 1, 2, 2),
			  LN(10, 4, "pick") "," LN(11, 3, "pick") "," LN(1, 2, "dup"))),
		DOC("/b", "c.gcda", FILE_("c.c", FN("pick", 7, 8, 0), LN(7, 0, "pick"))),
	};
#define DUP_OUT "dup\tleft-out\ta.c\t5\ndup\tleft-out\tb.c\t1\n"
#define PICK_OUT "pick\tleft-out\ta.c\t1\npick\tleft-out\tb.c\t10\npick\tleft-out\tc.c\t7\n"
#define PICK_B "pick\tprofile\tb.c\t10\npick\tweak\ta.c\t1\npick\tweak\tc.c\t7\n"
	static const struct {
		const char *bindings;
		const char *text;
		size_t weak, ambiguous;
		const char *what;
		const char *defs;
	} t[] = {
		{ "a.gcda:pick=w b.gcda:pick=g c.gcda:pick=w", "pick:7:4\n 0: 4\n 1: 3\n", 1, 1,
		  "one strong definition over weak ones is written", DUP_OUT PICK_B },
		{ "a.gcda:pick=w b.gcda:pick=w c.gcda:pick=w", "", 0, 2, "only weak ones: left out",
		  DUP_OUT PICK_OUT },
		{ "a.gcda:pick=w b.gcda:pick=g c.gcda:pick=g", "", 0, 2,
		  "two strong ones: left out", DUP_OUT PICK_OUT },
		{ "a.gcda:pick=l b.gcda:pick=g c.gcda:pick=w", "", 0, 2,
		  "a static one beside the strong one: left out", DUP_OUT PICK_OUT },
		{ "a.gcda:pick=w b.gcda:pick=g", "", 0, 2, "one binding unknown: left out",
		  DUP_OUT PICK_OUT },
		{ "a.gcda:dup=w b.gcda:dup=g a.gcda:pick=w b.gcda:pick=g c.gcda:pick=w",
		  "dup:2:2\n 0: 2\npick:7:4\n 0: 4\n 1: 3\n", 2, 0, "both names resolved",
		  "dup\tprofile\tb.c\t1\ndup\tweak\ta.c\t5\n" PICK_B },
		/* The strong pick (a's) never ran: not written, so no line for pick at all. */
		{ "a.gcda:dup=w b.gcda:dup=g a.gcda:pick=g b.gcda:pick=w c.gcda:pick=w",
		  "dup:2:2\n 0: 2\n", 2, 0, "a strong definition that never ran: nothing written",
		  "dup\tprofile\tb.c\t1\ndup\tweak\ta.c\t5\n" },
	};
	struct kpgo_afdo_stats st;
	struct kpgo_error err;
	size_t i, j;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strbuf out = STRBUF_INIT, defs = STRBUF_INIT;
		struct kpgo_afdo *a;

		if (kpgo_afdo_new(&a, V12))
			bail_out("out of memory");
		for (j = 0; j < 3; j++)
			add(a, docs[j], j == 0 ? "a.gcda" : j == 1 ? "b.gcda" : "c.gcda", &err);
		bindings = t[i].bindings;
		is_int(kpgo_afdo_write(a, fake_binding, NULL, &out, &defs, &st, NULL), 0, "writes");
		ok(!strcmp(out.buf, t[i].text) && st.weak_names == t[i].weak &&
			   st.ambiguous_names == t[i].ambiguous,
		   "%s", t[i].what);
		if (strcmp(out.buf, t[i].text))
			diag("got '%s'", out.buf);
		ok(!strncmp(defs.buf, KPGO_AFDO_DEFS_HEAD "\n", sizeof(KPGO_AFDO_DEFS_HEAD)) &&
			   !strcmp(defs.buf + sizeof(KPGO_AFDO_DEFS_HEAD), t[i].defs),
		   "  its definitions table");
		if (strcmp(defs.buf + sizeof(KPGO_AFDO_DEFS_HEAD), t[i].defs))
			diag("got '%s'", defs.buf);
		if (i == 0)
			is_int(st.weak_defs, 2, "two weak definitions dropped");
		kpgo_afdo_free(a);
		strbuf_release(&out);
		strbuf_release(&defs);
	}
}

/* Two definitions that only the directories GCC ran in tell apart: one line. */
static void test_defs_one_place(void)
{
	const char *docs[] = {
		DOC("/b/x", "x.gcda", FILE_("u.c", FN("s", 3, 4, 1), LN(3, 1, "s"))),
		DOC("/b/y", "y.gcda", FILE_("u.c", FN("s", 3, 4, 2), LN(3, 2, "s"))),
		NULL,
	};
	struct strbuf out = STRBUF_INIT, defs = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_error err;
	struct kpgo_afdo *a;

	is_int(convert_defs(docs, &out, &defs, &st, NULL, &err), 0, "converts");
	ok(st.ambiguous_names == 1 && st.ambiguous_defs == 2, "two definitions of s, left out");
	is_str(defs.buf, KPGO_AFDO_DEFS_HEAD "\ns\tleft-out\tu.c\t3\n",
	       "one line for the place they share in the table");

	/* Strong in x, weak in y: the profile line alone. */
	strbuf_reset(&out);
	strbuf_reset(&defs);
	if (kpgo_afdo_new(&a, V12))
		bail_out("out of memory");
	add(a, docs[0], "x.gcda", &err);
	add(a, docs[1], "y.gcda", &err);
	bindings = "x.gcda:s=g y.gcda:s=w";
	is_int(kpgo_afdo_write(a, fake_binding, NULL, &out, &defs, &st, NULL), 0, "writes");
	ok(st.weak_names == 1 && !strcmp(out.buf, "s:1:1\n 0: 1\n"), "x's s written");
	is_str(defs.buf, KPGO_AFDO_DEFS_HEAD "\ns\tprofile\tu.c\t3\n",
	       "no weak line at the profile line's place");
	kpgo_afdo_free(a);
	strbuf_release(&out);
	strbuf_release(&defs);
}

static void test_counts(void)
{
	char far[1024];
	const char *docs[] = {
		DOC("/b", "x.gcda",
		    FILE_("x.c", FN("neg", 1, 3, -2) "," FN("never", 5, 6, 0),
			  LN(1, -2,
			     "neg") "," LN(2, 9, "neg") "," LN(5, 0, "never") "," LN(6, 0, "never"))),
		far,
		NULL,
	};
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_error err;

	snprintf(far, sizeof(far), "%s",
		 DOC("/b", "y.gcda",
		     FILE_("y.c", FN("long", 1, 70000, 1),
			   LN(1, 1, "long") "," LN(65536, 3, "long") "," LN(65537, 4, "long"))));
	is_int(convert(docs, &out, &st, NULL, &err), 0, "converts");
	is_str(out.buf, "long:4:1\n 0: 1\n 65535: 3\nneg:9:0\n 0: 0\n 1: 9\n",
	       "negative counts as 0; offset 65535 kept, 65536 not; never-run function left out");
	is_int(st.negative_counts, 2, "two negative counts");
	is_int(st.far_lines, 1, "one line too far");
	is_int(st.unexecuted, 1, "one unexecuted function");
	strbuf_release(&out);
}

static void test_order(void)
{
	const char *docs[] = {
		DOC("/b", "o.gcda",
		    FILE_("o.c",
			  FN("b", 1, 2, 1) "," FN("a_", 3, 4, 1) "," FN("B", 5, 6, 1) "," FN("a", 7,
											     8, 1),
			  LN(1, 1, "b") "," LN(3, 1, "a_") "," LN(5, 1, "B") "," LN(7, 1, "a"))),
		NULL,
	};
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_error err;

	is_int(convert(docs, &out, &st, NULL, &err), 0, "converts");
	is_str(out.buf, "B:1:1\n 0: 1\na:1:1\n 0: 1\na_:1:1\n 0: 1\nb:1:1\n 0: 1\n",
	       "functions in byte order of their names");
	strbuf_release(&out);
}

static void test_bad_documents(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} t[] = {
		{ "[]", "malformed gcov output for 'o.gcda': is not an object" },
		{ "{\"files\": []}", "malformed gcov output for 'o.gcda': has no 'gcc_version'" },
		{ "{\"gcc_version\": \"12.2.0\"}",
		  "malformed gcov output for 'o.gcda': has no 'files'" },
		{ "{\"gcc_version\": \"12.2.0\", \"files\": {}}",
		  "malformed gcov output for 'o.gcda': 'files' is an object, not an array" },
		{ "{\"gcc_version\": 12, \"files\": []}",
		  "malformed gcov output for 'o.gcda': 'gcc_version' is a number, not a string" },
		{ "{\"gcc_version\": \"13.1.0\", \"files\": []}",
		  "gcov output for 'o.gcda' is of GCC 13.1.0, the profile of gcov version 'B22*'" },
		{ "{\"gcc_version\": \"12.2.0\", \"current_working_directory\": 1, \"files\": []}",
		  "malformed gcov output for 'o.gcda': 'current_working_directory' is a number, not a string" },
		{ "{\"gcc_version\": \"12.2.0\", \"files\": [1]}",
		  "malformed gcov output for 'o.gcda': files[0] is not an object" },
		{ "{\"gcc_version\": \"12.2.0\", \"files\": [{\"file\": \"a.c\", \"lines\": []}]}",
		  "malformed gcov output for 'o.gcda': files[0] has no 'functions'" },
		{ DOC("/", "o",
		      FILE_("a.c", "{\"name\": \"f\", \"start_line\": 1, \"end_line\": 2}", "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has no 'execution_count'" },
		{ DOC("/", "o", FILE_("a.c", FN("f g", 1, 2, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has a name with blanks or control characters" },
		{ DOC("/", "o", FILE_("a.c", FN("", 1, 2, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has a name with blanks or control characters" },
		{ DOC("/", "o", FILE_("a.c", FN("f", 0, 2, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has no valid line range" },
		{ DOC("/", "o", FILE_("a.c", FN("f", 5, 4, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has no valid line range" },
		{ DOC("/", "o", FILE_("a.c", FN("f", 4294967296, 4294967297, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] has no valid line range" },
		{ DOC("/", "o", FILE_("a\\tb.c", FN("f", 1, 2, 1), "")),
		  "malformed gcov output for 'o.gcda': files[0] has a file name with control characters" },
		{ DOC("/", "o", FILE_("a.c\\n", "", "")),
		  "malformed gcov output for 'o.gcda': files[0] has a file name with control characters" },
		{ DOC("/", "o", FILE_("a.c", FN("f", 1, 2, 1.5), "")),
		  "malformed gcov output for 'o.gcda': files[0].functions[0] 'execution_count' is a non-integer number, not an integer" },
		{ DOC("/", "o",
		      FILE_("a.c", "",
			    LN(1, 2, "f") ","
					  "{\"count\": 1}")),
		  "malformed gcov output for 'o.gcda': files[0].lines[1] has no 'line_number'" },
		{ DOC("/", "o", FILE_("a.c", "", "{\"count\": 1, \"line_number\": 0}")),
		  "malformed gcov output for 'o.gcda': files[0].lines[0] has no valid line number" },
		{ DOC("/", "o",
		      FILE_("a.c", "",
			    "{\"count\": 1, \"line_number\": 3, \"function_name\": null}")),
		  "malformed gcov output for 'o.gcda': files[0].lines[0] 'function_name' is a null, not a string" },
		{ DOC("/", "o", FILE_("a.c", "", "{\"count\": \"1\", \"line_number\": 3}")),
		  "malformed gcov output for 'o.gcda': files[0].lines[0] 'count' is a string, not an integer" },
	};
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_stats st;
	struct kpgo_afdo *a;
	struct kpgo_error err;
	size_t i;

	if (kpgo_afdo_new(&a, V12))
		bail_out("out of memory");
	/* A good document first: a bad one after it must add nothing. */
	is_int(add(a, DOC("/b", "g.gcda", FILE_("g.c", FN("g", 1, 2, 1), LN(1, 1, "g"))), "g.gcda",
		   &err),
	       0, "a good document");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		err.msg[0] = '\0';
		ok(add(a, t[i].text, "o.gcda", &err) == -EINVAL && !strcmp(err.msg, t[i].msg),
		   "refused: %s", t[i].msg);
		if (strcmp(err.msg, t[i].msg))
			diag("got '%s'", err.msg);
	}
	is_int(kpgo_afdo_write(a, NULL, NULL, &out, NULL, &st, NULL), 0, "writes");
	is_str(out.buf, "g:1:1\n 0: 1\n", "only the good document's function");
	is_int(st.objects, 1, "one document counted");
	kpgo_afdo_free(a);
	strbuf_release(&out);
}

int main(void)
{
	test_offsets();
	test_merge_and_ambiguous();
	test_weak();
	test_defs_one_place();
	test_counts();
	test_order();
	test_bad_documents();
	return done_testing();
}
