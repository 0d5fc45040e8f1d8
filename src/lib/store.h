/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_STORE_H
#define KPGO_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"
#include "util.h"

/*
 * The profile store: a directory of verified .kpgo archives, named by the
 * sha256 of their bytes, and an index of their manifests (see
 * docs/FORMAT.md, "The store"):
 *
 *   DIR/objects/<first 2 hex>/<sha256>.kpgo   the archives, read-only
 *   DIR/index                                 one line per archive
 *   DIR/tmp/                                  in-flight writes
 *   DIR/lock                                  flock(2): writers exclusive
 *   DIR/corrupt/                              objects `verify --repair` set aside
 *
 * The objects are the truth; the index is derived from them and rebuilt
 * when it disagrees. Every change is a rename of a complete, fsync'ed file,
 * so a killed writer leaves at worst a stray tmp file or an object the
 * index does not list yet, which the next writer picks up.
 */
#define KPGO_STORE_DEFAULT "/var/lib/kpgo/store"
/* Largest archive file the store takes (it is verified in memory). */
#define KPGO_STORE_FILE_MAX (1ull << 30)
/* `gc` removes files in tmp/ older than this (seconds). */
#define KPGO_STORE_TMP_AGE 3600

struct kpgo_store {
	char *dir;  /* as given, or made absolute once the directory exists */
	int dirfd;  /* -1 until opened */
	int objfd;  /* DIR/objects */
	int tmpfd;  /* DIR/tmp, -1 until a writer needs it */
	int lockfd; /* -1 while unlocked */
};

/**
 * struct kpgo_store_entry - one index line: what list and select need
 * @added: when the object was written, from its mtime ("YYYY-MM-DDTHH:MM:SSZ")
 *
 * Strings are never NULL; a field the manifest lacks is "".
 */
struct kpgo_store_entry {
	char sha[KPGO_SHA256_HEX];
	char *release;
	char *build_id;
	char *arch;
	char *gcov_version;
	char *workload;
	char *window_end;
	char *added;
	uint64_t runs;
	uint64_t merged;
	uint64_t sum; /* the counters' sum (saturating), computed by the store */
};

struct kpgo_store_index {
	size_t n;
	size_t alloc;
	struct kpgo_store_entry *e;
};

void kpgo_store_index_release(struct kpgo_store_index *idx);
/* By release (as dpkg compares versions), then window end, then sha. */
void kpgo_store_index_sort(struct kpgo_store_index *idx);

/*
 * Reads @fd whole (at most KPGO_STORE_FILE_MAX bytes), hashes the bytes
 * into @sha and verifies the same bytes as an archive, read to the end, as
 * add does; fills @e (when not NULL) from its manifest. The reason for a
 * bad archive is in @err, without the file's name.
 */
int kpgo_store_verify_fd(int fd, char sha[KPGO_SHA256_HEX], struct kpgo_store_entry *e,
			 struct kpgo_error *err);
void kpgo_store_entry_release(struct kpgo_store_entry *e);

/* --store, else $KPGO_STORE, else KPGO_STORE_DEFAULT. */
const char *kpgo_store_default_dir(const char *opt);

/* Records @dir; nothing is opened or created until an operation needs it. */
int kpgo_store_init(struct kpgo_store *s, const char *dir);
void kpgo_store_release(struct kpgo_store *s);

/* DIR/objects/<xx>/<sha>.kpgo into @out (reset first). */
int kpgo_store_object_path(const struct kpgo_store *s, const char *sha, struct strbuf *out);

/**
 * kpgo_store_index_read() - the index as it is, for readers
 *
 * Takes no lock: the index is only ever replaced by rename(2), so a reader
 * sees one complete version. The index is derived data: when it is
 * missing, not a regular file, has a malformed line or does not list
 * exactly the objects there are, it is rebuilt from the objects (each one
 * it lacks verified) and written back under the lock where the store can
 * be written, else used from memory. Fails with -ENOENT when the store
 * does not exist.
 */
int kpgo_store_index_read(struct kpgo_store *s, struct kpgo_store_index *idx,
			  struct kpgo_error *err);

/* The entry whose sha starts with @prefix: -ENOENT none, -EEXIST several. */
int kpgo_store_lookup(const struct kpgo_store_index *idx, const char *prefix,
		      const struct kpgo_store_entry **e, struct kpgo_error *err);

struct kpgo_store_added {
	char sha[KPGO_SHA256_HEX];
	bool existed; /* the store had it already (or an earlier file of the batch) */
};

/**
 * kpgo_store_add() - add archives, all or none
 * @res: one per file
 *
 * Reads each file into memory, hashes those bytes and verifies them as an
 * archive (payload hash, totals, names); one bad file fails the call before
 * the store is touched (or created). Then copies each file into tmp/ while
 * hashing it again (a file that changed meanwhile is refused), fsyncs, and
 * under the lock renames it into objects/ without replacing an existing
 * object (one that fails its check is moved to corrupt/ and replaced)
 * and updates the index, picking up objects an interrupted add left
 * unindexed.
 */
int kpgo_store_add(struct kpgo_store *s, const char *const *files, size_t n,
		   struct kpgo_store_added *res, struct kpgo_error *err);

/**
 * struct kpgo_store_query - what `select` looks for
 * @release: required
 * @build_id, @gcov_version, @arch: NULL for any
 */
struct kpgo_store_query {
	const char *release;
	const char *build_id;
	const char *gcov_version;
	const char *arch;
	/*
	 * @policy: the freshness policy (store-policy.h), NULL for none;
	 * @now: the time ages are measured at; @override: a profile the policy
	 * refuses may still be chosen (the choice says so); @explain: when
	 * not NULL, one line per profile considered
	 */
	const struct kpgo_store_policy *policy;
	int64_t now;
	bool override;
	struct kpgo_strlist *explain;
};

enum kpgo_store_rank {
	KPGO_RANK_BUILD_ID = 1,
	KPGO_RANK_RELEASE = 2,
	KPGO_RANK_OLDER = 3,
	KPGO_RANK_OTHER_SERIES = 4, /* only when the policy allows crossing */
};

struct kpgo_store_choice {
	const struct kpgo_store_entry *e;
	enum kpgo_store_rank rank;
	size_t candidates; /* entries of that rank that fit */
	size_t skipped;	   /* objects passed over by kpgo_store_select_verified() */
	char why[512];
	int verdict;	 /* enum kpgo_policy_verdict of the choice */
	bool overridden; /* the policy refuses it; @override took it */
	char policy_why[256];
};

/**
 * kpgo_store_select() - the best profile for building @q->release
 *
 * Rank 1: same build id; 2: same release; 3: the nearest older release of
 * the same series (major.minor), never a newer release or another series.
 * Gcov version and arch must match exactly when given. With a policy,
 * rank 4: the newest release of an older series when it allows crossing;
 * profiles it refuses are left out (unless @q->override). Ties: most
 * MERGED_PROFILES (for a drop ingested, 1; for ingest's merges, the
 * collections the store merged), then the newest added to the store,
 * then the smallest sha; never what a profile says of itself in RUNS,
 * SUM_MAX or WINDOW_END. -ENOENT with the reason in @err when nothing fits.
 */
int kpgo_store_select(const struct kpgo_store_index *idx, const struct kpgo_store_query *q,
		      struct kpgo_store_choice *c, struct kpgo_error *err);

/**
 * kpgo_store_select_verified() - kpgo_store_select(), then the object checked
 *
 * Verifies the chosen object (its bytes against its name, and as an
 * archive) before returning it: one that is missing or corrupt is dropped
 * from @idx and the choice made again (counted in @c->skipped); an index
 * line that does not match its object is replaced by the object's own.
 */
int kpgo_store_select_verified(struct kpgo_store *s, struct kpgo_store_index *idx,
			       const struct kpgo_store_query *q, struct kpgo_store_choice *c,
			       struct kpgo_error *err);

/**
 * struct kpgo_store_report - what verify found and did
 * @problems: one line each, without a "kpgo: " prefix
 * @repairs: what --repair did, one line each
 * @objects: valid objects
 */
struct kpgo_store_report {
	struct kpgo_strlist problems;
	struct kpgo_strlist repairs;
	size_t objects;
};

void kpgo_store_report_release(struct kpgo_store_report *r);

/*
 * Re-hashes every object against its name, verifies each archive fully and
 * compares index and objects both ways. With @repair, moves bad objects to
 * corrupt/ and rebuilds the index from the good ones (under the lock).
 * Returns 0 when it could look (problems or not), or a negative errno.
 */
int kpgo_store_verify(struct kpgo_store *s, bool repair, struct kpgo_store_report *rep,
		      struct kpgo_error *err);

/**
 * kpgo_store_gc() - keep the newest @keep profiles of each kernel release
 * @removed: the entries removed (or that would be, with @dry_run)
 * @tmp_removed: names of tmp/ files older than KPGO_STORE_TMP_AGE, removed
 *
 * Newest is by WINDOW_END, then added time. Under the lock; the index is
 * rewritten before the objects go, so a crash leaves objects that the next
 * add indexes again rather than index lines without objects.
 */
int kpgo_store_gc(struct kpgo_store *s, unsigned keep, bool dry_run,
		  struct kpgo_store_index *removed, struct kpgo_strlist *tmp_removed,
		  struct kpgo_error *err);

/* --- ingest (store-ingest.c) ---------------------------------------------- */

/**
 * struct kpgo_weights - merge weights per workload label
 * @other: the weight of labels not listed ("*=N"; default 1)
 *
 * The file: "LABEL=WEIGHT" lines (LABEL as KPGO_WORKLOAD, or '*'), WEIGHT a
 * whole number from 0 (leave out) to 1000000; '#' comments, blank lines.
 */
struct kpgo_weights {
	struct kpgo_strlist labels;
	uint64_t *w;
	size_t w_alloc;
	uint64_t other;
};

#define KPGO_WEIGHTS_FILE_MAX 65536
#define KPGO_WEIGHT_MAX 1000000

void kpgo_weights_init(struct kpgo_weights *w);
void kpgo_weights_release(struct kpgo_weights *w);
int kpgo_weights_parse(struct kpgo_weights *w, const char *name, const char *text, size_t len,
		       struct kpgo_error *err);
int kpgo_weights_load(struct kpgo_weights *w, const char *path, struct kpgo_error *err);
uint64_t kpgo_weights_get(const struct kpgo_weights *w, const char *label);

/* The manifest key of ingest's merges: a sha256 of their inputs and weights. */
#define MF_MERGE_INPUTS "MERGE_INPUTS"

/**
 * struct kpgo_ingest_opts - how kpgo_store_ingest() treats a drop directory
 * @settle: seconds; a file that is not a valid archive yet and changed less
 *	than this long ago is left for the next run (an uploader may still be
 *	writing it in place)
 * @weights: NULL for weight 1 everywhere
 * @arch, @gcov_version: when not NULL, archives of another are foreign
 */
struct kpgo_ingest_opts {
	uint64_t settle;
	const struct kpgo_weights *weights;
	const char *arch;
	const char *gcov_version;
	int64_t now;
};

enum kpgo_ingest_what {
	KPGO_INGEST_ADDED,	   /* new in the store; removed from the drop directory */
	KPGO_INGEST_KNOWN,	   /* the store had it; removed from the drop directory */
	KPGO_INGEST_REJECTED,	   /* moved to DROP/rejected/ with a .reason file */
	KPGO_INGEST_PENDING,	   /* not valid yet, but young: left for the next run */
	KPGO_INGEST_IGNORED,	   /* a name ingest does not touch */
	KPGO_INGEST_MERGED,	   /* a new merged profile of a kernel build */
	KPGO_INGEST_MERGE_CURRENT, /* the build's merged profile is up to date */
	KPGO_INGEST_MERGE_FAILED,
	KPGO_INGEST_SUPERSEDED, /* an older merge of the build, removed from the store */
};

/**
 * struct kpgo_ingest_event - what happened to one file or kernel build
 * @name: the file's name in the drop directory, or "RELEASE (build ID)"
 * @sha: the profile's sha256 ("" when none)
 * @detail: why it was rejected or failed
 * @inputs: for merges, how many profiles went in
 */
struct kpgo_ingest_event {
	enum kpgo_ingest_what what;
	const char *name;
	const char *sha;
	const char *detail;
	size_t inputs;
};

struct kpgo_ingest_result {
	size_t added, known, rejected, pending, merged, current, failed;
};

/**
 * kpgo_store_ingest() - take a build farm's drop directory into the store
 *
 * Under an exclusive lock on DROP/.kpgo-ingest.lock (-EWOULDBLOCK when
 * another ingest of DROP runs): every "*.kpgo" not starting with '.' is
 * verified and added to the store, then removed from DROP; what is not a
 * regular file, not a valid archive or foreign goes to DROP/rejected/
 * with a reason beside it. Then, for every kernel build in the store
 * (release, build id, arch, gcov version) with two or more single
 * collections (MERGED_PROFILES=1), it makes sure the store holds their
 * weighted merge: one is made, tagged MERGE_INPUTS, unless one with the
 * same inputs and weights is there; earlier merges of the build made by
 * ingest are removed, so that select picks the current one. A rerun with
 * nothing new changes nothing. Store errors stop the run; a merge that
 * fails is reported and the others go on.
 */
int kpgo_store_ingest(struct kpgo_store *s, const char *drop, const struct kpgo_ingest_opts *o,
		      void (*report)(void *ctx, const struct kpgo_ingest_event *ev), void *ctx,
		      struct kpgo_ingest_result *res, struct kpgo_error *err);

/* Compares kernel releases as dpkg compares versions: <0, 0, >0. */
int kpgo_release_cmp(const char *a, const char *b);
/* The series ("6.1") of "6.1.0-13-amd64" into @out; false when there is none. */
bool kpgo_release_series(const char *release, char *out, size_t len);

#endif
