// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the kernel config parser (a .config or a fragment):
 * every setting found is a CONFIG_ line of its symbol, a lookup finds the
 * last one, a config checked against itself as its only fragment passes,
 * and the key file and flavour checks end with a count.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static int count(void *ctx, const struct kpgo_kconfig_problem *p)
{
	check(p->sym && p->want && !strncmp(p->sym, "CONFIG_", 7));
	(*(int *)ctx)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const name = "f";
	const struct kpgo_kconfig_line *l;
	struct kpgo_kflavour_opts o = { KPGO_KFLAVOUR_PGO_INSTR, true, true };
	struct kpgo_strlist known = { 0 };
	struct kpgo_kconfig c;
	struct kpgo_error err;
	int n = 0, r;
	size_t i;

	err.msg[0] = '\0';
	kpgo_kconfig_init(&c);
	if (kpgo_kconfig_parse(&c, name, (const char *)data, size, &err)) {
		check(err.msg[0] != '\0');
		kpgo_kconfig_release(&c);
		return 0;
	}
	for (i = 0; i < c.n; i++) {
		check(!strncmp(c.lines[i].sym, "CONFIG_", 7) && c.lines[i].lineno > 0);
		check(!strncmp(c.lines[i].line, c.lines[i].sym, strlen(c.lines[i].sym)) ||
		      !strncmp(c.lines[i].line + 2, c.lines[i].sym, strlen(c.lines[i].sym)));
		l = kpgo_kconfig_get(&c, c.lines[i].sym);
		check(l && !strcmp(l->sym, c.lines[i].sym) && l >= &c.lines[i]);
		check(kpgo_kconfig_has(&c, l->line));
	}
	r = kpgo_kconfig_check_fragments(&c, &c, &name, 1, &known, count, &n);
	check(r == 0 && n == 0);
	r = kpgo_kconfig_check_key_files(&c, NULL, "/nonexistent", count, &n);
	check(r >= 0 && r == n);
	n = 0;
	r = kpgo_kconfig_check_flavour(&c, &o, count, &n);
	check(r >= 0 && r == n);
	kpgo_kconfig_release(&c);
	return 0;
}
