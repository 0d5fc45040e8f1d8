// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elfsym.h: a function's binding in an object file's symbol table, and the
 * functions other objects can link to, from a small ELF image made here;
 * what is not a function or not defined; every truncation and a few lies
 * in the headers answer "unknown" (or no functions).
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "tap.h"

static const char strtab[] = "\0loc\0glob\0wk\0undef\0obj\0end";

struct image {
	Elf64_Ehdr eh;
	Elf64_Sym syms[7];
	char str[sizeof(strtab)];
	Elf64_Shdr sh[3];
};

static Elf64_Sym sym(unsigned name, int bind, int type, uint16_t shndx)
{
	Elf64_Sym s;

	memset(&s, 0, sizeof(s));
	s.st_name = name;
	s.st_info = ELF64_ST_INFO(bind, type);
	s.st_shndx = shndx;
	return s;
}

static void make(struct image *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh.e_ident[EI_VERSION] = EV_CURRENT;
	im->eh.e_type = ET_REL;
	im->eh.e_shoff = offsetof(struct image, sh);
	im->eh.e_shentsize = sizeof(Elf64_Shdr);
	im->eh.e_shnum = 3;
	im->syms[1] = sym(1, STB_LOCAL, STT_FUNC, 1);
	im->syms[2] = sym(5, STB_GLOBAL, STT_FUNC, 1);
	im->syms[3] = sym(10, STB_WEAK, STT_FUNC, 1);
	im->syms[4] = sym(13, STB_GLOBAL, STT_FUNC, SHN_UNDEF);
	im->syms[5] = sym(19, STB_GLOBAL, STT_OBJECT, 1);
	im->syms[6] = sym(23, STB_GLOBAL, STT_FUNC, 1); /* "end", last in the table */
	memcpy(im->str, strtab, sizeof(strtab));
	im->sh[1].sh_type = SHT_SYMTAB;
	im->sh[1].sh_offset = offsetof(struct image, syms);
	im->sh[1].sh_size = sizeof(im->syms);
	im->sh[1].sh_entsize = sizeof(Elf64_Sym);
	im->sh[1].sh_link = 2;
	im->sh[2].sh_type = SHT_STRTAB;
	im->sh[2].sh_offset = offsetof(struct image, str);
	im->sh[2].sh_size = sizeof(strtab);
}

static enum kpgo_elf_binding b(const struct image *im, const char *name)
{
	return kpgo_elf_function_binding(im, sizeof(*im), name);
}

/* The visible functions as "name:G name:W ...". */
static int add(void *ctx, const char *name, enum kpgo_elf_binding bind)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%s%s:%c", n ? " " : "", name, bind == KPGO_ELF_WEAK ? 'W' : 'G');
	return 0;
}

static int stop_at_first(void *ctx, const char *name, enum kpgo_elf_binding bind)
{
	(void)bind;
	(void)name;
	++*(int *)ctx;
	return 7;
}

static void test_functions(void)
{
	struct image im;
	char out[256];
	size_t i, bad = 0;
	int calls = 0;

	make(&im);
	out[0] = '\0';
	is_int(kpgo_elf_functions(&im, sizeof(im), add, out), 0, "the functions other objects see");
	is_str(out, "glob:G wk:W end:G", "  global and weak, defined, in table order");
	is_int(kpgo_elf_functions(&im, sizeof(im), stop_at_first, &calls), 7,
	       "the callback's non-zero return stops the walk");
	is_int(calls, 1, "  after one call");
	for (i = 0; i < sizeof(im); i++) {
		out[0] = '\0';
		kpgo_elf_functions(&im, i, add, out);
		if (*out && strcmp(out, "glob:G wk:W end:G"))
			bad++;
	}
	is_int(bad, 0, "every truncation gives nothing or all of them");
	make(&im);
	im.str[sizeof(strtab) - 1] = 'x';
	out[0] = '\0';
	kpgo_elf_functions(&im, sizeof(im), add, out);
	is_str(out, "glob:G wk:W", "a name running off its string table is left out");
	make(&im);
	im.sh[1].sh_type = SHT_PROGBITS;
	out[0] = '\0';
	is_int(kpgo_elf_functions(&im, sizeof(im), add, out), 0, "no symbol table");
	is_str(out, "", "  no functions");
}

/* Every symbol nm lists, as "name name ...". */
static int add_sym(void *ctx, const char *name, size_t len)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%s%.*s", n ? " " : "", (int)len, name);
	return 0;
}

static void test_symbols(void)
{
	struct image im;
	const void *sec;
	size_t n, i, bad = 0;
	char out[256];

	make(&im);
	out[0] = '\0';
	is_int(kpgo_elf_symbols(&im, sizeof(im), add_sym, out), 0, "the symbols nm lists");
	is_str(out, "loc glob wk undef obj end", "  defined or not, any type, in table order");
	make(&im);
	im.syms[5].st_info = ELF64_ST_INFO(STB_LOCAL, STT_FILE);
	im.syms[1].st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
	out[0] = '\0';
	kpgo_elf_symbols(&im, sizeof(im), add_sym, out);
	is_str(out, "glob wk undef end", "  but for file and section symbols (nm -a shows them)");
	make(&im);
	im.sh[1].sh_type = SHT_PROGBITS;
	out[0] = '\0';
	is_int(kpgo_elf_symbols(&im, sizeof(im), add_sym, out), 0, "no symbol table: no symbols");
	is_str(out, "", "  none");
	make(&im);
	im.eh.e_ident[EI_CLASS] = ELFCLASS32;
	is_int(kpgo_elf_symbols(&im, sizeof(im), add_sym, out), -EINVAL, "32-bit ELF: -EINVAL");
	make(&im);
	for (i = 0; i < sizeof(im); i++) {
		int r;

		out[0] = '\0';
		r = kpgo_elf_symbols(&im, i, add_sym, out);
		if (r != -EINVAL && !(r == 0 && !strcmp(out, "loc glob wk undef obj end")))
			bad++;
	}
	is_int(bad, 0, "every truncation: -EINVAL or all of them");

	make(&im);
	im.eh.e_shstrndx = 2; /* the string table names the sections too */
	im.sh[1].sh_name = 5; /* "glob" */
	ok(!kpgo_elf_section(&im, sizeof(im), "glob", &sec, &n) && sec == (const void *)im.syms &&
		   n == sizeof(im.syms),
	   "a section by name: its bytes in the image");
	is_int(kpgo_elf_section(&im, sizeof(im), "glo", &sec, &n), -ENOENT,
	       "a prefix of a section's name: -ENOENT");
	is_int(kpgo_elf_section(&im, sizeof(im), ".comment", &sec, &n), -ENOENT,
	       "an absent section: -ENOENT");
	im.sh[1].sh_size = UINT64_MAX;
	is_int(kpgo_elf_section(&im, sizeof(im), "glob", &sec, &n), -EINVAL,
	       "a section larger than the file: -EINVAL");
	im.eh.e_shstrndx = 9;
	is_int(kpgo_elf_section(&im, sizeof(im), "glob", &sec, &n), -EINVAL,
	       "a section name table out of range: -EINVAL");
}

int main(void)
{
	struct image im;
	size_t i, bad = 0;

	make(&im);
	is_int(b(&im, "loc"), KPGO_ELF_LOCAL, "a static function");
	is_int(b(&im, "glob"), KPGO_ELF_GLOBAL, "a global function");
	is_int(b(&im, "wk"), KPGO_ELF_WEAK, "a weak function");
	is_int(b(&im, "end"), KPGO_ELF_GLOBAL, "the last name of the string table");
	is_int(b(&im, "undef"), KPGO_ELF_UNKNOWN, "an undefined function: unknown");
	is_int(b(&im, "obj"), KPGO_ELF_UNKNOWN, "a variable: unknown");
	is_int(b(&im, "lo"), KPGO_ELF_UNKNOWN, "a prefix of a name: unknown");
	is_int(b(&im, "none"), KPGO_ELF_UNKNOWN, "an absent name: unknown");

	for (i = 0; i < sizeof(im); i++) {
		enum kpgo_elf_binding r = kpgo_elf_function_binding(&im, i, "wk");

		if (r != KPGO_ELF_UNKNOWN && r != KPGO_ELF_WEAK)
			bad++;
	}
	is_int(bad, 0, "every truncation answers unknown or the truth");
	is_int(kpgo_elf_function_binding(&im, offsetof(struct image, sh) + 2 * sizeof(Elf64_Shdr),
					 "wk"),
	       KPGO_ELF_UNKNOWN, "section headers cut short: unknown");

	make(&im);
	im.str[sizeof(strtab) - 1] = 'x'; /* "endx" without its NUL at the table's end */
	is_int(b(&im, "end"), KPGO_ELF_UNKNOWN, "a name running off its string table: unknown");
	make(&im);
	im.eh.e_ident[EI_CLASS] = ELFCLASS32;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "32-bit ELF: unknown");
	make(&im);
	im.eh.e_ident[EI_DATA] = ELFDATA2MSB;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "big-endian ELF: unknown");
	make(&im);
	im.eh.e_ident[0] = 'X';
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "no ELF magic: unknown");
	make(&im);
	im.eh.e_shoff = UINT64_MAX - 8;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "section headers past the end: unknown");
	make(&im);
	im.eh.e_shnum = 0xffff;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "more section headers than bytes: unknown");
	make(&im);
	im.sh[1].sh_link = 7;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "a string table link out of range: unknown");
	make(&im);
	im.sh[1].sh_size = UINT64_MAX;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "a symbol table larger than the file: unknown");
	make(&im);
	im.sh[2].sh_type = SHT_PROGBITS;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN,
	       "a link to something else than a string table: unknown");
	make(&im);
	im.syms[2].st_name = 0xfffffff0;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "a name offset past the string table: unknown");
	make(&im);
	im.sh[1].sh_type = SHT_PROGBITS;
	is_int(b(&im, "glob"), KPGO_ELF_UNKNOWN, "no symbol table (stripped): unknown");
	test_functions();
	test_symbols();
	return done_testing();
}
