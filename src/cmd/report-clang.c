// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo report --afdo: how much of a sample profile a Clang build applied. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "json-writer.h"
#include "afdo-report.h"
#include "sha256.h"

/* With --defs: the table's lines, and every site it does not hold as the profile's. */
/* With --defs: the table's lines, and every site it does not hold as the profile's. */
static void json_defs(struct kpgo_json_writer *w, const struct kpgo_afdo_report *rep)
{
	const struct kpgo_afdo_report_counts *c = &rep->c;
	size_t i;

	kpgo_jw_string(w, "defs", rep->defs_file);
	kpgo_jw_u64(w, "defs_profile", rep->defs.roles[KPGO_AFDO_ROLE_PROFILE]);
	kpgo_jw_u64(w, "defs_weak", rep->defs.roles[KPGO_AFDO_ROLE_WEAK]);
	kpgo_jw_u64(w, "defs_left_out", rep->defs.roles[KPGO_AFDO_ROLE_LEFT_OUT]);
	kpgo_jw_u64(w, "sites_weak", c->weak_sites);
	kpgo_jw_u64(w, "sites_outside", c->outside_sites);
	kpgo_jw_array_begin(w, "outside");
	for (i = 0; i < rep->log.n; i++) {
		const struct kpgo_afdo_site *s = &rep->log.sites[i];

		if (s->kind != KPGO_AFDO_SITE_OUTSIDE)
			continue;
		kpgo_jw_object_begin_inline(w, NULL);
		kpgo_jw_string(w, "file", s->file);
		kpgo_jw_u64(w, "line", s->line);
		kpgo_jw_u64(w, "ordinal", s->ordinal);
		kpgo_jw_end(w);
	}
	kpgo_jw_end(w);
}

static int print_json_clang(const struct kpgo_afdo_report *rep, const char *output)
{
	const struct kpgo_afdo_report_counts *c = &rep->c;
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, &sb);
	report_json_head(&w, "clang", rep->release, rep->profile, rep->profile_sha256, output);
	kpgo_jw_u64(&w, "compiler_lines", rep->log.cc_lines);
	kpgo_jw_u64(&w, "functions", rep->prof.functions);
	kpgo_jw_u64(&w, "records", rep->prof.records);
	kpgo_jw_u64(&w, "samples", rep->prof.samples);
	kpgo_jw_u64(&w, "functions_total_zero", rep->prof.zero_total);
	kpgo_jw_u64(&w, "coverage_records_warnings", rep->log.records_warnings);
	kpgo_jw_u64(&w, "coverage_samples_warnings", rep->log.samples_warnings);
	kpgo_jw_u64(&w, "coverage_repeats", rep->log.repeats);
	kpgo_jw_u64(&w, "coverage_unpaired", rep->log.unpaired);
	kpgo_jw_u64(&w, "coverage_malformed", rep->log.malformed);
	kpgo_jw_u64(&w, "log_long_lines", rep->log.in.long_lines);
	kpgo_jw_u64(&w, "sites", c->sites);
	kpgo_jw_u64(&w, "functions_applied", c->applied);
	kpgo_jw_number(&w, "functions_applied_pct", c->pct_applied);
	kpgo_jw_bool(&w, "functions_applied_capped", c->capped);
	kpgo_jw_u64(&w, "functions_not_applied", c->not_applied);
	kpgo_jw_u64(&w, "records_applied", c->records_applied);
	kpgo_jw_u64(&w, "records_of_applied", c->records);
	kpgo_jw_number(&w, "records_applied_pct", c->pct_records);
	kpgo_jw_number(&w, "records_applied_of_all_pct", c->pct_records_all);
	kpgo_jw_u64(&w, "samples_applied", c->samples_applied);
	kpgo_jw_u64(&w, "samples_of_applied", c->samples);
	kpgo_jw_number(&w, "samples_applied_pct", c->pct_samples);
	kpgo_jw_number(&w, "samples_applied_of_all_pct", c->pct_samples_all);
	if (rep->defs_file)
		json_defs(&w, rep);
	return report_json_tail(&w, rep->min_applied, c->ok);
}

int report_clang(const struct report_opts *o)
{
	struct strbuf rel = STRBUF_INIT, text = STRBUF_INIT;
	struct kpgo_strlist names = { 0 };
	char sha[KPGO_SHA256_HEX];
	struct kpgo_afdo_report rep;
	struct kpgo_error err;
	int fd, ret = 1;

	fd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open object tree '%s': %s", o->objtree, strerror(errno));
	close(fd);
	kpgo_afdo_report_init(&rep);
	rep.min_applied = o->min_applied;
	rep.profile = o->afdo;
	rep.headers = &o->headers;
	if (report_head(o, o->afdo, &rel, sha))
		goto out;
	rep.release = rel.buf;
	rep.profile_sha256 = sha;
	if (kpgo_afdo_text_read(&rep.prof, o->afdo, o->defs ? &names : NULL, &err)) {
		error("cannot read '%s': %s", o->afdo, err.msg);
		goto out;
	}
	if (o->defs) {
		if (kpgo_afdo_defs_read(&rep.defs, o->defs, &err)) {
			error("cannot read '%s': %s", o->defs, err.msg);
			goto out;
		}
		if (kpgo_afdo_defs_check(&rep.defs, &names, &err)) {
			error("'%s' is not the definitions table of '%s': %s", o->defs, o->afdo,
			      err.msg);
			goto out;
		}
		rep.defs_file = o->defs;
	}
	if (kpgo_afdo_cov_log_read(&rep.log, o->log, &err)) {
		error("cannot read '%s': %s", o->log, err.msg);
		goto out;
	}
	if (report_check_log(o->log, rep.log.cc_lines, rep.log.in.long_lines))
		goto out;
	if (rep.log.malformed)
		warning("%zu lines of '%s' that look like clang's coverage warnings are malformed "
			"and were skipped (the first: line %zu)",
			rep.log.malformed, o->log, rep.log.first_malformed);

	kpgo_afdo_report_count(&rep);
	if (kpgo_afdo_report_format(&rep, &text)) {
		error("out of memory");
		goto out;
	}
	if (report_write(o, &text))
		goto out;
	if (o->json) {
		if (print_json_clang(&rep, o->output))
			goto out;
	} else if (verbosity > 0) {
		strbuf_reset(&text);
		if (!kpgo_afdo_report_format_counts(&rep, &text))
			fwrite(text.buf, 1, text.len, stderr);
	}
	ret = report_verdict(o, rep.c.ok, rep.c.pct_applied);
out:
	kpgo_afdo_report_release(&rep);
	kpgo_strlist_clear(&names);
	strbuf_release(&rel);
	strbuf_release(&text);
	return ret;
}
