// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo_walk_files(): the files of a directory tree, depth first. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define WALK_DEPTH_MAX 64

struct walk {
	const char *top;
	const char *suffix;
	const char *const *prune;
	struct strbuf *path;
	int (*fn)(void *ctx, int dirfd, const char *name);
	void *ctx;
	struct kpgo_error *err;
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static bool pruned(const struct walk *w, const char *name)
{
	size_t i;

	for (i = 0; w->prune && w->prune[i]; i++)
		if (!strcmp(name, w->prune[i]))
			return true;
	return false;
}

/* Takes @dfd. */
static int walk_dir(struct walk *w, int dfd, int depth)
{
	size_t base = w->path->len;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth > WALK_DEPTH_MAX) {
		close(dfd);
		return kpgo_error_set(w->err, -ELOOP, "directories nested too deep below '%s'",
				      w->top);
	}
	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return kpgo_error_set(w->err, r, "cannot list '%s/%s': %s", w->top, w->path->buf,
				      strerror(-r));
	}
	while (!r && (errno = 0, de = readdir(d))) {
		unsigned char type = de->d_type;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!depth && pruned(w, de->d_name)))
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type != DT_DIR && !(type == DT_REG && has_suffix(de->d_name, w->suffix)))
			continue;
		w->path->len = base;
		w->path->buf[base] = '\0';
		if ((base && strbuf_addch(w->path, '/')) || strbuf_addstr(w->path, de->d_name)) {
			r = kpgo_error_set(w->err, -ENOMEM, "out of memory");
			break;
		}
		if (type == DT_DIR) {
			int fd = openat(dirfd(d), de->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0) {
				if (errno == ENOENT)
					continue;
				r = kpgo_error_set(w->err, -errno, "cannot open '%s/%s': %s",
						   w->top, w->path->buf, strerror(errno));
				break;
			}
			r = walk_dir(w, fd, depth + 1);
		} else {
			r = w->fn(w->ctx, dirfd(d), de->d_name);
		}
	}
	if (!r && errno && errno != ENOENT)
		r = kpgo_error_set(w->err, -errno, "cannot list '%s': %s", w->top, strerror(errno));
	closedir(d);
	w->path->len = base;
	if (w->path->alloc)
		w->path->buf[base] = '\0';
	return r;
}

int kpgo_walk_files(const char *top, const char *suffix, const char *const *prune,
		    struct strbuf *path, int (*fn)(void *ctx, int dirfd, const char *name),
		    void *ctx, struct kpgo_error *err)
{
	struct walk w = { top, suffix, prune, path, fn, ctx, err };
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	strbuf_reset(path);
	if (fd < 0)
		return kpgo_error_set(err, -errno, "cannot open '%s': %s", top, strerror(errno));
	return walk_dir(&w, fd, 0);
}
