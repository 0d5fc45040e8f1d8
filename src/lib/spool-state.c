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

/*
 * A retry file: "KEY=number" lines for @keys (into @vals) and LAST_ERROR=
 * (into @last_error). Anything malformed means no state: all zero.
 */
static void retry_file_read(struct kpgo_spool *sp, const char *name, const char *const keys[2],
			    uint64_t vals[2], char *last_error, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t v[2] = { 0, 0 };
	char *line, *eol;
	int fd, i;

	vals[0] = vals[1] = 0;
	last_error[0] = '\0';
	fd = openat(sp->retryfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (kpgo_read_fd(fd, &sb, RETRY_FILE_MAX))
		goto bad;
	for (line = sb.buf; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		if (!eol)
			goto bad;
		*eol = '\0';
		if (!strncmp(line, "LAST_ERROR=", 11)) {
			snprintf(last_error, len, "%s", line + 11);
			continue;
		}
		for (i = 0; i < 2; i++) {
			size_t n = strlen(keys[i]);

			if (!strncmp(line, keys[i], n) && line[n] == '=') {
				if (kpgo_parse_u64(line + n + 1, &v[i]) ||
				    v[i] > (uint64_t)INT64_MAX)
					goto bad;
				break;
			}
		}
		if (i == 2)
			goto bad;
	}
	vals[0] = v[0] > 1000000 ? 1000000 : v[0];
	vals[1] = v[1];
	close(fd);
	strbuf_release(&sb);
	return;
bad:
	last_error[0] = '\0';
	close(fd);
	strbuf_release(&sb);
}

static int retry_file_write(struct kpgo_spool *sp, const char *name, const char *const keys[2],
			    const uint64_t vals[2], const char *why, struct kpgo_error *err)
{
	char buf[512], clean[256];
	size_t i;
	int n, r;

	for (i = 0; why[i] && i < sizeof(clean) - 1; i++)
		clean[i] = (unsigned char)why[i] < 0x20 || why[i] == 0x7f ? ' ' : why[i];
	clean[i] = '\0';
	n = snprintf(buf, sizeof(buf), "%s=%" PRIu64 "\n%s=%" PRIu64 "\nLAST_ERROR=%s\n", keys[0],
		     vals[0], keys[1], vals[1], clean);
	r = kpgo_write_file_atomic_at(sp->retryfd, name, buf, (size_t)n, 0600);
	if (r)
		return kpgo_error_set(err, r, "cannot write '%s/retry/%s': %s", sp->dir, name,
				      strerror(-r));
	return 0;
}

static const char *const item_keys[2] = { "ATTEMPTS", "LAST_TRY" };
static const char *const state_keys[2] = { "FAILURES", "NEXT_TRY" };
#define STATE_FILE ".upload"

void kpgo_spool_retry_read(struct kpgo_spool *sp, struct kpgo_spool_item *it)
{
	uint64_t v[2];

	retry_file_read(sp, it->name, item_keys, v, it->last_error, sizeof(it->last_error));
	it->attempts = (unsigned)v[0];
	it->last_try = (int64_t)v[1];
}

int kpgo_spool_retry_failed(struct kpgo_spool *sp, struct kpgo_spool_item *it, int64_t now,
			    const char *why, struct kpgo_error *err)
{
	uint64_t v[2];

	if (it->attempts < 1000000)
		it->attempts++;
	it->last_try = now;
	snprintf(it->last_error, sizeof(it->last_error), "%s", why);
	v[0] = it->attempts;
	v[1] = (uint64_t)now;
	return retry_file_write(sp, it->name, item_keys, v, why, err);
}

void kpgo_spool_state_read(struct kpgo_spool *sp, struct kpgo_spool_state *st)
{
	uint64_t v[2];

	retry_file_read(sp, STATE_FILE, state_keys, v, st->last_error, sizeof(st->last_error));
	st->failures = (unsigned)v[0];
	st->next_try = (int64_t)v[1];
}

int kpgo_spool_state_failed(struct kpgo_spool *sp, struct kpgo_spool_state *st, int64_t now,
			    uint64_t cap, const char *why, struct kpgo_error *err)
{
	uint64_t v[2];

	if (st->failures < 1000000)
		st->failures++;
	st->next_try = now + (int64_t)kpgo_spool_backoff(st->failures, cap);
	snprintf(st->last_error, sizeof(st->last_error), "%s", why);
	v[0] = st->failures;
	v[1] = (uint64_t)st->next_try;
	return retry_file_write(sp, STATE_FILE, state_keys, v, why, err);
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
