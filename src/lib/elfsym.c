// SPDX-License-Identifier: GPL-2.0-or-later
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "elfsym.h"

/* @n bytes at @off fit in @len. */
static int fits(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
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
	Elf64_Ehdr eh;
	uint16_t i;

	if (len < sizeof(eh))
		return -1;
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !fits(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), len))
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
			if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
			    s.st_name >= strsh.sh_size)
				continue;
			r = fn(ctx, (const char *)p + strsh.sh_offset + s.st_name,
			       (size_t)(strsh.sh_size - s.st_name), ELF64_ST_BIND(s.st_info));
			if (r)
				return r;
		}
		return 0;
	}
	return -1;
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
