// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .gcno reader: function names and source locations (gcno.h has the
 * layout). Two passes over the bytes: the first validates and counts, the
 * second fills arrays allocated from those counts, so nothing is ever
 * allocated from a length the file merely claims.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcda.h"
#include "gcno.h"

/* Every field up to the start line; column and end line are optional. */
#define FN_FIXED_WORDS 3

struct cursor {
	const unsigned char *d;
	size_t pos;
	size_t end; /* of the record (or the file, in the header) */
	bool byte_strings;
};

struct counts {
	size_t fns;
	size_t string_bytes;
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int read32(struct cursor *c, uint32_t *v, const char *what, struct kpgo_error *err)
{
	*v = 0;
	if (c->end - c->pos < 4)
		return kpgo_error_at(err, c->pos, "truncated %s", what);
	*v = get32(c->d + c->pos);
	c->pos += 4;
	return 0;
}

/*
 * A string at the cursor: its bytes (NUL-terminated in the file) and
 * length without the NUL. A zero length is GCC's NULL string: "".
 */
static int read_str(struct cursor *c, const char **s, size_t *slen, const char *what,
		    struct kpgo_error *err)
{
	static const char empty[1];
	size_t at = c->pos, bytes;
	const unsigned char *p, *nul;
	uint32_t n;

	if (read32(c, &n, what, err))
		return -EINVAL;
	if (c->byte_strings) {
		bytes = n;
	} else {
		if (n > (c->end - c->pos) / 4)
			return kpgo_error_at(err, at, "%s of %u words past the end of its record",
					     what, n);
		bytes = (size_t)n * 4;
	}
	if (bytes > c->end - c->pos)
		return kpgo_error_at(err, at, "%s of %zu bytes past the end of its record", what,
				     bytes);
	if (bytes == 0) {
		*s = empty;
		*slen = 0;
		return 0;
	}
	p = c->d + c->pos;
	nul = memchr(p, '\0', bytes);
	if (!nul)
		return kpgo_error_at(err, at, "%s without its terminating NUL", what);
	/* From GCC 12 the length is exact; before, only padding may follow. */
	if (c->byte_strings && (size_t)(nul - p) != bytes - 1)
		return kpgo_error_at(err, at, "%s with a NUL inside", what);
	*s = (const char *)p;
	*slen = (size_t)(nul - p);
	c->pos += bytes;
	return 0;
}

/* Appends a string to the arena and returns where it went. */
static const char *keep(struct kpgo_gcno *g, size_t *used, const char *s, size_t n)
{
	char *dst = g->strings + *used;

	memcpy(dst, s, n);
	dst[n] = '\0';
	*used += n + 1;
	return dst;
}

/* One FUNCTION record's payload, c->pos..c->end. */
static int function_record(struct cursor *c, struct kpgo_gcno *g, struct counts *cnt, size_t *used,
			   struct kpgo_error *err)
{
	bool fill = g->fns != NULL;
	struct kpgo_gcno_fn f = { 0 };
	const char *name, *file;
	size_t nlen, flen;
	uint32_t w[FN_FIXED_WORDS], art;
	size_t i;

	for (i = 0; i < FN_FIXED_WORDS; i++)
		if (read32(c, &w[i], "function record", err))
			return -EINVAL;
	if (read_str(c, &name, &nlen, "function name", err) ||
	    read32(c, &art, "function record", err) ||
	    read_str(c, &file, &flen, "source file name", err) ||
	    read32(c, &f.line, "function record", err))
		return -EINVAL;
	if (c->end - c->pos >= 4)
		read32(c, &f.column, "function record", err);
	if (c->end - c->pos >= 4)
		read32(c, &f.end_line, "function record", err);
	if (art > 1)
		return kpgo_error_at(err, c->pos, "artificial flag %u is neither 0 nor 1", art);
	if (fill) {
		f.ident = w[0];
		f.lineno_checksum = w[1];
		f.cfg_checksum = w[2];
		f.artificial = art;
		f.name = keep(g, used, name, nlen);
		f.file = keep(g, used, file, flen);
		g->fns[cnt->fns] = f;
	}
	cnt->fns++;
	cnt->string_bytes += nlen + flen + 2;
	return 0;
}

/* The header and every record; fills @g when its arrays are there. */
static int parse(const unsigned char *d, size_t len, struct kpgo_gcno *g, struct counts *cnt,
		 struct kpgo_error *err)
{
	struct cursor c = { .d = d, .pos = 0, .end = len };
	struct kpgo_gcc_version v;
	uint32_t magic, version, stamp, checksum = 0, flag;
	const char *cwd;
	size_t cwdlen, used = 0;
	int r;

	memset(cnt, 0, sizeof(*cnt));
	if (read32(&c, &magic, "header", err))
		return -EINVAL;
	if (magic != KPGO_GCNO_MAGIC) {
		if (magic == __builtin_bswap32(KPGO_GCNO_MAGIC)) {
			kpgo_error_at(err, 0, "notes file of the other byte order");
			return -EPROTONOSUPPORT;
		}
		return kpgo_error_at(err, 0, "not a .gcno file (magic 0x%08x)", magic);
	}
	if (read32(&c, &version, "header", err) || read32(&c, &stamp, "header", err))
		return -EINVAL;
	r = kpgo_gcc_version_decode(version, &v);
	if (r == -EINVAL)
		return kpgo_error_at(err, 4, "bad version stamp 0x%08x", version);
	if (r || v.major < 11) {
		char vs[5];

		kpgo_gcc_version_str(version, vs);
		kpgo_error_at(err, 4, "notes file of GCC %u.%u ('%s'): GCC 11 to 14 are read",
			      v.major, v.minor, vs);
		return -EPROTONOSUPPORT;
	}
	c.byte_strings = v.byte_lengths;
	if (v.has_checksum && read32(&c, &checksum, "header", err))
		return -EINVAL;
	if (read_str(&c, &cwd, &cwdlen, "working directory", err) ||
	    read32(&c, &flag, "header", err))
		return -EINVAL;
	cnt->string_bytes += cwdlen + 1;
	if (g->fns || g->strings) {
		g->version = version;
		g->stamp = stamp;
		g->checksum = checksum;
		g->cwd = keep(g, &used, cwd, cwdlen);
	}

	while (c.pos < len) {
		size_t rec = c.pos, bytes;
		uint32_t tag, rawlen;

		if (len - c.pos < 8)
			return kpgo_error_at(err, rec, "truncated record header");
		tag = get32(d + c.pos);
		rawlen = get32(d + c.pos + 4);
		c.pos += 8;
		if (v.byte_lengths) {
			bytes = rawlen;
		} else {
			if (rawlen > (len - c.pos) / 4)
				return kpgo_error_at(err, rec,
						     "record length %u past the end of the file",
						     rawlen);
			bytes = (size_t)rawlen * 4;
		}
		if (bytes > len - c.pos)
			return kpgo_error_at(err, rec,
					     "record length %u past the end of the file (%zu bytes left)",
					     rawlen, len - c.pos);
		c.end = c.pos + bytes;
		if (tag == KPGO_TAG_FUNCTION) {
			r = function_record(&c, g, cnt, &used, err);
			if (r)
				return r;
		}
		c.pos = c.end;
	}
	return 0;
}

int kpgo_gcno_regular_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EISDIR;
}

int kpgo_gcno_read_fd(int fd, struct strbuf *buf)
{
	int r = kpgo_gcno_regular_fd(fd);

	if (r)
		return r;
	strbuf_reset(buf);
	return kpgo_read_fd(fd, buf, KPGO_GCNO_FILE_MAX);
}

void kpgo_gcno_init(struct kpgo_gcno *g)
{
	memset(g, 0, sizeof(*g));
}

void kpgo_gcno_release(struct kpgo_gcno *g)
{
	free(g->fns);
	free(g->by_ident);
	free(g->strings);
	kpgo_gcno_init(g);
}

static int cmp_ident(const void *a, const void *b, void *fns)
{
	const struct kpgo_gcno_fn *f = fns;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint32_t ix = f[x].ident, iy = f[y].ident;

	if (ix != iy)
		return ix < iy ? -1 : 1;
	return x < y ? -1 : x > y; /* the first of a repeated ident first */
}

int kpgo_gcno_parse(const void *data, size_t len, struct kpgo_gcno *g, struct kpgo_error *err)
{
	struct counts cnt, again;
	size_t i;
	int r;

	kpgo_gcno_init(g);
	r = parse(data, len, g, &cnt, err);
	if (r)
		return r;
	g->fns = calloc(cnt.fns ? cnt.fns : 1, sizeof(*g->fns));
	g->by_ident = calloc(cnt.fns ? cnt.fns : 1, sizeof(*g->by_ident));
	g->strings = malloc(cnt.string_bytes);
	if (!g->fns || !g->by_ident || !g->strings) {
		kpgo_gcno_release(g);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	r = parse(data, len, g, &again, err);
	if (r) { /* cannot happen: the same bytes passed once */
		kpgo_gcno_release(g);
		return r;
	}
	g->n_fns = cnt.fns;
	for (i = 0; i < g->n_fns; i++)
		g->by_ident[i] = i;
	qsort_r(g->by_ident, g->n_fns, sizeof(*g->by_ident), cmp_ident, g->fns);
	return 0;
}

const struct kpgo_gcno_fn *kpgo_gcno_find(const struct kpgo_gcno *g, uint32_t ident)
{
	size_t lo = 0, hi = g->n_fns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->fns[g->by_ident[mid]].ident < ident)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->n_fns && g->fns[g->by_ident[lo]].ident == ident)
		return &g->fns[g->by_ident[lo]];
	return NULL;
}
