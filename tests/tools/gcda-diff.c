// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gcda-diff - compare the counters of two trees of .gcda files.
 *
 * Usage: gcda-diff DIR_A DIR_B
 *
 * Every .gcda below DIR_A must exist at the same relative path below DIR_B
 * and the other way round; each pair must have the same version and stamp,
 * the same functions (ident, both checksums, number of arc counters) in the
 * same order, and the same counter values. The header checksum and the
 * OBJECT_SUMMARY are not compared: gcov-tool writes a summary (runs 0,
 * sum_max 0 when its inputs had none), the kernel and kpgo archives do not.
 *
 * Prints one line with what was compared, and the first differences (at
 * most 20) on stderr. Exit 0 when the trees agree, 1 when they differ or
 * cannot be read, 2 for a usage error.
 *
 * Used by tests/bench/bench-merge.sh to check kpgo merge against chained
 * gcov-tool merges on the benchmark's data.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcda.h"
#include "strbuf.h"
#include "util.h"

#define MAX_REPORTS 20
#define GCDA_MAX (256u << 20)

struct totals {
	uint64_t objects, functions, counters, nonzero, differ, missing;
};

static unsigned reports;

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void report(const char *fmt, ...)
{
	va_list ap;

	if (reports++ >= MAX_REPORTS)
		return;
	fputs("gcda-diff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static int load(const char *path, struct kpgo_gcda *g)
{
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_error err;
	int r;

	kpgo_gcda_init(g);
	r = kpgo_read_file(path, &sb, GCDA_MAX);
	if (r) {
		report("cannot read '%s': %s", path, strerror(-r));
		strbuf_release(&sb);
		return r;
	}
	r = kpgo_gcda_parse(sb.buf, sb.len, g, &err);
	if (r)
		report("cannot parse '%s': %s", path, err.msg);
	strbuf_release(&sb);
	return r;
}

static void compare(const char *rel, const char *pa, const char *pb, struct totals *t)
{
	struct kpgo_gcda a, b;
	size_t i;
	uint32_t j;

	t->objects++;
	if (load(pa, &a)) {
		t->differ++;
		return;
	}
	if (load(pb, &b)) {
		kpgo_gcda_release(&a);
		t->differ++;
		return;
	}
	if (a.version != b.version || a.stamp != b.stamp) {
		report("'%s': version or stamp differ", rel);
		goto differ;
	}
	if (a.n_fns != b.n_fns) {
		report("'%s': %zu functions vs %zu", rel, a.n_fns, b.n_fns);
		goto differ;
	}
	for (i = 0; i < a.n_fns; i++) {
		const struct kpgo_gcda_fn *fa = &a.fns[i], *fb = &b.fns[i];

		if (fa->ident != fb->ident || fa->lineno_checksum != fb->lineno_checksum ||
		    fa->cfg_checksum != fb->cfg_checksum || fa->n_arcs != fb->n_arcs) {
			report("'%s': function %zu (ident %" PRIu32 " vs %" PRIu32 ") differs", rel,
			       i, fa->ident, fb->ident);
			goto differ;
		}
		for (j = 0; j < fa->n_arcs; j++) {
			uint64_t ca = a.ctrs[fa->arcs + j], cb = b.ctrs[fb->arcs + j];

			if (ca != cb) {
				report("'%s': function ident %" PRIu32 " counter %" PRIu32
				       ": %" PRIu64 " vs %" PRIu64,
				       rel, fa->ident, j, ca, cb);
				goto differ;
			}
			t->nonzero += ca != 0;
		}
		t->functions++;
		t->counters += fa->n_arcs;
	}
	goto out;
differ:
	t->differ++;
out:
	kpgo_gcda_release(&a);
	kpgo_gcda_release(&b);
}

/*
 * Walks @a's tree (relative path @rel); with @b_side, only checks that each
 * file also exists below @other (the reverse direction).
 */
static int walk(struct strbuf *rel, const char *top_a, const char *top_b, bool b_side,
		struct totals *t)
{
	struct strbuf pa = STRBUF_INIT, pb = STRBUF_INIT;
	size_t base = rel->len;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (strbuf_addf(&pa, "%s/%s", top_a, rel->buf))
		return -ENOMEM;
	d = opendir(pa.buf);
	if (!d) {
		report("cannot list '%s': %s", pa.buf, strerror(errno));
		strbuf_release(&pa);
		return -errno;
	}
	while (!r && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rel->len = base;
		rel->buf[base] = '\0';
		if ((base && strbuf_addch(rel, '/')) || strbuf_addstr(rel, de->d_name)) {
			r = -ENOMEM;
			break;
		}
		strbuf_reset(&pa);
		strbuf_reset(&pb);
		if (strbuf_addf(&pa, "%s/%s", top_a, rel->buf) ||
		    strbuf_addf(&pb, "%s/%s", top_b, rel->buf)) {
			r = -ENOMEM;
			break;
		}
		if (lstat(pa.buf, &st) < 0) {
			report("cannot stat '%s': %s", pa.buf, strerror(errno));
			r = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			r = walk(rel, top_a, top_b, b_side, t);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !ends_with(de->d_name, ".gcda"))
			continue;
		if (access(pb.buf, F_OK) < 0) {
			report("'%s' is only in '%s'", rel->buf, top_a);
			t->missing++;
			continue;
		}
		if (!b_side)
			compare(rel->buf, pa.buf, pb.buf, t);
	}
	closedir(d);
	rel->len = base;
	rel->buf[base] = '\0';
	strbuf_release(&pa);
	strbuf_release(&pb);
	return r;
}

int main(int argc, char **argv)
{
	struct strbuf rel = STRBUF_INIT;
	struct totals t = { 0 }, tb = { 0 };

	if (argc != 3) {
		fputs("usage: gcda-diff DIR_A DIR_B\n", stderr);
		return 2;
	}
	if (walk(&rel, argv[1], argv[2], false, &t) || walk(&rel, argv[2], argv[1], true, &tb)) {
		strbuf_release(&rel);
		return 1;
	}
	strbuf_release(&rel);
	printf("objects %" PRIu64 " functions %" PRIu64 " counters %" PRIu64 " (non-zero %" PRIu64
	       "): %s (%" PRIu64 " objects differ, %" PRIu64 " only on one side)\n",
	       t.objects, t.functions, t.counters, t.nonzero,
	       t.differ || t.missing || tb.missing ? "DIFFERENT" : "identical", t.differ,
	       t.missing + tb.missing);
	return t.differ || t.missing || tb.missing || t.objects == 0 ? 1 : 0;
}
