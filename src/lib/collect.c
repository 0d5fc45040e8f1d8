// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "config.h"
#include "kernel.h"

#define GCDA_FILE_MAX (256u << 20)

struct walk {
	struct kpgo_profile *p;
	struct kpgo_collect_stats *st;
	struct strbuf path; /* relative to the top, "" at the top */
	struct strbuf data;
	const char *top;
	struct kpgo_error *err;
};

static int read_one(void *ctx, int dirfd, const char *name)
{
	struct walk *w = ctx;
	struct kpgo_gcda g;
	char *dup;
	int fd, r;

	if (!kpgo_object_path_ok(w->path.buf))
		return kpgo_error_set(w->err, -EINVAL, "refusing odd file name '%s/%s'", w->top,
				      w->path.buf);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			w->st->vanished++;
			return 0;
		}
		return kpgo_error_set(w->err, -errno, "cannot open '%s/%s': %s", w->top,
				      w->path.buf, strerror(errno));
	}
	strbuf_reset(&w->data);
	r = kpgo_read_fd(fd, &w->data, GCDA_FILE_MAX);
	close(fd);
	if (r == -ENODEV || r == -ENOENT) {
		w->st->vanished++;
		return 0;
	}
	if (r)
		return kpgo_error_set(w->err, r, "cannot read '%s/%s': %s", w->top, w->path.buf,
				      strerror(-r));
	if (w->data.len == 0) {
		/* A module's data can disappear between open and read. */
		w->st->vanished++;
		return 0;
	}
	if (w->p->n >= 200000)
		return kpgo_error_set(w->err, -E2BIG, "more than 200000 .gcda files below '%s'",
				      w->top);
	r = kpgo_gcda_parse(w->data.buf, w->data.len, &g, w->err);
	if (r) {
		kpgo_error_prefix(w->err, "cannot read '%s/%s'", w->top, w->path.buf);
		return r;
	}
	w->st->files++;
	w->st->raw_bytes += w->data.len;
	dup = strdup(w->path.buf);
	if (!dup || kpgo_profile_add(w->p, dup, &g)) {
		free(dup);
		kpgo_gcda_release(&g);
		return kpgo_error_set(w->err, -ENOMEM, "out of memory");
	}
	return 0;
}

int kpgo_collect_dir(const char *dir, struct kpgo_profile *p, struct kpgo_collect_stats *st,
		     struct kpgo_error *err)
{
	struct walk w = {
		.p = p,
		.st = st,
		.path = STRBUF_INIT,
		.data = STRBUF_INIT,
		.top = dir,
		.err = err,
	};
	int r;

	memset(st, 0, sizeof(*st));
	r = kpgo_walk_files(dir, ".gcda", NULL, &w.path, read_one, &w, err);
	strbuf_release(&w.path);
	strbuf_release(&w.data);
	return r;
}

/* Length of the directory part of @s, including its last '/' (0 if none). */
static size_t dir_len(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? (size_t)(slash - s) + 1 : 0;
}

int kpgo_collect_set_root(struct kpgo_profile *p, const char *root_override, char **root,
			  struct kpgo_collect_stats *st, struct kpgo_error *err)
{
	struct strbuf prefix = STRBUF_INIT;
	size_t i, j, plen = 0;
	int r = 0;

	*root = NULL;
	if (!p->n)
		return kpgo_error_set(err, -ENOENT, "no .gcda files found");
	if (root_override) {
		const char *o = root_override;

		while (*o == '/')
			o++;
		strbuf_addstr(&prefix, o);
		while (prefix.len && prefix.buf[prefix.len - 1] == '/')
			prefix.buf[--prefix.len] = '\0';
		if (prefix.len && (!kpgo_path_is_safe(prefix.buf) || strbuf_addch(&prefix, '/'))) {
			r = kpgo_error_set(err, -EINVAL, "bad build root '%s'", root_override);
			goto out;
		}
		plen = prefix.len;
	} else {
		bool found = false;

		for (i = 0; i < p->n; i++) {
			const char *s = p->objs[i].path;
			size_t n = strlen(s);

			if (!strcmp(s, "init/main.gcda") ||
			    (n > 15 && !strcmp(s + n - 15, "/init/main.gcda"))) {
				/* The shallowest one wins: a tree may hold a copy of init/. */
				if (!found || n - 14 < plen) {
					plen = n - 14;
					strbuf_reset(&prefix);
					strbuf_add(&prefix, s, plen);
				}
				found = true;
			}
		}
		if (!found) {
			plen = dir_len(p->objs[0].path);
			for (i = 1; i < p->n && plen; i++) {
				const char *s = p->objs[i].path;

				for (j = 0; j < plen && s[j] == p->objs[0].path[j]; j++)
					;
				if (j < plen) {
					/* Back up to a whole directory. */
					while (j && p->objs[0].path[j - 1] != '/')
						j--;
					plen = j;
				}
			}
			strbuf_add(&prefix, p->objs[0].path, plen);
		}
	}
	/* Strip the prefix; drop what lies outside. */
	for (i = 0, j = 0; i < p->n; i++) {
		struct kpgo_object *o = &p->objs[i];

		if (strncmp(o->path, prefix.buf, plen) || !o->path[plen]) {
			st->outside++;
			free(o->path);
			kpgo_gcda_release(&o->gcda);
			continue;
		}
		memmove(o->path, o->path + plen, strlen(o->path + plen) + 1);
		p->objs[j++] = *o;
	}
	p->n = j;
	if (!p->n) {
		r = kpgo_error_set(err, -ENOENT, "no .gcda files below the build root '/%s'",
				   prefix.buf);
		goto out;
	}
	if (plen)
		prefix.buf[--prefix.len] = '\0';
	{
		struct strbuf abs = STRBUF_INIT;

		if (strbuf_addch(&abs, '/') || strbuf_addstr(&abs, prefix.buf)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		*root = strbuf_detach(&abs, NULL);
	}
out:
	strbuf_release(&prefix);
	return r;
}

/* Lower-case hex, 1 to 128 digits. */
static bool hex_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 128 && strspn(s, "0123456789abcdef") == n;
}

int kpgo_collect_request_check(const struct kpgo_collect_request *rq, struct kpgo_error *err)
{
	if (!kpgo_label_ok(rq->workload))
		return kpgo_error_set(err, -EINVAL,
				      "bad workload label '%s' (use [A-Za-z0-9._-], 1-64)",
				      rq->workload);
	if (rq->release && (!kpgo_manifest_value_ok(rq->release) || strlen(rq->release) > 200))
		return kpgo_error_set(err, -EINVAL, "bad kernel release '%s'", rq->release);
	if (rq->build_id && !hex_ok(rq->build_id))
		return kpgo_error_set(err, -EINVAL, "bad build id '%s' (lower-case hex)",
				      rq->build_id);
	return 0;
}

int kpgo_collect_profile(const struct kpgo_collect_request *rq, struct kpgo_profile *p,
			 struct kpgo_collect_stats *st, struct kpgo_error *err)
{
	char release[256] = "", arch[64] = "", build_id[160] = "", host[256] = "", cc[32] = "";
	char tstart[32], tend[32];
	struct kpgo_gcc_version v;
	struct kpgo_manifest *m = &p->manifest;
	char *root = NULL;
	int r;

	kpgo_profile_init(p);
	if (rq->live) {
		kpgo_kernel_release(release, sizeof(release));
		kpgo_build_id_read(KPGO_KERNEL_NOTES, build_id, sizeof(build_id));
	}
	kpgo_machine_arch(arch, sizeof(arch));
	if (rq->release)
		snprintf(release, sizeof(release), "%s", rq->release);
	if (rq->build_id)
		snprintf(build_id, sizeof(build_id), "%s", rq->build_id);
	if (gethostname(host, sizeof(host) - 1) || !kpgo_manifest_value_ok(host))
		host[0] = '\0';
	r = kpgo_collect_dir(rq->gcov_dir, p, st, err);
	if (r)
		goto out;
	r = kpgo_collect_set_root(p, rq->build_root, &root, st, err);
	if (r) {
		char msg[sizeof(err->msg)];

		memcpy(msg, err->msg, sizeof(msg));
		kpgo_error_set(err, r, "%.900s in '%s'", msg, rq->gcov_dir);
		goto out;
	}
	kpgo_format_time(rq->live ? kpgo_window_start() : 0, tstart);
	kpgo_format_time((int64_t)time(NULL), tend);
	if (!kpgo_gcc_version_decode(p->objs[0].gcda.version, &v))
		snprintf(cc, sizeof(cc), "gcc %u.%u", v.major, v.minor);
	if (kpgo_manifest_set_u64(m, MF_FORMAT, KPGO_FORMAT_VERSION) ||
	    kpgo_manifest_set(m, MF_RELEASE, release) ||
	    kpgo_manifest_set(m, MF_BUILD_ID, build_id) || kpgo_manifest_set(m, MF_ARCH, arch) ||
	    kpgo_manifest_set(m, MF_GCOV_VERSION, "????") ||
	    kpgo_manifest_set(m, MF_BUILD_ROOT, root) ||
	    kpgo_manifest_set(m, MF_WORKLOAD, rq->workload) || kpgo_manifest_set(m, MF_HOST, host) ||
	    (rq->live && kpgo_manifest_set(m, MF_WINDOW_START, tstart)) ||
	    kpgo_manifest_set(m, MF_WINDOW_END, tend) || kpgo_manifest_set_u64(m, MF_RUNS, 1) ||
	    kpgo_manifest_set_u64(m, MF_MERGED, 1) ||
	    kpgo_manifest_set_u64(m, MF_VANISHED, st->vanished) ||
	    (*cc && kpgo_manifest_set(m, MF_COMPILER, cc)) ||
	    /* A single collection is one run: sum_max is the largest counter. */
	    kpgo_manifest_set_u64(m, MF_SUM_MAX, 0)) {
		r = kpgo_error_set(err, -ENOMEM, "cannot build the manifest");
		goto out;
	}
out:
	free(root);
	if (r)
		kpgo_profile_release(p);
	return r;
}
