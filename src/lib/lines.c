// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lines.h"

#define READ_CHUNK 65536

void kpgo_lines_init(struct kpgo_lines *lr, size_t max, kpgo_line_fn fn, void *ctx)
{
	memset(lr, 0, sizeof(*lr));
	lr->max = max;
	lr->fn = fn;
	lr->ctx = ctx;
	strbuf_init(&lr->line);
}

void kpgo_lines_release(struct kpgo_lines *lr)
{
	strbuf_release(&lr->line);
	lr->overlong = false;
}

static int end_line(struct kpgo_lines *lr, struct kpgo_error *err)
{
	int r = 0;

	lr->lines++;
	if (lr->overlong)
		lr->long_lines++;
	else
		r = lr->fn(lr->ctx, lr->line.buf, lr->line.len);
	lr->overlong = false;
	strbuf_reset(&lr->line);
	if (r == -ENOMEM)
		return kpgo_error_set(err, r, "out of memory");
	if (r)
		return kpgo_error_set(err, r, "line %zu: %s", lr->lines, strerror(-r));
	return 0;
}

int kpgo_lines_feed(struct kpgo_lines *lr, const void *data, size_t len, struct kpgo_error *err)
{
	const char *p = data, *end = p + len;
	int r;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (memchr(p, '\0', n))
			return kpgo_error_set(err, -EBADMSG, "NUL byte on line %zu: not a text file",
					      lr->lines + 1);
		if (!lr->overlong && lr->line.len + n > lr->max) {
			lr->overlong = true;
			strbuf_reset(&lr->line);
		}
		if (!lr->overlong && strbuf_add(&lr->line, p, n))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		if (!nl)
			break;
		r = end_line(lr, err);
		if (r)
			return r;
		p = nl + 1;
	}
	return 0;
}

int kpgo_lines_finish(struct kpgo_lines *lr, struct kpgo_error *err)
{
	if (lr->line.len || lr->overlong)
		return end_line(lr, err);
	return 0;
}

int kpgo_lines_read_file(struct kpgo_lines *lr, const char *path, struct kpgo_error *err)
{
	char *buf;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "%s", strerror(errno));
	buf = malloc(READ_CHUNK);
	if (!buf) {
		close(fd);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	for (;;) {
		ssize_t n = read(fd, buf, READ_CHUNK);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = kpgo_error_set(err, -errno, "%s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		r = kpgo_lines_feed(lr, buf, (size_t)n, err);
		if (r)
			break;
	}
	free(buf);
	close(fd);
	return r ? r : kpgo_lines_finish(lr, err);
}
