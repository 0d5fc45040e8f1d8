/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_ELFSYM_H
#define KPGO_ELFSYM_H

#include <stddef.h>

/*
 * How an object file defines a function: enough of ELF to tell a weak
 * definition (the kernel's __weak defaults, kernel/sys_ni.c's
 * COND_SYSCALL stubs), which the linker drops for a strong one, from a
 * strong or a local (static) one. 64-bit little-endian ELF only (x86-64,
 * arm64); every offset and size is checked against the bytes there are.
 */
enum kpgo_elf_binding {
	KPGO_ELF_UNKNOWN, /* no such defined function, or not an object we read */
	KPGO_ELF_LOCAL,
	KPGO_ELF_GLOBAL,
	KPGO_ELF_WEAK,
};

/*
 * The binding of the function @name defined in the ELF image @data
 * (its symbol table's first defined STT_FUNC symbol of that name).
 * KPGO_ELF_UNKNOWN for anything malformed, stripped or absent.
 */
enum kpgo_elf_binding kpgo_elf_function_binding(const void *data, size_t len, const char *name);

/*
 * One function another object can link to: @b is %KPGO_ELF_GLOBAL or
 * %KPGO_ELF_WEAK. A non-zero return stops the walk.
 */
typedef int (*kpgo_elf_function_fn)(void *ctx, const char *name, enum kpgo_elf_binding b);

/*
 * Calls @fn for every defined function of the ELF image @data with global
 * or weak binding (what `nm` shows as T and W), in symbol table order.
 * Returns 0, or @fn's non-zero return; an image that is not one we read
 * (malformed, stripped, 32-bit) has no functions.
 */
int kpgo_elf_functions(const void *data, size_t len, kpgo_elf_function_fn fn, void *ctx);

/*
 * One symbol as `nm` lists it: @name is @len bytes, not terminated. A
 * non-zero return stops the walk.
 */
typedef int (*kpgo_elf_symbol_fn)(void *ctx, const char *name, size_t len);

/*
 * Calls @fn for every symbol `nm` lists of the ELF image @data: the symbol
 * table's entries, defined or not, but for the null one and for section
 * and file symbols (which nm shows only with -a), in table order. Returns
 * 0 (an image without a symbol table has no symbols, as nm says), @fn's
 * non-zero return, or -EINVAL for an image that is not one we read.
 */
int kpgo_elf_symbols(const void *data, size_t len, kpgo_elf_symbol_fn fn, void *ctx);

/*
 * The contents of the section named @name of the ELF image @data, in
 * @data: 0, -ENOENT when it has no such section, -EINVAL for an image (or
 * a section) that is not one we read.
 */
int kpgo_elf_section(const void *data, size_t len, const char *name, const void **sec, size_t *size);

#endif
