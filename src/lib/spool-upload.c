// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Uploading the spool: each waiting profile, oldest first, verified, then
 * handed to the configured command (no shell) under a time limit; success
 * moves it to sent/, failure records a retry state with backoff.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "sha256.h"
#include "spool.h"
#include "store.h"

/*
 * Runs the command for @path. 0 when it exited 0; otherwise -EIO (or
 * -ETIMEDOUT) with what happened in @why.
 */
/*
 * Where the command's private copies go: upload/ in the spool (0700), or,
 * for a command run as another user, a folder of kpgo's own under $TMPDIR
 * (0711: that user can open its copy by name, list nothing, swap nothing).
 */
struct private_dir {
	int fd;
	char *path;
	bool own; /* made by mkdtemp(): removed at the end */
	bool set_ids;
	uid_t uid;
	gid_t gid;
};

static void private_dir_ids(const struct private_dir *d, struct kpgo_run *run)
{
	run->set_ids = d->set_ids;
	run->uid = d->uid;
	run->gid = d->gid;
}

static int run_command(const struct kpgo_upload_opts *o, const struct private_dir *d,
		       const char *path, const char *name, const char *sha, char *why, size_t whylen)
{
	const struct kpgo_strlist *w = o->argv;
	char **argv = calloc(w->n + 2, sizeof(*argv));
	struct strbuf env[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	const char *envp[4];
	struct kpgo_run run = KPGO_RUN_INIT;
	struct kpgo_run_result res;
	bool placed = false;
	size_t i, n = 0;
	int r;

	if (!argv)
		return -ENOMEM;
	for (i = 0; i < w->n; i++) {
		if (!strcmp(w->items[i], "{}")) {
			argv[n++] = (char *)path;
			placed = true;
		} else {
			argv[n++] = w->items[i];
		}
	}
	if (!placed)
		argv[n++] = (char *)path;
	argv[n] = NULL;
	if (strbuf_addf(&env[0], "KPGO_PROFILE=%s", path) ||
	    strbuf_addf(&env[1], "KPGO_PROFILE_NAME=%s", name) ||
	    strbuf_addf(&env[2], "KPGO_PROFILE_SHA256=%s", sha)) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < 3; i++)
		envp[i] = env[i].buf;
	envp[3] = NULL;
	run.argv = argv;
	run.env = envp;
	run.in = KPGO_RUN_DEVNULL;
	/* kpgo's stdout carries its report; the command's output goes with errors. */
	run.out = KPGO_RUN_STDERR;
	/* Its own process group: a timeout kills what it started too. */
	run.timeout_ms = kpgo_sat_mul(o->timeout, 1000);
	private_dir_ids(d, &run);
	r = kpgo_run(&run, &res);
	if (r) {
		snprintf(why, whylen, "cannot start '%s': %s", argv[0], strerror(-r));
		r = -EIO;
	} else if (res.timed_out) {
		snprintf(why, whylen, "'%s' did not finish within %llu s and was killed", argv[0],
			 (unsigned long long)o->timeout);
		r = -ETIMEDOUT;
	} else if (res.status == 127) {
		snprintf(why, whylen, "'%s' could not be run (exit status 127)%s%s", argv[0],
			 res.exec_errno ? ": " : "", res.exec_errno ? strerror(res.exec_errno) : "");
		r = -EIO;
	} else if (res.status > 128) {
		snprintf(why, whylen, "'%s' was killed by signal %d", argv[0], res.status - 128);
		r = -EIO;
	} else if (res.status) {
		snprintf(why, whylen, "'%s' exited with status %d", argv[0], res.status);
		r = -EIO;
	}
out:
	for (i = 0; i < 3; i++)
		strbuf_release(&env[i]);
	free(argv);
	return r;
}

static int private_dir_open(struct kpgo_spool *sp, const char *user, struct private_dir *d,
			    struct kpgo_error *err)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf path = STRBUF_INIT;
	struct passwd *pw;
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (user && *user) {
		if (geteuid() != 0)
			return kpgo_error_set(err, -EPERM,
					      "the upload command's user '%s' needs kpgo to run as root",
					      user);
		errno = 0;
		pw = getpwnam(user);
		if (!pw)
			return kpgo_error_set(err, errno ? -errno : -ENOENT,
					      "the upload command's user: no user '%s'", user);
		if (pw->pw_uid == 0)
			return kpgo_error_set(err, -EINVAL,
					      "the upload command's user: '%s' is root, not an unprivileged user",
					      user);
		d->set_ids = true;
		d->uid = pw->pw_uid;
		d->gid = pw->pw_gid;
		if (strbuf_addf(&path, "%s/kpgo-upload.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp"))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		if (!mkdtemp(path.buf)) {
			int r = kpgo_error_set(err, -errno, "cannot create '%s': %s", path.buf,
					       strerror(errno));

			strbuf_release(&path);
			return r;
		}
		d->own = true;
		d->path = strbuf_detach(&path, NULL);
		d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d->fd < 0 || fchmod(d->fd, 0711) < 0)
			return kpgo_error_set(err, -errno, "cannot open '%s': %s", d->path,
					      strerror(errno));
		return 0;
	}
	if (strbuf_addf(&path, "%s/upload", sp->dir))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	d->path = strbuf_detach(&path, NULL);
	if (mkdirat(sp->dirfd, "upload", 0700) < 0 && errno != EEXIST)
		return kpgo_error_set(err, -errno, "cannot create '%s': %s", d->path,
				      strerror(errno));
	d->fd = openat(sp->dirfd, "upload", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s': %s", d->path, strerror(errno));
	if (fstat(d->fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 077))
		return kpgo_error_set(err, -EPERM,
				      "refusing '%s': it must be its owner's only (mode 0700)",
				      d->path);
	return 0;
}

static void private_dir_close(struct private_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->own && d->path)
		rmdir(d->path);
	free(d->path);
	d->fd = -1;
	d->path = NULL;
}

/*
 * Copies the rest of @fd into @d/@name (mode 0400, the command's user's)
 * while hashing it; the copy must hash to @sha.
 */
static int private_copy(struct kpgo_spool *sp, int fd, const char *name, const char *sha,
			const struct private_dir *d, struct kpgo_error *err)
{
	char buf[65536], got[KPGO_SHA256_HEX];
	struct kpgo_sha256 *h;
	int out, r = 0;
	ssize_t n;

	unlinkat(d->fd, name, 0);
	out = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (out < 0)
		return kpgo_error_set(err, -errno, "cannot create '%s/%s': %s", d->path, name,
				      strerror(errno));
	if (d->set_ids && fchown(out, d->uid, d->gid) < 0)
		r = kpgo_error_set(err, -errno, "cannot give '%s/%s' to the upload user: %s",
				   d->path, name, strerror(errno));
	h = r ? NULL : kpgo_sha256_new();
	if (!r && !h)
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	if (!r && lseek(fd, 0, SEEK_SET) < 0)
		r = kpgo_error_set(err, -errno, "cannot read '%s/%s': %s", sp->dir, name,
				   strerror(errno));
	while (!r && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = kpgo_error_set(err, -errno, "cannot read '%s/%s': %s", sp->dir, name,
					   strerror(errno));
			break;
		}
		kpgo_sha256_update(h, buf, (size_t)n);
		r = kpgo_write_all(out, buf, (size_t)n);
		if (r)
			r = kpgo_error_set(err, r, "cannot write '%s/%s': %s", d->path, name,
					   strerror(-r));
	}
	if (h) {
		kpgo_sha256_final_hex(h, got);
		if (!r && strcmp(got, sha))
			r = kpgo_error_set(err, -EAGAIN, "'%s/%s' changed while being uploaded",
					   sp->dir, name);
	}
	if (close(out) < 0 && !r)
		r = kpgo_error_set(err, -errno, "cannot write '%s/%s': %s", d->path, name,
				   strerror(errno));
	if (r)
		unlinkat(d->fd, name, 0);
	return r;
}

/*
 * Verifies a waiting profile: a regular file that is a valid archive whose
 * sha256 starts with the 16 hex digits of its name. -EBADMSG with the
 * reason in @err when it is not. Then copies the very bytes verified to
 * @d/@name, the file the command is given, so that nothing can swap the
 * file between the check and the upload.
 */
static int check_profile(struct kpgo_spool *sp, const char *name, char sha[KPGO_SHA256_HEX],
			 const struct private_dir *d, struct kpgo_error *err)
{
	size_t n = strlen(name);
	struct stat st;
	int fd, r;

	fd = openat(sp->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", sp->dir, name,
				      strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kpgo_error_set(err, -EBADMSG, "not a regular file");
	}
	r = kpgo_store_verify_fd(fd, sha, NULL, err);
	if (!r && strncmp(name + n - 21, sha, 16))
		r = kpgo_error_set(err, -EBADMSG,
				   "its content (sha256 %.16s...) does not match its name", sha);
	else if (r && r != -ENOMEM)
		r = -EBADMSG;
	if (!r)
		r = private_copy(sp, fd, name, sha, d, err);
	close(fd);
	return r;
}

/* Fewest failed attempts first, then oldest. */
static int cmp_attempts(const void *pa, const void *pb)
{
	const struct kpgo_spool_item *a = pa, *b = pb;

	if (a->attempts != b->attempts)
		return a->attempts < b->attempts ? -1 : 1;
	return strcmp(a->name, b->name);
}

int kpgo_spool_upload(struct kpgo_spool *sp, const struct kpgo_upload_opts *o,
		      void (*report)(void *ctx, const struct kpgo_upload_event *ev), void *ctx,
		      struct kpgo_upload_result *res, struct kpgo_error *err)
{
	struct kpgo_spool_list l;
	struct kpgo_spool_state st;
	struct strbuf path = STRBUF_INIT;
	char sha[KPGO_SHA256_HEX], why[512];
	struct private_dir pd;
	struct kpgo_error verr;
	bool wait;
	size_t i;
	int r;

	memset(res, 0, sizeof(*res));
	if (!o->argv || !o->argv->n)
		return kpgo_error_set(err, -EINVAL, "no upload command is configured");
	r = kpgo_spool_lock(sp, KPGO_SPOOL_UPLOAD_LOCK, false, err);
	if (r)
		return r;
	r = private_dir_open(sp, o->user, &pd, err);
	if (r) {
		private_dir_close(&pd);
		kpgo_spool_unlock(sp, KPGO_SPOOL_UPLOAD_LOCK);
		return r;
	}
	kpgo_spool_state_read(sp, &st);
	wait = !o->force && st.next_try > o->now;
	r = kpgo_spool_list(sp, KPGO_SPOOL_WAITING, &l, err);
	if (!r && l.n > 1)
		qsort(l.items, l.n, sizeof(*l.items), cmp_attempts);
	for (i = 0; !r && i < l.n; i++) {
		struct kpgo_spool_item *it = &l.items[i];
		struct kpgo_upload_event ev = { .item = it, .state = &st, .detail = "" };

		if (wait) {
			res->waiting++;
			ev.what = KPGO_UPLOAD_WAITING;
			ev.detail = st.last_error;
			if (report)
				report(ctx, &ev);
			continue;
		}
		r = check_profile(sp, it->name, sha, &pd, &verr);
		if (r == -EBADMSG) {
			r = kpgo_spool_reject(sp, it->name, verr.msg, err);
			if (r)
				break;
			res->rejected++;
			ev.what = KPGO_UPLOAD_REJECTED;
			ev.detail = verr.msg;
			if (report)
				report(ctx, &ev);
			continue;
		}
		if (r == -ENOENT) {
			r = 0; /* pruned meanwhile */
			continue;
		}
		if (r) {
			r = kpgo_error_set(err, r, "%s", verr.msg);
			break;
		}
		strbuf_reset(&path);
		if (strbuf_addf(&path, "%s/%s", pd.path, it->name)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		r = run_command(o, &pd, path.buf, it->name, sha, why, sizeof(why));
		unlinkat(pd.fd, it->name, 0);
		if (r == -ENOMEM) {
			r = kpgo_error_set(err, r, "out of memory");
			break;
		}
		if (r == 0) {
			r = kpgo_spool_mark_sent(sp, it->name, err);
			if (r)
				break;
			if (st.failures || st.next_try)
				kpgo_spool_state_clear(sp, &st);
			res->sent++;
			ev.what = KPGO_UPLOAD_SENT;
			if (report)
				report(ctx, &ev);
			continue;
		}
		r = kpgo_spool_retry_failed(sp, it, o->now, why, err);
		if (!r)
			r = kpgo_spool_state_failed(sp, &st, o->now, o->retry_max, why, err);
		if (r)
			break;
		res->failed++;
		ev.what = KPGO_UPLOAD_FAILED;
		ev.detail = why;
		if (report)
			report(ctx, &ev);
		/* The farm is likely down: the rest waits for the backoff. */
		wait = true;
	}
	kpgo_spool_list_release(&l);
	strbuf_release(&path);
	private_dir_close(&pd);
	kpgo_spool_unlock(sp, KPGO_SPOOL_UPLOAD_LOCK);
	return r;
}
