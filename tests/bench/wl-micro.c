// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-micro: one kernel path at a time, for the kernel benchmark
 * (tests/bench/bench-kernel.sh). -t TEST picks it; one operation is:
 *
 *   syscall  getppid(): the system call entry and exit alone
 *   pipe     a 1-byte write and a 1-byte read on one pipe, one process
 *   ctxsw    a 1-byte round trip between two processes over two pipes
 *            (two context switches when they share one CPU)
 *   fork     fork, _exit in the child, waitpid
 *   exec     fork, execve of this (static) program, which exits at once,
 *            waitpid
 *   open     open, stat and close of one file in -d DIR (tmpfs)
 *   mmap     an anonymous mmap of -p PAGES pages, each touched, munmap
 *   unix     a 1-byte round trip over a connected unix stream socket pair
 *   tcp      a 1-byte round trip over one TCP connection on 127.0.0.1
 *            (TCP_NODELAY, no reconnects)
 *   calib    a loop of a known number of instructions, no system call:
 *            under QEMU -icount (1 ns of guest time per instruction) it
 *            must measure that many ns per operation; -x prints the number
 *   mark     the cache model's marker (tests/bench/cachesim.c), a no-op
 *            that the QEMU plugin sees: each one makes it write its counts
 *            so far; no result line
 *
 * Prints the wl line (wl.h) with the name wl-micro-TEST.
 */
#include "wl.h"

#include <stdbool.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* calib: CALIB_LOOPS iterations of dec+jnz after one mov. */
#define CALIB_LOOPS 100000UL
#define CALIB_INSNS (2 * CALIB_LOOPS + 1)

#define USAGE                                                                                      \
	" -t syscall|pipe|ctxsw|fork|exec|open|mmap|unix|tcp|calib|mark [-d DIR] [-p PAGES] [-x]"

struct opts {
	const char *dir;
	unsigned long pages;
};

/* The child of ctxsw, unix and tcp: echo each byte until end of file. */
static void echo(const struct wl *w, int in, int out)
{
	char c;

	for (;;) {
		ssize_t r = read(in, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			_exit(0);
		if (r != 1)
			wl_die(w, "echo read");
		wl_write_all(w, out, &c, 1);
	}
}

/*
 * Round trips with an echoing child: the parent writes to out[1] what the
 * child reads from out[0] and sends back on in[1]. For a socket pair both
 * are the same two descriptors.
 */
static void pingpong(struct wl *w, int out[2], int in[2])
{
	unsigned long i;
	int status;
	char c = 'x';
	pid_t pid = fork();

	if (pid < 0)
		wl_die(w, "fork");
	if (pid == 0) {
		close(out[1]);
		if (in[0] != out[1])
			close(in[0]);
		echo(w, out[0], in[1]);
	}
	close(out[0]);
	if (in[1] != out[0])
		close(in[1]);

	wl_start(w);
	for (i = 0; i < w->ops; i++) {
		wl_write_all(w, out[1], &c, 1);
		wl_read_all(w, in[0], &c, 1);
	}
	wl_report(w);
	close(out[1]);
	if (in[0] != out[1])
		close(in[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		wl_die(w, "the echoing child failed");
	}
}

static void t_syscall(struct wl *w, const struct opts *o)
{
	unsigned long i;

	(void)o;
	wl_start(w);
	for (i = 0; i < w->ops; i++)
		if (getppid() < 0)
			wl_die(w, "getppid");
	wl_report(w);
}

static void t_pipe(struct wl *w, const struct opts *o)
{
	unsigned long i;
	int p[2];
	char c = 'x';

	(void)o;
	if (pipe(p))
		wl_die(w, "pipe");
	wl_start(w);
	for (i = 0; i < w->ops; i++) {
		wl_write_all(w, p[1], &c, 1);
		wl_read_all(w, p[0], &c, 1);
	}
	wl_report(w);
}

static void t_ctxsw(struct wl *w, const struct opts *o)
{
	int out[2], in[2];

	(void)o;
	if (pipe(out) || pipe(in))
		wl_die(w, "pipe");
	pingpong(w, out, in);
}

static void wait_ok(const struct wl *w, pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		wl_die(w, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		wl_die(w, "the child failed (status %d)", status);
	}
}

/* One operation: fork, the child exits at once (exec: after an execve of
 * this static program with --child), and the parent's waitpid. */
static void spawn_loop(struct wl *w, bool exec)
{
	char *child_argv[] = { "wl-micro", "--child", NULL };
	char *const envp[] = { NULL };
	unsigned long i;

	wl_start(w);
	for (i = 0; i < w->ops; i++) {
		pid_t pid = fork();

		if (pid < 0)
			wl_die(w, "fork");
		if (pid == 0) {
			if (exec)
				execve("/proc/self/exe", child_argv, envp);
			_exit(exec ? 127 : 0);
		}
		wait_ok(w, pid);
	}
	wl_report(w);
}

static void t_fork(struct wl *w, const struct opts *o)
{
	(void)o;
	spawn_loop(w, false);
}

static void t_exec(struct wl *w, const struct opts *o)
{
	(void)o;
	spawn_loop(w, true);
}

static void t_open(struct wl *w, const struct opts *o)
{
	char path[4096];
	struct stat st;
	unsigned long i;
	int fd;

	if (!o->dir) {
		fprintf(stderr, "%s: -t open needs -d DIR\n", w->name);
		exit(2);
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/wl-micro.%ld", o->dir, (long)getpid()) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		wl_die(w, "'%s'", o->dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die(w, "cannot create '%s'", path);
	close(fd);

	wl_start(w);
	for (i = 0; i < w->ops; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die(w, "cannot open '%s'", path);
		if (stat(path, &st))
			wl_die(w, "stat '%s'", path);
		close(fd);
	}
	wl_report(w);
	if (unlink(path))
		wl_die(w, "cannot remove '%s'", path);
}

static void t_mmap(struct wl *w, const struct opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = o->pages * page, off;
	unsigned long i;

	wl_start(w);
	for (i = 0; i < w->ops; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		if (p == MAP_FAILED)
			wl_die(w, "mmap");
		for (off = 0; off < len; off += page)
			p[off] = (char)i;
		if (munmap(p, len))
			wl_die(w, "munmap");
	}
	wl_report(w);
}

static void t_unix(struct wl *w, const struct opts *o)
{
	int sv[2];

	(void)o;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		wl_die(w, "socketpair");
	/* the child talks on sv[1], the parent on sv[0] */
	pingpong(w, (int[2]){ sv[1], sv[0] }, (int[2]){ sv[0], sv[1] });
}

static void nodelay(const struct wl *w, int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		wl_die(w, "TCP_NODELAY");
}

static void t_tcp(struct wl *w, const struct opts *o)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int lfd, cfd, sfd;

	(void)o;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || cfd < 0)
		wl_die(w, "socket");
	if (bind(lfd, (struct sockaddr *)&a, len) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len))
		wl_die(w, "cannot listen on 127.0.0.1");
	if (connect(cfd, (struct sockaddr *)&a, len))
		wl_die(w, "cannot connect to 127.0.0.1:%d", ntohs(a.sin_port));
	sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (sfd < 0)
		wl_die(w, "accept");
	close(lfd);
	nodelay(w, cfd);
	nodelay(w, sfd);
	/* the child echoes on the accepted end, the parent uses the other */
	pingpong(w, (int[2]){ sfd, cfd }, (int[2]){ cfd, sfd });
}

static void t_calib(struct wl *w, const struct opts *o)
{
	unsigned long i;

	(void)o;
	wl_start(w);
	for (i = 0; i < w->ops; i++) {
#if defined(__x86_64__)
		unsigned long n;

		__asm__ volatile("mov %1, %0\n"
				 "1:\n\t"
				 "dec %0\n\t"
				 "jnz 1b"
				 : "=&r"(n)
				 : "i"(CALIB_LOOPS)
				 : "cc");
#else
		errno = 0;
		wl_die(w, "-t calib is for x86_64 only");
#endif
	}
	wl_report(w);
}

/* mark: `nopl 0x4f47504b(%rax)`, 0f 1f 80 "KPGO", once per operation. */
static void t_mark(struct wl *w, const struct opts *o)
{
	unsigned long i;

	(void)o;
	for (i = 0; i < w->ops; i++) {
#if defined(__x86_64__)
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x4b, 0x50, 0x47, 0x4f" ::: "memory");
#else
		errno = 0;
		wl_die(w, "-t mark is for x86_64 only");
#endif
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(struct wl *w, const struct opts *o);
		unsigned long ops;
		const char *what;
	} tests[] = {
		{ "syscall", t_syscall, 200000, "getppid() round trips" },
		{ "pipe", t_pipe, 50000, "1-byte write and read on one pipe" },
		{ "ctxsw", t_ctxsw, 20000, "1-byte round trips between two processes over pipes" },
		{ "fork", t_fork, 1000, "fork, _exit and waitpid" },
		{ "exec", t_exec, 500, "fork, execve of a static program, exit and waitpid" },
		{ "open", t_open, 50000, "open, stat and close of a file" },
		{ "mmap", t_mmap, 10000, "anonymous mmap, every page touched, munmap" },
		{ "unix", t_unix, 20000, "1-byte round trips over a unix stream socket pair" },
		{ "tcp", t_tcp, 10000, "1-byte round trips over TCP on 127.0.0.1" },
		{ "calib", t_calib, 1000, "loops of 2x100000+1 instructions, no system call" },
		{ "mark", t_mark, 1, "the cache model's marker, no result line" },
	};
	struct wl w = { .name = "wl-micro", .ops = 0, .what = "one kernel path (-t)" };
	struct opts o = { .dir = NULL, .pages = 16 };
	const char *test = NULL;
	char name[64], what[128];
	unsigned long count = 0;
	bool print_insns = false;
	size_t i;
	int c;

	if (argc == 2 && !strcmp(argv[1], "--child"))
		return 0;
	while ((c = getopt(argc, argv, "t:n:d:p:xh")) != -1) {
		switch (c) {
		case 't': test = optarg; break;
		case 'n': count = wl_count(&w, optarg); break;
		case 'd': o.dir = optarg; break;
		case 'p': o.pages = wl_count(&w, optarg); break;
		case 'x': print_insns = true; break;
		case 'h': wl_usage(&w, USAGE, 0); break;
		default: wl_usage(&w, USAGE, 2);
		}
	}
	if (!test || optind != argc)
		wl_usage(&w, USAGE, 2);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!strcmp(test, tests[i].name))
			break;
	if (i == sizeof(tests) / sizeof(tests[0])) {
		errno = 0;
		wl_die(&w, "unknown test '%s'", test);
	}
	if (print_insns) {
		if (strcmp(test, "calib")) {
			errno = 0;
			wl_die(&w, "-x is for -t calib");
		}
		printf("%lu\n", CALIB_INSNS);
		return 0;
	}
	snprintf(name, sizeof(name), "wl-micro-%s", test);
	w.name = name;
	w.ops = count ? count : tests[i].ops;
	if (!strcmp(test, "mmap")) {
		if (o.pages > 1 << 20) {
			errno = 0;
			wl_die(&w, "too many pages: %lu", o.pages);
		}
		snprintf(what, sizeof(what), "anonymous mmap of %lu pages, each touched, munmap",
			 o.pages);
		w.what = what;
	} else {
		w.what = tests[i].what;
	}
	tests[i].run(&w, &o);
	return 0;
}
