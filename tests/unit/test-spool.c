// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spool.h: names, the backoff, publishing, listing, retry and upload state,
 * setting files aside, and retention, in a spool in a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "spool.h"
#include "tap.h"

static char top[] = "/tmp/kpgo-test-spool.XXXXXX";

static void test_names(void)
{
	static const char *const good[] = {
		"20260101T000000Z-h-0123456789abcdef.kpgo",
		"20260101T000000Z-web-01.example.org-0123456789abcdef.kpgo",
		"20260101T000000Z-a_b-c-ffffffffffffffff.kpgo",
	};
	static const char *const bad[] = {
		"",
		"x.kpgo",
		"20260101T000000Z--0123456789abcdef.kpgo",
		"20260101T000000Z-.h-0123456789abcdef.kpgo",
		"20260101T000000Z-h/x-0123456789abcdef.kpgo",
		"20260101T000000Z-h-0123456789ABCDEF.kpgo",
		"20260101T000000Z-h-0123456789abcdef.kpgo.tmp",
		"20260101T000000Z-h-0123456789abcde.kpgo",
		"2026010xT000000Z-h-0123456789abcdef.kpgo",
		"20260101 000000Z-h-0123456789abcdef.kpgo",
		"20260101T000000Z-h\n-0123456789abcdef.kpgo",
		"20260101T000000Z-hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh-0123456789abcdef.kpgo",
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(kpgo_spool_name_ok(good[i]), "a name: %s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!kpgo_spool_name_ok(bad[i]), "not a name: '%s'", bad[i]);
}

static void test_backoff(void)
{
	ok(kpgo_spool_backoff(0, 3600) == 60, "before any failure: 60 s");
	ok(kpgo_spool_backoff(1, 3600) == 60, "1: 60 s");
	ok(kpgo_spool_backoff(2, 3600) == 120, "2: 120 s");
	ok(kpgo_spool_backoff(5, 3600) == 960, "5: 960 s");
	ok(kpgo_spool_backoff(7, 3600) == 3600, "7: capped at 3600");
	ok(kpgo_spool_backoff(1000000, 3600) == 3600, "many: still capped");
	ok(kpgo_spool_backoff(3, 100) == 100, "a cap below the doubling");
}

static void test_retry_text(void)
{
	static const char item[] = "ATTEMPTS=3\nLAST_TRY=1793000000\nLAST_ERROR=a\tb\x1b[2J\n";
	struct kpgo_spool_item it;
	struct kpgo_spool_state st;
	struct strbuf out = STRBUF_INIT;

	is_int(kpgo_spool_retry_parse(item, strlen(item), &it), 0, "a retry file is read");
	ok(it.attempts == 3 && it.last_try == 1793000000, "its attempts and last try");
	is_str(it.last_error, "a b [2J", "control characters of its error read as blanks");
	ok(kpgo_spool_retry_format(&it, &out) == 0 &&
		   !strcmp(out.buf, "ATTEMPTS=3\nLAST_TRY=1793000000\nLAST_ERROR=a b [2J\n"),
	   "and written back as read");
	is_int(kpgo_spool_state_parse("FAILURES=99999999\nNEXT_TRY=5\n", 29, &st), 0,
	       "a backoff state is read");
	ok(st.failures == KPGO_SPOOL_FAILURES_MAX && st.next_try == 5, "failures capped");
	is_int(kpgo_spool_state_parse("FAILURES=1\nNEXT_TRY=9223372036854775808\n", 40, &st),
	       -EBADMSG, "a time past INT64_MAX is refused");
	ok(st.failures == 0 && st.next_try == 0 && !st.last_error[0], "and is no state");
	is_int(kpgo_spool_state_parse("FAILURES=1\0\nNEXT_TRY=2\n", 23, &st), -EBADMSG,
	       "a NUL is refused");
	is_int(kpgo_spool_state_parse("FAILURES=1", 10, &st), -EBADMSG,
	       "so is a last line cut short");
	is_int(kpgo_spool_state_parse("ATTEMPTS=1\n", 11, &st), -EBADMSG, "and another file's key");
	strbuf_release(&out);
}

static int put(int dirfd, const char *name, const char *text)
{
	return kpgo_write_file_atomic_at(dirfd, name, text, strlen(text), 0644);
}

static void set_mtime(int dirfd, const char *name, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

static void test_spool(void)
{
	struct kpgo_spool_list l;
	struct kpgo_spool_state st;
	struct kpgo_spool sp;
	struct kpgo_error err;
	struct kpgo_strlist removed = { 0 }, dropped = { 0 };
	struct kpgo_spool_retention keep = { 2, 3600, 2, 1000000 };
	char dir[128], name[KPGO_SPOOL_NAME_MAX], name2[KPGO_SPOOL_NAME_MAX], other[64];
	size_t cleaned;
	int r;

	snprintf(dir, sizeof(dir), "%s/spool", top);
	is_int(kpgo_spool_open(&sp, dir, false, &err), -ENOENT, "no spool yet");
	is_int(kpgo_spool_open(&sp, dir, true, &err), 0, "created: %s", err.msg);
	put(sp.tmpfd, "leftover.kpgo.AbCdEf", "half");
	is_int(kpgo_spool_clean_tmp(&sp, &cleaned, &err), 0, "tmp/ swept");
	ok(cleaned == 1, "one leftover removed");

	put(sp.tmpfd, "c1", "profile one");
	is_int(kpgo_spool_publish(&sp, "c1", 1767225600, "web 1/x", name, &err), 0, "published");
	/* sha256("profile one") starts 6c... whatever it is, the name says it. */
	ok(kpgo_spool_name_ok(name), "a good name: %s", name);
	ok(!strncmp(name, "20260101T000000Z-web_1_x-", 25), "time and a safe host: %s", name);
	ok(faccessat(sp.tmpfd, "c1", F_OK, 0) < 0, "gone from tmp/");
	put(sp.tmpfd, "c2", "profile one");
	is_int(kpgo_spool_publish(&sp, "c2", 1767225600, "web 1/x", name2, &err), 0,
	       "the same bytes again");
	is_str(name2, name, "the same name, and one file");
	put(sp.tmpfd, "c3", "profile two");
	is_int(kpgo_spool_publish(&sp, "c3", 1767225601, "", name2, &err), 0, "another");
	ok(strstr(name2, "-localhost-") != NULL, "no host name: localhost");
	put(sp.dirfd, "notes.txt", "x");
	symlinkat("/etc/passwd", sp.dirfd, "20260101T000009Z-h-0123456789abcdef.kpgo");

	is_int(kpgo_spool_list(&sp, KPGO_SPOOL_WAITING, &l, &err), 0, "listed");
	ok(l.n == 2 && !strcmp(l.items[0].name, name) && !strcmp(l.items[1].name, name2),
	   "two profiles, oldest first");
	is_int((int)l.strays, 2, "a stray file and a link, counted, not listed");

	kpgo_spool_state_read(&sp, &st);
	ok(st.failures == 0 && st.next_try == 0, "no upload state yet");
	is_int(kpgo_spool_state_failed(&sp, &st, 5000, 3600, "farm\ndown", &err), 0, "a failed run");
	is_int(kpgo_spool_state_failed(&sp, &st, 6000, 3600, "farm down", &err), 0, "another");
	kpgo_spool_state_read(&sp, &st);
	ok(st.failures == 2 && st.next_try == 6120, "two failures: 120 s from the last");
	is_str(st.last_error, "farm down", "its error");
	is_int(kpgo_spool_retry_failed(&sp, &l.items[0], 6000, "x\ty", &err), 0,
	       "a profile's failure");
	kpgo_spool_list_release(&l);
	kpgo_spool_list(&sp, KPGO_SPOOL_WAITING, &l, &err);
	ok(l.items[0].attempts == 1 && l.items[0].last_try == 6000, "read back with the list");
	is_str(l.items[0].last_error, "x y", "control characters flattened");
	kpgo_spool_list_release(&l);
	put(sp.retryfd, name, "ATTEMPTS=banana\n");
	kpgo_spool_list(&sp, KPGO_SPOOL_WAITING, &l, &err);
	ok(l.items[0].attempts == 0, "a garbled retry file is no state");
	kpgo_spool_list_release(&l);
	kpgo_spool_state_clear(&sp, &st);
	kpgo_spool_state_read(&sp, &st);
	ok(st.failures == 0, "cleared");

	is_int(kpgo_spool_mark_sent(&sp, name, &err), 0, "sent");
	ok(faccessat(sp.sentfd, name, F_OK, 0) == 0 && faccessat(sp.dirfd, name, F_OK, 0) < 0,
	   "moved to sent/");
	ok(faccessat(sp.retryfd, name, F_OK, 0) < 0, "its retry state gone");

	is_int(kpgo_spool_reject(&sp, "notes.txt", "not a profile", &err), 0, "rejected");
	put(sp.dirfd, "notes.txt", "y");
	is_int(kpgo_spool_reject(&sp, "notes.txt", "again", &err), 0, "rejected again");
	ok(faccessat(sp.rejfd, "notes.txt", F_OK, 0) == 0 &&
		   faccessat(sp.rejfd, "notes.txt.1", F_OK, 0) == 0 &&
		   faccessat(sp.rejfd, "notes.txt.1.reason", F_OK, 0) == 0,
	   "never replaced: NAME.1 and its reason");

	/* Retention: sent/ by count and age, waiting by KPGO_SPOOL_MAX. */
	snprintf(other, sizeof(other), "20260101T00000%dZ-h-0123456789abcdef.kpgo", 1);
	put(sp.sentfd, other, "s1");
	set_mtime(sp.sentfd, other, 999000);
	put(sp.sentfd, "20260101T000002Z-h-0123456789abcdef.kpgo", "s2");
	set_mtime(sp.sentfd, "20260101T000002Z-h-0123456789abcdef.kpgo", 999900);
	set_mtime(sp.sentfd, name, 999950);
	put(sp.sentfd, "20260101T000003Z-h-0123456789abcdef.kpgo", "s3");
	set_mtime(sp.sentfd, "20260101T000003Z-h-0123456789abcdef.kpgo", 990000);
	put(sp.dirfd, "20250101T000000Z-h-0123456789abcdef.kpgo", "w0");
	put(sp.dirfd, "20250101T000001Z-h-0123456789abcdef.kpgo", "w1");
	put(sp.retryfd, "20240101T000000Z-h-0123456789abcdef.kpgo", "ATTEMPTS=1\n");
	r = kpgo_spool_prune(&sp, &keep, &removed, &dropped, &err);
	is_int(r, 0, "pruned");
	/* sent/: name (999950), s2 (999900) kept; s1 (third) and s3 (old) go. */
	is_int((int)removed.n, 2, "two left sent/");
	ok(faccessat(sp.sentfd, name, F_OK, 0) == 0 &&
		   faccessat(sp.sentfd, "20260101T000002Z-h-0123456789abcdef.kpgo", F_OK, 0) == 0,
	   "the newest two stay");
	/* waiting: w0, w1, name2 -> the oldest (w0) is dropped. */
	ok(dropped.n == 1 && !strcmp(dropped.items[0], "20250101T000000Z-h-0123456789abcdef.kpgo"),
	   "the oldest waiting profile dropped");
	ok(faccessat(sp.retryfd, "20240101T000000Z-h-0123456789abcdef.kpgo", F_OK, 0) < 0,
	   "an orphaned retry state removed");
	kpgo_strlist_clear(&removed);
	kpgo_strlist_clear(&dropped);

	is_int(kpgo_spool_lock(&sp, KPGO_SPOOL_UPLOAD_LOCK, false, &err), 0, "locked");
	{
		struct kpgo_spool sp2;

		kpgo_spool_open(&sp2, dir, false, &err);
		is_int(kpgo_spool_lock(&sp2, KPGO_SPOOL_UPLOAD_LOCK, false, &err), -EWOULDBLOCK,
		       "a second holder is refused");
		is_int(kpgo_spool_lock(&sp2, KPGO_SPOOL_COLLECT_LOCK, false, &err), 0,
		       "the other lock is free");
		kpgo_spool_close(&sp2);
	}
	kpgo_spool_close(&sp);
}

int main(void)
{
	char cmd[128];

	umask(022);
	if (!mkdtemp(top))
		return 1;
	test_names();
	test_backoff();
	test_retry_text();
	test_spool();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		diag("cannot remove %s", top);
	return done_testing();
}
