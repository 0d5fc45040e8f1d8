// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-report.h's definitions table: kpgo afdo's table read back (good
 * and hostile lines, repeats, source names as clang's are read), checked
 * against a profile's names, looked up by place; and a table written by
 * kpgo_afdo_write() reads back and fits its profile.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "afdo.h"
#include "buildlog.h"
#include "tap.h"

#define HEAD KPGO_AFDO_DEFS_HEAD "\n"

static int defs(struct kpgo_afdo_defs *d, const char *s, struct kpgo_error *err)
{
	err->msg[0] = '\0';
	return kpgo_afdo_defs_parse(d, s, strlen(s), err);
}

static void dump(const struct kpgo_afdo_defs *d, struct strbuf *out)
{
	size_t i;

	strbuf_reset(out);
	for (i = 0; i < d->n; i++)
		strbuf_addf(out, "%s:%u %s %s @%zu\n", d->defs[i].source, d->defs[i].line,
			    kpgo_afdo_role_name(d->defs[i].role), d->defs[i].name,
			    d->defs[i].lineno);
}

static void test_good(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_afdo_defs d;
	struct kpgo_error err;
	size_t c[KPGO_AFDO_ROLES];

	kpgo_afdo_defs_init(&d);
	is_int(defs(&d,
		    HEAD "clamp\tprofile\t./lib/../lib/h.h\t1\n"
			 "# a comment\n"
			 "helper\tleft-out\tmain.c\t5\n"
			 "helper\tleft-out\tlib/work.c\t2\n"
			 "main\tprofile\tmain.c\t11\n"
			 "pick\tprofile\tmain.c\t23\n"
			 "pick\tweak\tlib/work.c\t20\n"
			 "two\tprofile\t/abs/dir name/m.c\t4\n"
			 "one\tprofile\t/abs/dir name/m.c\t4\n"
			 "one_w\tweak\t/abs/dir name/m.c\t4\n"
			 "x\tprofile\t../k/a.c\t4294967295",
		    &err),
	       0, "a table parses; no newline at the end");
	is_str(err.msg, "", "no message");
	is_int(d.n, 10, "ten definitions");
	is_int(d.lines, 12, "twelve lines");
	ok(d.roles[KPGO_AFDO_ROLE_PROFILE] == 6 && d.roles[KPGO_AFDO_ROLE_WEAK] == 2 &&
		   d.roles[KPGO_AFDO_ROLE_LEFT_OUT] == 2,
	   "six profile, two weak, two left out");
	dump(&d, &sb);
	is_str(sb.buf,
	       "../k/a.c:4294967295 profile x @12\n"
	       "/abs/dir name/m.c:4 profile one @10\n"
	       "/abs/dir name/m.c:4 profile two @9\n"
	       "/abs/dir name/m.c:4 weak one_w @11\n"
	       "lib/h.h:1 profile clamp @2\n"
	       "lib/work.c:2 left-out helper @5\n"
	       "lib/work.c:20 weak pick @8\n"
	       "main.c:5 left-out helper @4\n"
	       "main.c:11 profile main @6\n"
	       "main.c:23 profile pick @7\n",
	       "by place, role and name; sources read as clang's file names are");

	kpgo_afdo_defs_at(&d, "/abs/dir name/m.c", 4, c);
	ok(c[0] == 2 && c[1] == 1 && c[2] == 0, "two profile and one weak at m.c:4");
	kpgo_afdo_defs_at(&d, "lib/work.c", 2, c);
	ok(c[0] == 0 && c[1] == 0 && c[2] == 1, "one left out at work.c:2");
	kpgo_afdo_defs_at(&d, "main.c", 6, c);
	ok(c[0] == 0 && c[1] == 0 && c[2] == 0, "nothing at main.c:6");
	kpgo_afdo_defs_at(&d, "../k/a.c", 4294967295u, c);
	ok(c[0] == 1 && c[1] == 0 && c[2] == 0, "the last line number");
	kpgo_afdo_defs_at(&d, "zzz", 1, c);
	ok(c[0] == 0 && c[1] == 0 && c[2] == 0, "nothing past the end");

	/* Only the head: no definitions, which parses. */
	is_int(defs(&d, HEAD, &err), 0, "only the head parses");
	ok(d.n == 0 && d.lines == 1, "  to nothing");
	kpgo_afdo_defs_release(&d);
	strbuf_release(&sb);
}

static void test_bad(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "",
		  "line 1: not a definitions table of kpgo afdo (expected '# kpgo afdo defs 1')" },
		{ "clamp\tprofile\th.h\t1\n",
		  "line 1: not a definitions table of kpgo afdo (expected '# kpgo afdo defs 1')" },
		{ "# kpgo afdo defs 1 \n",
		  "line 1: not a definitions table of kpgo afdo (expected '# kpgo afdo defs 1')" },
		{ "# kpgo afdo defs 2\n",
		  "line 1: a definitions table of format version 2; kpgo reads '# kpgo afdo defs 1'" },
		{ "# kpgo afdo defs 1234567890\n",
		  "line 1: not a definitions table of kpgo afdo (expected '# kpgo afdo defs 1')" },
		{ HEAD "\n", "line 2: expected NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE" },
		{ HEAD "f profile a.c 1\n", "line 2: expected NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE" },
		{ HEAD "f\tprofile\ta.c\n", "line 2: expected NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE" },
		{ HEAD "f\tprofile\ta.c\t1\t\n",
		  "line 2: expected NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE" },
		{ HEAD "\tprofile\ta.c\t1\n",
		  "line 2: a function name that is empty or has blanks or control characters" },
		{ HEAD "f g\tprofile\ta.c\t1\n",
		  "line 2: a function name that is empty or has blanks or control characters" },
		{ HEAD "f\tPROFILE\ta.c\t1\n",
		  "line 2: a role that is not profile, weak or left-out" },
		{ HEAD "f\tunexecuted\ta.c\t1\n",
		  "line 2: a role that is not profile, weak or left-out" },
		{ HEAD "f\tprofile\t\t1\n",
		  "line 2: a source file name that is empty or has control characters" },
		{ HEAD "f\tprofile\ta\033.c\t1\n",
		  "line 2: a source file name that is empty or has control characters" },
		{ HEAD "f\tprofile\ta.c\t0\n", "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t01\n", "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t4294967296\n",
		  "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t99999999999999999999999\n",
		  "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t1 \n", "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t1\r\n",
		  "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t-1\n", "line 2: a line number that is not 1 to 4294967295" },
		{ HEAD "f\tprofile\ta.c\t1\ng\tprofile\tb.c\t2\nf\tweak\t./a.c\t1\n",
		  "line 4: 'f' at a.c:1 again (first on line 2)" },
		{ HEAD
		  "f\tprofile\ta.c\t1\ng\tprofile\tb.c\t2\nf\tprofile\tc.c\t9\nf\tprofile\tb.c\t1\n",
		  "line 4: a second 'profile' line for 'f' (first on line 2)" },
		{ HEAD
		  "h\tprofile\tz.c\t1\nh\tprofile\ta.c\t1\ng\tleft-out\tb.c\t2\ng\tleft-out\tb.c\t2\n",
		  "line 3: a second 'profile' line for 'h' (first on line 2)" },
	};
	struct kpgo_afdo_defs d;
	struct kpgo_error err;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	kpgo_afdo_defs_init(&d);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is_int(defs(&d, cases[i].text, &err), -EINVAL, "refused: %s", cases[i].msg);
		is_str(err.msg, cases[i].msg, "  with its message");
		ok(d.n == 0 && d.text.len == 0, "  and nothing kept");
	}
	is_int(kpgo_afdo_defs_parse(&d, HEAD "f\tprofile\ta\0.c\t1\n", sizeof(HEAD) + 16, &err),
	       -EBADMSG, "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "  and said where");
	strbuf_addstr(&sb, HEAD "f\tprofile\t");
	while (sb.len < KPGO_BUILDLOG_LINE_MAX + 100)
		strbuf_addstr(&sb, "dir/");
	strbuf_addstr(&sb, "a.c\t1\n");
	is_int(kpgo_afdo_defs_parse(&d, sb.buf, sb.len, &err), -EINVAL, "a long line is refused");
	is_str(err.msg, "line 2: longer than 65536 bytes", "  and said where");
	is_int(kpgo_afdo_defs_read(&d, "/nonexistent/defs", &err), -ENOENT, "a missing file");
	is_str(err.msg, "No such file or directory", "  says so");
	strbuf_release(&sb);
	kpgo_afdo_defs_release(&d);
}

static void names_of(struct kpgo_strlist *l, const char *const *names)
{
	kpgo_strlist_clear(l);
	for (; *names; names++)
		kpgo_strlist_add(l, *names);
}

static void test_check(void)
{
	static const char table[] = HEAD "f\tprofile\ta.c\t1\n"
					 "f\tweak\tb.c\t1\n"
					 "g\tprofile\ta.c\t9\n"
					 "s\tleft-out\ta.c\t20\n"
					 "s\tleft-out\tb.c\t20\n";
	static const char *const fits[] = { "f", "g", NULL };
	static const char *const more[] = { "f", "g", "h", NULL };
	static const char *const fewer[] = { "f", NULL };
	static const char *const with_s[] = { "f", "g", "s", NULL };
	static const char *const weak_only[] = { "g", NULL };
	struct kpgo_strlist names = { 0 };
	struct kpgo_afdo_defs d;
	struct kpgo_error err;

	kpgo_afdo_defs_init(&d);
	is_int(defs(&d, table, &err), 0, "the table parses");
	names_of(&names, fits);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), 0, "it fits a profile of f and g");
	names_of(&names, more);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), -EINVAL, "a profile with h too: refused");
	is_str(err.msg, "it has no 'profile' line for the profile's function 'h'", "  says which");
	names_of(&names, fewer);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), -EINVAL, "a profile without g: refused");
	is_str(err.msg, "line 4: 'g' is not in the profile", "  says where");
	names_of(&names, with_s);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), -EINVAL, "a profile with s: refused");
	is_str(err.msg, "line 5: 's' is left out, but the profile has it", "  at s's first line");
	names_of(&names, weak_only);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), -EINVAL, "a profile without f: refused");
	is_str(err.msg, "line 2: 'f' is not in the profile", "  at f's first line");
	is_int(defs(&d, HEAD, &err), 0, "an empty table parses");
	names_of(&names, fewer);
	is_int(kpgo_afdo_defs_check(&d, &names, &err), -EINVAL, "but fits no profile");
	is_str(err.msg, "it has no 'profile' line for the profile's function 'f'", "  says so");
	kpgo_strlist_clear(&names);
	kpgo_afdo_defs_release(&d);
}

/* 'B22*', GCC 12.2's gcov version stamp. */
#define V12 (((uint32_t)'B' << 24) | ('2' << 16) | ('2' << 8) | '*')

static enum kpgo_elf_binding pick_binding(void *ctx, const char *object, const char *name)
{
	(void)ctx;
	if (strcmp(name, "pick"))
		return KPGO_ELF_UNKNOWN;
	return strcmp(object, "b.gcda") ? KPGO_ELF_WEAK : KPGO_ELF_GLOBAL;
}

/* kpgo_afdo_write()'s table reads back and fits the profile written with it. */
static void test_round_trip(void)
{
	static const char *const docs[] = {
		"{\"gcc_version\": \"12.2.0\", \"current_working_directory\": \"/k/o\", \"files\": ["
		"{\"file\": \"../a.c\", \"functions\": ["
		"{\"name\": \"pick\", \"start_line\": 3, \"end_line\": 4, \"execution_count\": 0},"
		"{\"name\": \"s\", \"start_line\": 7, \"end_line\": 8, \"execution_count\": 2},"
		"{\"name\": \"f\", \"start_line\": 9, \"end_line\": 9, \"execution_count\": 5}],"
		"\"lines\": [{\"line_number\": 7, \"count\": 2, \"function_name\": \"s\"},"
		"{\"line_number\": 9, \"count\": 5, \"function_name\": \"f\"}]},"
		"{\"file\": \"./../inc/h.h\", \"functions\": ["
		"{\"name\": \"h\", \"start_line\": 1, \"end_line\": 2, \"execution_count\": 1}],"
		"\"lines\": [{\"line_number\": 1, \"count\": 1, \"function_name\": \"h\"}]}]}",
		"{\"gcc_version\": \"12.2.0\", \"current_working_directory\": \"/k/o\", \"files\": ["
		"{\"file\": \"/k/b.c\", \"functions\": ["
		"{\"name\": \"pick\", \"start_line\": 30, \"end_line\": 31, \"execution_count\": 4},"
		"{\"name\": \"s\", \"start_line\": 7, \"end_line\": 8, \"execution_count\": 0}],"
		"\"lines\": [{\"line_number\": 30, \"count\": 4, \"function_name\": \"pick\"}]}]}",
	};
	struct strbuf out = STRBUF_INIT, table = STRBUF_INIT;
	struct kpgo_strlist names = { 0 };
	struct kpgo_afdo_stats st;
	struct kpgo_afdo_text t;
	struct kpgo_afdo_defs d;
	struct kpgo_error err;
	struct kpgo_afdo *a;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (kpgo_afdo_new(&a, V12))
		bail_out("out of memory");
	for (i = 0; i < 2; i++) {
		struct kpgo_json doc;

		if (kpgo_json_parse(docs[i], strlen(docs[i]), NULL, &doc, &err))
			bail_out("bad test document");
		is_int(kpgo_afdo_add_gcov(a, &doc, i ? "b.gcda" : "a.gcda", &err), 0,
		       "document %zu", i);
		kpgo_json_release(&doc);
	}
	is_int(kpgo_afdo_write(a, pick_binding, NULL, &out, &table, &st, NULL), 0, "written");
	is_str(table.buf,
	       HEAD "f\tprofile\t../a.c\t9\n"
		    "h\tprofile\t../inc/h.h\t1\n"
		    "pick\tprofile\t/k/b.c\t30\n"
		    "pick\tweak\t../a.c\t3\n"
		    "s\tleft-out\t../a.c\t7\n"
		    "s\tleft-out\t/k/b.c\t7\n",
	       "the table: names as GCC was given them, normalized");
	kpgo_afdo_defs_init(&d);
	is_int(kpgo_afdo_text_parse(&t, out.buf, out.len, &names, &err), 0, "the profile reads");
	ok(names.n == 3 && !strcmp(names.items[0], "f") && !strcmp(names.items[2], "pick"),
	   "  its names f, h, pick");
	is_int(kpgo_afdo_defs_parse(&d, table.buf, table.len, &err), 0, "the table reads");
	is_int(kpgo_afdo_defs_check(&d, &names, &err), 0, "and fits the profile");
	dump(&d, &sb);
	is_str(sb.buf,
	       "../a.c:3 weak pick @5\n"
	       "../a.c:7 left-out s @6\n"
	       "../a.c:9 profile f @2\n"
	       "../inc/h.h:1 profile h @3\n"
	       "/k/b.c:7 left-out s @7\n"
	       "/k/b.c:30 profile pick @4\n",
	       "  by place");
	kpgo_afdo_free(a);
	kpgo_afdo_defs_release(&d);
	kpgo_strlist_clear(&names);
	strbuf_release(&out);
	strbuf_release(&table);
	strbuf_release(&sb);
}

int main(void)
{
	test_good();
	test_bad();
	test_check();
	test_round_trip();
	return done_testing();
}
