// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for kpgo report --afdo's three readers: the bytes as a
 * text sample profile (accepted: at least one function, no more functions
 * and records than lines; refused: a message), as kpgo afdo's definitions
 * table (accepted: sorted by place, each definition found at its place;
 * checked against the profile's names, or none, with an answer either
 * way), and as a build log of clang's coverage warnings, which reads the
 * same whole as cut anywhere and keeps each (FILE, LINE, ordinal) once,
 * with N <= M.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static int parse_log(const uint8_t *data, size_t size, size_t cut, struct kpgo_afdo_cov_log *log)
{
	struct kpgo_error err;
	int r;

	kpgo_afdo_cov_log_init(log);
	r = kpgo_afdo_cov_log_feed(log, data, cut, &err);
	if (!r)
		r = kpgo_afdo_cov_log_feed(log, data + cut, size - cut, &err);
	if (!r)
		r = kpgo_afdo_cov_log_finish(log, &err);
	return r;
}

static void check_defs(const uint8_t *data, size_t size, const struct kpgo_strlist *names)
{
	struct kpgo_afdo_defs d;
	struct kpgo_error err;
	size_t i, c[KPGO_AFDO_ROLES];
	int r;

	kpgo_afdo_defs_init(&d);
	err.msg[0] = '\0';
	r = kpgo_afdo_defs_parse(&d, (const char *)data, size, &err);
	check(!r || ((r == -EINVAL || r == -EBADMSG || r == -ENOMEM) && err.msg[0]));
	if (r) {
		check(!d.n && !d.text.len);
		return;
	}
	check(d.n == d.roles[0] + d.roles[1] + d.roles[2] && d.n < d.lines && d.lines <= size + 1);
	for (i = 0; i < d.n; i++) {
		const struct kpgo_afdo_def *x = &d.defs[i];

		check(x->line >= 1 && *x->name && *x->source && x->lineno >= 2 &&
		      x->lineno <= d.lines);
		check(!i || strcmp(d.defs[i - 1].source, x->source) < 0 ||
		      (!strcmp(d.defs[i - 1].source, x->source) && d.defs[i - 1].line <= x->line));
		kpgo_afdo_defs_at(&d, x->source, x->line, c);
		check(c[x->role] >= 1);
	}
	err.msg[0] = '\0';
	r = kpgo_afdo_defs_check(&d, names, &err);
	check(!r || ((r == -EINVAL || r == -ENOMEM) && err.msg[0]));
	kpgo_afdo_defs_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kpgo_strlist names = { 0 };
	struct kpgo_afdo_cov_log a, b;
	struct kpgo_afdo_text t;
	struct kpgo_error err;
	size_t i;
	int r, rb;

	err.msg[0] = '\0';
	r = kpgo_afdo_text_parse(&t, (const char *)data, size, &names, &err);
	check(!r || ((r == -EINVAL || r == -EBADMSG || r == -ENOMEM) && err.msg[0]));
	if (!r)
		check(t.functions >= 1 && t.functions + t.records + t.inlined_lines <= t.lines &&
		      t.zero_total <= t.functions && t.lines <= size + 1 && names.n == t.functions);
	else
		check(!names.n);
	check_defs(data, size, &names);
	kpgo_strlist_clear(&names);

	r = parse_log(data, size, 0, &a);
	rb = parse_log(data, size, size ? data[0] % (size + 1) : 0, &b);
	check(r == rb && (!r || r == -EBADMSG));
	if (!r) {
		check(a.n == b.n && a.in.lines == b.in.lines && a.cc_lines == b.cc_lines &&
		      a.malformed == b.malformed && a.repeats == b.repeats);
		check(a.n + a.repeats <= a.records_warnings + a.samples_warnings);
		for (i = 0; i < a.n; i++) {
			const struct kpgo_afdo_site *s = &a.sites[i];

			check(!strcmp(s->file, b.sites[i].file) && s->line == b.sites[i].line &&
			      s->ordinal == b.sites[i].ordinal &&
			      s->records_applied == b.sites[i].records_applied);
			check(s->line && s->ordinal && (s->has_records || s->has_samples));
			check(s->records_applied <= s->records && s->samples_applied <= s->samples);
			check(!i || strcmp(a.sites[i - 1].file, s->file) ||
			      a.sites[i - 1].line != s->line ||
			      a.sites[i - 1].ordinal != s->ordinal);
		}
	}
	kpgo_afdo_cov_log_release(&a);
	kpgo_afdo_cov_log_release(&b);
	return 0;
}
