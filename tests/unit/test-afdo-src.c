// SPDX-License-Identifier: GPL-2.0-or-later
/* afdo-src.c: the function definitions and macros of C source text. */
#include <string.h>

#include "afdo.h"
#include "tap.h"

static const char text[] = "/* a comment { with braces */\n"				    /* 1 */
			   "#define twice(x) \\\n"					    /* 2 */
			   "\t((x) * 2)\n"						    /* 3 */
			   "static __always_inline int arch_atomic_read(const int *v)\n"    /* 4 */
			   "{\n"							    /* 5 */
			   "\treturn *v; /* } */\n"					    /* 6 */
			   "}\n"							    /* 7 */
			   "int f(void) __acquires(l);\n"				    /* 8 */
			   "static inline void INIT_LIST_HEAD(struct list_head *l)\n"	    /* 9 */
			   "{\n"							    /* 10 */
			   "\tconst char *s = \"}\"; char c = '{';\n"			    /* 11 */
			   "}\n"							    /* 12 */
			   "SYSCALL_DEFINE1(close, unsigned int, fd)\n"			    /* 13 */
			   "{\n"							    /* 14 */
			   "\treturn 0;\n"						    /* 15 */
			   "}\n"							    /* 16 */
			   "static const int tab[] = { 1, 2 };\n"			    /* 17 */
			   "PAGEFLAG(Locked, locked)\n"					    /* 18 */
			   "static __attribute__((noinline)) int g(int x) __must_hold(l)\n" /* 19 */
			   "{ return ({ x; }); }\n";					    /* 20 */

int main(void)
{
	struct kpgo_afdo_src s;
	const struct kpgo_afdo_src_fn *f;

	plan(14);
	ok(kpgo_afdo_src_scan(text, strlen(text), &s) == 0, "scans");
	ok(s.n_fns == 4, "four definitions, no prototype, no initializer (%zu)", s.n_fns);
	f = kpgo_afdo_src_function_at(&s, 6);
	ok(f && !strcmp(f->name, "arch_atomic_read") && f->line == 4 && f->end_line == 7 && !f->macro,
	   "a function: its name's line to its closing brace, braces in comments ignored");
	f = kpgo_afdo_src_function_at(&s, 11);
	ok(f && !strcmp(f->name, "INIT_LIST_HEAD") && !f->macro,
	   "upper-case names are functions too; braces in strings ignored");
	f = kpgo_afdo_src_function_at(&s, 15);
	ok(f && !strcmp(f->name, "SYSCALL_DEFINE1") && f->line == 13 && f->macro,
	   "a macro that defines a function is told");
	f = kpgo_afdo_src_function_at(&s, 20);
	ok(f && !strcmp(f->name, "g") && f->line == 19 && f->end_line == 20 && !f->macro,
	   "attributes before and after; a statement expression; after a macro without ';'");
	ok(!kpgo_afdo_src_function_at(&s, 8), "a prototype is not a definition");
	ok(!kpgo_afdo_src_function_at(&s, 17), "an initializer is not a definition");
	ok(!kpgo_afdo_src_function_at(&s, 1), "nothing before the first");
	ok(kpgo_afdo_src_in_macro(&s, 2) && kpgo_afdo_src_in_macro(&s, 3),
	   "a #define's lines, continued");
	ok(!kpgo_afdo_src_in_macro(&s, 4), "not past its end");
	kpgo_afdo_src_release(&s);
	ok(s.n_fns == 0 && !s.fns, "released");
	ok(kpgo_afdo_src_scan("int f(void) {\n/* unterminated", 29, &s) == 0 && s.n_fns == 0,
	   "an unbalanced file ends without a definition");
	kpgo_afdo_src_release(&s);
	ok(kpgo_afdo_src_scan("\"", 1, &s) == 0, "an unterminated string");
	kpgo_afdo_src_release(&s);
	return done_testing();
}
