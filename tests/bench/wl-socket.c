// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-socket: a client and an echo server in two processes, over a unix
 * stream socket (-t unix, an abstract address) or TCP on 127.0.0.1
 * (-t tcp, a port the kernel picks). One operation is one 256-byte round
 * trip; every 50th the client closes its connection and opens a new one
 * (connect, accept and teardown paths; for TCP the handshake on loopback).
 */
#include "wl.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define PER_CONNECTION 50
#define MSG 256

union addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_un un;
};

static int new_socket(const struct wl *w, int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		wl_die(w, "socket");
	if (family == AF_INET) {
		int one = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

/* The echo server: one connection at a time, until the listener is closed. */
static void serve(const struct wl *w, int lfd)
{
	char msg[MSG];

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			wl_die(w, "accept");
		}
		for (;;) {
			ssize_t r = recv(fd, msg, sizeof(msg), MSG_WAITALL);

			if (r == 0)
				break;
			if (r != (ssize_t)sizeof(msg))
				wl_die(w, "server recv");
			wl_write_all(w, fd, msg, sizeof(msg));
		}
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct wl w = { .name = "wl-socket",
			.ops = 5000,
			.what = "256-byte round trips to an echo server, a new connection every 50" };
	const char *type = "unix";
	union addr addr;
	socklen_t len;
	char msg[MSG], what[128];
	unsigned long i;
	int c, lfd, fd = -1, family, status;
	pid_t pid;

	while ((c = getopt(argc, argv, "n:t:h")) != -1) {
		switch (c) {
		case 'n': w.ops = wl_count(&w, optarg); break;
		case 't': type = optarg; break;
		case 'h': wl_usage(&w, " [-t unix|tcp]", 0); break;
		default: wl_usage(&w, " [-t unix|tcp]", 2);
		}
	}
	memset(&addr, 0, sizeof(addr));
	if (!strcmp(type, "unix")) {
		family = AF_UNIX;
		addr.un.sun_family = AF_UNIX;
		/* abstract: sun_path[0] is 0; nothing to remove afterwards */
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  (size_t)snprintf(addr.un.sun_path + 1, sizeof(addr.un.sun_path) - 1,
						   "kpgo-wl-socket.%ld", (long)getpid()));
	} else if (!strcmp(type, "tcp")) {
		family = AF_INET;
		addr.in.sin_family = AF_INET;
		addr.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(addr.in);
	} else {
		wl_usage(&w, " [-t unix|tcp]", 2);
	}
	w.name = family == AF_UNIX ? "wl-socket-unix" : "wl-socket-tcp";
	snprintf(what, sizeof(what), "256-byte round trips over %s, a new connection every %d",
		 family == AF_UNIX ? "a unix stream socket" : "TCP on 127.0.0.1", PER_CONNECTION);
	w.what = what;

	lfd = new_socket(&w, family);
	if (bind(lfd, &addr.sa, len) || listen(lfd, 16))
		wl_die(&w, "cannot listen");
	if (getsockname(lfd, &addr.sa, &len))
		wl_die(&w, "getsockname");
	pid = fork();
	if (pid < 0)
		wl_die(&w, "fork");
	if (pid == 0)
		serve(&w, lfd);
	close(lfd);
	memset(msg, 's', sizeof(msg));

	wl_start(&w);
	for (i = 0; i < w.ops; i++) {
		if (i % PER_CONNECTION == 0) {
			if (fd >= 0)
				close(fd);
			fd = new_socket(&w, family);
			if (connect(fd, &addr.sa, len))
				wl_die(&w, "cannot connect");
		}
		wl_write_all(&w, fd, msg, sizeof(msg));
		wl_read_all(&w, fd, msg, sizeof(msg));
	}
	wl_report(&w);
	close(fd);
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		wl_die(&w, "waitpid");
	return 0;
}
