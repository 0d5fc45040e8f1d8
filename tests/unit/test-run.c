// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run.h: running a program. Exit statuses and signals, a program that
 * cannot be run, captured output and its limit, the standard streams,
 * environment and directory, and the time limit (SIGTERM, then SIGKILL,
 * and the program's process group).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "util.h"
#include "tap.h"

/* Runs "sh -c SCRIPT" with @o's settings, standard output captured. */
static int sh(struct kpgo_run *o, const char *script, struct strbuf *out,
	      struct kpgo_run_result *res)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };

	strbuf_reset(out);
	o->argv = argv;
	if (!o->out) {
		o->out = KPGO_RUN_CAPTURE;
		o->out_buf = out;
		if (!o->out_max)
			o->out_max = 1 << 20;
	}
	return kpgo_run(o, res);
}

static void test_status(void)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_run_result res;
	struct kpgo_run o = KPGO_RUN_INIT;
	char *none[] = { (char *)"/nonexistent/kpgo-test-program", NULL };
	char *notexec[] = { (char *)"/etc/passwd", NULL };

	is_int(sh(&o, "echo hello; exit 3", &out, &res), 0, "a program that fails is run");
	ok(res.status == 3 && !res.exec_errno && !res.timed_out, "  its exit status");
	is_str(out.buf, "hello\n", "  its output captured");
	o = (struct kpgo_run)KPGO_RUN_INIT;
	is_int(sh(&o, "kill -USR1 $$", &out, &res), 0, "a program killed by a signal");
	is_int(res.status, 128 + SIGUSR1, "  is 128 + the signal");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.argv = none;
	is_int(kpgo_run(&o, &res), 0, "a program that does not exist");
	ok(res.status == 127 && res.exec_errno == ENOENT, "  could not be run: ENOENT, status 127");
	o.argv = notexec;
	is_int(kpgo_run(&o, &res), 0, "a file that is not executable");
	is_int(res.exec_errno, EACCES, "  could not be run: EACCES");
	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.dirfd = 1000; /* not open */
	is_int(sh(&o, "true", &out, &res), 0, "a directory that cannot be entered");
	ok(res.status == 127 && res.exec_errno == EBADF, "  could not be run either");
	strbuf_release(&out);
}

static void test_streams(void)
{
	char tmpl[] = "/tmp/kpgo-test-run.XXXXXX", *dir = mkdtemp(tmpl);
	struct strbuf out = STRBUF_INIT, path = STRBUF_INIT, text = STRBUF_INIT;
	const char *env[] = { "KPGO_TEST_A=one two", "KPGO_TEST_B=", NULL };
	struct kpgo_run_result res;
	struct kpgo_run o = KPGO_RUN_INIT;
	char *real;
	int fd, saved;

	o.in = KPGO_RUN_DEVNULL;
	is_int(sh(&o, "cat; echo end", &out, &res), 0, "standard input from /dev/null");
	is_str(out.buf, "end\n", "  reads nothing");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.env = env;
	sh(&o, "printf '%s|%s|%s' \"$KPGO_TEST_A\" \"${KPGO_TEST_B-unset}\" \"${PATH:+path}\"",
	   &out, &res);
	is_str(out.buf, "one two||path", "more environment, the rest kept");
	ok(!getenv("KPGO_TEST_A"), "  kpgo's own is unchanged");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	sh(&o, "pwd -P", &out, &res);
	real = realpath(dir, NULL);
	strbuf_addf(&path, "%s\n", real ? real : dir);
	free(real);
	is_str(out.buf, path.buf, "run in another directory");
	close(o.dirfd);

	o = (struct kpgo_run)KPGO_RUN_INIT;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/err", dir);
	o.err = KPGO_RUN_FD;
	o.err_fd = open(path.buf, O_RDWR | O_CREAT | O_TRUNC, 0600);
	sh(&o, "echo out; echo err >&2", &out, &res);
	close(o.err_fd);
	kpgo_read_file(path.buf, &text, 4096);
	ok(!strcmp(out.buf, "out\n") && !strcmp(text.buf, "err\n"),
	   "standard error into a file, apart from the output");

	/* kpgo's own standard error, for a moment a file: where STDERR output goes. */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/own-stderr", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.out = KPGO_RUN_STDERR;
	sh(&o, "echo to-stderr", &out, &res);
	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.out = KPGO_RUN_DEVNULL;
	o.err = KPGO_RUN_DEVNULL;
	sh(&o, "echo gone; echo gone >&2", &out, &res);
	dup2(saved, 2);
	close(saved);
	strbuf_reset(&text);
	kpgo_read_file(path.buf, &text, 4096);
	is_str(text.buf, "to-stderr\n",
	       "standard output into kpgo's standard error; /dev/null swallows both");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.out_max = 10;
	is_int(sh(&o, "echo 0123456789; sleep 10", &out, &res), -EFBIG,
	       "more output than allowed is -EFBIG");
	o.out_max = 11;
	is_int(sh(&o, "echo 0123456789", &out, &res), 0, "exactly as much is fine");

	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf '%s'", dir);
	if (system(path.buf))
		diag("cannot remove %s", dir);
	strbuf_release(&out);
	strbuf_release(&path);
	strbuf_release(&text);
}

/* @pid has ended: no such process, or a zombie its new parent has not reaped yet. */
static bool gone(pid_t pid)
{
	struct strbuf stat = STRBUF_INIT;
	char path[64];
	const char *p;
	bool r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (kpgo_read_file(path, &stat, 4096))
		return true;
	p = strrchr(stat.buf, ')');
	r = p && (p[2] == 'Z' || p[2] == 'X');
	strbuf_release(&stat);
	return r;
}

static void test_timeout(void)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_run_result res;
	struct kpgo_run o = KPGO_RUN_INIT;
	pid_t bg;

	o.timeout_ms = 300;
	is_int(sh(&o, "echo started; sleep 10", &out, &res), 0, "a program past its time");
	ok(res.timed_out && res.status == 128 + SIGTERM, "  ended by SIGTERM (status %d)",
	   res.status);
	is_str(out.buf, "started\n", "  what it wrote before is kept");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.timeout_ms = 200;
	o.grace_ms = 200;
	o.out = KPGO_RUN_DEVNULL;
	sh(&o, "trap '' TERM; sleep 10; sleep 10", &out, &res);
	ok(res.timed_out && res.status == 128 + SIGKILL, "one that ignores SIGTERM gets SIGKILL");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.timeout_ms = 300;
	sh(&o, "sleep 30 & echo $!; exec >/dev/null; wait", &out, &res);
	bg = (pid_t)atoi(out.buf);
	usleep(100000);
	ok(res.timed_out && bg > 0 && gone(bg),
	   "what it started in its process group is killed too");

	o = (struct kpgo_run)KPGO_RUN_INIT;
	o.timeout_ms = 5000;
	is_int(sh(&o, "exit 0", &out, &res), 0, "a program well within its time");
	ok(!res.timed_out && res.status == 0, "  is not stopped");
	strbuf_release(&out);
}

int main(void)
{
	test_status();
	test_streams();
	test_timeout();
	return done_testing();
}
