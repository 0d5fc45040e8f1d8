// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "kconfig.h"
#include "kernel.h"

#define DEBUGFS_MAGIC 0x64626720 /* linux/magic.h */
#define NT_GNU_BUILD_ID 3
#define NOTES_MAX (1u << 20)

void kpgo_kernel_release(char *buf, size_t len)
{
	struct utsname u;

	snprintf(buf, len, "%s", uname(&u) == 0 ? u.release : "");
}

void kpgo_machine_arch(char *buf, size_t len)
{
	struct utsname u;

	snprintf(buf, len, "%s", uname(&u) == 0 ? u.machine : "");
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

int kpgo_build_id_parse(const void *data, size_t len, char *buf, size_t buflen)
{
	const unsigned char *base = data;
	size_t pos = 0;

	if (buflen)
		buf[0] = '\0';
	/* ELF notes: namesz, descsz, type, then name and desc, each padded to 4. */
	while (len - pos >= 12) {
		const unsigned char *p = base + pos;
		uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
		size_t nlen = ((size_t)namesz + 3) & ~(size_t)3;
		size_t dlen = ((size_t)descsz + 3) & ~(size_t)3;

		if (nlen > len - pos - 12 || dlen > len - pos - 12 - nlen)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + 12, "GNU", 4) &&
		    descsz > 0 && descsz <= 64 && 2 * (size_t)descsz < buflen) {
			kpgo_hex(p + 12 + nlen, descsz, buf);
			return 0;
		}
		pos += 12 + nlen + dlen;
	}
	return -ENOENT;
}

int kpgo_build_id_read(const char *path, char *buf, size_t buflen)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	if (buflen)
		buf[0] = '\0';
	r = kpgo_read_file(path, &sb, NOTES_MAX);
	if (!r)
		r = kpgo_build_id_parse(sb.buf, sb.len, buf, buflen);
	strbuf_release(&sb);
	return r;
}

int kpgo_last_reset_path(struct strbuf *out)
{
	const char *state = getenv("KPGO_STATE_DIR");

	return strbuf_addf(out, "%s/last-reset", state && *state ? state : KPGO_STATE_DIR_DEFAULT);
}

int64_t kpgo_window_start(void)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	int64_t start = 0;
	const char *p;
	uint64_t v;

	if (!kpgo_read_file("/proc/stat", &sb, 1 << 20)) {
		p = strstr(sb.buf, "\nbtime ");
		if (p && sscanf(p + 7, "%" SCNd64, &start) != 1)
			start = 0;
	}
	strbuf_reset(&sb);
	if (!kpgo_last_reset_path(&path) && !kpgo_read_file(path.buf, &sb, 64)) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		if (!kpgo_parse_u64(sb.buf, &v) && v <= INT64_MAX && (int64_t)v > start)
			start = (int64_t)v;
	}
	strbuf_release(&sb);
	strbuf_release(&path);
	return start;
}

int kpgo_gcov_probe(const char *debugfs, bool may_mount, bool *mounted, char *why, size_t len)
{
	struct strbuf gcov = STRBUF_INIT;
	struct statfs sfs;
	int r = 0;

	*mounted = false;
	if (strbuf_addf(&gcov, "%s/gcov", debugfs))
		return -ENOMEM;
	if (access(gcov.buf, F_OK) == 0) {
		r = 1;
		goto out;
	}
	if (may_mount && (statfs(debugfs, &sfs) < 0 || sfs.f_type != DEBUGFS_MAGIC)) {
		if (mount("debugfs", debugfs, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) <
		    0) {
			snprintf(why, len, "debugfs is not mounted at '%s' and cannot be: %s",
				 debugfs, strerror(errno));
			goto out;
		}
		*mounted = true;
		if (access(gcov.buf, F_OK) == 0) {
			r = 1;
			goto out;
		}
	}
	snprintf(why, len, "no '%s': the kernel is not instrumented (CONFIG_GCOV_KERNEL)", gcov.buf);
	if (*mounted) {
		umount2(debugfs, MNT_DETACH);
		*mounted = false;
	}
out:
	strbuf_release(&gcov);
	return r;
}

int kpgo_gcov_reset(const char *gcov_dir, bool live, bool *unrecorded, struct kpgo_error *err)
{
	const char *state = getenv("KPGO_STATE_DIR");
	struct strbuf path = STRBUF_INIT;
	char stamp[32];
	int fd, n, r;

	*unrecorded = false;
	if (strbuf_addf(&path, "%s/reset", gcov_dir))
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	/* No O_CREAT: a missing reset file means this is no gcov debugfs. */
	fd = open(path.buf, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = kpgo_error_set(err, -errno, "cannot reset counters: cannot open '%s': %s",
				   path.buf, strerror(errno));
		goto out;
	}
	if (write(fd, "1\n", 2) != 2) {
		r = kpgo_error_set(err, -errno, "cannot reset counters: cannot write '%s': %s",
				   path.buf, strerror(errno));
		close(fd);
		goto out;
	}
	if (close(fd) < 0) {
		r = kpgo_error_set(err, -errno, "cannot reset counters: '%s': %s", path.buf,
				   strerror(errno));
		goto out;
	}
	r = 0;
	if (live || (state && *state)) {
		strbuf_reset(&path);
		n = snprintf(stamp, sizeof(stamp), "%" PRId64 "\n", (int64_t)time(NULL));
		*unrecorded = kpgo_last_reset_path(&path) ||
			      kpgo_write_file_atomic(path.buf, stamp, (size_t)n, 0644);
	}
out:
	strbuf_release(&path);
	return r;
}

bool kpgo_kernel_release_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 200 && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-") == n;
}

/* 1 when the kernel config at @path sets CONFIG_GCOV_KERNEL=y, 0 not, <0 error. */
static int config_has_gcov(const char *path)
{
	struct kpgo_kconfig c;
	struct kpgo_error err;
	int r;

	kpgo_kconfig_init(&c);
	r = kpgo_kconfig_read(&c, path, &err);
	if (!r)
		r = kpgo_kconfig_has(&c, "CONFIG_GCOV_KERNEL=y");
	kpgo_kconfig_release(&c);
	return r;
}

int kpgo_kernel_config_gcov(const char *release, const char *image, const char *config,
			    struct strbuf *path)
{
	const char *slash = image ? strrchr(image, '/') : NULL;
	int i, r = -ENOENT;

	if (config) {
		strbuf_reset(path);
		return strbuf_addstr(path, config) ? -ENOMEM : config_has_gcov(config);
	}
	for (i = 0; i < 4 && r == -ENOENT; i++) {
		strbuf_reset(path);
		if (i == 0)
			r = strbuf_addf(path, "/boot/config-%s", release);
		else if (i == 1 && slash)
			r = strbuf_addf(path, "%.*s/config-%s", (int)(slash - image), image,
					release);
		else if (i == 2)
			r = strbuf_addf(path, "/lib/modules/%s/config", release);
		else if (i == 3)
			r = strbuf_addf(path, "/usr/lib/modules/%s/config", release);
		else
			continue;
		r = r ? -ENOMEM : config_has_gcov(path->buf);
	}
	return r;
}
