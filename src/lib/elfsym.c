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

enum kpgo_elf_binding kpgo_elf_function_binding(const void *data, size_t len, const char *name)
{
	const unsigned char *p = data;
	size_t namelen = strlen(name);
	Elf64_Ehdr eh;
	uint16_t i;

	if (len < sizeof(eh))
		return KPGO_ELF_UNKNOWN;
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !fits(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), len))
		return KPGO_ELF_UNKNOWN;
	for (i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh, strsh;
		uint64_t j, n;

		memcpy(&sh, p + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_entsize != sizeof(Elf64_Sym) || !fits(sh.sh_offset, sh.sh_size, len) ||
		    sh.sh_link >= eh.e_shnum)
			return KPGO_ELF_UNKNOWN;
		memcpy(&strsh, p + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(strsh), sizeof(strsh));
		if (strsh.sh_type != SHT_STRTAB || !fits(strsh.sh_offset, strsh.sh_size, len))
			return KPGO_ELF_UNKNOWN;
		n = sh.sh_size / sizeof(Elf64_Sym);
		for (j = 1; j < n; j++) {
			Elf64_Sym s;

			memcpy(&s, p + sh.sh_offset + j * sizeof(s), sizeof(s));
			if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF)
				continue;
			/* The name and its NUL inside the string table. */
			if (s.st_name >= strsh.sh_size || strsh.sh_size - s.st_name <= namelen ||
			    memcmp(p + strsh.sh_offset + s.st_name, name, namelen + 1))
				continue;
			switch (ELF64_ST_BIND(s.st_info)) {
			case STB_LOCAL: return KPGO_ELF_LOCAL;
			case STB_GLOBAL: return KPGO_ELF_GLOBAL;
			case STB_WEAK: return KPGO_ELF_WEAK;
			default: return KPGO_ELF_UNKNOWN;
			}
		}
		return KPGO_ELF_UNKNOWN;
	}
	return KPGO_ELF_UNKNOWN;
}
