// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where C source text defines its functions and macros, for naming the
 * lines of functions GCC inlined before instrumenting (afdo-inline.c); see
 * afdo.h. A scanner, not a parser: comments, strings and preprocessor
 * directives are skipped, braces and parentheses counted.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afdo.h"

void kpgo_afdo_src_release(struct kpgo_afdo_src *s)
{
	size_t i;

	for (i = 0; i < s->n_fns; i++)
		free(s->fns[i].name);
	free(s->fns);
	free(s->macros);
	memset(s, 0, sizeof(*s));
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Words before a parenthesis that never name the function being defined. */
static bool not_a_name(const char *p, size_t n)
{
	static const char *const words[] = {
		"__attribute__", "__attribute",	  "__typeof__", "typeof",   "__typeof",
		"__aligned",	 "__section",	  "alignas",	"_Alignas", "__printf",
		"__scanf",	 "__diagnose_as", "asm",	"__asm__",  "if",
		"while",	 "for",		  "switch",	"return",   "sizeof"
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], p, n))
			return true;
	return false;
}

/* No lower-case letter: looks like a macro's name. */
static bool macro_like(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (islower((unsigned char)p[i]))
			return false;
	return true;
}

int kpgo_afdo_src_scan(const char *text, size_t len, struct kpgo_afdo_src *s)
{
	const char *p = text, *end = text + len;
	const char *cand = NULL, *name = NULL; /* the declaration's name so far, and its body's */
	size_t cand_len = 0, name_len = 0, fn_alloc = 0, mac_alloc = 0;
	size_t words = 0;	 /* identifiers of the declaration so far */
	bool name_first = false; /* the name was its first: a macro's (SYSCALL_DEFINE3(...) {) */
	uint32_t line = 1, cand_line = 0, name_line = 0;
	int braces = 0, parens = 0;
	bool bol = true;     /* only blanks so far on this line */
	bool params = false; /* a name and its parameter list seen at the top level */

	memset(s, 0, sizeof(*s));
	while (p < end) {
		char c = *p;

		if (c == '\n') {
			line++;
			bol = true;
			p++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
			continue;
		}
		if (c == '/' && p + 1 < end && p[1] == '*') {
			for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p == '\n')
					line++;
			p = p + 1 < end ? p + 2 : end;
			continue;
		}
		if (c == '/' && p + 1 < end && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (c == '#' && bol) {
			/* A directive, continued by backslashes; a #define's lines are a macro. */
			const char *q = p + 1;
			uint32_t first = line;
			bool define;

			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			define = end - q >= 6 && !memcmp(q, "define", 6);
			for (; p < end && *p != '\n'; p++) {
				if (*p == '\\' && p + 1 < end && p[1] == '\n') {
					line++;
					p++;
				} else if (*p == '/' && p + 1 < end && p[1] == '*') {
					for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/');
					     p++)
						if (*p == '\n')
							line++;
					if (p + 1 >= end)
						p = end - 1;
					else
						p++;
				}
			}
			if (define) {
				if (KPGO_ALLOC_GROW(s->macros, s->n_macros + 1, mac_alloc))
					goto nomem;
				s->macros[s->n_macros].line = first;
				s->macros[s->n_macros].end_line = line;
				s->n_macros++;
			}
			continue;
		}
		bol = false;
		if (c == '"' || c == '\'') {
			for (p++; p < end && *p != c && *p != '\n'; p++)
				if (*p == '\\' && p + 1 < end) {
					p++;
					if (*p == '\n')
						line++;
				}
			if (p < end && *p == c)
				p++;
			continue;
		}
		if (ident_start(c)) {
			const char *q = p;

			while (q < end && ident_char(*q))
				q++;
			if (!braces && !parens) {
				words++;
				cand = p;
				cand_len = (size_t)(q - p);
				cand_line = line;
			}
			p = q;
			continue;
		}
		p++;
		if (braces) {
			if (c == '{')
				braces++;
			else if (c == '}' && !--braces && name) {
				if (KPGO_ALLOC_GROW(s->fns, s->n_fns + 1, fn_alloc) ||
				    !(s->fns[s->n_fns].name = strndup(name, name_len)))
					goto nomem;
				s->fns[s->n_fns].line = name_line;
				s->fns[s->n_fns].end_line = line;
				s->fns[s->n_fns].macro = name_first;
				s->n_fns++;
				name = NULL;
			}
			if (!braces)
				words = 0;
			continue;
		}
		switch (c) {
		case '(':
			/*
			 * After a parameter list, NAME(...) is an annotation
			 * (__acquires(x), __must_hold(l)) or a macro invoked
			 * without a semicolon, before the next declaration.
			 */
			if (!parens++ && cand && !not_a_name(cand, cand_len) &&
			    (!params || !(macro_like(cand, cand_len) || !strncmp(cand, "__", 2)))) {
				name = cand;
				name_len = cand_len;
				name_line = cand_line;
				name_first = words == 1;
				params = true;
			}
			cand = NULL;
			break;
		case ')':
			if (parens)
				parens--;
			break;
		case '{':
			if (parens) /* a statement expression's, or an initializer's */
				break;
			braces = 1;
			if (!params)
				name = NULL;
			params = false;
			cand = NULL;
			break;
		case ';':
		case '=':
		case ',':
			if (!parens) {
				params = false;
				name = NULL;
				cand = NULL;
				words = 0;
			}
			break;
		case '}':
			params = false;
			name = NULL;
			cand = NULL;
			words = 0;
			break;
		default: break;
		}
	}
	return 0;
nomem:
	kpgo_afdo_src_release(s);
	return -ENOMEM;
}

const struct kpgo_afdo_src_fn *kpgo_afdo_src_function_at(const struct kpgo_afdo_src *s,
							 uint32_t line)
{
	size_t lo = 0, hi = s->n_fns;

	/* In file order, never nested: the last one starting at or before @line. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->fns[mid].line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && s->fns[lo - 1].end_line >= line)
		return &s->fns[lo - 1];
	return NULL;
}

bool kpgo_afdo_src_in_macro(const struct kpgo_afdo_src *s, uint32_t line)
{
	size_t i;

	for (i = 0; i < s->n_macros; i++)
		if (s->macros[i].line <= line && line <= s->macros[i].end_line)
			return true;
	return false;
}
