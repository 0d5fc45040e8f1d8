// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the .gcno reader: whatever it accepts must describe
 * itself consistently (every name and file a C string inside the reader's
 * own storage, every function findable by its ident); whatever it refuses
 * must leave an empty result and a message with an offset. The HTML
 * escaper gets the names: its output must hold no raw markup character.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcno.h"
#include "html-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void check_escaped(const char *s)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;

	check(kpgo_html_escape(&out, s, strlen(s)) == 0);
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.buf[i];

		check(c != '<' && c != '>' && c != '"' && c != '\'');
		check(c >= 0x20 || c == '\n' || c == '\t');
		check(c != 0x7f);
	}
	strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpgo_gcno g;
	struct kpgo_error err;
	size_t i;
	int r;

	err.msg[0] = '\0';
	r = kpgo_gcno_parse(data, size, &g, &err);
	if (r) {
		check(r == -EINVAL || r == -EPROTONOSUPPORT || r == -ENOMEM);
		check(err.msg[0] != '\0' && strlen(err.msg) < sizeof(err.msg));
		check(strstr(err.msg, " at offset ") != NULL || r == -ENOMEM);
		check(!g.fns && !g.by_ident && !g.strings && !g.n_fns && !g.cwd);
		return 0;
	}
	/* A function record holds at least 3 words, two string lengths, two more words. */
	check(g.n_fns <= size / 36);
	check(g.cwd && strlen(g.cwd) < size);
	for (i = 0; i < g.n_fns; i++) {
		const struct kpgo_gcno_fn *f = &g.fns[i], *found = kpgo_gcno_find(&g, f->ident);

		check(f->name && f->file && strlen(f->name) < size && strlen(f->file) < size);
		check(found && found->ident == f->ident && found <= f);
		if (i < 16) {
			check_escaped(f->name);
			check_escaped(f->file);
		}
	}
	for (i = 1; i < g.n_fns; i++)
		check(g.fns[g.by_ident[i - 1]].ident <= g.fns[g.by_ident[i]].ident);
	kpgo_gcno_release(&g);
	return 0;
}
