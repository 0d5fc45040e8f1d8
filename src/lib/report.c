// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile-archive.h"
#include "report.h"

/* As the shell report (hooks/build/kpgo-kbuild) had it, but for what identifies a static function. */
static const char definitions[] =
	"Definitions. A profile object is one .gcda in the profile; it applied if\n"
	"its object was compiled in this build (GCC read the staged .gcda). Weighted:\n"
	"the applied objects' share of the profile's arc counter sum.\n"
	"A profile function is one FUNCTION record of a profile object. GCC looks a\n"
	"function up by an identifier: for a global function a checksum of its name,\n"
	"for a static one of its name and source file name (not its line: a static\n"
	"function whose lines moved is still found). Found, GCC drops the counts\n"
	"when the control flow or number of counters differs from the profile's\n"
	"(-Wcoverage-mismatch \"control flow\"/\"number of counters\"), and keeps them\n"
	"when only the source lines moved (-Wcoverage-mismatch \"source locations\n"
	"... have changed\": applied, listed as stale). Not found (a static function\n"
	"whose source file name changed, a renamed or new function), it warns\n"
	"\"profile for function ... not found\" (-Wmissing-profile) and the record it\n"
	"would have used, if any, goes unused without a word.\n"
	"  at most  = records - records in objects not compiled - dropped\n"
	"  applied  = at most - functions compiled without a profile (each taken as\n"
	"             one unused record: a lower bound, as new functions count too)\n"
	"--min-applied is checked against applied / records.\n";

/* --- what both reports share --------------------------------------------- */

void kpgo_report_head_init(struct kpgo_report_head *h)
{
	memset(h, 0, sizeof(*h));
	strbuf_init(&h->release);
}

void kpgo_report_head_release(struct kpgo_report_head *h)
{
	strbuf_release(&h->release);
	kpgo_report_head_init(h);
}

bool kpgo_report_text_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Digits or nothing (a count kpgo plan may not know), at most 19 of them. */
static bool count_ok(const char *s)
{
	size_t n = strlen(s);

	return n <= 19 && strspn(s, "0123456789") == n;
}

int kpgo_report_policy_line(const char *spec, struct strbuf *out)
{
	char verdict[64], *age, *behind;
	size_t n = strlen(spec);
	const char *said;

	strbuf_reset(out);
	if (n >= sizeof(verdict))
		return -EINVAL;
	memcpy(verdict, spec, n + 1);
	age = strchr(verdict, ',');
	behind = age ? strchr(age + 1, ',') : NULL;
	if (!behind)
		return -EINVAL;
	*age++ = '\0';
	*behind++ = '\0';
	if (!count_ok(age) || !count_ok(behind))
		return -EINVAL;
	if (!strcmp(verdict, "none"))
		return 0;
	if (!strcmp(verdict, "ok") || !strcmp(verdict, "warn"))
		said = "accepted it";
	else if (!strcmp(verdict, "overridden"))
		said = "refused it and the build overrode it with --override-policy";
	else
		return -EINVAL;
	if (strbuf_addf(out,
			"profile policy: %s (%s days old, %s releases behind; the store's policy %s)",
			verdict, *age ? age : "unknown", *behind ? behind : "unknown", said))
		return -ENOMEM;
	return 0;
}

int kpgo_report_head_set(struct kpgo_report_head *h, const char *objtree, const char *release,
			 const char *profile, struct kpgo_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int r;

	strbuf_reset(&h->release);
	if (release) {
		r = strbuf_addstr(&h->release, release);
	} else {
		r = strbuf_addf(&path, "%s/include/config/kernel.release", objtree);
		if (!r && kpgo_read_file(path.buf, &h->release, 4096) == 0) {
			h->release.len = strcspn(h->release.buf, "\n");
			h->release.buf[h->release.len] = '\0';
		}
		if (!r && (!h->release.len || !kpgo_report_text_ok(h->release.buf))) {
			strbuf_reset(&h->release);
			r = strbuf_addstr(&h->release, "unknown");
		}
		strbuf_release(&path);
	}
	if (r)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	h->profile = profile;
	r = kpgo_sha256_file(profile, h->profile_sha256);
	if (r)
		return kpgo_error_set(err, r, "cannot read '%s': %s", profile, strerror(-r));
	return 0;
}

void kpgo_report_pct(char out[16], double part, double whole)
{
	snprintf(out, 16, "%.1f", whole > 0 ? 100 * part / whole : 0.0);
}

bool kpgo_report_pct_ok(const struct kpgo_report_head *h, const char *pct_applied)
{
	/* As the shell report did: the percentage as printed is what is checked. */
	return strtod(pct_applied, NULL) >= (double)h->min_applied;
}

int kpgo_report_verdict(const struct kpgo_report_head *h, const char *pct_applied, bool ok,
			struct strbuf *out)
{
	return strbuf_addf(out,
			   "min applied: %u%%\n"
			   "verdict: %s%s%% of the profile's functions applied, at least %u%% required\n",
			   h->min_applied, ok ? "ok: " : "FAILED: only ", pct_applied,
			   h->min_applied);
}

/* --- GCC's report ---------------------------------------------------------- */

int kpgo_report_init(struct kpgo_report *r, const char *const *objtrees, size_t n)
{
	int ret;

	memset(r, 0, sizeof(*r));
	kpgo_report_head_init(&r->head);
	kpgo_manifest_init(&r->manifest);
	kpgo_pstat_init(&r->stat);
	ret = kpgo_buildlog_init(&r->log, objtrees, n);
	if (!ret)
		ret = kpgo_pstat_begin(&r->stat, KPGO_PSTAT_DEPTH_DEFAULT);
	if (ret)
		kpgo_report_release(r);
	return ret;
}

void kpgo_report_release(struct kpgo_report *r)
{
	size_t i;

	for (i = 0; i < r->n_objs; i++)
		free(r->objs[i].path);
	free(r->objs);
	kpgo_buildlog_release(&r->log);
	kpgo_manifest_release(&r->manifest);
	kpgo_pstat_release(&r->stat);
	kpgo_report_head_release(&r->head);
	r->objs = NULL;
	r->n_objs = r->alloc = 0;
}

/* OBJTREE/<path without .gcda>.o exists (as `test -e`: any type, links followed). */
static bool object_exists(int objtree_fd, const char *gcda, struct strbuf *tmp)
{
	struct stat st;

	strbuf_reset(tmp);
	if (strbuf_add(tmp, gcda, strlen(gcda) - 5) || strbuf_addstr(tmp, ".o"))
		return false;
	return fstatat(objtree_fd, tmp->buf, &st, 0) == 0;
}

int kpgo_report_load_profile(struct kpgo_report *r, const char *path, int objtree_fd,
			     struct kpgo_error *err)
{
	struct strbuf tmp = STRBUF_INIT;
	struct kpgo_archive *a = NULL;
	struct kpgo_gcda *g;
	const char *name;
	int ret;

	ret = kpgo_archive_open(&a, path, err);
	if (ret)
		return ret;
	while ((ret = kpgo_archive_next(a, &name, &g, err)) == 1) {
		struct kpgo_report_object *o;

		if (KPGO_ALLOC_GROW(r->objs, r->n_objs + 1, r->alloc))
			goto out_nomem;
		o = &r->objs[r->n_objs];
		o->path = strdup(name);
		if (!o->path)
			goto out_nomem;
		r->n_objs++;
		o->functions = g->n_fns;
		o->sum = kpgo_gcda_sum(g);
		/* kpgo_object_path_ok() held for @name: a clean relative path ending in .gcda */
		o->applied = object_exists(objtree_fd, name, &tmp);
		if (kpgo_pstat_add(&r->stat, name, g))
			goto out_nomem;
	}
	if (!ret && (kpgo_manifest_copy(&r->manifest, kpgo_archive_manifest(a)) ||
		     kpgo_pstat_finish(&r->stat, kpgo_archive_manifest(a))))
		goto out_nomem;
	goto out;
out_nomem:
	ret = kpgo_error_set(err, -ENOMEM, "out of memory");
out:
	kpgo_archive_close(a);
	strbuf_release(&tmp);
	return ret;
}

int kpgo_report_count(struct kpgo_report *r)
{
	struct kpgo_report_counts *c = &r->c;
	size_t i, n[KPGO_WARN_KINDS];
	uint64_t lost;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < KPGO_WARN_KINDS; i++)
		if (kpgo_buildlog_count(&r->log, (enum kpgo_warn_kind)i, &n[i]))
			return -ENOMEM;
	for (i = 0; i < r->n_objs; i++) {
		const struct kpgo_report_object *o = &r->objs[i];

		c->objects++;
		c->functions += o->functions;
		c->sum_all += (double)o->sum;
		if (o->applied) {
			c->objects_applied++;
			c->sum_applied += (double)o->sum;
		} else {
			c->functions_unbuilt += o->functions;
		}
	}
	c->dropped = n[KPGO_WARN_DROPPED];
	c->stale = n[KPGO_WARN_LINES];
	c->nofunc = n[KPGO_WARN_NOFUNC];
	c->noobj = n[KPGO_WARN_NOOBJ];
	c->other = n[KPGO_WARN_OTHER];
	/*
	 * GCC finds a static function's record by a checksum of its name, source
	 * file name and line: when those move, it warns "profile for function not
	 * found" and the old record goes unused, unreported. Each such warning is
	 * taken as one unused record (new functions warn too). A log of another
	 * build could claim more than the profile has: never below 0.
	 */
	lost = c->functions_unbuilt + c->dropped;
	c->at_most = c->functions > lost ? c->functions - lost : 0;
	c->applied = c->at_most > c->nofunc ? c->at_most - c->nofunc : 0;
	kpgo_report_pct(c->pct_objects, (double)c->objects_applied, (double)c->objects);
	kpgo_report_pct(c->pct_weighted, c->sum_applied, c->sum_all);
	kpgo_report_pct(c->pct_at_most, (double)c->at_most, (double)c->functions);
	kpgo_report_pct(c->pct_applied, (double)c->applied, (double)c->functions);
	c->ok = kpgo_report_pct_ok(&r->head, c->pct_applied);
	return 0;
}

int kpgo_report_check_stage(const struct kpgo_report *r, struct kpgo_error *err)
{
	const char *payload = kpgo_manifest_get(&r->manifest, MF_PAYLOAD);

	if (r->stage && (!payload || strcmp(payload, r->stage->payload_sha256)))
		return kpgo_error_set(err, -EINVAL,
				      "it is the stage summary of another profile ('%s', payload "
				      "sha256 %.16s...), not of '%s'",
				      r->stage->profile, r->stage->payload_sha256, r->head.profile);
	return 0;
}

int kpgo_report_format_counts(const struct kpgo_report *r, struct strbuf *out)
{
	const struct kpgo_report_counts *c = &r->c;
	int ret = 0;

	ret |= strbuf_addf(out, "profile objects: %" PRIu64, c->objects);
	if (r->stage)
		ret |= strbuf_addf(out, " (staged %" PRIu64 ")", r->stage->staged);
	ret |= strbuf_addf(out,
			   "\nprofile objects applied: %" PRIu64 " (%s%%)\n"
			   "profile objects applied, weighted by counts: %s%%\n"
			   "profile functions: %" PRIu64 "\n"
			   "profile functions in objects not compiled: %" PRIu64 "\n"
			   "profile functions dropped (control flow or counters changed): %" PRIu64
			   "\n"
			   "profile functions stale but applied (source lines moved): %" PRIu64 "\n"
			   "profile functions applied, at most: %" PRIu64 " (%s%%)\n"
			   "profile functions applied: %" PRIu64 " (%s%%)\n"
			   "objects compiled without a profile (-Wmissing-profile): %" PRIu64 "\n"
			   "functions compiled without a profile (-Wmissing-profile): %" PRIu64 "\n"
			   "other profile warnings: %" PRIu64 "\n",
			   c->objects_applied, c->pct_objects, c->pct_weighted, c->functions,
			   c->functions_unbuilt, c->dropped, c->stale, c->at_most, c->pct_at_most,
			   c->applied, c->pct_applied, c->noobj, c->nofunc, c->other);
	ret |= kpgo_report_verdict(&r->head, c->pct_applied, c->ok, out);
	return ret ? -ENOMEM : 0;
}

/* The warnings of @kind as "object<TAB>where<TAB>function" lines (or object only). */
static int format_warnings(const struct kpgo_report *r, enum kpgo_warn_kind kind, struct strbuf *out)
{
	const struct kpgo_buildlog *log = &r->log;
	const char *last_obj = NULL;
	int ret = 0;
	size_t i;

	for (i = 0; !ret && i < log->n; i++) {
		const struct kpgo_warning *w = &log->w[i];

		if (w->kind != kind)
			continue;
		switch (kind) {
		case KPGO_WARN_LINES:
			/* GCC drops those counts: they are listed as dropped. */
			if (kpgo_buildlog_has(log, KPGO_WARN_DROPPED, w->obj, w->fn))
				break;
			/* fall through */
		case KPGO_WARN_DROPPED:
		case KPGO_WARN_NOFUNC:
			ret = strbuf_addf(out, "%s\t%s\t%s\n", w->obj, w->where, w->fn);
			break;
		case KPGO_WARN_NOOBJ:
			/* One line per object, as counted (GCC warns once per object anyway). */
			if (!last_obj || strcmp(last_obj, w->obj))
				ret = strbuf_addf(out, "%s\n", w->obj);
			last_obj = w->obj;
			break;
		default: ret = strbuf_addf(out, "%s\t%s\t%s\n", w->obj, w->where, w->msg); break;
		}
	}
	return ret;
}

int kpgo_report_format(const struct kpgo_report *r, struct strbuf *out)
{
	static const struct {
		enum kpgo_warn_kind kind;
		const char *title;
	} sections[] = {
		{ KPGO_WARN_DROPPED,
		  "functions dropped (profile not used): object, where, function" },
		{ KPGO_WARN_LINES,
		  "functions stale but applied (source lines moved): object, where, function" },
		{ KPGO_WARN_KINDS, "profile objects not compiled in this build" },
		{ KPGO_WARN_NOOBJ, "objects compiled without a profile" },
		{ KPGO_WARN_NOFUNC, "functions compiled without a profile: object, where, function" },
		{ KPGO_WARN_OTHER, "other profile warnings: object, where, warning" },
	};
	size_t i, j;
	int ret = 0;

	ret |= strbuf_addf(out,
			   "kpgo profile report for kernel %s\nprofile: %s\nprofile sha256: %s\n",
			   r->head.release.buf, r->head.profile, r->head.profile_sha256);
	for (i = 0; r->head.headers && i < r->head.headers->n; i++)
		ret |= strbuf_addf(out, "%s\n", r->head.headers->items[i]);
	ret |= strbuf_addf(out, "\n%s\n", definitions);
	ret |= kpgo_report_format_counts(r, out);
	for (i = 0; !ret && i < sizeof(sections) / sizeof(sections[0]); i++) {
		ret |= strbuf_addf(out, "\n== %s\n", sections[i].title);
		if (sections[i].kind != KPGO_WARN_KINDS) {
			ret |= format_warnings(r, sections[i].kind, out);
			continue;
		}
		for (j = 0; j < r->n_objs; j++)
			if (!r->objs[j].applied)
				ret |= strbuf_addf(out, "%s\n", r->objs[j].path);
	}
	ret |= strbuf_addstr(out, "\n== kpgo stage report\n");
	if (r->stage)
		ret |= kpgo_stage_summary_report(r->stage, out);
	else
		ret |= strbuf_addstr(out, "(not given)\n");
	ret |= strbuf_addstr(out, "\n== kpgo info\n");
	ret |= kpgo_pstat_format(&r->stat, r->head.profile, 10, out);
	return ret ? -ENOMEM : 0;
}
