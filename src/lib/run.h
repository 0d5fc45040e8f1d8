/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_RUN_H
#define KPGO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "strbuf.h"

/*
 * Running a program: fork and exec without a shell, its standard streams
 * as asked, optionally in another directory, with more environment or
 * under a time limit, and an answer that tells "could not be run" (and
 * why) from "ran and failed".
 */

enum kpgo_run_stdio {
	KPGO_RUN_INHERIT, /* kpgo's own */
	KPGO_RUN_DEVNULL,
	KPGO_RUN_STDERR,  /* standard output only: into kpgo's standard error */
	KPGO_RUN_CAPTURE, /* standard output only: read into @out */
	KPGO_RUN_FD,	  /* standard error only: into @err_fd */
};

/**
 * struct kpgo_run - what to run, and how
 * @argv: the program (looked up in PATH when it has no '/') and its
 *	arguments, NULL-terminated
 * @env: "NAME=value" strings added to its environment, NULL-terminated;
 *	NULL for none
 * @dirfd: a directory to run it in, or -1 for kpgo's
 * @in: %KPGO_RUN_INHERIT or %KPGO_RUN_DEVNULL
 * @out: %KPGO_RUN_INHERIT, %KPGO_RUN_DEVNULL, %KPGO_RUN_STDERR or
 *	%KPGO_RUN_CAPTURE (into @out_buf, at most @out_max bytes)
 * @err: %KPGO_RUN_INHERIT, %KPGO_RUN_DEVNULL or %KPGO_RUN_FD (@err_fd)
 * @timeout_ms: 0 for none; else the program runs in a process group of
 *	its own, which gets SIGTERM when the time is up and SIGKILL
 *	@grace_ms later (default 5000) if the program is still there; what
 *	it started in that group is killed too when it ends
 */
struct kpgo_run {
	char *const *argv;
	const char *const *env;
	int dirfd;
	enum kpgo_run_stdio in, out, err;
	struct strbuf *out_buf;
	size_t out_max;
	int err_fd;
	uint64_t timeout_ms;
	uint64_t grace_ms;
	bool set_ids; /* run as @uid/@gid, without supplementary groups (needs root) */
	uid_t uid;
	gid_t gid;
};

/* The defaults: nothing redirected, here, no time limit. */
#define KPGO_RUN_INIT                                                                              \
	{                                                                                          \
		.dirfd = -1                                                                        \
	}

/**
 * struct kpgo_run_result - how it went
 * @status: its exit status; 128 + N when signal N ended it; 127 when it
 *	could not be run at all (@exec_errno then says why)
 * @exec_errno: 0, or the errno of the exec (or of setting up its streams
 *	or directory) that failed
 * @timed_out: the time limit ended it
 */
struct kpgo_run_result {
	int status;
	int exec_errno;
	bool timed_out;
};

/*
 * Runs @o to its end. Returns 0 with @res filled (whatever the program's
 * exit status), -EFBIG when it wrote more than @out_max bytes (it is
 * killed), or a negative errno when it could not be started or waited
 * for.
 */
int kpgo_run(const struct kpgo_run *o, struct kpgo_run_result *res);

#endif
