// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-text.c: the text sample profile reader, what it counts and what it
 * refuses.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "tap.h"

/* --- the profile --------------------------------------------------------- */

static int text(const char *s, struct kpgo_afdo_text *t, struct kpgo_error *err)
{
	memset(t, 0, sizeof(*t));
	err->msg[0] = '\0';
	return kpgo_afdo_text_parse(t, s, strlen(s), NULL, err);
}

static void test_text_good(void)
{
	struct kpgo_afdo_text t;
	struct kpgo_error err;

	/* As kpgo afdo writes it. */
	is_int(text("clamp:3100:3100\n 1: 1600\n 2: 1500\n"
		    "main:6404:1\n 0: 1\n 3: 1601\n 4: 1600\n 5: 100\n 7: 1500\n"
		    "unused:0:7\n 0: 0\n",
		    &t, &err),
	       0, "kpgo afdo's text reads");
	is_int(t.functions, 3, "three functions");
	is_int(t.records, 8, "eight records");
	is_int(t.samples, 3100 + 4802, "samples: the records' counts, not the TOTALs");
	is_int(t.zero_total, 1, "one with TOTAL 0");
	is_int(t.lines, 11, "eleven lines");

	/* LLVM's other shapes: discriminators, call targets, inlined callsites, comments. */
	is_int(text("# a comment\n"
		    "\n"
		    "foo:2300:10\n"
		    " 0: 10\n"
		    " 1.2: 100 bar:60 baz:40\n"
		    " 3: 200 _M_construct<char*>:1000 a::b:7\n"
		    " 5: callee:1000\n"
		    "  0: 500\n"
		    "  1.1: 500 x:1\n"
		    "  2: deeper:10\n"
		    "   0: 10\n"
		    "  4: 3\n"
		    " 6: 1990\n"
		    "   # an indented comment\n"
		    "_ZN3fooEv.llvm.123:5:5\n"
		    " 65535.4294967295: 18446744073709551615",
		    &t, &err),
	       0, "inlined blocks, discriminators and call targets read; no newline at the end");
	is_str(err.msg, "", "no message");
	is_int(t.functions, 2, "two functions");
	is_int(t.records, 5, "records directly under a head only");
	is_int(t.samples, UINT64_MAX, "samples saturate");
	is_int(t.inlined_lines, 6, "six lines of inlined callsites");
	is_int(t.lines, 16, "every line counted, the last without a newline too");
}

static void test_text_bad(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "no function in it: not a sample profile" },
		{ "# only\n\n", "no function in it: not a sample profile" },
		{ "foo\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo::1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:x:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:-1:1\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:2 \n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ "foo:1:2\r\n", "line 1: expected a function head 'NAME:TOTAL:HEAD'" },
		{ ":1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "a b:1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "a\tb:1:2\n", "line 1: a function name that has blanks or control characters" },
		{ "foo:18446744073709551616:1\n", "line 1: a count over 2^64-1" },
		{ "foo:1:99999999999999999999999\n", "line 1: a count over 2^64-1" },
		{ " 0: 1\nfoo:1:1\n", "line 1: an indented line before the first function head" },
		{ "foo:1:1\n 0:1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				     "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 0: \n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				     "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 0\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				   "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n x: 1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				      "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1.: 1\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				       "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1: 5x\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
				       "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 65536: 1\n", "line 2: a line offset over 65535" },
		{ "foo:1:1\n 1.4294967296: 1\n", "line 2: a discriminator over 2^32-1" },
		{ "foo:1:1\n 1: 18446744073709551616\n", "line 2: a count over 2^64-1" },
		{ "foo:1:1\n 1: 1 \n", "line 2: blanks at the end of the line" },
		{ "foo:1:1\n 1: 1 bar\n",
		  "line 2: expected call targets 'NAME:COUNT' after the count" },
		{ "foo:1:1\n 1: 1 bar:\n",
		  "line 2: expected call targets 'NAME:COUNT' after the count" },
		{ "foo:1:1\n 1: 1 :5\n",
		  "line 2: a name that is empty or has blanks or control characters" },
		{ "foo:1:1\n 1: callee\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' or "
					   "' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n 1: callee:1 more\n", "line 2: expected ' OFFSET[.DISCRIMINATOR]: COUNT' "
						  "or ' OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL'" },
		{ "foo:1:1\n  0: 1\n", "line 2: indented deeper than an inlined callsite's lines" },
		{ "foo:1:1\n 1: bar:1\n  0: 1\n   0: 1\n",
		  "line 4: indented deeper than an inlined callsite's lines" },
		{ "foo:1:1\n !CFGChecksum: 12\n",
		  "line 2: a metadata line ('!...'), which kpgo does not read" },
		{ "foo:1:1\n   \n", "line 2: a line of blanks only" },
		{ "foo:1:1\nbar:1:1\nbaz:1:1\nbar:2:2\nfoo:3:3\n",
		  "line 4: function 'bar' again (first on line 2)" },
	};
	struct kpgo_afdo_text t;
	struct kpgo_error err;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is_int(text(cases[i].text, &t, &err), -EINVAL, "refused: %s", cases[i].msg);
		is_str(err.msg, cases[i].msg, "  with its message");
	}
	is_int(kpgo_afdo_text_parse(&t, "foo:1:1\n\0 0: 1\n", 15, NULL, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "  and said where");
	strbuf_addstr(&sb, "foo:1:1\n 0: 1");
	while (sb.len < KPGO_BUILDLOG_LINE_MAX + 100)
		strbuf_addstr(&sb, " t:1");
	is_int(kpgo_afdo_text_parse(&t, sb.buf, sb.len, NULL, &err), -EINVAL,
	       "a long line is refused");
	is_str(err.msg, "line 2: longer than 65536 bytes", "  and said where");
	strbuf_release(&sb);
	is_int(kpgo_afdo_text_read(&t, "/nonexistent/p.txt", NULL, &err), -ENOENT, "a missing file");
	is_str(err.msg, "No such file or directory", "  says so");
}

int main(void)
{
	test_text_good();
	test_text_bad();
	return done_testing();
}
