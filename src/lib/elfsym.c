// SPDX-License-Identifier: GPL-2.0-or-later
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "elfsym.h"

/* @n bytes at @off fit in @len. */
static int fits(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* The header of @p, checked: a 64-bit little-endian image with its section headers in it. */
static int elf_header(const unsigned char *p, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh))
		return -1;
	memcpy(eh, p, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !fits(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), len))
		return -1;
	return 0;
}

#define NO_SYMTAB (-2)

/*
 * Calls @fn for each symbol of the first symbol table but the null one,
 * with its name (@max bytes there at most, not necessarily terminated),
 * until it returns non-zero; -1 for an image that is not one we read,
 * NO_SYMTAB for one without a symbol table.
 */
static int each_symbol(const unsigned char *p, size_t len,
		       int (*fn)(void *ctx, const char *name, size_t max, const Elf64_Sym *s),
		       void *ctx)
{
	Elf64_Ehdr eh;
	uint16_t i;

	if (elf_header(p, len, &eh))
		return -1;
	for (i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh, strsh;
		uint64_t j, n;

		memcpy(&sh, p + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_entsize != sizeof(Elf64_Sym) || !fits(sh.sh_offset, sh.sh_size, len) ||
		    sh.sh_link >= eh.e_shnum)
			return -1;
		memcpy(&strsh, p + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(strsh), sizeof(strsh));
		if (strsh.sh_type != SHT_STRTAB || !fits(strsh.sh_offset, strsh.sh_size, len))
			return -1;
		n = sh.sh_size / sizeof(Elf64_Sym);
		for (j = 1; j < n; j++) {
			Elf64_Sym s;
			int r;

			memcpy(&s, p + sh.sh_offset + j * sizeof(s), sizeof(s));
			if (s.st_name >= strsh.sh_size)
				continue;
			r = fn(ctx, (const char *)p + strsh.sh_offset + s.st_name,
			       (size_t)(strsh.sh_size - s.st_name), &s);
			if (r)
				return r;
		}
		return 0;
	}
	return NO_SYMTAB;
}

struct function_walk {
	int (*fn)(void *ctx, const char *name, size_t max, unsigned bind);
	void *ctx;
};

static int function_only(void *ctx, const char *name, size_t max, const Elf64_Sym *s)
{
	struct function_walk *fw = ctx;

	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF)
		return 0;
	return fw->fn(fw->ctx, name, max, ELF64_ST_BIND(s->st_info));
}

/*
 * Calls @fn for each defined function symbol of the first symbol table,
 * with its name (@max bytes there at most, not necessarily terminated) and
 * binding, until it returns non-zero; -1 for an image that is not one we
 * read.
 */
static int each_function(const unsigned char *p, size_t len,
			 int (*fn)(void *ctx, const char *name, size_t max, unsigned bind),
			 void *ctx)
{
	struct function_walk fw = { fn, ctx };
	int r = each_symbol(p, len, function_only, &fw);

	return r == NO_SYMTAB ? -1 : r;
}

static enum kpgo_elf_binding binding(unsigned bind)
{
	switch (bind) {
	case STB_LOCAL: return KPGO_ELF_LOCAL;
	case STB_GLOBAL: return KPGO_ELF_GLOBAL;
	case STB_WEAK: return KPGO_ELF_WEAK;
	default: return KPGO_ELF_UNKNOWN;
	}
}

struct lookup {
	const char *name;
	size_t len;
	enum kpgo_elf_binding b;
};

static int match(void *ctx, const char *name, size_t max, unsigned bind)
{
	struct lookup *l = ctx;

	/* The name and its NUL inside the string table. */
	if (max <= l->len || memcmp(name, l->name, l->len + 1))
		return 0;
	l->b = binding(bind);
	return 1;
}

enum kpgo_elf_binding kpgo_elf_function_binding(const void *data, size_t len, const char *name)
{
	struct lookup l = { name, strlen(name), KPGO_ELF_UNKNOWN };

	each_function(data, len, match, &l);
	return l.b;
}

struct visible {
	kpgo_elf_function_fn fn;
	void *ctx;
};

static int visible(void *ctx, const char *name, size_t max, unsigned bind)
{
	struct visible *v = ctx;

	if ((bind != STB_GLOBAL && bind != STB_WEAK) || !*name || !memchr(name, '\0', max))
		return 0;
	return v->fn(v->ctx, name, binding(bind));
}

int kpgo_elf_functions(const void *data, size_t len, kpgo_elf_function_fn fn, void *ctx)
{
	struct visible v = { fn, ctx };
	int r = each_function(data, len, visible, &v);

	return r == -1 ? 0 : r;
}

struct listed {
	kpgo_elf_symbol_fn fn;
	void *ctx;
};

static int listed(void *ctx, const char *name, size_t max, const Elf64_Sym *s)
{
	struct listed *l = ctx;
	unsigned type = ELF64_ST_TYPE(s->st_info);

	/* nm leaves them out but for -a (binutils calls them debugging symbols) */
	if (type == STT_SECTION || type == STT_FILE)
		return 0;
	return l->fn(l->ctx, name, strnlen(name, max));
}

int kpgo_elf_symbols(const void *data, size_t len, kpgo_elf_symbol_fn fn, void *ctx)
{
	struct listed l = { fn, ctx };
	int r = each_symbol(data, len, listed, &l);

	if (r == NO_SYMTAB)
		return 0;
	return r == -1 ? -EINVAL : r;
}

int kpgo_elf_section(const void *data, size_t len, const char *name, const void **sec, size_t *size)
{
	const unsigned char *p = data;
	Elf64_Shdr strsh;
	Elf64_Ehdr eh;
	uint16_t i;

	if (elf_header(p, len, &eh) || eh.e_shstrndx >= eh.e_shnum)
		return -EINVAL;
	memcpy(&strsh, p + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(strsh), sizeof(strsh));
	if (!fits(strsh.sh_offset, strsh.sh_size, len))
		return -EINVAL;
	for (i = 0; i < eh.e_shnum; i++) {
		size_t n = strlen(name);
		Elf64_Shdr sh;

		memcpy(&sh, p + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_name >= strsh.sh_size || strsh.sh_size - sh.sh_name <= n ||
		    memcmp(p + strsh.sh_offset + sh.sh_name, name, n + 1))
			continue;
		if (sh.sh_type == SHT_NOBITS || !fits(sh.sh_offset, sh.sh_size, len))
			return -EINVAL;
		*sec = p + sh.sh_offset;
		*size = (size_t)sh.sh_size;
		return 0;
	}
	return -ENOENT;
}
