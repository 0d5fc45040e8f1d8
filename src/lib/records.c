// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "records.h"

#define IO_BUF (1u << 16)

/* Before each record's name and bytes; host byte order, never leaves the process. */
struct rec {
	uint32_t name_len;
	uint32_t pad;
	uint64_t data_len;
};

struct kpgo_records {
	int fd;
	bool reading;
	struct strbuf io; /* pending writes, then read-ahead */
	size_t io_pos;	  /* read position in @io */
	struct strbuf name;
	struct strbuf data;
};

int kpgo_records_open(struct kpgo_records **rp, const char *near, struct kpgo_error *err)
{
	struct kpgo_records *s = calloc(1, sizeof(*s));
	struct strbuf tmp = STRBUF_INIT;
	int fd;

	*rp = NULL;
	if (!s)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	strbuf_init(&s->io);
	strbuf_init(&s->name);
	strbuf_init(&s->data);
	s->fd = -1;
	if (strbuf_grow(&s->io, IO_BUF)) {
		kpgo_records_free(s);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	fd = kpgo_tmpfile_for(near, &tmp);
	if (fd < 0) {
		strbuf_release(&tmp);
		kpgo_records_free(s);
		return kpgo_error_set(err, fd, "cannot create '%s': %s", near, strerror(-fd));
	}
	if (tmp.len)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	s->fd = fd;
	*rp = s;
	return 0;
}

static int io_flush(struct kpgo_records *s)
{
	int r = kpgo_write_all(s->fd, s->io.buf, s->io.len);

	strbuf_reset(&s->io);
	return r;
}

static int io_put(struct kpgo_records *s, const void *p, size_t len)
{
	if (s->io.len + len > IO_BUF) {
		int r = io_flush(s);

		if (r)
			return r;
		if (len > IO_BUF)
			return kpgo_write_all(s->fd, p, len);
	}
	return strbuf_add(&s->io, p, len);
}

int kpgo_records_add(struct kpgo_records *s, const char *name, const void *data, size_t len)
{
	struct rec h = { 0 };
	size_t nl = strlen(name);
	int r;

	if (s->reading)
		return -EINVAL;
	if (nl > UINT32_MAX)
		return -ENAMETOOLONG;
	h.name_len = (uint32_t)nl;
	h.data_len = len;
	r = io_put(s, &h, sizeof(h));
	if (!r)
		r = io_put(s, name, nl);
	if (!r)
		r = io_put(s, data, len);
	return r;
}

int kpgo_records_rewind(struct kpgo_records *s)
{
	int r = 0;

	if (!s->reading)
		r = io_flush(s);
	if (!r && lseek(s->fd, 0, SEEK_SET) < 0)
		r = -errno;
	strbuf_reset(&s->io);
	s->io_pos = 0;
	s->reading = true;
	return r;
}

/* Up to @len bytes into @dst; returns how many (fewer only at the end), or -errno. */
static ssize_t io_get(struct kpgo_records *s, void *dst, size_t len)
{
	char *d = dst;
	size_t done = 0;

	while (done < len) {
		size_t have = s->io.len - s->io_pos, n;

		if (!have) {
			ssize_t got = read(s->fd, s->io.buf, s->io.alloc - 1);

			if (got < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			s->io.len = (size_t)got;
			s->io.buf[s->io.len] = '\0';
			s->io_pos = 0;
			if (got == 0)
				break;
			continue;
		}
		n = have < len - done ? have : len - done;
		memcpy(d + done, s->io.buf + s->io_pos, n);
		s->io_pos += n;
		done += n;
	}
	return (ssize_t)done;
}

static int io_get_all(struct kpgo_records *s, struct strbuf *sb, size_t len)
{
	ssize_t n;

	strbuf_reset(sb);
	if (strbuf_grow(sb, len))
		return -ENOMEM;
	n = io_get(s, sb->buf, len);
	if (n < 0)
		return (int)n;
	if ((size_t)n != len)
		return -EIO;
	sb->len = len;
	sb->buf[len] = '\0';
	return 0;
}

int kpgo_records_next(struct kpgo_records *s, const char **name, const void **data, size_t *len)
{
	struct rec h;
	ssize_t n;
	int r;

	if (!s->reading)
		return -EINVAL;
	n = io_get(s, &h, sizeof(h));
	if (n == 0)
		return 0;
	if (n < 0)
		return (int)n;
	if ((size_t)n != sizeof(h) || h.data_len > SIZE_MAX - 1)
		return -EIO;
	r = io_get_all(s, &s->name, h.name_len);
	if (!r)
		r = io_get_all(s, &s->data, (size_t)h.data_len);
	if (r)
		return r;
	*name = s->name.buf;
	*data = s->data.buf;
	*len = s->data.len;
	return 1;
}

void kpgo_records_free(struct kpgo_records *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	strbuf_release(&s->io);
	strbuf_release(&s->name);
	strbuf_release(&s->data);
	free(s);
}
