// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the .kpgo archive reader: open from memory and read
 * to the end. Whatever it hands out must be what it promised (a safe
 * .gcda path, a consistent object); a refusal must come with a message.
 * Inputs of odd length are read as a merge reads them: kpgo_archive_peek()
 * at each entry before kpgo_archive_next(), which must agree with it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile-archive.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kpgo_manifest *m;
	struct kpgo_archive *a;
	struct kpgo_error err;
	struct kpgo_gcda *g;
	const char *path, *peeked = NULL;
	bool peeking = size & 1;
	size_t objects = 0;
	struct strbuf seen = STRBUF_INIT;
	uint64_t n;
	int r;

	err.msg[0] = '\0';
	r = kpgo_archive_open_memory(&a, data, size, &err);
	if (r) {
		check(r < 0 && !a && err.msg[0] != '\0');
		return 0;
	}
	m = kpgo_archive_manifest(a);
	check(kpgo_manifest_get(m, MF_PAYLOAD) != NULL);
	check(kpgo_manifest_get(m, MF_GCOV_VERSION) != NULL);
	for (;;) {
		size_t i, next = 0;

		if (peeking) {
			r = kpgo_archive_peek(a, &peeked, &err);
			if (r != 1)
				break;
			strbuf_reset(&seen);
			check(strbuf_addstr(&seen, peeked) == 0);
		}
		r = kpgo_archive_next(a, &path, &g, &err);
		if (r != 1) {
			check(!peeking || r < 0);
			break;
		}
		check(kpgo_object_path_ok(path));
		check(!peeking || !strcmp(path, seen.buf));
		for (i = 0; i < g->n_fns; i++) {
			check(g->fns[i].arcs == next);
			next += g->fns[i].n_arcs;
		}
		check(next == g->n_ctrs);
		objects++;
	}
	if (r == 0) {
		/* Only a payload that matches its manifest reaches the end. */
		check(kpgo_manifest_get_u64(m, MF_OBJECTS, &n) == 0 && n == objects);
		check(kpgo_archive_next(a, &path, &g, &err) == 0);
	} else {
		check(r < 0 && err.msg[0] != '\0');
	}
	kpgo_archive_close(a);
	strbuf_release(&seen);
	return 0;
}
