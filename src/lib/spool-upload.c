// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Uploading the spool: each waiting profile, oldest first, verified, then
 * handed to the configured command (no shell) under a time limit; success
 * moves it to sent/, failure records a retry state with backoff.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "store.h"

/* After SIGTERM, how long a timed-out command gets before SIGKILL. */
#define KILL_GRACE_MS 5000

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Waits for @pid until @deadline (ms, monotonic): 1 exited, 0 still running. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now_ms() >= deadline)
			return 0;
		sleep_ms(20);
	}
}

/*
 * Runs the command for @path. 0 when it exited 0; otherwise -EIO (or
 * -ETIMEDOUT) with what happened in @why.
 */
static int run_command(const struct kpgo_upload_opts *o, const char *path, const char *name,
		       const char *sha, char *why, size_t whylen)
{
	const struct kpgo_strlist *w = o->argv;
	char **argv = calloc(w->n + 2, sizeof(*argv));
	bool placed = false;
	int status = 0, r;
	size_t i, n = 0;
	pid_t pid;

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
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start '%s': %s", argv[0], strerror(errno));
		free(argv);
		return -EIO;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);
		char msg[512];

		/* Its own process group, so a timeout kills what it started too. */
		setpgid(0, 0);
		if (fd >= 0)
			dup2(fd, 0);
		/* kpgo's stdout carries its report; the command's output goes with errors. */
		dup2(2, 1);
		signal(SIGPIPE, SIG_DFL);
		setenv("KPGO_PROFILE", path, 1);
		setenv("KPGO_PROFILE_NAME", name, 1);
		setenv("KPGO_PROFILE_SHA256", sha, 1);
		execvp(argv[0], argv);
		snprintf(msg, sizeof(msg), "kpgo: cannot run '%s': %s\n", argv[0], strerror(errno));
		if (write(2, msg, strlen(msg)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	r = wait_until(pid, now_ms() + (int64_t)o->timeout * 1000, &status);
	if (r == 0) {
		kill(-pid, SIGTERM);
		kill(pid, SIGTERM);
		if (wait_until(pid, now_ms() + KILL_GRACE_MS, &status) == 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		/* Whatever it left in its process group goes too. */
		kill(-pid, SIGKILL);
		snprintf(why, whylen, "'%s' did not finish within %llu s and was killed", argv[0],
			 (unsigned long long)o->timeout);
		free(argv);
		return -ETIMEDOUT;
	}
	if (r < 0) {
		snprintf(why, whylen, "cannot wait for '%s': %s", argv[0], strerror(-r));
		free(argv);
		return -EIO;
	}
	r = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(why, whylen, "'%s' could not be run (exit status 127)", argv[0]);
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, whylen, "'%s' exited with status %d", argv[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(why, whylen, "'%s' was killed by signal %d", argv[0], WTERMSIG(status));
	else
		r = 1;
	free(argv);
	return r ? 0 : -EIO;
}

/*
 * Verifies a waiting profile: a regular file that is a valid archive whose
 * sha256 starts with the 16 hex digits of its name. -EBADMSG with the
 * reason in @err when it is not.
 */
static int check_profile(struct kpgo_spool *sp, const char *name, char sha[KPGO_SHA256_HEX],
			 struct kpgo_error *err)
{
	size_t n = strlen(name);
	int fd, r;

	fd = openat(sp->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s/%s': %s", sp->dir, name,
				      strerror(errno));
	r = kpgo_store_verify_fd(fd, sha, NULL, err);
	close(fd);
	if (r == -ENOMEM)
		return r;
	if (r)
		return -EBADMSG;
	if (strncmp(name + n - 21, sha, 16))
		return kpgo_error_set(err, -EBADMSG,
				      "its content (sha256 %.16s...) does not match its name", sha);
	return 0;
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
		r = check_profile(sp, it->name, sha, &verr);
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
		if (strbuf_addf(&path, "%s/%s", sp->dir, it->name)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		r = run_command(o, path.buf, it->name, sha, why, sizeof(why));
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
	kpgo_spool_unlock(sp, KPGO_SPOOL_UPLOAD_LOCK);
	return r;
}
