// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Collecting into the spool: the kernel's gcov data, probed (and debugfs
 * mounted) first, collected into tmp/ under the collect lock, published by
 * rename, and only then are the counters reset.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "collect.h"
#include "kernel.h"
#include "spool.h"

/* A profile that was not published: the caller's one line says so. */
static int not_spooled(struct kpgo_error *err, int r)
{
	char msg[sizeof(err->msg)];

	memcpy(msg, err->msg, sizeof(msg));
	return kpgo_error_set(err, r, "%.990s; nothing was spooled", msg);
}

/* Collects into tmp/ and publishes, with the collect lock held. */
static int collect_locked(struct kpgo_spool *sp, const struct kpgo_collect_request *rq,
			  const struct kpgo_spool_collect_opts *o, void (*complete)(void *ctx),
			  void *ctx, struct kpgo_spool_collect_result *res, struct kpgo_error *err)
{
	struct strbuf tmppath = STRBUF_INIT;
	char tmpname[64], host[256] = "";
	struct kpgo_profile p;
	const char *root;
	int r;

	r = kpgo_spool_clean_tmp(sp, &res->cleaned, err);
	if (r)
		return r;
	r = kpgo_collect_profile(rq, &p, &res->st, err);
	if (r == -ENOENT && access(rq->gcov_dir, F_OK) == 0) {
		res->what = KPGO_SPOOL_NO_DATA;
		snprintf(res->why, sizeof(res->why), "%s", err->msg);
		return 0;
	}
	if (r)
		return r;
	res->objects = p.n;
	root = kpgo_manifest_get(&p.manifest, MF_BUILD_ROOT);
	snprintf(res->build_root, sizeof(res->build_root), "%s", root ? root : "");
	snprintf(tmpname, sizeof(tmpname), "collect.%ld.kpgo", (long)getpid());
	if (strbuf_addf(&tmppath, "%s/tmp/%s", sp->dir, tmpname)) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	r = kpgo_profile_save(&p, tmppath.buf, err);
	if (r) {
		r = not_spooled(err, r);
		goto out;
	}
	if (complete)
		complete(ctx);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	r = kpgo_spool_publish(sp, tmpname, o->now, host, res->name, err);
	if (r) {
		r = not_spooled(err, r);
		goto out;
	}
	res->what = KPGO_SPOOL_COLLECTED;
	if (o->reset &&
	    kpgo_gcov_reset(rq->gcov_dir, rq->live, &res->reset_unrecorded, &res->reset_err))
		res->reset_failed = true;
out:
	kpgo_profile_release(&p);
	strbuf_release(&tmppath);
	return r;
}

int kpgo_spool_collect(const char *spool_dir, const struct kpgo_spool_collect_opts *o,
		       void (*complete)(void *ctx), void *ctx,
		       struct kpgo_spool_collect_result *res, struct kpgo_error *err)
{
	const char *debugfs = o->debugfs ? o->debugfs : KPGO_DEBUGFS_DEFAULT;
	struct kpgo_collect_request rq = {
		.gcov_dir = o->gcov_dir,
		.workload = o->workload,
		.build_root = o->build_root,
		.release = o->release,
		.build_id = o->build_id,
	};
	struct strbuf gcov = STRBUF_INIT;
	struct kpgo_spool sp;
	bool mounted = false;
	int r;

	memset(res, 0, sizeof(*res));
	res->what = KPGO_SPOOL_NO_GCOV;
	r = kpgo_collect_request_check(&rq, err);
	if (r)
		return r;
	if (o->gcov_dir) {
		if (access(o->gcov_dir, F_OK) < 0) {
			snprintf(res->why, sizeof(res->why), "'%s': %s", o->gcov_dir,
				 strerror(errno));
			return 0;
		}
	} else {
		r = kpgo_gcov_probe(debugfs, true, &mounted, res->why, sizeof(res->why));
		if (o->mounted)
			*o->mounted = mounted;
		if (r <= 0)
			return r ? kpgo_error_set(err, r, "out of memory") : 0;
		if (strbuf_addf(&gcov, "%s/gcov", debugfs)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out_mount;
		}
		rq.gcov_dir = gcov.buf;
		rq.live = !strcmp(debugfs, KPGO_DEBUGFS_DEFAULT);
	}
	r = kpgo_spool_open(&sp, spool_dir, true, err);
	if (r)
		goto out_mount;
	snprintf(res->dir, sizeof(res->dir), "%s", sp.dir);
	/* Waits for another collection; the caller's time limit bounds the wait. */
	r = kpgo_spool_lock(&sp, KPGO_SPOOL_COLLECT_LOCK, true, err);
	if (!r) {
		r = collect_locked(&sp, &rq, o, complete, ctx, res, err);
		kpgo_spool_unlock(&sp, KPGO_SPOOL_COLLECT_LOCK);
	}
	kpgo_spool_close(&sp);
out_mount:
	if (mounted)
		umount2(debugfs, MNT_DETACH);
	if (o->mounted)
		*o->mounted = 0;
	strbuf_release(&gcov);
	return r;
}
