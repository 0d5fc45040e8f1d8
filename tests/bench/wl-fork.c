// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-fork: process creation. One operation is a fork, an execve of this
 * (static) program in the child, which exits at once, and the parent's
 * waitpid: copying and tearing down an address space, loading an ELF
 * executable, signals and reaping.
 */
#include "wl.h"

#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct wl w = { .name = "wl-fork",
			.ops = 500,
			.what = "fork, execve of a static program, exit and waitpid" };
	char *child_argv[] = { "wl-fork", "--child", NULL };
	char *const envp[] = { NULL };
	unsigned long i;

	if (argc == 2 && !strcmp(argv[1], "--child"))
		return 0;
	wl_options(&w, argc, argv);

	wl_start(&w);
	for (i = 0; i < w.ops; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			wl_die(&w, "fork");
		if (pid == 0) {
			execve("/proc/self/exe", child_argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid)
			wl_die(&w, "waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			errno = 0;
			wl_die(&w, "the child failed (status %d)", status);
		}
	}
	wl_report(&w);
	return 0;
}
