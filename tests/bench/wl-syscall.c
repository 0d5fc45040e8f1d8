// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-syscall: short system calls in a loop. One operation is one round of
 * getppid, read of /dev/zero, write to /dev/null, fstat, stat, open and
 * close, an anonymous mmap that is touched and unmapped, and a zero-timeout
 * poll: the system call entry and exit, file descriptor and path lookup,
 * and page fault paths.
 */
#include "wl.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct wl w = { .name = "wl-syscall",
			.ops = 20000,
			.what = "rounds of 11 short system calls and a page fault" };
	char buf[256];
	struct stat st;
	struct pollfd pfd;
	int zero, null;
	unsigned long i;

	wl_options(&w, argc, argv);
	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (zero < 0 || null < 0)
		wl_die(&w, "cannot open /dev/zero or /dev/null");
	pfd.fd = zero;
	pfd.events = POLLIN;

	wl_start(&w);
	for (i = 0; i < w.ops; i++) {
		char *page;
		int fd;

		if (getppid() < 0)
			wl_die(&w, "getppid");
		wl_read_all(&w, zero, buf, sizeof(buf));
		wl_write_all(&w, null, buf, sizeof(buf));
		if (fstat(zero, &st) || stat("/etc/hostname", &st))
			wl_die(&w, "stat");
		fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die(&w, "cannot open /etc/hostname");
		close(fd);
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			wl_die(&w, "mmap");
		page[0] = (char)i;
		munmap(page, 4096);
		if (poll(&pfd, 1, 0) < 0)
			wl_die(&w, "poll");
	}
	wl_report(&w);
	return 0;
}
