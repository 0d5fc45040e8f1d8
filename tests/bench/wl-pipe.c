// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-pipe: two processes pass a 512-byte message back and forth over two
 * pipes. One operation is one round trip: two pipe writes, two reads and
 * two wake-ups of a sleeping process (the scheduler's and the pipe's paths).
 */
#include "wl.h"

#include <signal.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct wl w = { .name = "wl-pipe",
			.ops = 5000,
			.what = "512-byte round trips between two processes over pipes" };
	int to_child[2], to_parent[2], status;
	char msg[512];
	unsigned long i;
	pid_t pid;

	wl_options(&w, argc, argv);
	if (pipe(to_child) || pipe(to_parent))
		wl_die(&w, "pipe");
	memset(msg, 'p', sizeof(msg));
	pid = fork();
	if (pid < 0)
		wl_die(&w, "fork");
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		for (i = 0; i < w.ops; i++) {
			wl_read_all(&w, to_child[0], msg, sizeof(msg));
			wl_write_all(&w, to_parent[1], msg, sizeof(msg));
		}
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);

	wl_start(&w);
	for (i = 0; i < w.ops; i++) {
		wl_write_all(&w, to_child[1], msg, sizeof(msg));
		wl_read_all(&w, to_parent[0], msg, sizeof(msg));
	}
	wl_report(&w);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		wl_die(&w, "the child failed");
	}
	return 0;
}
