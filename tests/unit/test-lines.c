// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lines.h: the line reader of build logs. The same lines whichever way the
 * text is cut, long lines skipped and counted, NUL bytes refused, the
 * callback's errors passed on, whole files read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lines.h"
#include "tap.h"

/* Collects the lines as "<line>|" and fails on the line numbered fail_at. */
struct collector {
	struct strbuf all;
	size_t fail_at;
	size_t seen;
	struct kpgo_lines *lr;
};

static int collect(void *ctx, char *line, size_t len)
{
	struct collector *c = ctx;

	c->seen++;
	if (c->fail_at && c->lr->lines == c->fail_at)
		return -ENOMEM;
	if (strlen(line) != len)
		return -EINVAL;
	line[0] = len ? 'X' : '\0'; /* the buffer is the callback's to change */
	return strbuf_add(&c->all, line + (len ? 1 : 0), len ? len - 1 : 0) ||
	       strbuf_addch(&c->all, '|');
}

/* Feeds @text in pieces of @piece bytes (all at once for 0). */
static int feed(const char *text, size_t piece, size_t max, struct collector *c,
		struct kpgo_lines *lr, struct kpgo_error *err)
{
	size_t len = strlen(text), i;
	int r = 0;

	memset(c, 0, sizeof(*c));
	strbuf_init(&c->all);
	c->lr = lr;
	kpgo_lines_init(lr, max, collect, c);
	for (i = 0; !r && i < len; i += piece ? piece : len)
		r = kpgo_lines_feed(lr, text + i, piece && piece < len - i ? piece : len - i, err);
	return r ? r : kpgo_lines_finish(lr, err);
}

static void test_split(void)
{
	static const char text[] = "one\n\ntwo words\r\nthree";
	struct kpgo_error err;
	struct kpgo_lines lr;
	struct collector c;
	size_t piece;
	bool same = true;

	is_int(feed(text, 0, 100, &c, &lr, &err), 0, "a text at once");
	is_str(c.all.buf, "ne||wo words\r|hree|",
	       "each line without its newline, the last without one too; \\r is the caller's");
	is_int(lr.lines, 4, "four lines");
	is_int(lr.long_lines, 0, "none long");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
	for (piece = 1; piece < sizeof(text); piece++) {
		feed(text, piece, 100, &c, &lr, &err);
		same &= !strcmp(c.all.buf, "ne||wo words\r|hree|") && lr.lines == 4;
		strbuf_release(&c.all);
		kpgo_lines_release(&lr);
	}
	ok(same, "the same lines in pieces of every size");

	is_int(feed("a\nb\n", 0, 100, &c, &lr, &err), 0, "a text ending in a newline");
	is_int(lr.lines, 2, "  has no empty last line");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
	is_int(feed("", 0, 100, &c, &lr, &err), 0, "no text");
	ok(lr.lines == 0 && c.seen == 0, "  no lines");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
}

static void test_long(void)
{
	struct kpgo_error err;
	struct kpgo_lines lr;
	struct collector c;
	size_t piece;
	bool same = true;

	is_int(feed("12345\n123456\nab\n1234567", 0, 5, &c, &lr, &err), 0, "lines past the limit");
	is_str(c.all.buf, "2345|b|", "  are skipped unread, the one at the limit is not");
	ok(lr.lines == 4 && lr.long_lines == 2, "  and counted, the last one too");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
	for (piece = 1; piece < 10; piece++) {
		feed("12345\n123456\nab\n1234567", piece, 5, &c, &lr, &err);
		same &= !strcmp(c.all.buf, "2345|b|") && lr.long_lines == 2;
		strbuf_release(&c.all);
		kpgo_lines_release(&lr);
	}
	ok(same, "  whichever way the text is cut");
}

static void test_errors(void)
{
	static const char with_nul[] = "a\nb\0c\n";
	struct kpgo_error err;
	struct kpgo_lines lr;
	struct collector c;

	memset(&c, 0, sizeof(c));
	c.lr = &lr;
	kpgo_lines_init(&lr, 100, collect, &c);
	is_int(kpgo_lines_feed(&lr, with_nul, sizeof(with_nul) - 1, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "NUL byte on line 2: not a text file", "  with its line");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);

	memset(&c, 0, sizeof(c));
	c.lr = &lr;
	c.fail_at = 2;
	kpgo_lines_init(&lr, 100, collect, &c);
	is_int(kpgo_lines_feed(&lr, "a\nb\nc\n", 6, &err), -ENOMEM,
	       "the callback's error ends the reading");
	is_str(err.msg, "out of memory", "  -ENOMEM as out of memory");
	is_int(c.seen, 2, "  no line after it");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
}

static void test_file(void)
{
	char path[] = "/tmp/kpgo-test-lines.XXXXXX";
	struct kpgo_error err;
	struct kpgo_lines lr;
	struct collector c;
	int fd = mkstemp(path);
	size_t i;
	bool written = fd >= 0;

	/* More than one read's worth. */
	for (i = 0; written && i < 20000; i++)
		written = write(fd, "line of ten\n", 12) == 12;
	ok(written, "a file of 20000 lines");
	if (fd >= 0)
		close(fd);
	memset(&c, 0, sizeof(c));
	c.lr = &lr;
	kpgo_lines_init(&lr, 100, collect, &c);
	is_int(kpgo_lines_read_file(&lr, path, &err), 0, "is read whole");
	ok(lr.lines == 20000 && c.all.len == 20000 * 11, "  every line");
	strbuf_release(&c.all);
	kpgo_lines_release(&lr);
	unlink(path);
	kpgo_lines_init(&lr, 100, collect, &c);
	is_int(kpgo_lines_read_file(&lr, path, &err), -ENOENT, "a missing file");
	is_str(err.msg, "No such file or directory", "  says why");
	kpgo_lines_release(&lr);
}

int main(void)
{
	test_split();
	test_long();
	test_errors();
	test_file();
	return done_testing();
}
