// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the settings file parser (and the words of its
 * upload command) and for the ingest weights file: an accepted settings
 * file holds only valid values, formats to text that parses to the same
 * settings, and formats the same again; a refused one says why. (The
 * kernel hooks' check of a kernel config for gcov is lib/kconfig's,
 * fuzzed by fuzz-kconfig.)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void fuzz_settings(const char *text, size_t size)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct kpgo_config c, c2;
	struct kpgo_error err;
	size_t i;

	err.msg[0] = '\0';
	check(kpgo_config_init(&c) == 0);
	if (kpgo_config_parse(&c, "f", text, size, &err)) {
		check(err.msg[0] != '\0');
		kpgo_config_release(&c);
		return;
	}
	check(kpgo_label_ok(c.workload));
	check(c.spool_dir[0] == '/' && strlen(c.spool_dir) > 1);
	check(c.collect_timeout >= 5 && c.collect_timeout <= 3600);
	check(c.snapshot_interval == 0 || c.snapshot_interval >= 60);
	check(c.upload_argv.n <= KPGO_UPLOAD_WORDS_MAX);
	for (i = 0; i < c.upload_argv.n; i++)
		check(c.upload_argv.items[i] != NULL);
	check(kpgo_config_format(&c, &out) == 0);
	check(kpgo_config_init(&c2) == 0);
	check(kpgo_config_parse(&c2, "f", out.buf, out.len, &err) == 0);
	check(c2.warnings.n == 0 && c2.upload_argv.n == c.upload_argv.n);
	for (i = 0; i < c.upload_argv.n; i++)
		check(!strcmp(c.upload_argv.items[i], c2.upload_argv.items[i]));
	check(kpgo_config_format(&c2, &again) == 0);
	check(again.len == out.len && !memcmp(again.buf, out.buf, out.len));
	kpgo_config_release(&c2);
	kpgo_config_release(&c);
	strbuf_release(&out);
	strbuf_release(&again);
}

static void fuzz_weights(const char *text, size_t size)
{
	struct kpgo_weights w;
	struct kpgo_error err;
	size_t i;

	err.msg[0] = '\0';
	kpgo_weights_init(&w);
	if (kpgo_weights_parse(&w, "w", text, size, &err)) {
		check(err.msg[0] != '\0');
	} else {
		check(w.other <= KPGO_WEIGHT_MAX);
		for (i = 0; i < w.labels.n; i++)
			check(kpgo_label_ok(w.labels.items[i]) && w.w[i] <= KPGO_WEIGHT_MAX &&
			      kpgo_weights_get(&w, w.labels.items[i]) == w.w[i]);
	}
	kpgo_weights_release(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > KPGO_CONFIG_FILE_MAX)
		return 0;
	fuzz_settings((const char *)data, size);
	fuzz_weights((const char *)data, size);
	return 0;
}
