/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_SPOOL_H
#define KPGO_SPOOL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect.h"
#include "sha256.h"
#include "util.h"

/*
 * The machine's spool (KPGO_SPOOL_DIR, default /var/lib/kpgo/profiles):
 *
 *   SPOOL/<name>.kpgo            finished profiles, waiting to be uploaded
 *   SPOOL/tmp/                   collections in progress (emptied by the next one)
 *   SPOOL/sent/<name>.kpgo       uploaded; kept by KPGO_KEEP_COUNT and KPGO_KEEP_AGE
 *   SPOOL/retry/<name>.kpgo      failed attempts of a profile's upload
 *   SPOOL/retry/.upload          the upload's backoff (struct kpgo_spool_state)
 *   SPOOL/rejected/<name>[.N]    spool files that are not valid profiles, and
 *   SPOOL/rejected/<name>[.N].reason   why
 *   SPOOL/collect.lock           flock(2): one collection at a time
 *   SPOOL/upload.lock            flock(2): one upload or prune at a time
 *
 * A profile appears in SPOOL/ only by rename(2) of a complete, fsync'ed
 * file from tmp/, so every name matching kpgo_spool_name_ok() there is
 * complete; a collector killed at any point leaves at most files in tmp/.
 * Names are <YYYYmmddTHHMMSSZ>-<host>-<16 hex of the sha256>.kpgo: they
 * sort by collection time and differ between machines and contents.
 */
#define KPGO_SPOOL_NAME_MAX 128
/* The first retry waits this long (seconds); each failure doubles it. */
#define KPGO_SPOOL_RETRY_BASE 60

enum kpgo_spool_area { KPGO_SPOOL_WAITING, KPGO_SPOOL_SENT };
enum kpgo_spool_lockname { KPGO_SPOOL_COLLECT_LOCK, KPGO_SPOOL_UPLOAD_LOCK };

struct kpgo_spool {
	char *dir;
	int dirfd, tmpfd, sentfd, retryfd, rejfd;
	int lockfd[2];
};

/**
 * kpgo_spool_open() - open the spool, with @create making what is missing
 *
 * The spool directory itself may be a symbolic link (an administrator's
 * choice); nothing below it is followed. Created directories are 0750:
 * profiles name the host and what it ran.
 */
int kpgo_spool_open(struct kpgo_spool *sp, const char *dir, bool create, struct kpgo_error *err);
void kpgo_spool_close(struct kpgo_spool *sp);

/* flock(2) one of the locks; without @wait a held lock is -EWOULDBLOCK. */
int kpgo_spool_lock(struct kpgo_spool *sp, enum kpgo_spool_lockname which, bool wait,
		    struct kpgo_error *err);
void kpgo_spool_unlock(struct kpgo_spool *sp, enum kpgo_spool_lockname which);

/* A finished profile's name: [0-9]{8}T[0-9]{6}Z-<host>-<16 hex>.kpgo. */
bool kpgo_spool_name_ok(const char *name);

/* Removes everything in tmp/ (call with the collect lock held). */
int kpgo_spool_clean_tmp(struct kpgo_spool *sp, size_t *removed, struct kpgo_error *err);

/**
 * kpgo_spool_publish() - make tmp/@tmpname a finished profile
 * @when: the collection's time, for the name
 * @host: the host name, made safe for the name
 * @name: set to the new name
 *
 * Hashes the file, fsyncs it and renames it to its name in the spool
 * (never replacing a file), then fsyncs the spool directory.
 */
int kpgo_spool_publish(struct kpgo_spool *sp, const char *tmpname, int64_t when, const char *host,
		       char name[KPGO_SPOOL_NAME_MAX], struct kpgo_error *err);

/**
 * struct kpgo_spool_item - one finished profile
 * @attempts: failed uploads of it (0 when none)
 * @last_try: when the last of them was
 * @last_error: why it failed ("" when none)
 */
struct kpgo_spool_item {
	char name[KPGO_SPOOL_NAME_MAX];
	int64_t mtime;
	uint64_t size;
	unsigned attempts;
	int64_t last_try;
	char last_error[256];
};

struct kpgo_spool_list {
	size_t n, alloc;
	struct kpgo_spool_item *items;
	size_t strays; /* other names (ignored; dot files and tmp/ are not counted) */
};

void kpgo_spool_list_release(struct kpgo_spool_list *l);

/*
 * The finished profiles of @area, oldest name first: regular files whose
 * names match; anything else is counted in @l->strays and left alone.
 */
int kpgo_spool_list(struct kpgo_spool *sp, enum kpgo_spool_area area, struct kpgo_spool_list *l,
		    struct kpgo_error *err);

/**
 * struct kpgo_spool_state - the upload's backoff, for the spool as a whole
 * @failures: failed upload runs in a row (0: the last one went well)
 * @next_try: no upload before this (seconds since the epoch)
 *
 * Kept in SPOOL/retry/.upload. The backoff belongs to the build farm, not
 * to a profile: while the farm is down one attempt per backoff period is
 * made, whichever profile it is for.
 */
struct kpgo_spool_state {
	unsigned failures;
	int64_t next_try;
	char last_error[256];
};

/* Failed attempts and runs are counted up to this. */
#define KPGO_SPOOL_FAILURES_MAX 1000000

/*
 * The text of a retry file into @it's attempts, last try and last error
 * (kpgo_spool_retry_parse), or into @st (kpgo_spool_state_parse): lines
 * ATTEMPTS= and LAST_TRY= (FAILURES= and NEXT_TRY=), numbers up to
 * INT64_MAX, and LAST_ERROR=, each ended by a newline, control characters of
 * the error read as blanks, failures capped at KPGO_SPOOL_FAILURES_MAX.
 * Anything else is -EBADMSG and no state (all zero). The _format functions
 * write the text the _parse functions read.
 */
int kpgo_spool_retry_parse(const char *text, size_t len, struct kpgo_spool_item *it);
int kpgo_spool_retry_format(const struct kpgo_spool_item *it, struct strbuf *out);
int kpgo_spool_state_parse(const char *text, size_t len, struct kpgo_spool_state *st);
int kpgo_spool_state_format(const struct kpgo_spool_state *st, struct strbuf *out);

/* The upload state; a missing or unreadable one is no failures. */
void kpgo_spool_state_read(struct kpgo_spool *sp, struct kpgo_spool_state *st);

/* A profile's failed attempts from retry/ into @it (none when unreadable). */
void kpgo_spool_retry_read(struct kpgo_spool *sp, struct kpgo_spool_item *it);

/* Seconds to wait after @failures failed runs: 60 s doubling, at most @cap. */
uint64_t kpgo_spool_backoff(unsigned failures, uint64_t cap);

/* A failed run: failures + 1, the next try after the backoff; written durably. */
int kpgo_spool_state_failed(struct kpgo_spool *sp, struct kpgo_spool_state *st, int64_t now,
			    uint64_t cap, const char *why, struct kpgo_error *err);
/* A run that delivered: no backoff. */
void kpgo_spool_state_clear(struct kpgo_spool *sp, struct kpgo_spool_state *st);
/* A failed attempt of @it at @now: its attempts + 1, recorded. */
int kpgo_spool_retry_failed(struct kpgo_spool *sp, struct kpgo_spool_item *it, int64_t now,
			    const char *why, struct kpgo_error *err);

/* Moves @name to sent/ (durably) and drops its retry state. */
int kpgo_spool_mark_sent(struct kpgo_spool *sp, const char *name, struct kpgo_error *err);

/* Moves @name (any file of the spool) to rejected/ with @reason beside it. */
int kpgo_spool_reject(struct kpgo_spool *sp, const char *name, const char *reason,
		      struct kpgo_error *err);

/**
 * struct kpgo_spool_retention - what prune keeps
 * @keep_count: profiles in sent/ (the newest)
 * @keep_age: seconds; older ones in sent/ go (0: no limit)
 * @spool_max: unsent profiles; past it the oldest go (0: no limit)
 */
struct kpgo_spool_retention {
	uint64_t keep_count;
	uint64_t keep_age;
	uint64_t spool_max;
	int64_t now;
};

/*
 * Applies @o (call with the upload lock held), and removes retry states
 * of profiles that are gone. Names removed from sent/ go to @sent_removed,
 * unsent ones dropped for KPGO_SPOOL_MAX to @dropped.
 */
int kpgo_spool_prune(struct kpgo_spool *sp, const struct kpgo_spool_retention *o,
		     struct kpgo_strlist *sent_removed, struct kpgo_strlist *dropped,
		     struct kpgo_error *err);

/**
 * struct kpgo_spool_collect_opts - what kpgo_spool_collect() collects
 * @gcov_dir: a directory laid out like the kernel's gcov one (tests), or
 *	NULL for the running kernel's below @debugfs
 * @debugfs: where debugfs is, or is to be mounted (NULL: /sys/kernel/debug);
 *	the kernel's own when it is the default
 * @workload, @build_root, @release, @build_id: as in struct
 *	kpgo_collect_request
 * @reset: zero the counters once the profile is safe in the spool
 * @now: the collection's time, for the name
 * @mounted: if not NULL, set to 1 while debugfs is mounted by this
 *	collection and to 0 once it is unmounted, so that a caller's signal
 *	handler (a time limit that ends the process) can unmount it
 */
struct kpgo_spool_collect_opts {
	const char *gcov_dir;
	const char *debugfs;
	const char *workload;
	const char *build_root;
	const char *release;
	const char *build_id;
	bool reset;
	int64_t now;
	volatile sig_atomic_t *mounted;
};

enum kpgo_spool_collect_what {
	KPGO_SPOOL_COLLECTED,
	KPGO_SPOOL_NO_GCOV, /* the kernel has no gcov data, or @gcov_dir is not there */
	KPGO_SPOOL_NO_DATA, /* there is gcov data, but no .gcda file */
};

/**
 * struct kpgo_spool_collect_result - what kpgo_spool_collect() did
 * @why: for %KPGO_SPOOL_NO_GCOV and %KPGO_SPOOL_NO_DATA, why nothing was
 *	collected
 * @name: the profile spooled
 * @dir: the spool's directory
 * @objects: its objects
 * @st: what the collection read (@st.outside: objects outside @build_root,
 *	left out)
 * @build_root: the build root found (cut to its size)
 * @cleaned: files an interrupted collection had left in tmp/, removed
 * @reset_failed: the profile is spooled, but the counters were not reset
 *	(@reset_err says why): the next profile repeats this one's counts
 * @reset_unrecorded: the counters were reset, but the time could not be
 *	recorded for the next collection's window
 */
struct kpgo_spool_collect_result {
	enum kpgo_spool_collect_what what;
	char why[1024];
	char name[KPGO_SPOOL_NAME_MAX];
	char dir[1024];
	size_t objects;
	struct kpgo_collect_stats st;
	char build_root[1024];
	size_t cleaned;
	bool reset_failed;
	struct kpgo_error reset_err;
	bool reset_unrecorded;
};

/**
 * kpgo_spool_collect() - the kernel's gcov data into the spool @spool_dir
 * @complete: called (with @ctx) once the profile is complete in tmp/,
 *	before it is published: from there on, publishing is a hash, a rename
 *	and two fsyncs, which a caller's time limit should not break off
 *
 * Probes the gcov data (mounting debugfs when it is not, unmounting it
 * again when this call mounted it), opens the spool (creating what is
 * missing), waits for the collect lock, empties tmp/, collects the
 * profile (kpgo_collect_profile()) into tmp/, publishes it
 * (kpgo_spool_publish()) and then, with @o->reset, resets the counters:
 * a reset before the profile is safe could lose counts, one after only
 * repeats them. A collector killed at any point leaves at most files in
 * tmp/. Without gcov data or .gcda files nothing is collected and 0 is
 * returned, @res->what saying which. Returns 0 or a negative errno with
 * @err set (then nothing was spooled).
 */
int kpgo_spool_collect(const char *spool_dir, const struct kpgo_spool_collect_opts *o,
		       void (*complete)(void *ctx), void *ctx,
		       struct kpgo_spool_collect_result *res, struct kpgo_error *err);

/**
 * struct kpgo_upload_opts - how kpgo_spool_upload() hands profiles over
 * @argv: the command's words ("{}" is replaced by the profile's path, or the
 *	path is appended when no word is "{}")
 * @timeout: seconds one command may run before its process group is killed
 * @retry_max: the longest backoff, seconds
 * @force: upload now, even while the backoff runs
 * @user: when set, the command runs as this user, without supplementary
 *	groups, and gets a copy of the profile that only this user can read,
 *	in a folder of its own under $TMPDIR (or /tmp), not the spool's
 */
struct kpgo_upload_opts {
	const struct kpgo_strlist *argv;
	const char *user; /* run the command as this user (kpgo runs as root); NULL or "": not */
	uint64_t timeout;
	uint64_t retry_max;
	bool force;
	int64_t now;
};

enum kpgo_upload_what {
	KPGO_UPLOAD_SENT,
	KPGO_UPLOAD_FAILED,   /* kept; the backoff starts or grows */
	KPGO_UPLOAD_WAITING,  /* not tried: the backoff has not run out */
	KPGO_UPLOAD_REJECTED, /* not a valid profile: moved to rejected/ */
};

struct kpgo_upload_event {
	enum kpgo_upload_what what;
	const struct kpgo_spool_item *item;
	const struct kpgo_spool_state *state; /* after this event */
	const char *detail;		      /* why it failed or was rejected */
};

struct kpgo_upload_result {
	size_t sent, failed, waiting, rejected;
};

/**
 * kpgo_spool_upload() - hand each waiting profile to the upload command
 * @report: called once per profile looked at (may be NULL)
 *
 * Takes the upload lock without waiting (-EWOULDBLOCK: another upload
 * runs). While the backoff of the last failure runs (and without @force),
 * nothing is tried. Otherwise profiles are tried in order of fewest failed
 * attempts, then oldest, so that one the farm keeps refusing does not hold
 * up the others. Each is verified before it is handed over (a bad one is
 * rejected, never sent). The command gets the path, and KPGO_PROFILE,
 * KPGO_PROFILE_NAME and KPGO_PROFILE_SHA256 in its environment, /dev/null
 * as stdin and stderr as stdout. Exit status 0 moves the profile to sent/
 * and clears the backoff; anything else (or the timeout) counts a failed
 * attempt for the profile and for the spool, whose backoff doubles, and
 * ends the run. Delivery is at least once: a crash between the command's
 * success and the move to sent/ sends that profile again next time, which
 * the content-addressed receiving side absorbs.
 */
int kpgo_spool_upload(struct kpgo_spool *sp, const struct kpgo_upload_opts *o,
		      void (*report)(void *ctx, const struct kpgo_upload_event *ev), void *ctx,
		      struct kpgo_upload_result *res, struct kpgo_error *err);

#endif
