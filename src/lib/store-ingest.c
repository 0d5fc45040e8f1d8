// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ingest: a build farm's drop directory into the store, and the merge of
 * every kernel build's profiles, weighted by workload (see store.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge.h"
#include "profile-archive.h"
#include "sha256.h"
#include "store-internal.h"

#define DROP_NAME_MAX 200
#define LOCK_NAME ".kpgo-ingest.lock"

/* --- the drop directory ------------------------------------------------------- */

struct ingest {
	struct kpgo_store *s;
	const struct kpgo_ingest_opts *o;
	void (*report)(void *ctx, const struct kpgo_ingest_event *ev);
	void *ctx;
	struct kpgo_ingest_result *res;
	const char *drop;
	int dropfd, rejfd;
	unsigned tmp_seq;
};

static void emit(struct ingest *g, enum kpgo_ingest_what what, const char *name, const char *sha,
		 const char *detail, size_t inputs)
{
	struct kpgo_ingest_event ev = { what, name, sha ? sha : "", detail ? detail : "", inputs };

	if (g->report)
		g->report(g->ctx, &ev);
}

static int reject(struct ingest *g, const char *name, const char *reason, struct kpgo_error *err)
{
	int r = kpgo_move_aside_at(g->dropfd, name, g->rejfd, reason, NULL, 0);

	if (r)
		return kpgo_error_set(err, r, "cannot move '%s/%s' to rejected/: %s", g->drop, name,
				      strerror(-r));
	g->res->rejected++;
	emit(g, KPGO_INGEST_REJECTED, name, NULL, reason, 0);
	return 0;
}

static bool name_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static bool ends_with_kpgo(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && !strcmp(s + n - 5, ".kpgo");
}

static int ingest_file(struct ingest *g, const char *name, struct kpgo_error *err)
{
	char sha[KPGO_SHA256_HEX], why[sizeof(err->msg) + 64];
	struct strbuf path = STRBUF_INIT;
	struct kpgo_store_added added;
	struct kpgo_store_entry e;
	struct kpgo_error verr;
	const char *files[1];
	struct stat st;
	int fd, r;

	fd = openat(g->dropfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP || errno == ENXIO)
			return reject(g, name, "not a regular file", err);
		return kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", g->drop, name,
				      strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return reject(g, name, "not a regular file", err);
	}
	r = kpgo_store_verify_fd(fd, sha, &e, &verr);
	close(fd);
	if (r == -ENOMEM)
		return kpgo_error_set(err, r, "out of memory");
	if (r) {
		if (g->o->now - (int64_t)st.st_mtime < (int64_t)g->o->settle) {
			g->res->pending++;
			emit(g, KPGO_INGEST_PENDING, name, NULL, verr.msg, 0);
			return 0;
		}
		snprintf(why, sizeof(why), "not a valid kpgo profile: %s", verr.msg);
		return reject(g, name, why, err);
	}
	/*
	 * A machine uploads its own collections, one run each: a drop that
	 * claims more would be ranked and weighted by its own word.
	 */
	if (e.runs != 1 || e.merged != 1) {
		snprintf(why, sizeof(why),
			 "not a single collection: RUNS=%" PRIu64 " MERGED_PROFILES=%" PRIu64
			 " (merges are made by the farm, not uploaded)",
			 e.runs, e.merged);
		kpgo_store_entry_release(&e);
		return reject(g, name, why, err);
	}
	if (g->o->arch && strcmp(e.arch, g->o->arch)) {
		snprintf(why, sizeof(why), "foreign: a profile of arch '%s', not '%s'", e.arch,
			 g->o->arch);
		kpgo_store_entry_release(&e);
		return reject(g, name, why, err);
	}
	if (g->o->gcov_version && strcmp(e.gcov_version, g->o->gcov_version)) {
		snprintf(why, sizeof(why), "foreign: a profile of gcov version '%s', not '%s'",
			 e.gcov_version, g->o->gcov_version);
		kpgo_store_entry_release(&e);
		return reject(g, name, why, err);
	}
	kpgo_store_entry_release(&e);
	if (strbuf_addf(&path, "%s/%s", g->drop, name)) {
		strbuf_release(&path);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	files[0] = path.buf;
	r = kpgo_store_add(g->s, files, 1, &added, err);
	strbuf_release(&path);
	if (r == -EAGAIN || r == -ENOENT) {
		/* Rewritten or renamed meanwhile: the next run sees what it became. */
		g->res->pending++;
		emit(g, KPGO_INGEST_PENDING, name, NULL, err->msg, 0);
		return 0;
	}
	if (r)
		return r;
	/* The store holds these very bytes (durably) now. */
	if (unlinkat(g->dropfd, name, 0) < 0 && errno != ENOENT)
		return kpgo_error_set(err, -errno, "cannot remove '%s/%s': %s", g->drop, name,
				      strerror(errno));
	if (added.existed)
		g->res->known++;
	else
		g->res->added++;
	emit(g, added.existed ? KPGO_INGEST_KNOWN : KPGO_INGEST_ADDED, name, added.sha, NULL, 0);
	return 0;
}

static int scan_drop(struct ingest *g, struct kpgo_error *err)
{
	struct kpgo_strlist names = { 0 };
	struct dirent *de;
	int fd = dup(g->dropfd), r = 0;
	size_t i;
	DIR *d;

	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return kpgo_error_set(err, -errno, "cannot read '%s': %s", g->drop, strerror(errno));
	}
	rewinddir(d);
	while ((errno = 0, de = readdir(d)))
		if (de->d_name[0] != '.' && ends_with_kpgo(de->d_name) &&
		    kpgo_strlist_add(&names, de->d_name)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
	if (!r && errno)
		r = kpgo_error_set(err, -errno, "cannot read '%s': %s", g->drop, strerror(errno));
	closedir(d);
	kpgo_strlist_sort(&names);
	for (i = 0; i < names.n && !r; i++) {
		const char *name = names.items[i];

		if (strlen(name) > DROP_NAME_MAX || !name_printable(name)) {
			emit(g, KPGO_INGEST_IGNORED,
			     "(a name with control characters or over 200 bytes)", NULL,
			     "rename it to ingest it", 0);
			continue;
		}
		r = ingest_file(g, name, err);
	}
	kpgo_strlist_clear(&names);
	return r;
}

/* --- merging per kernel build --------------------------------------------------- */

static int cmp_build(const struct kpgo_store_entry *a, const struct kpgo_store_entry *b)
{
	int c = strcmp(a->release, b->release);

	if (!c)
		c = strcmp(a->build_id, b->build_id);
	if (!c)
		c = strcmp(a->arch, b->arch);
	if (!c)
		c = strcmp(a->gcov_version, b->gcov_version);
	return c;
}

/* By build, then sha: the order the digest of a build's inputs is taken in. */
static int cmp_build_sha(const void *pa, const void *pb)
{
	const struct kpgo_store_entry *a = pa, *b = pb;
	int c = cmp_build(a, b);

	return c ? c : strcmp(a->sha, b->sha);
}

/* A file in the store's tmp/ for an intermediate or final merge. */
static int tmp_path(struct ingest *g, struct strbuf *out)
{
	strbuf_reset(out);
	return strbuf_addf(out, "%s/tmp/ingest.%ld.%u.kpgo", g->s->dir, (long)getpid(),
			   g->tmp_seq++);
}

/* MERGE_INPUTS of a stored profile, into @out ("" when it has none). */
static int stored_merge_inputs(struct ingest *g, const char *sha, char out[KPGO_SHA256_HEX],
			       struct kpgo_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct kpgo_archive *a = NULL;
	const char *v;
	int r;

	out[0] = '\0';
	if (kpgo_store_object_path(g->s, sha, &path)) {
		strbuf_release(&path);
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	r = kpgo_archive_open(&a, path.buf, err);
	if (!r) {
		v = kpgo_manifest_get(kpgo_archive_manifest(a), MF_MERGE_INPUTS);
		if (v && kpgo_store_sha_ok(v))
			memcpy(out, v, KPGO_SHA256_HEX);
	} else {
		kpgo_error_prefix(err, "cannot read '%s'", path.buf);
	}
	kpgo_archive_close(a);
	strbuf_release(&path);
	return r;
}

/* Removes the objects @shas from the store, index first (as gc does). */
static int store_remove(struct kpgo_store *s, const struct kpgo_strlist *shas,
			struct kpgo_error *err)
{
	struct kpgo_store_index all = { 0 }, kept = { 0 };
	size_t i, j;
	int r;

	r = kpgo_store_lock(s, true, err);
	if (r)
		return r;
	r = kpgo_store_index_update_locked(s, NULL, true, &all, err);
	for (i = 0; i < all.n && !r; i++) {
		for (j = 0; j < shas->n && strcmp(shas->items[j], all.e[i].sha); j++)
			;
		if (j == shas->n && kpgo_store_index_push(&kept, &all.e[i]))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	if (!r)
		r = kpgo_store_index_write(s, &kept, err);
	for (i = 0; i < shas->n && !r; i++) {
		char rel[8 + OBJ_NAME_LEN];

		snprintf(rel, sizeof(rel), "%.2s/%s.kpgo", shas->items[i], shas->items[i]);
		if (unlinkat(s->objfd, rel, 0) < 0 && errno != ENOENT)
			r = kpgo_error_set(err, -errno, "cannot remove '%s/objects/%s': %s", s->dir,
					   rel, strerror(errno));
	}
	fsync(s->objfd);
	kpgo_store_unlock(s);
	kpgo_store_index_release(&all);
	kpgo_store_index_release(&kept);
	return r;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The most one collection may weigh in a merge: the (lower) median of the
 * counter sums the store counted, over those with counts. Collections above
 * it are scaled down to it, so that a machine reporting counts a million
 * times too large weighs as much as a typical one, not a million times
 * more; those below keep their counts (a short window is no lie).
 */
static int sum_cap(const uint64_t *sums, size_t n, uint64_t *cap)
{
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (sums[i])
			v[k++] = sums[i];
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_u64);
	*cap = k ? v[(k - 1) / 2] : 0;
	free(v);
	return 0;
}

/*
 * One kernel build: entries @e[0..n), sorted by sha. Returns 0 when it
 * went well or the failure was reported (a bad build does not stop the
 * others), or a negative errno for a store error.
 */
static int merge_build(struct ingest *g, const struct kpgo_store_entry *e, size_t n,
		       struct kpgo_error *err)
{
	struct kpgo_strlist inputs = { 0 }, stale = { 0 };
	char digest[KPGO_SHA256_HEX], have[KPGO_SHA256_HEX], label[300];
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;
	struct kpgo_sha256 *h = NULL;
	struct kpgo_store_added added;
	uint64_t *w = NULL, *sums = NULL, cap;
	bool current = false;
	size_t i, k = 0;
	int r = 0;

	snprintf(label, sizeof(label), "%s (build %s, %s, gcov %s)", *e->release ? e->release : "-",
		 *e->build_id ? e->build_id : "-", *e->arch ? e->arch : "-",
		 *e->gcov_version ? e->gcov_version : "-");
	w = calloc(n, sizeof(*w));
	sums = calloc(n, sizeof(*sums));
	h = kpgo_sha256_new();
	if (!w || !sums || !h)
		goto nomem;
	for (i = 0; i < n; i++) {
		uint64_t wi = kpgo_weights_get(g->o->weights, e[i].workload);

		if (e[i].merged != 1 || wi == 0)
			continue;
		strbuf_reset(&line);
		if (strbuf_addf(&line, "%s %" PRIu64 "\n", e[i].sha, wi) ||
		    kpgo_store_object_path(g->s, e[i].sha, &path) ||
		    kpgo_strlist_add(&inputs, path.buf))
			goto nomem;
		kpgo_sha256_update(h, line.buf, line.len);
		sums[k] = e[i].sum;
		w[k++] = wi;
	}
	strbuf_reset(&line);
	if (sum_cap(sums, k, &cap) || strbuf_addf(&line, "cap %" PRIu64 "\n", cap))
		goto nomem;
	kpgo_sha256_update(h, line.buf, line.len);
	kpgo_sha256_final_hex(h, digest);
	h = NULL;
	/* nothing to merge: select takes the one profile */
	if (k < 2)
		goto out;
	r = kpgo_store_open(g->s, true, err); /* tmp/ for the merges */
	if (r)
		goto out;
	for (i = 0; i < n && !r; i++) {
		if (e[i].merged < 2)
			continue;
		r = stored_merge_inputs(g, e[i].sha, have, err);
		if (r == -ENOMEM)
			goto out;
		if (r) {
			/* Unreadable (removed meanwhile, or bad: verify reports it). */
			r = 0;
			continue;
		}
		if (!strcmp(have, digest))
			current = true;
		else if (*have && kpgo_strlist_add(&stale, e[i].sha))
			goto nomem;
	}
	if (current) {
		g->res->current++;
		emit(g, KPGO_INGEST_MERGE_CURRENT, label, NULL, NULL, k);
	} else {
		/* kpgo merge bounds its memory itself, merging in rounds. */
		const char *const set[] = { MF_MERGE_INPUTS, digest, NULL };
		struct kpgo_merge_opts mo = { .weights = w, .sums = sums, .cap = cap, .set = set };
		struct kpgo_merge_stats st;

		if (tmp_path(g, &path))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		else
			r = kpgo_merge_files((const char *const *)inputs.items, k, &mo, path.buf,
					     &st, err);
		if (r == -ENOMEM)
			goto out;
		if (r) {
			g->res->failed++;
			emit(g, KPGO_INGEST_MERGE_FAILED, label, NULL, err->msg, k);
			unlink(path.buf);
			r = 0;
			goto out;
		}
		{
			const char *files[1] = { path.buf };

			r = kpgo_store_add(g->s, files, 1, &added, err);
		}
		unlink(path.buf);
		if (r)
			goto out;
		g->res->merged++;
		emit(g, KPGO_INGEST_MERGED, label, added.sha, NULL, k);
	}
	if (stale.n) {
		r = store_remove(g->s, &stale, err);
		for (i = 0; i < stale.n && !r; i++)
			emit(g, KPGO_INGEST_SUPERSEDED, label, stale.items[i], NULL, 0);
	}
	goto out;
nomem:
	r = kpgo_error_set(err, -ENOMEM, "out of memory");
out:
	if (h)
		kpgo_sha256_free(h);
	free(w);
	free(sums);
	kpgo_strlist_clear(&inputs);
	kpgo_strlist_clear(&stale);
	strbuf_release(&path);
	strbuf_release(&line);
	return r;
}

static int merge_builds(struct ingest *g, struct kpgo_error *err)
{
	struct kpgo_store_index idx = { 0 };
	size_t i, j;
	int r;

	r = kpgo_store_index_read(g->s, &idx, err);
	if (r == -ENOENT)
		return 0; /* no store yet: nothing was ever added */
	if (r)
		return r;
	if (idx.n > 1)
		qsort(idx.e, idx.n, sizeof(*idx.e), cmp_build_sha);
	for (i = 0; i < idx.n && !r; i = j) {
		for (j = i + 1; j < idx.n && !cmp_build(&idx.e[i], &idx.e[j]); j++)
			;
		/* Profiles that do not say which kernel they are from are not merged. */
		if (*idx.e[i].release)
			r = merge_build(g, &idx.e[i], j - i, err);
	}
	kpgo_store_index_release(&idx);
	return r;
}

int kpgo_store_ingest(struct kpgo_store *s, const char *drop, const struct kpgo_ingest_opts *o,
		      void (*report)(void *ctx, const struct kpgo_ingest_event *ev), void *ctx,
		      struct kpgo_ingest_result *res, struct kpgo_error *err)
{
	struct ingest g = {
		.s = s,
		.o = o,
		.report = report,
		.ctx = ctx,
		.res = res,
		.drop = drop,
		.dropfd = -1,
		.rejfd = -1,
	};
	int lockfd = -1, r;

	memset(res, 0, sizeof(*res));
	g.dropfd = open(drop, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g.dropfd < 0)
		return kpgo_error_set(err, -errno, "cannot open the drop directory '%s': %s", drop,
				      strerror(errno));
	lockfd = openat(g.dropfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
			0644);
	if (lockfd < 0) {
		r = kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", drop, LOCK_NAME,
				   strerror(errno));
		goto out;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ?
			    kpgo_error_set(err, -EWOULDBLOCK, "another ingest of '%s' is running",
					   drop) :
			    kpgo_error_set(err, -errno, "cannot lock '%s/%s': %s", drop, LOCK_NAME,
					   strerror(errno));
		goto out;
	}
	if (mkdirat(g.dropfd, "rejected", 0755) < 0 && errno != EEXIST) {
		r = kpgo_error_set(err, -errno, "cannot create '%s/rejected': %s", drop,
				   strerror(errno));
		goto out;
	}
	g.rejfd = kpgo_mkdirs_at(g.dropfd, "rejected", false);
	if (g.rejfd < 0) {
		r = kpgo_error_set(err, g.rejfd, "cannot open '%s/rejected': %s", drop,
				   strerror(-g.rejfd));
		goto out;
	}
	r = scan_drop(&g, err);
	if (!r) {
		r = kpgo_store_open(s, false, err);
		if (r == -ENOENT)
			r = 0; /* no store: nothing was ever added, nothing to merge */
		else if (!r)
			r = merge_builds(&g, err);
	}
out:
	if (g.rejfd >= 0)
		close(g.rejfd);
	if (lockfd >= 0)
		close(lockfd);
	close(g.dropfd);
	return r;
}
