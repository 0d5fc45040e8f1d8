// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.h: array growth, safe relative paths, directories opened without following links, atomic writes,
 * number parsing, errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

/*
 * Under AddressSanitizer a realloc() of SIZE_MAX bytes aborts by default;
 * the tests want to see it fail the way libc's does.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void test_alloc_grow(void)
{
	struct pair {
		uint64_t a, b;
	} *v = NULL, *kept;
	size_t n = 0, alloc = 0, i, before;
	uint64_t *big = NULL;
	size_t big_alloc = 0;
	bool all = true;

	is_int(KPGO_ALLOC_GROW(v, 0, alloc), 0, "room for nothing: nothing to do");
	ok(v == NULL && alloc == 0, "  nothing allocated");
	for (i = 0; i < 1000; i++) {
		if (KPGO_ALLOC_GROW(v, n + 1, alloc)) {
			all = false;
			break;
		}
		v[n].a = i;
		v[n++].b = 2 * i;
	}
	ok(all && n == 1000 && alloc >= 1000, "a thousand appends, one at a time");
	for (i = 0, all = true; i < n; i++)
		all &= v[i].a == i && v[i].b == 2 * i;
	ok(all, "  every item kept across the reallocations");
	ok(alloc < 2000, "  the capacity grows by half again, not without bound (%zu)", alloc);
	before = alloc;
	is_int(KPGO_ALLOC_GROW(v, n, alloc), 0, "room there already");
	ok(alloc == before, "  the capacity is unchanged");
	is_int(KPGO_ALLOC_GROW(v, 5000, alloc), 0, "a jump past the next step");
	ok(alloc >= 5000, "  grows to at least what was asked (%zu)", alloc);

	kept = v;
	before = alloc;
	is_int(KPGO_ALLOC_GROW(v, SIZE_MAX / sizeof(*v) + 1, alloc), -ENOMEM,
	       "a size in bytes past SIZE_MAX is -ENOMEM, not a wrapped small one");
	ok(v == kept && alloc == before, "  the array and its capacity are unchanged");
	is_int(KPGO_ALLOC_GROW(big, SIZE_MAX / sizeof(*big), big_alloc), -ENOMEM,
	       "an allocation that fails is -ENOMEM");
	ok(big == NULL && big_alloc == 0, "  nothing changed");
	free(v);
}

static int walk_add(void *ctx, int dirfd, const char *name)
{
	struct strbuf *seen = ctx;
	struct stat st;

	/* @name is in @dirfd; the path is kept in the caller's strbuf. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return -EINVAL;
	strbuf_addf(seen, "%s|", name);
	return !strcmp(name, "stop.x") ? 7 : 0;
}

static void test_walk(void)
{
	char tmpl[] = "/tmp/kpgo-test-walk.XXXXXX", *dir = mkdtemp(tmpl);
	struct strbuf seen = STRBUF_INIT, path = STRBUF_INIT, cmd = STRBUF_INIT;
	static const char *const prune[] = { "skip", NULL };
	struct kpgo_error err;

	strbuf_addf(&cmd,
		    "cd '%s' && mkdir -p a/b skip/c link-target && touch top.x a/one.x a/b/two.x "
		    "a/b/no.y skip/c/pruned.x a/b/three.x link-target/linked.x && ln -s ../link-target a/dirlink && "
		    "ln -s one.x a/filelink.x",
		    dir);
	if (!dir || system(cmd.buf))
		bail_out("cannot make a test tree");
	is_int(kpgo_walk_files(dir, ".x", prune, &path, walk_add, &seen, &err), 0, "a walk");
	ok(strstr(seen.buf, "top.x|") && strstr(seen.buf, "one.x|") && strstr(seen.buf, "two.x|") &&
		   strstr(seen.buf, "three.x|") && strstr(seen.buf, "linked.x|"),
	   "  every file of the suffix, at every depth (%s)", seen.buf);
	ok(!strstr(seen.buf, "no.y") && !strstr(seen.buf, "pruned.x") &&
		   !strstr(seen.buf, "filelink.x"),
	   "  not other names, pruned ones or links");
	ok(strstr(strstr(seen.buf, "linked.x|") + 1, "linked.x|") == NULL,
	   "  a link to a directory is not followed: linked.x once");
	strbuf_reset(&seen);
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "touch '%s/a/stop.x'", dir);
	if (system(cmd.buf))
		bail_out("cannot make a test file");
	is_int(kpgo_walk_files(dir, ".x", prune, &path, walk_add, &seen, &err), 7,
	       "the callback's return stops the walk");
	is_int(kpgo_walk_files("/nonexistent/walk", ".x", NULL, &path, walk_add, &seen, &err),
	       -ENOENT, "no directory");
	is_str(err.msg, "cannot open '/nonexistent/walk': No such file or directory", "  says so");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf))
		diag("cannot remove %s", dir);
	strbuf_release(&seen);
	strbuf_release(&path);
	strbuf_release(&cmd);
}

static void test_path_is_safe(void)
{
	static const char *const good[] = {
		"a",	 "a/b.gcda", "kernel/fork.gcda", "a.b/c", "...",
		"a/..b", "..a/b",    ".hidden/x",	 "a b/c", "a~/b",
	};
	static const char *const bad[] = {
		"",	 "/",	  "/a",	  "a/",	   "a//b",    ".",	"./a",
		"a/.",	 "a/./b", "..",	  "../a",  "a/..",    "a/../b", "a\\b",
		"..\\a", "a\nb",  "a\tb", "a\x7f", "a\x01/b", "//a",
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(kpgo_path_is_safe(good[i]), "safe: '%s'", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!kpgo_path_is_safe(bad[i]), "unsafe: '%s'", bad[i]);
}

static void test_object_path_ok(void)
{
	char longp[4200];

	ok(kpgo_object_path_ok("kernel/fork.gcda"), "kernel/fork.gcda");
	ok(kpgo_object_path_ok("a.gcda"), "a.gcda");
	ok(!kpgo_object_path_ok(".gcda"), "'.gcda' alone refused");
	ok(!kpgo_object_path_ok("a.gcno"), ".gcno refused");
	ok(!kpgo_object_path_ok("a.gcda/"), "trailing slash refused");
	ok(!kpgo_object_path_ok("../a.gcda"), "'..' refused");
	ok(!kpgo_object_path_ok("/abs/a.gcda"), "absolute refused");
	memset(longp, 'a', sizeof(longp));
	memcpy(longp + 4091, ".gcda", 6);
	ok(kpgo_object_path_ok(longp), "4096 bytes accepted");
	memset(longp, 'a', sizeof(longp));
	memcpy(longp + 4092, ".gcda", 6);
	ok(!kpgo_object_path_ok(longp), "4097 bytes refused");
}

/* Names in @dir, sorted, joined by ' '. */
static void list_dir(const char *dir, struct strbuf *out)
{
	struct kpgo_strlist l = { 0 };
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t i;

	strbuf_reset(out);
	if (!d) {
		strbuf_addstr(out, "<cannot open>");
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			kpgo_strlist_add(&l, de->d_name);
	closedir(d);
	kpgo_strlist_sort(&l);
	for (i = 0; i < l.n; i++)
		strbuf_addf(out, "%s%s", i ? " " : "", l.items[i]);
	kpgo_strlist_clear(&l);
}

static void rm_rf(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
}

static void test_mkdirs_at(void)
{
	char root[] = "/tmp/kpgo-test-util.XXXXXX", p[512];
	struct strbuf ls = STRBUF_INIT;
	struct stat st;
	int rootfd, fd;

	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	rootfd = open(root, O_RDONLY | O_DIRECTORY);
	if (rootfd < 0)
		bail_out("cannot open the temp dir");

	fd = kpgo_mkdirs_at(rootfd, "a/b/c", true);
	ok(fd >= 0, "create a/b/c");
	ok(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode), "returns a directory fd");
	snprintf(p, sizeof(p), "%s/a/b/c", root);
	ok(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == (0755 & ~umask(022)),
	   "a/b/c exists with mode 0755");
	if (fd >= 0)
		close(fd);
	fd = kpgo_mkdirs_at(rootfd, "a/b", false);
	ok(fd >= 0, "open existing a/b without creating");
	if (fd >= 0)
		close(fd);
	is_int(kpgo_mkdirs_at(rootfd, "a/missing/x", false), -ENOENT,
	       "missing directory without create: ENOENT");
	snprintf(p, sizeof(p), "%s/a/missing", root);
	ok(access(p, F_OK) != 0, "nothing created without create");
	fd = kpgo_mkdirs_at(rootfd, "", false);
	ok(fd >= 0 && fd != rootfd, "empty path: a new fd for the root");
	if (fd >= 0)
		close(fd);

	/* A symbolic link on the way is never followed. */
	snprintf(p, sizeof(p), "%s/outside", root);
	mkdir(p, 0755);
	if (symlinkat("outside", rootfd, "link") || symlinkat("../outside", rootfd, "a/link2") ||
	    symlinkat("outside/nothing", rootfd, "dangling"))
		bail_out("symlink failed");
	is_int(kpgo_mkdirs_at(rootfd, "link/x", true), -ELOOP, "symlinked directory: ELOOP");
	is_int(kpgo_mkdirs_at(rootfd, "link", true), -ELOOP, "symlink as last component: ELOOP");
	is_int(kpgo_mkdirs_at(rootfd, "link", false), -ELOOP, "symlink without create: ELOOP");
	is_int(kpgo_mkdirs_at(rootfd, "a/link2/y/z", true), -ELOOP, "deeper symlink: ELOOP");
	is_int(kpgo_mkdirs_at(rootfd, "dangling/q", true), -ELOOP, "dangling symlink: ELOOP");
	list_dir(p, &ls);
	is_str(ls.buf, "", "nothing created through the links");
	snprintf(p, sizeof(p), "%s/a/file", root);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	is_int(kpgo_mkdirs_at(rootfd, "a/file/x", true), -ENOTDIR, "a file on the way: ENOTDIR");
	is_int(kpgo_mkdirs_at(rootfd, "a//b", true), -EINVAL, "empty component: EINVAL");

	close(rootfd);
	rm_rf(root);
	strbuf_release(&ls);
}

static void test_atomic_write(void)
{
	char root[] = "/tmp/kpgo-test-util.XXXXXX", p[512], q[512], name[300];
	struct strbuf ls = STRBUF_INIT, data = STRBUF_INIT;
	struct stat st;
	int dfd;

	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	snprintf(p, sizeof(p), "%s/f", root);
	is_int(kpgo_write_file_atomic(p, "hello", 5, 0640), 0, "atomic write");
	is_int(kpgo_read_file(p, &data, 100), 0, "read it back");
	is_str(data.buf, "hello", "contents");
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0640, "mode 0640 as asked");
	list_dir(root, &ls);
	is_str(ls.buf, "f", "no temporary file left");

	is_int(kpgo_write_file_atomic(p, "bye", 3, 0644), 0, "overwrite");
	strbuf_reset(&data);
	kpgo_read_file(p, &data, 100);
	is_str(data.buf, "bye", "replaced completely");
	list_dir(root, &ls);
	is_str(ls.buf, "f", "still no temporary file");

	/* A link is replaced, not written through. */
	snprintf(q, sizeof(q), "%s/l", root);
	if (symlink("f", q))
		bail_out("symlink failed");
	is_int(kpgo_write_file_atomic(q, "new", 3, 0644), 0, "write over a symlink");
	strbuf_reset(&data);
	kpgo_read_file(p, &data, 100);
	is_str(data.buf, "bye", "the link's target is untouched");
	ok(lstat(q, &st) == 0 && S_ISREG(st.st_mode), "the link became a regular file");

	/* Failures leave nothing behind. */
	snprintf(q, sizeof(q), "%s/nodir/f", root);
	is_int(kpgo_write_file_atomic(q, "x", 1, 0644), -ENOENT, "missing directory: ENOENT");
	snprintf(q, sizeof(q), "%s/sub", root);
	mkdir(q, 0755);
	is_int(kpgo_write_file_atomic(q, "x", 1, 0644), -EISDIR, "onto a directory: EISDIR");
	list_dir(root, &ls);
	is_str(ls.buf, "f l sub", "failed writes left no temporary file");

	dfd = open(root, O_RDONLY | O_DIRECTORY);
	is_int(kpgo_write_file_atomic_at(dfd, "g", "at", 2, 0600), 0, "atomic write at a dirfd");
	snprintf(q, sizeof(q), "%s/g", root);
	strbuf_reset(&data);
	kpgo_read_file(q, &data, 100);
	is_str(data.buf, "at", "contents via dirfd");
	ok(stat(q, &st) == 0 && (st.st_mode & 07777) == (0600 & ~umask(022)), "mode via dirfd");
	is_int(kpgo_write_file_atomic_at(dfd, "sub", "x", 1, 0644), -EISDIR,
	       "at: onto a directory fails");
	memset(name, 'n', sizeof(name));
	name[240] = '\0';
	is_int(kpgo_write_file_atomic_at(dfd, name, "x", 1, 0644), -ENAMETOOLONG,
	       "at: name too long for a temporary name");
	list_dir(root, &ls);
	is_str(ls.buf, "f g l sub", "no temporary files after atomic_at");
	close(dfd);

	/* Reading with a bound. */
	strbuf_reset(&data);
	is_int(kpgo_write_file_atomic(p, "0123456789", 10, 0644), 0, "a 10-byte file");
	is_int(kpgo_read_file(p, &data, 9), -EFBIG, "read with max 9: EFBIG");
	strbuf_reset(&data);
	is_int(kpgo_read_file(p, &data, 11), 0, "read with max 11");
	ok(data.len == 10, "all 10 bytes");
	strbuf_reset(&data);
	/* util.h: "Fails with -EFBIG past @max bytes": 10 bytes are not past 10. */
	is_int(kpgo_read_file(p, &data, 10), 0, "read a file of exactly max bytes");
	snprintf(q, sizeof(q), "%s/missing", root);
	is_int(kpgo_read_file(q, &data, 10), -ENOENT, "read a missing file: ENOENT");

	rm_rf(root);
	strbuf_release(&ls);
	strbuf_release(&data);
}

static void test_read_pipe(void)
{
	struct strbuf data = STRBUF_INIT;
	char buf[100000];
	int fds[2];
	pid_t pid;

	/* Like debugfs: no size known in advance, data in several reads. */
	memset(buf, 'p', sizeof(buf));
	if (pipe(fds))
		bail_out("pipe failed");
	pid = fork();
	if (pid == 0) {
		size_t off = 0;

		close(fds[0]);
		while (off < sizeof(buf)) {
			size_t want = sizeof(buf) - off < 3000 ? sizeof(buf) - off : 3000;
			ssize_t n = write(fds[1], buf + off, want);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	is_int(kpgo_read_fd(fds[0], &data, 1 << 20), 0, "read a pipe to EOF");
	ok(data.len == sizeof(buf) && data.buf[data.len] == '\0',
	   "all bytes of the pipe, terminated");
	close(fds[0]);
	waitpid(pid, NULL, 0);
	strbuf_release(&data);
}

static void test_parse_u64(void)
{
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0", "1e3" };
	uint64_t v;
	size_t i;

	v = 7;
	is_int(kpgo_parse_u64("0", &v), 0, "parse 0");
	ok(v == 0, "0");
	is_int(kpgo_parse_u64("007", &v), 0, "leading zeros");
	ok(v == 7, "007 is 7");
	is_int(kpgo_parse_u64("18446744073709551615", &v), 0, "UINT64_MAX");
	ok(v == UINT64_MAX, "UINT64_MAX value");
	v = 5;
	is_int(kpgo_parse_u64("18446744073709551616", &v), -ERANGE, "UINT64_MAX+1: ERANGE");
	is_int(kpgo_parse_u64("18446744073709551620", &v), -ERANGE, "UINT64_MAX+5: ERANGE");
	is_int(kpgo_parse_u64("99999999999999999999", &v), -ERANGE, "20 nines: ERANGE");
	is_int(kpgo_parse_u64("184467440737095516150", &v), -ERANGE, "21 digits: ERANGE");
	ok(v == 5, "output untouched on failure");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(kpgo_parse_u64(bad[i], &v), -EINVAL, "'%s': EINVAL", bad[i]);
}

static void test_misc(void)
{
	static const unsigned char bytes[] = { 0x00, 0x0f, 0xa5, 0xff };
	struct kpgo_strlist l = { 0 };
	struct kpgo_error err;
	char hex[9], t[32];
	int i;

	kpgo_hex(bytes, sizeof(bytes), hex);
	is_str(hex, "000fa5ff", "hex");
	kpgo_format_time(0, t);
	is_str(t, "1970-01-01T00:00:00Z", "epoch");
	kpgo_format_time(1700000000, t);
	is_str(t, "2023-11-14T22:13:20Z", "a known time");

	ok(kpgo_sat_add(UINT64_MAX - 1, 1) == UINT64_MAX && kpgo_sat_add(UINT64_MAX, 1) == UINT64_MAX,
	   "saturating add");
	ok(kpgo_sat_mul(1ull << 32, 1ull << 32) == UINT64_MAX && kpgo_sat_mul(0, UINT64_MAX) == 0 &&
		   kpgo_sat_mul(3, 5) == 15,
	   "saturating multiply");

	is_int(kpgo_error_set(&err, -EIO, "cannot read '%s'", "x"), -EIO,
	       "error_set returns errnum");
	is_str(err.msg, "cannot read 'x'", "error_set message");
	is_int(kpgo_error_set(NULL, -EIO, "ignored"), -EIO, "error_set without an error");
	kpgo_error_prefix(&err, "'%s'", "f.gcda");
	is_str(err.msg, "'f.gcda': cannot read 'x'", "error_prefix");
	kpgo_error_prefix(NULL, "x");
	memset(err.msg, 'm', sizeof(err.msg) - 1);
	err.msg[sizeof(err.msg) - 1] = '\0';
	kpgo_error_prefix(&err, "prefix");
	ok(strlen(err.msg) == sizeof(err.msg) - 1 && !strncmp(err.msg, "prefix: mmm", 11),
	   "a long message is cut, still terminated");

	for (i = 0; i < 40; i++) {
		char s[8];

		snprintf(s, sizeof(s), "%c%d", 'z' - i % 26, i);
		kpgo_strlist_add(&l, s);
	}
	kpgo_strlist_sort(&l);
	ok(l.n == 40 && !strcmp(l.items[0], "a25") && !strcmp(l.items[39], "z26"), "strlist sorted");
	kpgo_strlist_clear(&l);
	ok(l.n == 0 && l.items == NULL, "strlist cleared");
}

int main(void)
{
	umask(022);
	test_alloc_grow();
	test_walk();
	test_path_is_safe();
	test_object_path_ok();
	test_mkdirs_at();
	test_atomic_write();
	test_read_pipe();
	test_parse_u64();
	test_misc();
	return done_testing();
}
