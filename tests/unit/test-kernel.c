// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.h: the GNU build id of ELF notes (hostile ones too), the
 * last-reset file and the collection window, resetting a gcov directory,
 * kernel release names and finding whether a kernel's config is
 * instrumented.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"
#include "tap.h"

/* One ELF note: namesz, descsz, type, name and desc padded to 4. */
static size_t note(unsigned char *out, uint32_t type, const char *name, const void *desc,
		   uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t n = 0;

	memcpy(out + n, &namesz, 4);
	memcpy(out + n + 4, &descsz, 4);
	memcpy(out + n + 8, &type, 4);
	n += 12;
	memset(out + n, 0, (namesz + 3) & ~3u);
	memcpy(out + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memset(out + n, 0, (descsz + 3) & ~3u);
	memcpy(out + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

static void test_build_id(void)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
					      7,    8,	  9,	10,   11, 12, 13, 14, 15, 0xff };
	unsigned char buf[512];
	char hex[160], small[20];
	uint32_t huge = 0xfffffff0u;
	size_t n = 0, i;
	bool all = true;

	n += note(buf + n, 1, "Linux", "x", 1);
	n += note(buf + n, 3, "GNU", id, sizeof(id));
	is_int(kpgo_build_id_parse(buf, n, hex, sizeof(hex)), 0,
	       "the GNU build id after another note");
	is_str(hex, "deadbeef0102030405060708090a0b0c0d0e0fff", "  in lower-case hex");
	is_int(kpgo_build_id_parse(buf, n, small, sizeof(small)), -ENOENT,
	       "a buffer too small for it: not found");
	is_str(small, "", "  and the buffer is empty");
	for (i = 0; i < n; i++)
		all &= kpgo_build_id_parse(buf, i, hex, sizeof(hex)) == -ENOENT;
	ok(all, "every truncation of the notes: not found, nothing read past the end");

	n = note(buf, 3, "GNU", id, 0);
	is_int(kpgo_build_id_parse(buf, n, hex, sizeof(hex)), -ENOENT, "an empty id is none");
	n = note(buf, 3, "GNV", id, sizeof(id));
	is_int(kpgo_build_id_parse(buf, n, hex, sizeof(hex)), -ENOENT,
	       "another owner's note is not it");
	n = note(buf, 3, "GNU", id, sizeof(id));
	memcpy(buf + 4, &huge, 4); /* descsz near 4 GiB */
	is_int(kpgo_build_id_parse(buf, n, hex, sizeof(hex)), -ENOENT,
	       "a size past the end stops the search");
	is_int(kpgo_build_id_read("/nonexistent/notes", hex, sizeof(hex)), -ENOENT,
	       "a missing notes file");
}

static void test_state(const char *dir)
{
	struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;
	struct kpgo_error err;
	char gcov[256], reset[300];
	bool unrecorded;
	int64_t start;

	unsetenv("KPGO_STATE_DIR");
	kpgo_last_reset_path(&path);
	is_str(path.buf, "/var/lib/kpgo/last-reset", "the last-reset file by default");
	setenv("KPGO_STATE_DIR", dir, 1);
	strbuf_reset(&path);
	kpgo_last_reset_path(&path);
	ok(!strncmp(path.buf, dir, strlen(dir)) && !strcmp(path.buf + strlen(dir), "/last-reset"),
	   "  or in $KPGO_STATE_DIR");

	snprintf(gcov, sizeof(gcov), "%s/gcov", dir);
	mkdir(gcov, 0755);
	is_int(kpgo_gcov_reset(gcov, false, &unrecorded, &err), -ENOENT,
	       "a directory without a reset file is no gcov debugfs");
	ok(!strncmp(err.msg, "cannot reset counters: cannot open '", 36), "  says so: %s", err.msg);
	snprintf(reset, sizeof(reset), "%s/reset", gcov);
	kpgo_write_file_atomic(reset, "", 0, 0644);
	is_int(kpgo_gcov_reset(gcov, false, &unrecorded, &err), 0, "a reset");
	kpgo_read_file(reset, &sb, 64);
	is_str(sb.buf, "1\n", "  writes 1 to the reset file");
	ok(!unrecorded, "  and records the time");
	strbuf_reset(&sb);
	ok(kpgo_read_file(path.buf, &sb, 64) == 0 &&
		   (int64_t)strtoll(sb.buf, NULL, 10) > (int64_t)time(NULL) - 60,
	   "  in the last-reset file");
	start = kpgo_window_start();
	ok(start >= (int64_t)strtoll(sb.buf, NULL, 10),
	   "the window starts at the reset, at the latest");

	kpgo_write_file_atomic(path.buf, "99999999999\n", 12, 0644);
	is_int(kpgo_window_start(), 99999999999LL, "  at a recorded reset after boot");
	kpgo_write_file_atomic(path.buf, "junk\n", 5, 0644);
	ok(kpgo_window_start() < 99999999999LL, "  a last-reset file of junk is ignored");

	setenv("KPGO_STATE_DIR", "/nonexistent/state", 1);
	is_int(kpgo_gcov_reset(gcov, false, &unrecorded, &err), 0,
	       "a state directory that is not there");
	ok(unrecorded, "  resets, but says the time was not recorded");
	unsetenv("KPGO_STATE_DIR");
	strbuf_release(&path);
	strbuf_release(&sb);
}

static void test_config(const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	char cfg[300], image[300];

	ok(kpgo_kernel_release_ok("6.1.0-17-amd64") && kpgo_kernel_release_ok("6.12.0+kpgo~1"),
	   "kernel releases as packages name them");
	ok(!kpgo_kernel_release_ok("") && !kpgo_kernel_release_ok("../etc") &&
		   !kpgo_kernel_release_ok("a/b") && !kpgo_kernel_release_ok(".hidden") &&
		   !kpgo_kernel_release_ok("a b"),
	   "  nothing that walks a path or is empty");

	snprintf(cfg, sizeof(cfg), "%s/config-x", dir);
	kpgo_write_file_atomic(cfg, "CONFIG_A=y\nCONFIG_GCOV_KERNEL=y\n", 31, 0644);
	is_int(kpgo_kernel_config_gcov("x", NULL, cfg, &path), 1,
	       "a config with CONFIG_GCOV_KERNEL=y");
	is_str(path.buf, cfg, "  the path read");
	kpgo_write_file_atomic(cfg, "CONFIG_GCOV_KERNEL=m\n# CONFIG_GCOV_KERNEL=y\n", 44, 0644);
	is_int(kpgo_kernel_config_gcov("x", NULL, cfg, &path), 0, "  not =m, not a comment");
	snprintf(image, sizeof(image), "%s/vmlinuz-x", dir);
	kpgo_write_file_atomic(cfg, "CONFIG_GCOV_KERNEL=y", 20, 0644);
	is_int(kpgo_kernel_config_gcov("x", image, NULL, &path), 1,
	       "config-R beside the image is found (no newline at its end)");
	is_str(path.buf, cfg, "  as the path read");
	is_int(kpgo_kernel_config_gcov("kpgo-test-no-such-release", NULL, NULL, &path), -ENOENT,
	       "a kernel without a config anywhere");
	is_int(kpgo_kernel_config_gcov("x", NULL, "/nonexistent/config", &path), -ENOENT,
	       "a given config that is not there: no guessing");
	strbuf_release(&path);
}

int main(void)
{
	char tmpl[] = "/tmp/kpgo-test-kernel.XXXXXX", *dir = mkdtemp(tmpl);
	char cmd[300];

	if (!dir)
		return 1;
	test_build_id();
	test_state(dir);
	test_config(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("cannot remove %s", dir);
	return done_testing();
}
