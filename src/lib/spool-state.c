// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spool's bookkeeping: retry files (a profile's failed attempts, the
 * upload's backoff), moving profiles to sent/ and rejected/, and retention.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"

#define RETRY_FILE_MAX 4096

static int cmp_item_name(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_spool_item *)a)->name,
		      ((const struct kpgo_spool_item *)b)->name);
}

/* @n bytes of @s into @dst (of @len), cut short, control characters as blanks. */
static void clean_copy(char *dst, size_t len, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
	dst[i] = '\0';
}

/*
 * The text of a retry file: "KEY=number" lines for @keys (into @vals) and
 * LAST_ERROR= (into @last_error, control characters as blanks: it is
 * printed), each ended by a newline. Anything malformed (a NUL, an unknown
 * key, a number past INT64_MAX) means no state: all zero, -EBADMSG.
 */
static int retry_text_parse(const char *text, size_t size, const char *const keys[2],
			    uint64_t vals[2], char *last_error, size_t len)
{
	uint64_t v[2] = { 0, 0 };
	const char *line, *eol, *end = text + size;
	char num[32];
	size_t i, n, k;

	vals[0] = vals[1] = 0;
	last_error[0] = '\0';
	if (size > RETRY_FILE_MAX || memchr(text, '\0', size))
		return -EBADMSG;
	for (line = text; line < end; line = eol + 1) {
		eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			goto bad;
		n = (size_t)(eol - line);
		if (n >= 11 && !memcmp(line, "LAST_ERROR=", 11)) {
			clean_copy(last_error, len, line + 11, n - 11);
			continue;
		}
		for (i = 0; i < 2; i++) {
			k = strlen(keys[i]);
			if (n > k && !memcmp(line, keys[i], k) && line[k] == '=')
				break;
		}
		if (i == 2 || n - k - 1 >= sizeof(num))
			goto bad;
		memcpy(num, line + k + 1, n - k - 1);
		num[n - k - 1] = '\0';
		if (kpgo_parse_u64(num, &v[i]) || v[i] > (uint64_t)INT64_MAX)
			goto bad;
	}
	vals[0] = v[0] > KPGO_SPOOL_FAILURES_MAX ? KPGO_SPOOL_FAILURES_MAX : v[0];
	vals[1] = v[1];
	return 0;
bad:
	last_error[0] = '\0';
	return -EBADMSG;
}

/* The text of retry/@name into @sb; -errno when it cannot be read. */
static int retry_file_read(struct kpgo_spool *sp, const char *name, struct strbuf *sb)
{
	int fd, r;

	fd = openat(sp->retryfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = kpgo_read_fd(fd, sb, RETRY_FILE_MAX);
	close(fd);
	return r;
}

/* The text retry_text_parse() reads; control characters of @why become blanks. */
static int retry_text_format(const char *const keys[2], const uint64_t vals[2], const char *why,
			     struct strbuf *out)
{
	char clean[256];
	int r;

	clean_copy(clean, sizeof(clean), why, strlen(why));
	r = strbuf_addf(out, "%s=%" PRIu64 "\n%s=%" PRIu64 "\nLAST_ERROR=%s\n", keys[0], vals[0],
			keys[1], vals[1], clean);
	return r ? -ENOMEM : 0;
}

static int retry_file_write(struct kpgo_spool *sp, const char *name, struct strbuf *text,
			    struct kpgo_error *err)
{
	int r = kpgo_write_file_atomic_at(sp->retryfd, name, text->buf, text->len, 0600);

	if (r)
		return kpgo_error_set(err, r, "cannot write '%s/retry/%s': %s", sp->dir, name,
				      strerror(-r));
	return 0;
}

static const char *const item_keys[2] = { "ATTEMPTS", "LAST_TRY" };
static const char *const state_keys[2] = { "FAILURES", "NEXT_TRY" };
#define STATE_FILE ".upload"

int kpgo_spool_retry_parse(const char *text, size_t len, struct kpgo_spool_item *it)
{
	uint64_t v[2];
	int r;

	r = retry_text_parse(text, len, item_keys, v, it->last_error, sizeof(it->last_error));
	it->attempts = (unsigned)v[0];
	it->last_try = (int64_t)v[1];
	return r;
}

int kpgo_spool_retry_format(const struct kpgo_spool_item *it, struct strbuf *out)
{
	uint64_t v[2] = { it->attempts, (uint64_t)it->last_try };

	return retry_text_format(item_keys, v, it->last_error, out);
}

int kpgo_spool_state_parse(const char *text, size_t len, struct kpgo_spool_state *st)
{
	uint64_t v[2];
	int r;

	r = retry_text_parse(text, len, state_keys, v, st->last_error, sizeof(st->last_error));
	st->failures = (unsigned)v[0];
	st->next_try = (int64_t)v[1];
	return r;
}

int kpgo_spool_state_format(const struct kpgo_spool_state *st, struct strbuf *out)
{
	uint64_t v[2] = { st->failures, (uint64_t)st->next_try };

	return retry_text_format(state_keys, v, st->last_error, out);
}

void kpgo_spool_retry_read(struct kpgo_spool *sp, struct kpgo_spool_item *it)
{
	struct strbuf sb = STRBUF_INIT;

	if (retry_file_read(sp, it->name, &sb) || kpgo_spool_retry_parse(sb.buf, sb.len, it))
		kpgo_spool_retry_parse("", 0, it);
	strbuf_release(&sb);
}

int kpgo_spool_retry_failed(struct kpgo_spool *sp, struct kpgo_spool_item *it, int64_t now,
			    const char *why, struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int r;

	if (it->attempts < KPGO_SPOOL_FAILURES_MAX)
		it->attempts++;
	it->last_try = now;
	snprintf(it->last_error, sizeof(it->last_error), "%s", why);
	r = kpgo_spool_retry_format(it, &text);
	if (r)
		r = kpgo_error_set(err, r, "out of memory");
	else
		r = retry_file_write(sp, it->name, &text, err);
	strbuf_release(&text);
	return r;
}

void kpgo_spool_state_read(struct kpgo_spool *sp, struct kpgo_spool_state *st)
{
	struct strbuf sb = STRBUF_INIT;

	if (retry_file_read(sp, STATE_FILE, &sb) || kpgo_spool_state_parse(sb.buf, sb.len, st))
		kpgo_spool_state_parse("", 0, st);
	strbuf_release(&sb);
}

int kpgo_spool_state_failed(struct kpgo_spool *sp, struct kpgo_spool_state *st, int64_t now,
			    uint64_t cap, const char *why, struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int r;

	if (st->failures < KPGO_SPOOL_FAILURES_MAX)
		st->failures++;
	st->next_try = now + (int64_t)kpgo_spool_backoff(st->failures, cap);
	snprintf(st->last_error, sizeof(st->last_error), "%s", why);
	r = kpgo_spool_state_format(st, &text);
	if (r)
		r = kpgo_error_set(err, r, "out of memory");
	else
		r = retry_file_write(sp, STATE_FILE, &text, err);
	strbuf_release(&text);
	return r;
}

void kpgo_spool_state_clear(struct kpgo_spool *sp, struct kpgo_spool_state *st)
{
	memset(st, 0, sizeof(*st));
	if (unlinkat(sp->retryfd, STATE_FILE, 0) == 0)
		fsync(sp->retryfd);
}

uint64_t kpgo_spool_backoff(unsigned failures, uint64_t cap)
{
	uint64_t d = KPGO_SPOOL_RETRY_BASE;
	unsigned i;

	for (i = 1; i < failures && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

int kpgo_spool_mark_sent(struct kpgo_spool *sp, const char *name, struct kpgo_error *err)
{
	if (renameat(sp->dirfd, name, sp->sentfd, name) < 0)
		return kpgo_error_set(err, -errno, "cannot move '%s/%s' to sent/: %s", sp->dir,
				      name, strerror(errno));
	/* Retention counts from the upload: the name keeps the collection time. */
	utimensat(sp->sentfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	if (fsync(sp->sentfd) < 0 || fsync(sp->dirfd) < 0)
		return kpgo_error_set(err, -errno, "cannot sync '%s': %s", sp->dir, strerror(errno));
	if (unlinkat(sp->retryfd, name, 0) == 0)
		fsync(sp->retryfd);
	return 0;
}

int kpgo_spool_reject(struct kpgo_spool *sp, const char *name, const char *reason,
		      struct kpgo_error *err)
{
	int r = kpgo_move_aside_at(sp->dirfd, name, sp->rejfd, reason, NULL, 0);

	if (r)
		return kpgo_error_set(err, r, "cannot move '%s/%s' to rejected/: %s", sp->dir, name,
				      strerror(-r));
	unlinkat(sp->retryfd, name, 0);
	return 0;
}

/* --- retention ------------------------------------------------------------- */

/* Newest first: by mtime, then name. */
static int cmp_newest(const void *a, const void *b)
{
	const struct kpgo_spool_item *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	return -strcmp(x->name, y->name);
}

static int drop_retry_orphans(struct kpgo_spool *sp, const struct kpgo_spool_list *waiting)
{
	struct dirent *de;
	int fd = dup(sp->retryfd);
	DIR *d;

	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		struct kpgo_spool_item key;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(key.name))
			continue;
		snprintf(key.name, sizeof(key.name), "%s", de->d_name);
		if (!waiting->n ||
		    !bsearch(&key, waiting->items, waiting->n, sizeof(key), cmp_item_name))
			unlinkat(sp->retryfd, de->d_name, 0);
	}
	closedir(d);
	return 0;
}

int kpgo_spool_prune(struct kpgo_spool *sp, const struct kpgo_spool_retention *o,
		     struct kpgo_strlist *sent_removed, struct kpgo_strlist *dropped,
		     struct kpgo_error *err)
{
	struct kpgo_spool_list sent, waiting;
	size_t i, drop;
	int r;

	r = kpgo_spool_list(sp, KPGO_SPOOL_SENT, &sent, err);
	if (r)
		return r;
	if (sent.n > 1)
		qsort(sent.items, sent.n, sizeof(*sent.items), cmp_newest);
	for (i = 0; i < sent.n && !r; i++) {
		const struct kpgo_spool_item *it = &sent.items[i];
		bool old = o->keep_age && o->now - it->mtime > (int64_t)o->keep_age;

		if (i < o->keep_count && !old)
			continue;
		if (unlinkat(sp->sentfd, it->name, 0) < 0 && errno != ENOENT)
			r = kpgo_error_set(err, -errno, "cannot remove '%s/sent/%s': %s", sp->dir,
					   it->name, strerror(errno));
		else if (kpgo_strlist_add(sent_removed, it->name))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	kpgo_spool_list_release(&sent);
	if (r)
		return r;
	r = kpgo_spool_list(sp, KPGO_SPOOL_WAITING, &waiting, err);
	if (r)
		return r;
	drop = o->spool_max && waiting.n > o->spool_max ? waiting.n - o->spool_max : 0;
	for (i = 0; i < drop && !r; i++) {
		const char *name = waiting.items[i].name;

		if (unlinkat(sp->dirfd, name, 0) < 0 && errno != ENOENT)
			r = kpgo_error_set(err, -errno, "cannot remove '%s/%s': %s", sp->dir, name,
					   strerror(errno));
		else if (kpgo_strlist_add(dropped, name))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (!r) {
		/* What is left, for the orphan check (the list stays sorted). */
		if (drop)
			memmove(waiting.items, waiting.items + drop,
				(waiting.n - drop) * sizeof(*waiting.items));
		waiting.n -= drop;
		drop_retry_orphans(sp, &waiting);
		fsync(sp->dirfd);
		fsync(sp->sentfd);
	}
	kpgo_spool_list_release(&waiting);
	return r;
}
