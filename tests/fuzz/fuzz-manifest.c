// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the MANIFEST parser: an accepted manifest holds only
 * valid keys and values, formats to text that parses to the same entries,
 * and formats the same again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct kpgo_manifest m, m2;
	struct kpgo_error err;
	size_t i;
	int r;

	err.msg[0] = '\0';
	r = kpgo_manifest_parse((const char *)data, size, &m, &err);
	if (r) {
		check(r < 0 && err.msg[0] != '\0' && m.n == 0 && m.e == NULL);
		return 0;
	}
	for (i = 0; i < m.n; i++) {
		check(kpgo_manifest_key_ok(m.e[i].key) && kpgo_manifest_value_ok(m.e[i].value));
		check(kpgo_manifest_get(&m, m.e[i].key) == m.e[i].value); /* no key twice */
	}
	check(kpgo_manifest_get(&m, MF_FORMAT) && kpgo_manifest_get(&m, MF_PAYLOAD));

	check(kpgo_manifest_format(&m, &out) == 0);
	/* Formatting adds at most a final newline to what was accepted. */
	check(out.len <= size + 1);
	if (out.len <= KPGO_MANIFEST_MAX) {
		check(kpgo_manifest_parse(out.buf, out.len, &m2, &err) == 0);
		check(m2.n == m.n);
		for (i = 0; i < m.n; i++)
			check(!strcmp(m.e[i].key, m2.e[i].key) &&
			      !strcmp(m.e[i].value, m2.e[i].value));
		check(kpgo_manifest_format(&m2, &again) == 0);
		check(again.len == out.len && !memcmp(again.buf, out.buf, out.len));
		kpgo_manifest_release(&m2);
	}
	check(kpgo_manifest_copy(&m2, &m) == 0 && m2.n == m.n);
	kpgo_manifest_release(&m2);
	kpgo_manifest_release(&m);
	strbuf_release(&out);
	strbuf_release(&again);
	return 0;
}
