// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for what kpgo reads of ELF: an object file's functions
 * (kpgo afdo --list-objects, the weak and strong definitions), every
 * symbol nm lists and a section by name (kpgo tree check) and the GNU
 * build id of the kernel's notes. Every name handed out is a terminated
 * string inside the input and the binding global or weak; a build id is
 * even-length lower-case hex that fits its buffer.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

struct ctx {
	const uint8_t *data;
	size_t size;
	size_t n;
};

static int each(void *p, const char *name, enum kpgo_elf_binding b)
{
	struct ctx *c = p;
	const uint8_t *n = (const uint8_t *)name;

	check(n >= c->data && n < c->data + c->size);
	check(memchr(name, '\0', (size_t)(c->data + c->size - n)) != NULL && *name);
	check(b == KPGO_ELF_GLOBAL || b == KPGO_ELF_WEAK);
	/* The lookup by name reads the same table (its answer is the first symbol's). */
	kpgo_elf_function_binding(c->data, c->size, name);
	return ++c->n > 64; /* enough of one input */
}

static int each_symbol(void *p, const char *name, size_t len)
{
	struct ctx *c = p;
	const uint8_t *n = (const uint8_t *)name;

	check(n >= c->data && n + len <= c->data + c->size && !memchr(name, '\0', len));
	return ++c->n > 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { data, size, 0 };
	char hex[160], small[9];
	const void *sec;
	size_t n, seclen;

	kpgo_elf_functions(data, size, each, &c);
	c.n = 0;
	kpgo_elf_symbols(data, size, each_symbol, &c);
	if (kpgo_elf_section(data, size, ".comment", &sec, &seclen) == 0)
		check((const uint8_t *)sec >= data && seclen <= size &&
		      (size_t)((const uint8_t *)sec - data) <= size - seclen);
	if (kpgo_build_id_parse(data, size, hex, sizeof(hex)) == 0) {
		n = strlen(hex);
		check(n && n % 2 == 0 && n <= 128 && strspn(hex, "0123456789abcdef") == n);
	} else {
		check(hex[0] == '\0');
	}
	if (kpgo_build_id_parse(data, size, small, sizeof(small)) == 0)
		check(strlen(small) < sizeof(small));
	return 0;
}
