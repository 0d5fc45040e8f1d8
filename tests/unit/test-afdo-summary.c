// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-summary.c: kpgo afdo's summary. Its lines as printed, its warning,
 * the JSON and back, the sample profile's sha256, hostile documents.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "tap.h"

static void make(struct kpgo_afdo_summary *s)
{
	struct strbuf text = STRBUF_INIT;

	kpgo_afdo_summary_init(s);
	strbuf_addstr(&text, "abc");
	if (kpgo_afdo_summary_set_files(s, "/b/out.txt", &text, NULL))
		bail_out("out of memory");
	s->profile_objects = 4;
	s->st.objects = 3;
	s->st.functions = 5;
	s->st.lines = 17;
	s->st.samples = 900;
	s->st.ambiguous_names = 1;
	s->st.ambiguous_defs = 2;
	s->st.ambiguous_samples = 100;
	s->st.unexecuted = 6;
	s->st.merged_defs = 1;
	s->st.merged_copies = 2;
	s->st.weak_defs = 1;
	s->st.weak_names = 1;
	kpgo_strlist_add(&s->no_gcno, "x.gcda");
	kpgo_strlist_add(&s->ambiguous, "helper (a.c:2, b.c:5)");
	strbuf_release(&text);
}

static void test_lines(void)
{
	struct kpgo_afdo_summary s;
	struct strbuf out = STRBUF_INIT;

	make(&s);
	is_str(s.output_sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "the sample profile's sha256");
	is_int(kpgo_afdo_summary_format(&s, &out), 0, "the summary's lines");
	is_str(out.buf,
	       "kpgo afdo: wrote 5 functions (17 lines) to '/b/out.txt' from 3 of 4 objects; left "
	       "out: 1 names with several definitions (2 functions, 10.0% of the line counts), "
	       "0.0% of the line counts in no function, 6 unexecuted functions, 1 objects without "
	       ".gcno, 0 of another build; 2 copies of 1 functions merged; 1 weak definitions of "
	       "1 names overridden by a strong one\n",
	       "  one line, as kpgo afdo always printed it");
	s.st.far_lines = 2;
	strbuf_reset(&out);
	kpgo_afdo_summary_format(&s, &out);
	ok(strstr(out.buf, "\nkpgo afdo: also left out: 2 lines 65536 or more past their "
			   "function's first line; 0 negative counts taken as 0\n") != NULL,
	   "  and a second for far lines");
	strbuf_reset(&out);
	kpgo_afdo_summary_warning(&s, &out);
	is_str(out.buf, "", "no gcov messages, no warning");
	s.gcov_messages = 3;
	strbuf_addstr(&s.gcov_first_message, "x.gcno:\tno lines\x1b");
	kpgo_afdo_summary_warning(&s, &out);
	is_str(out.buf, "gcov printed 3 messages, the first: x.gcno:?no lines?",
	       "the warning, gcov's control characters as '?'");
	kpgo_afdo_summary_release(&s);
	strbuf_release(&out);
}

static void test_round_trip(void)
{
	struct kpgo_afdo_summary s, t;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct kpgo_error err;

	make(&s);
	strbuf_addstr(&s.gcov_first_message, "one");
	is_int(kpgo_afdo_summary_json(&s, &a), 0, "as JSON");
	kpgo_afdo_summary_init(&t);
	is_int(kpgo_afdo_summary_parse(&t, a.buf, a.len, &err), 0, "  reads back");
	kpgo_afdo_summary_json(&t, &b);
	is_str(b.buf, a.buf, "  to the same document");
	ok(!t.defs && !memcmp(&s.st, &t.st, sizeof(s.st)) && t.ambiguous.n == 1 &&
		   !strcmp(t.gcov_first_message.buf, "one"),
	   "  with its numbers, lists and message");
	kpgo_afdo_summary_release(&t);

	/* One member wrong at a time: the reader names it. */
	strbuf_reset(&b);
	{
		char *doc = strdup(a.buf), *p = strstr(doc, "\"lines\": 17");

		memcpy(p, "\"lines\": -1", 11);
		is_int(kpgo_afdo_summary_parse(&t, doc, strlen(doc), &err), -EINVAL,
		       "a negative count");
		is_str(err.msg,
		       "not a summary of kpgo afdo: 'lines' is not a count (an integer, 0 or more)",
		       "  names it");
		ok(!t.output && !t.no_gcno.n, "  nothing kept");
		p = strstr(doc, "\"output_sha256\": \"");
		memcpy(p + 18, "ZZ", 2);
		memcpy(strstr(doc, "\"lines\": -1"), "\"lines\": 17", 11);
		is_int(kpgo_afdo_summary_parse(&t, doc, strlen(doc), &err), -EINVAL, "a bad sha256");
		is_str(err.msg, "not a summary of kpgo afdo: 'output_sha256' is not a sha256",
		       "  names it");
		free(doc);
	}
	is_int(kpgo_afdo_summary_parse(&t, "{}", 2, &err), -EINVAL, "an empty object");
	is_str(err.msg, "not a summary of kpgo afdo: 'output' is missing",
	       "  names the first member");
	is_int(kpgo_afdo_summary_read(&t, "/nonexistent/s.json", &err), -ENOENT, "a missing file");
	kpgo_afdo_summary_release(&s);
	strbuf_release(&a);
	strbuf_release(&b);
}

/* kpgo afdo --add: its line, and its numbers read back for kpgo report's head. */
static void test_added(void)
{
	struct kpgo_afdo_summary s, t;
	struct strbuf a = STRBUF_INIT, out = STRBUF_INIT;
	struct kpgo_error err;

	make(&s);
	s.added_from = strdup("/b/entry.afdo.txt");
	s.st.added_functions = 28;
	s.st.added_records = 517;
	s.st.added_samples = 9000;
	s.st.added_known = 5142;
	s.st.added_no_place = 27;
	kpgo_afdo_summary_format(&s, &out);
	ok(strstr(out.buf, "\nkpgo afdo: added 28 functions (517 lines) of '/b/entry.afdo.txt', "
			   "whose names gcov has no function of; kept gcov's counts for 5142 of "
			   "its functions, left out 27 without a place\n") != NULL,
	   "--add's line");
	is_int(kpgo_afdo_summary_json(&s, &a), 0, "as JSON");
	kpgo_afdo_summary_init(&t);
	is_int(kpgo_afdo_summary_parse(&t, a.buf, a.len, &err), 0, "  reads back");
	ok(t.added_from && !strcmp(t.added_from, "/b/entry.afdo.txt") &&
		   !memcmp(&s.st, &t.st, sizeof(s.st)),
	   "  with what was added");
	kpgo_afdo_summary_release(&t);
	kpgo_afdo_summary_release(&s);
	strbuf_release(&a);
	strbuf_release(&out);
}

/* Objects paired with the .gcno of another compilation: their line, read back; older summaries. */
static void test_rebuilt(void)
{
	struct kpgo_afdo_summary s, t;
	struct strbuf a = STRBUF_INIT, out = STRBUF_INIT;
	struct kpgo_error err;
	char *old, *p;

	make(&s);
	kpgo_afdo_summary_format(&s, &out);
	ok(!strstr(out.buf, "another compilation"), "no such object, no line");
	kpgo_strlist_add(&s.rebuilt, "a.gcda");
	kpgo_strlist_add(&s.rebuilt, "b.gcda");
	s.changed_functions = 3;
	s.moved_functions = 7;
	strbuf_reset(&out);
	kpgo_afdo_summary_format(&s, &out);
	ok(strstr(out.buf, "\nkpgo afdo: 2 objects' .gcno of another compilation, paired by their "
			   "functions' idents and control flow checksums: 3 functions changed "
			   "since (or gone) left out, 7 whose source lines moved kept with the "
			   ".gcno's lines\n") != NULL,
	   "their line");
	is_int(kpgo_afdo_summary_json(&s, &a), 0, "as JSON");
	kpgo_afdo_summary_init(&t);
	is_int(kpgo_afdo_summary_parse(&t, a.buf, a.len, &err), 0, "  reads back");
	ok(t.rebuilt.n == 2 && !strcmp(t.rebuilt.items[1], "b.gcda") && t.changed_functions == 3 &&
		   t.moved_functions == 7,
	   "  with the objects and counts");
	/* A summary of before: no "rebuilt", nor its counts. */
	old = strdup(a.buf);
	p = strstr(old, "\"rebuilt\"");
	memcpy(p, "\"Rebuilt\"", 9);
	is_int(kpgo_afdo_summary_parse(&t, old, strlen(old), &err), 0, "an older summary reads");
	ok(!t.rebuilt.n && !t.changed_functions && !t.moved_functions, "  as none paired so");
	memcpy(p, "\"rebuilt\"", 9);
	memcpy(strstr(old, "\"moved_functions\""), "\"moved_functionZ\"", 17);
	is_int(kpgo_afdo_summary_parse(&t, old, strlen(old), &err), -EINVAL,
	       "the list without its counts");
	is_str(err.msg, "not a summary of kpgo afdo: 'moved_functions' is missing", "  names it");
	free(old);
	kpgo_afdo_summary_release(&t);
	kpgo_afdo_summary_release(&s);
	strbuf_release(&a);
	strbuf_release(&out);
}

int main(void)
{
	test_lines();
	test_round_trip();
	test_added();
	test_rebuilt();
	return done_testing();
}
