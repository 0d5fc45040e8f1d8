// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * wl-file: small files in a directory (-d DIR; run it on tmpfs and on ext4).
 * One operation creates a file, writes 8 KiB, stats it, reads it back and
 * renames it; every 8th lists the directory and unlinks the last 8 files,
 * every 64th fsyncs (the journal and block layer on a disk file system).
 * Works in DIR/wl-file.PID, removed at the end. Reports itself as
 * wl-file-FS, FS the file system type of DIR (tmpfs, ext4, ...).
 */
#include "wl.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#define BATCH 8

/* The result's name: wl-file-FS for the common file systems. */
static const char *name_for(const char *dir)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ 0x01021994, "wl-file-tmpfs" },   { 0xef53, "wl-file-ext4" },
		{ 0x58465342, "wl-file-xfs" },	   { 0x9123683e, "wl-file-btrfs" },
		{ 0x794c7630, "wl-file-overlay" },
	};
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf))
		return "wl-file";
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return "wl-file";
}

int main(int argc, char **argv)
{
	struct wl w = { .name = "wl-file",
			.ops = 2000,
			.what = "8 KiB files created, read back, renamed, listed and unlinked" };
	const char *dir = NULL;
	char work[4096], a[4200], b[4200], buf[8192];
	unsigned long i, j;
	struct stat st;
	int c;

	while ((c = getopt(argc, argv, "n:d:h")) != -1) {
		switch (c) {
		case 'n': w.ops = wl_count(&w, optarg); break;
		case 'd': dir = optarg; break;
		case 'h': wl_usage(&w, " -d DIR", 0); break;
		default: wl_usage(&w, " -d DIR", 2);
		}
	}
	if (!dir)
		wl_usage(&w, " -d DIR", 2);
	if ((size_t)snprintf(work, sizeof(work), "%s/wl-file.%ld", dir, (long)getpid()) >=
	    sizeof(work)) {
		errno = ENAMETOOLONG;
		wl_die(&w, "'%s'", dir);
	}
	if (mkdir(work, 0700))
		wl_die(&w, "cannot create '%s'", work);
	w.name = name_for(work);
	memset(buf, 'f', sizeof(buf));

	wl_start(&w);
	for (i = 0; i < w.ops; i++) {
		int fd;

		snprintf(a, sizeof(a), "%s/new-%lu", work, i);
		snprintf(b, sizeof(b), "%s/file-%lu", work, i);
		fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			wl_die(&w, "cannot create '%s'", a);
		wl_write_all(&w, fd, buf, 4096);
		wl_write_all(&w, fd, buf + 4096, 4096);
		if (i % 64 == 63 && fsync(fd))
			wl_die(&w, "fsync '%s'", a);
		close(fd);
		if (stat(a, &st) || st.st_size != (off_t)sizeof(buf))
			wl_die(&w, "stat '%s'", a);
		fd = open(a, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die(&w, "cannot open '%s'", a);
		wl_read_all(&w, fd, buf, sizeof(buf));
		close(fd);
		if (rename(a, b))
			wl_die(&w, "cannot rename '%s'", a);
		if (i % BATCH == BATCH - 1) {
			DIR *d = opendir(work);
			struct dirent *e;

			if (!d)
				wl_die(&w, "cannot list '%s'", work);
			while ((e = readdir(d)))
				;
			closedir(d);
			for (j = i + 1 - BATCH; j <= i; j++) {
				snprintf(b, sizeof(b), "%s/file-%lu", work, j);
				if (unlink(b))
					wl_die(&w, "cannot unlink '%s'", b);
			}
		}
	}
	wl_report(&w);
	for (j = w.ops - w.ops % BATCH; j < w.ops; j++) {
		snprintf(b, sizeof(b), "%s/file-%lu", work, j);
		unlink(b);
	}
	if (rmdir(work))
		wl_die(&w, "cannot remove '%s'", work);
	return 0;
}
