// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

#define GRACE_MS_DEFAULT 5000
#define READ_CHUNK 65536

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

/* In the child: tells the parent why it cannot go on, and ends. */
static _Noreturn void child_fail(int report_fd)
{
	int e = errno;

	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static _Noreturn void child(const struct kpgo_run *o, int out_fd, int report_fd)
{
	size_t i;
	int nul = -1;

	if (o->timeout_ms)
		setpgid(0, 0);
	if (o->in == KPGO_RUN_DEVNULL || o->out == KPGO_RUN_DEVNULL || o->err == KPGO_RUN_DEVNULL) {
		nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0)
			child_fail(report_fd);
	}
	if ((o->in == KPGO_RUN_DEVNULL && dup2(nul, 0) < 0) ||
	    (o->out == KPGO_RUN_DEVNULL && dup2(nul, 1) < 0) ||
	    (o->out == KPGO_RUN_STDERR && dup2(2, 1) < 0) ||
	    (o->out == KPGO_RUN_CAPTURE && dup2(out_fd, 1) < 0) ||
	    (o->err == KPGO_RUN_DEVNULL && dup2(nul, 2) < 0) ||
	    (o->err == KPGO_RUN_FD && dup2(o->err_fd, 2) < 0) ||
	    (o->dirfd >= 0 && fchdir(o->dirfd) < 0))
		child_fail(report_fd);
	for (i = 0; o->env && o->env[i]; i++)
		if (putenv((char *)o->env[i]))
			child_fail(report_fd);
	/* Groups first: after setuid() there is no right left to change them. */
	if (o->set_ids && (setgroups(0, NULL) < 0 || setgid(o->gid) < 0 || setuid(o->uid) < 0))
		child_fail(report_fd);
	signal(SIGPIPE, SIG_DFL);
	execvp(o->argv[0], o->argv);
	child_fail(report_fd);
}

/* Waits for @pid until @deadline (ms, monotonic; <0: for ever): 1 ended, 0 not yet. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, deadline < 0 ? 0 : WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (deadline >= 0) {
			if (now_ms() >= deadline)
				return 0;
			sleep_ms(20);
		}
	}
}

/* SIGTERM, a grace period, SIGKILL: to the program, and its group when it has one. */
static void stop(const struct kpgo_run *o, pid_t pid, int *status)
{
	uint64_t grace = o->grace_ms ? o->grace_ms : GRACE_MS_DEFAULT;

	if (o->timeout_ms)
		kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	if (wait_until(pid, now_ms() + (int64_t)grace, status) == 0) {
		if (o->timeout_ms)
			kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		wait_until(pid, -1, status);
	}
}

/*
 * Reads the program's output into @o->out_buf until it closes it (0), the
 * deadline passes (-ETIMEDOUT) or there is too much (-EFBIG).
 */
static int capture(const struct kpgo_run *o, int fd, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline < 0 ? -1 : deadline - now_ms();
		ssize_t n;
		int r;

		if (deadline >= 0 && left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left < 0 ? -1 : left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (strbuf_grow(o->out_buf, READ_CHUNK))
			return -ENOMEM;
		n = read(fd, o->out_buf->buf + o->out_buf->len, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if ((size_t)n > o->out_max - o->out_buf->len || o->out_buf->len > o->out_max)
			return -EFBIG;
		o->out_buf->len += (size_t)n;
		o->out_buf->buf[o->out_buf->len] = '\0';
	}
}

int kpgo_run(const struct kpgo_run *o, struct kpgo_run_result *res)
{
	int report[2], out[2] = { -1, -1 }, status = 0, r = 0, w;
	int64_t deadline = o->timeout_ms ? now_ms() + (int64_t)o->timeout_ms : -1;
	ssize_t n;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (pipe2(report, O_CLOEXEC) < 0)
		return -errno;
	if (o->out == KPGO_RUN_CAPTURE && pipe2(out, O_CLOEXEC) < 0) {
		r = -errno;
		goto out_report;
	}
	/* Nothing buffered is written twice, nor lost if the child dies. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out_pipes;
	}
	if (pid == 0) {
		close(report[0]);
		child(o, out[1], report[1]);
	}
	if (o->timeout_ms)
		setpgid(pid, pid);
	close(report[1]);
	report[1] = -1;
	if (out[1] >= 0) {
		close(out[1]);
		out[1] = -1;
	}
	/* The report pipe closes at the exec; an errno arrives when there was none. */
	do
		n = read(report[0], &res->exec_errno, sizeof(res->exec_errno));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(res->exec_errno))
		res->exec_errno = 0;
	if (out[0] >= 0 && !res->exec_errno) {
		r = capture(o, out[0], deadline);
		if (r == -ETIMEDOUT) {
			res->timed_out = true;
			r = 0;
		} else if (r) {
			stop(o, pid, &status);
			goto out_pipes;
		}
	}
	w = res->timed_out ? 0 : wait_until(pid, deadline, &status);
	if (w < 0) {
		r = w;
		goto out_pipes;
	}
	if (w == 0) {
		res->timed_out = true;
		stop(o, pid, &status);
		/* Whatever it left running in its group goes too. */
		kill(-pid, SIGKILL);
	}
	if (res->exec_errno)
		res->status = 127;
	else if (WIFEXITED(status))
		res->status = WEXITSTATUS(status);
	else
		res->status = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out_pipes:
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
out_report:
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	return r;
}
