// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-thread: the futex traffic of a threaded server, for the default
 * profile's training (the guest's system mix, tests/bench/guest/init).
 * A server's threads meet on futexes: most waits find the word already
 * changed and return at once (the lock was released between the check and
 * the system call), most wakes find nobody waiting, timed waits time out,
 * and some waits do sleep and are woken by another thread, or by another
 * process on a futex in shared memory (process-shared locks). One
 * operation is one round of each of:
 *
 *   - a work queue: the main thread hands an item to 4 worker threads
 *     through a pthread mutex and condition variable and waits for it to
 *     be done (glibc's futex use, contended and not);
 *   - the fast paths, as glibc's lock and condition code issues them:
 *     FUTEX_WAIT on a word that no longer holds the expected value
 *     (EAGAIN) and FUTEX_WAKE with nobody waiting, on a private word and
 *     on a word in shared memory; FUTEX_WAIT with a timeout already past
 *     (ETIMEDOUT) and FUTEX_WAIT_BITSET with an absolute one;
 *   - a hand-off: a thread sleeps on a private word until the main thread
 *     wakes it, and a child process on a shared word until the parent
 *     wakes it (each with a timeout, as timed waits are, that the wake
 *     beats), and each wakes its waker in turn (without one).
 *
 * Written for training; the kernel benchmark's held-out and foreign mixes
 * never run it.
 */
#include "wl.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define WORKERS 4

static struct wl w = { .name = "wl-thread",
		       .ops = 2000,
		       .what = "futex rounds: a 4-thread work queue, waits and wakes that return at "
			       "once, timeouts, thread and process hand-offs" };

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, val3);
}

/* A wait that must come back at once with the errno given. */
static void wait_fails(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts,
		       uint32_t val3, int want)
{
	errno = 0;
	if (futex(word, op, val, ts, val3) != -1 || errno != want) {
		if (!errno)
			errno = EPROTO;
		wl_die(&w, "futex op %d did not fail with errno %d", op, want);
	}
}

/*
 * Sleep while *word == val (a wake or a changed word ends it); timed: with
 * a 10-second timeout (an hrtimer armed and cancelled, as
 * pthread_cond_timedwait does), which a wake ends long before.
 */
static void wait_while(_Atomic uint32_t *word, uint32_t val, int private, int timed)
{
	int op = FUTEX_WAIT | (private ? FUTEX_PRIVATE_FLAG : 0);
	struct timespec ten = { 10, 0 };

	while (atomic_load(word) == val)
		if (futex(word, op, val, timed ? &ten : NULL, 0) == -1 && errno != EAGAIN &&
		    errno != EINTR && errno != ETIMEDOUT)
			wl_die(&w, "FUTEX_WAIT");
}

static void wake(_Atomic uint32_t *word, int private)
{
	if (futex(word, FUTEX_WAKE | (private ? FUTEX_PRIVATE_FLAG : 0), INT_MAX, NULL, 0) == -1)
		wl_die(&w, "FUTEX_WAKE");
}

/* The work queue: one slot, items handed to whichever worker is free. */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_more = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_done = PTHREAD_COND_INITIALIZER;
static unsigned long q_posted, q_taken, q_finished;
static int q_stop;

static void *worker(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	pthread_mutex_lock(&q_lock);
	for (;;) {
		while (q_taken == q_posted && !q_stop)
			pthread_cond_wait(&q_more, &q_lock);
		if (q_taken == q_posted)
			break;
		q_taken++;
		pthread_mutex_unlock(&q_lock);
		for (int i = 0; i < 200; i++) /* the item's work */
			sum = sum * 31 + (unsigned long)i;
		pthread_mutex_lock(&q_lock);
		q_finished++;
		pthread_cond_signal(&q_done);
	}
	pthread_mutex_unlock(&q_lock);
	return (void *)(uintptr_t)(sum & 1);
}

/* The hand-off partner thread: sleeps until the main thread bumps the word. */
static _Atomic uint32_t handoff, handoff_ack;

static void *sleeper(void *arg)
{
	uint32_t seen = 0;

	(void)arg;
	for (unsigned long i = 0; i < w.ops; i++) {
		wait_while(&handoff, seen, 1, 1);
		seen = atomic_load(&handoff);
		atomic_store(&handoff_ack, seen);
		wake(&handoff_ack, 1);
	}
	return NULL;
}

/*
 * The child process's end, seen by the parent while it waits for the
 * child's answer: the handler marks it and changes the word the parent
 * waits on (a wait that starts after the signal finds the word changed).
 */
static volatile sig_atomic_t child_ended;
static _Atomic uint32_t *child_answer;

static void on_sigchld(int sig)
{
	(void)sig;
	child_ended = 1;
	atomic_store(child_answer, UINT32_MAX);
	futex(child_answer, FUTEX_WAKE, INT_MAX, NULL, 0);
}

int main(int argc, char **argv)
{
	pthread_t workers[WORKERS], partner;
	_Atomic uint32_t private_word = 1, *shared;
	struct timespec zero = { 0, 0 }, past;
	int status, err;
	pid_t pid;

	wl_options(&w, argc, argv);
	/* shared[0]: the fast paths' shared word; shared[1], [2]: the process hand-off */
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		wl_die(&w, "mmap");
	atomic_store(&shared[0], 1);
	atomic_store(&shared[1], 0);
	atomic_store(&shared[2], 0);

	/* SIGCHLD for the main thread only (the threads inherit the mask) */
	struct sigaction sa = { .sa_handler = on_sigchld,
				.sa_flags = SA_NOCLDSTOP }; /* no SA_RESTART: the wait ends */
	sigset_t chld;

	child_answer = &shared[2];
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigaction(SIGCHLD, &sa, NULL) || sigprocmask(SIG_BLOCK, &chld, NULL))
		wl_die(&w, "SIGCHLD");
	pid = fork();
	if (pid < 0)
		wl_die(&w, "fork");
	if (pid == 0) {
		uint32_t seen = 0;

		/* the parent's end ends the child */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			_exit(1);
		for (unsigned long i = 0; i < w.ops; i++) {
			wait_while(&shared[1], seen, 0, 1);
			seen = atomic_load(&shared[1]);
			atomic_store(&shared[2], seen);
			wake(&shared[2], 0);
		}
		_exit(0);
	}
	for (int i = 0; i < WORKERS; i++)
		if ((err = pthread_create(&workers[i], NULL, worker, NULL))) {
			errno = err;
			wl_die(&w, "pthread_create");
		}
	if ((err = pthread_create(&partner, NULL, sleeper, NULL))) {
		errno = err;
		wl_die(&w, "pthread_create");
	}
	if (sigprocmask(SIG_UNBLOCK, &chld, NULL))
		wl_die(&w, "sigprocmask");

	wl_start(&w);
	for (unsigned long i = 0; i < w.ops; i++) {
		uint32_t n = (uint32_t)i + 1;

		/* the work queue */
		pthread_mutex_lock(&q_lock);
		q_posted++;
		pthread_cond_signal(&q_more);
		while (q_finished < q_posted)
			pthread_cond_wait(&q_done, &q_lock);
		pthread_mutex_unlock(&q_lock);

		/* the fast paths */
		wait_fails(&private_word, FUTEX_WAIT_PRIVATE, 0, NULL, 0, EAGAIN);
		wake(&private_word, 1);
		wait_fails(&shared[0], FUTEX_WAIT, 0, NULL, 0, EAGAIN);
		wake(&shared[0], 0);
		wait_fails(&private_word, FUTEX_WAIT_PRIVATE, 1, &zero, 0, ETIMEDOUT);
		clock_gettime(CLOCK_MONOTONIC, &past);
		wait_fails(&private_word, FUTEX_WAIT_BITSET_PRIVATE, 1, &past,
			   FUTEX_BITSET_MATCH_ANY, ETIMEDOUT);

		/* the hand-offs: a thread, then a process */
		atomic_store(&handoff, n);
		wake(&handoff, 1);
		wait_while(&handoff_ack, n - 1, 1, 0);
		atomic_store(&shared[1], n);
		wake(&shared[1], 0);
		wait_while(&shared[2], n - 1, 0, 0);
		if (child_ended && i + 1 < w.ops) { /* (after its last answer it exits) */
			errno = 0;
			wl_die(&w, "the child process ended before its %lu rounds", w.ops);
		}
	}
	wl_report(&w);

	pthread_mutex_lock(&q_lock);
	q_stop = 1;
	pthread_cond_broadcast(&q_more);
	pthread_mutex_unlock(&q_lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i], NULL);
	pthread_join(partner, NULL);
	while ((err = (int)waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		; /* SIGCHLD itself */
	if (err != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		wl_die(&w, "the child failed");
	}
	return 0;
}
