// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store's index (see store.h): one line per object, derived from the
 * objects and replaced under the lock with rename(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-internal.h"
#include "util.h"

#define INDEX_HEADER "# kpgo store index 2\n"
#define INDEX_COLUMNS                                                                              \
	"# sha256\trelease\tbuild_id\tarch\tgcov_version\tworkload\truns\tmerged_profiles\t"       \
	"window_end\tadded\tsum\n"
#define INDEX_FIELDS 11
#define INDEX_MAX (256u << 20)

/* --- entries and indexes --------------------------------------------- */

bool kpgo_store_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool kpgo_store_sha_ok(const char *s)
{
	size_t i;

	for (i = 0; i < KPGO_SHA256_HEX - 1; i++)
		if (!kpgo_store_hex_lower(s[i]))
			return false;
	return s[i] == '\0';
}

/* The string fields, in index column order (runs and merged go between). */
static char **entry_str(struct kpgo_store_entry *e, int i)
{
	char **f[] = { &e->release,  &e->build_id,   &e->arch, &e->gcov_version,
		       &e->workload, &e->window_end, &e->added };

	return f[i];
}

#define ENTRY_STRS 7

void kpgo_store_entry_release(struct kpgo_store_entry *e)
{
	int i;

	for (i = 0; i < ENTRY_STRS; i++)
		free(*entry_str(e, i));
	memset(e, 0, sizeof(*e));
}

int kpgo_store_entry_from_manifest(struct kpgo_store_entry *e, const char *sha,
				   const struct kpgo_manifest *m)
{
	static const char *const keys[] = { MF_RELEASE,	     MF_BUILD_ID, MF_ARCH,
					    MF_GCOV_VERSION, MF_WORKLOAD, MF_WINDOW_END };
	size_t i;

	memset(e, 0, sizeof(*e));
	memcpy(e->sha, sha, KPGO_SHA256_HEX);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = kpgo_manifest_get(m, keys[i]);

		*entry_str(e, (int)i) = strdup(v ? v : "");
		if (!*entry_str(e, (int)i))
			goto nomem;
	}
	e->added = strdup("");
	if (!e->added)
		goto nomem;
	if (kpgo_manifest_get_u64(m, MF_RUNS, &e->runs))
		e->runs = 0;
	if (kpgo_manifest_get_u64(m, MF_MERGED, &e->merged))
		e->merged = 1;
	return 0;
nomem:
	kpgo_store_entry_release(e);
	return -ENOMEM;
}

int kpgo_store_entry_set_added(struct kpgo_store_entry *e, const struct stat *st)
{
	char t[32];
	char *d;

	kpgo_format_time((int64_t)st->st_mtime, t);
	d = strdup(t);
	if (!d)
		return -ENOMEM;
	free(e->added);
	e->added = d;
	return 0;
}

bool kpgo_store_entry_same(struct kpgo_store_entry *a, struct kpgo_store_entry *b)
{
	int i;

	for (i = 0; i < ENTRY_STRS - 1; i++)
		if (strcmp(*entry_str(a, i), *entry_str(b, i)))
			return false;
	return a->runs == b->runs && a->merged == b->merged && a->sum == b->sum;
}

int kpgo_store_index_push(struct kpgo_store_index *idx, struct kpgo_store_entry *e)
{
	int i;

	if (KPGO_ALLOC_GROW(idx->e, idx->n + 1, idx->alloc))
		return -ENOMEM;
	idx->e[idx->n++] = *e;
	/* The sha stays: @e may sit in an array that is still searched. */
	for (i = 0; i < ENTRY_STRS; i++)
		*entry_str(e, i) = NULL;
	return 0;
}

void kpgo_store_index_release(struct kpgo_store_index *idx)
{
	size_t i;

	for (i = 0; i < idx->n; i++)
		kpgo_store_entry_release(&idx->e[i]);
	free(idx->e);
	memset(idx, 0, sizeof(*idx));
}

static int cmp_sha(const void *a, const void *b)
{
	return strcmp(((const struct kpgo_store_entry *)a)->sha,
		      ((const struct kpgo_store_entry *)b)->sha);
}

static int cmp_listing(const void *pa, const void *pb)
{
	const struct kpgo_store_entry *a = pa, *b = pb;
	int r = kpgo_release_cmp(a->release, b->release);

	if (!r)
		r = strcmp(a->release, b->release);
	if (!r)
		r = strcmp(a->window_end, b->window_end);
	return r ? r : strcmp(a->sha, b->sha);
}

void kpgo_store_index_sort(struct kpgo_store_index *idx)
{
	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_listing);
}

struct kpgo_store_entry *kpgo_store_index_find(struct kpgo_store_index *idx, const char *sha)
{
	struct kpgo_store_entry key;

	memcpy(key.sha, sha, KPGO_SHA256_HEX);
	return idx->n ? bsearch(&key, idx->e, idx->n, sizeof(*idx->e), cmp_sha) : NULL;
}

static int parse_line(char *line, struct kpgo_store_entry *e)
{
	char *f[INDEX_FIELDS], *p = line;
	size_t nf = 0;
	int i;

	for (;;) {
		if (nf == INDEX_FIELDS)
			return -EBADMSG;
		f[nf++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (nf != INDEX_FIELDS || !kpgo_store_sha_ok(f[0]))
		return -EBADMSG;
	for (i = 1; i < INDEX_FIELDS; i++)
		if (!kpgo_manifest_value_ok(f[i]))
			return -EBADMSG;
	memset(e, 0, sizeof(*e));
	memcpy(e->sha, f[0], KPGO_SHA256_HEX);
	if (kpgo_parse_u64(f[6], &e->runs) || kpgo_parse_u64(f[7], &e->merged) ||
	    kpgo_parse_u64(f[10], &e->sum))
		return -EBADMSG;
	for (i = 0; i < ENTRY_STRS; i++) {
		/* Columns 1-5 are the first five strings, 8-9 the last two. */
		*entry_str(e, i) = strdup(f[i < 5 ? i + 1 : i + 3]);
		if (!*entry_str(e, i)) {
			kpgo_store_entry_release(e);
			return -ENOMEM;
		}
	}
	return 0;
}

int kpgo_store_index_parse(char *text, struct kpgo_store_index *idx, struct kpgo_strlist *bad,
			   struct kpgo_error *err)
{
	struct kpgo_store_entry e;
	char msg[128];
	size_t lineno = 0, i;
	char *line, *nl;
	int r;

	for (line = text; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		lineno++;
		if (!*line || *line == '#')
			continue;
		r = parse_line(line, &e);
		if (r == -ENOMEM)
			return kpgo_error_set(err, r, "out of memory");
		if (r == 0 && kpgo_store_index_push(idx, &e)) {
			kpgo_store_entry_release(&e);
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		}
		if (r) {
			snprintf(msg, sizeof(msg), "index line %zu is malformed", lineno);
			if (!bad)
				return kpgo_error_set(err, -EBADMSG, "%s", msg);
			if (kpgo_strlist_add(bad, msg))
				return kpgo_error_set(err, -ENOMEM, "out of memory");
		}
	}
	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_sha);
	for (i = 1; i < idx->n;) {
		if (strcmp(idx->e[i - 1].sha, idx->e[i].sha)) {
			i++;
			continue;
		}
		snprintf(msg, sizeof(msg), "index lists '%s' twice", idx->e[i].sha);
		if (!bad)
			return kpgo_error_set(err, -EBADMSG, "%s", msg);
		if (kpgo_strlist_add(bad, msg))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		kpgo_store_entry_release(&idx->e[i]);
		memmove(&idx->e[i], &idx->e[i + 1], (idx->n - i - 1) * sizeof(*idx->e));
		idx->n--;
	}
	return 0;
}

int kpgo_store_index_format(const struct kpgo_store_index *idx, struct strbuf *out)
{
	size_t i;

	if (strbuf_addstr(out, INDEX_HEADER) || strbuf_addstr(out, INDEX_COLUMNS))
		return -ENOMEM;
	for (i = 0; i < idx->n; i++) {
		const struct kpgo_store_entry *e = &idx->e[i];

		if (strbuf_addf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%llu\t%llu\t%s\t%s\t%llu\n", e->sha,
				e->release, e->build_id, e->arch, e->gcov_version, e->workload,
				(unsigned long long)e->runs, (unsigned long long)e->merged,
				e->window_end, e->added, (unsigned long long)e->sum))
			return -ENOMEM;
	}
	return 0;
}

/* --- the index file ------------------------------------------------------- */

/* Moves DIR/index to corrupt/index[.N], never replacing. */
static int index_move_aside(struct kpgo_store *s)
{
	char dst[32];
	int cfd, i, r;

	cfd = kpgo_mkdirs_at(s->dirfd, "corrupt", true);
	if (cfd < 0)
		return cfd;
	for (i = 0; i < 1000; i++) {
		if (i)
			snprintf(dst, sizeof(dst), "index.%d", i);
		else
			snprintf(dst, sizeof(dst), "index");
		r = renameat2(s->dirfd, "index", cfd, dst, RENAME_NOREPLACE);
		if (r == 0 || errno != EEXIST)
			break;
	}
	r = r < 0 ? -errno : 0;
	close(cfd);
	return r;
}

int kpgo_store_index_write(struct kpgo_store *s, struct kpgo_store_index *idx,
			   struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	char name[64];
	int fd, r;

	if (idx->n > 1)
		qsort(idx->e, idx->n, sizeof(*idx->e), cmp_sha);
	if (kpgo_store_index_format(idx, &text)) {
		strbuf_release(&text);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	fd = kpgo_store_tmp_create(s, "index", 0644, name, sizeof(name));
	r = fd < 0 ? fd : kpgo_write_all(fd, text.buf, text.len);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r && renameat(s->tmpfd, name, s->dirfd, "index") < 0) {
		r = -errno;
		/* Something rename(2) cannot replace (a directory): set it aside. */
		if ((r == -EISDIR || r == -ENOTEMPTY || r == -EEXIST) && !index_move_aside(s) &&
		    renameat(s->tmpfd, name, s->dirfd, "index") == 0)
			r = 0;
	}
	if (r && fd >= 0)
		unlinkat(s->tmpfd, name, 0);
	if (!r)
		fsync(s->dirfd);
	strbuf_release(&text);
	return r ? kpgo_error_set(err, r, "cannot write '%s/index': %s", s->dir, strerror(-r)) : 0;
}

int kpgo_store_index_load(struct kpgo_store *s, struct kpgo_store_index *idx,
			  struct kpgo_strlist *bad, struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *what = NULL;
	struct stat st;
	int fd, r;

	/* O_NONBLOCK: a FIFO put in its place must not hang a reader. */
	fd = openat(s->dirfd, "index", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP)
		what = "the index is a symbolic link";
	else if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s/index': %s", s->dir,
				      strerror(errno));
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		what = "the index is not a regular file";
	if (what) {
		if (fd >= 0)
			close(fd);
		if (!bad)
			return kpgo_error_set(err, -EBADMSG, "%s", what);
		return kpgo_strlist_add(bad, what) ? kpgo_error_set(err, -ENOMEM, "out of memory") :
						     0;
	}
	r = kpgo_read_fd(fd, &text, INDEX_MAX);
	close(fd);
	if (r)
		r = kpgo_error_set(err, r, "cannot read '%s/index': %s", s->dir, strerror(-r));
	else
		r = kpgo_store_index_parse(text.buf, idx, bad, err);
	strbuf_release(&text);
	return r;
}

/* @idx (sorted by sha) lists exactly the objects @shas (sorted). */
static bool index_lists(const struct kpgo_store_index *idx, const struct kpgo_strlist *shas)
{
	size_t i;

	if (idx->n != shas->n)
		return false;
	for (i = 0; i < idx->n; i++)
		if (strcmp(idx->e[i].sha, shas->items[i]))
			return false;
	return true;
}

/*
 * The index is derived data: rebuilt from the objects, and written back
 * when the store can be written (else only in memory, for this reader).
 */
static int index_heal(struct kpgo_store *s, struct kpgo_store_index *idx, struct kpgo_error *err)
{
	struct kpgo_error ignored;
	int r;

	if (kpgo_store_open(s, true, &ignored) == 0 && kpgo_store_lock(s, true, &ignored) == 0) {
		r = kpgo_store_index_update_locked(s, NULL, true, idx, err);
		kpgo_store_unlock(s);
		if (r != -EACCES && r != -EPERM && r != -EROFS)
			return r;
		kpgo_store_index_release(idx);
	}
	return kpgo_store_index_update_locked(s, NULL, false, idx, err);
}

int kpgo_store_index_read(struct kpgo_store *s, struct kpgo_store_index *idx, struct kpgo_error *err)
{
	struct kpgo_strlist bad = { 0 }, shas = { 0 };
	int r = kpgo_store_open(s, false, err);

	if (!r)
		r = kpgo_store_index_load(s, idx, &bad, err);
	if (!r)
		r = kpgo_store_objects_list(s, &shas, NULL, err);
	if (!r && (bad.n || !index_lists(idx, &shas))) {
		kpgo_store_index_release(idx);
		r = index_heal(s, idx, err);
	}
	kpgo_strlist_clear(&bad);
	kpgo_strlist_clear(&shas);
	return r;
}

int kpgo_store_index_update_locked(struct kpgo_store *s, struct kpgo_store_index *fresh, bool write,
				   struct kpgo_store_index *out, struct kpgo_error *err)
{
	struct kpgo_strlist shas = { 0 }, bad = { 0 };
	struct kpgo_store_index idx = { 0 };
	struct kpgo_store_entry e, *f;
	struct kpgo_error ignored;
	bool changed = false;
	size_t i, j = 0;
	int r;

	r = kpgo_store_index_load(s, &idx, &bad, err);
	if (!r)
		r = kpgo_store_objects_list(s, &shas, NULL, err);
	if (r)
		goto out;
	changed = bad.n > 0;
	if (fresh && fresh->n > 1)
		qsort(fresh->e, fresh->n, sizeof(*fresh->e), cmp_sha);
	/* Both sorted by sha: walk them together. */
	for (i = 0; i < shas.n; i++) {
		while (j < idx.n && strcmp(idx.e[j].sha, shas.items[i]) < 0) {
			kpgo_store_entry_release(&idx.e[j]);
			changed = true;
			j++;
		}
		if (j < idx.n && !strcmp(idx.e[j].sha, shas.items[i])) {
			r = kpgo_store_index_push(out, &idx.e[j++]);
		} else {
			struct stat st;
			char rel[8 + OBJ_NAME_LEN];

			changed = true;
			f = fresh ? kpgo_store_index_find(fresh, shas.items[i]) : NULL;
			snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", shas.items[i], shas.items[i]);
			if (f && fstatat(s->objfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !kpgo_store_entry_set_added(f, &st)) {
				r = kpgo_store_index_push(out, f);
			} else if (kpgo_store_object_check(s, shas.items[i], &e, &ignored) == 0) {
				r = kpgo_store_index_push(out, &e);
				if (r)
					kpgo_store_entry_release(&e);
			}
		}
		if (r) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	for (; j < idx.n; j++) {
		kpgo_store_entry_release(&idx.e[j]);
		changed = true;
	}
	idx.n = 0;
	if (write && changed)
		r = kpgo_store_index_write(s, out, err);
out:
	kpgo_store_index_release(&idx);
	kpgo_strlist_clear(&shas);
	kpgo_strlist_clear(&bad);
	return r;
}
