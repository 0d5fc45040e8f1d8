/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_LINES_H
#define KPGO_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/*
 * Untrusted text (a build log) split into lines, fed in pieces cut
 * anywhere: each line goes, without its newline, to a callback. A line
 * longer than @max bytes is skipped unread and counted, so a file of any
 * size is read with a bounded buffer; a NUL byte is refused.
 */

/*
 * One line, NUL-terminated in a buffer the callback may change (up to
 * @len); the count of lines read so far includes it. Returns 0, or a
 * negative errno that ends the reading.
 */
typedef int (*kpgo_line_fn)(void *ctx, char *line, size_t len);

/**
 * struct kpgo_lines - a line reader
 * @lines: lines read, the last one without a newline too
 * @long_lines: lines longer than @max, skipped
 */
struct kpgo_lines {
	size_t lines;
	size_t long_lines;
	size_t max;
	kpgo_line_fn fn;
	void *ctx;
	struct strbuf line;
	bool overlong;
};

void kpgo_lines_init(struct kpgo_lines *lr, size_t max, kpgo_line_fn fn, void *ctx);
void kpgo_lines_release(struct kpgo_lines *lr);

/*
 * Reads @len more bytes. A NUL byte fails with -EBADMSG ("NUL byte on line
 * N: not a text file"), a callback's error with that errno ("out of
 * memory" for -ENOMEM).
 */
int kpgo_lines_feed(struct kpgo_lines *lr, const void *data, size_t len, struct kpgo_error *err);
/* The last line, when the text does not end in a newline. */
int kpgo_lines_finish(struct kpgo_lines *lr, struct kpgo_error *err);
/* Feeds the whole file at @path and finishes; a read error is "strerror" in @err. */
int kpgo_lines_read_file(struct kpgo_lines *lr, const char *path, struct kpgo_error *err);

#endif
