// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo report --afdo: how much of a sample profile a Clang build applied. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "afdo-report.h"
#include "sha256.h"

/* With --defs: the table's lines, and every site it does not hold as the profile's. */
static void print_json_defs(const struct kpgo_afdo_report *rep)
{
	const struct kpgo_afdo_report_counts *c = &rep->c;
	bool first = true;
	size_t i;

	printf(",\n  \"defs\": ");
	json_str(stdout, rep->defs_file);
	report_json_u64("defs_profile", rep->defs.roles[KPGO_AFDO_ROLE_PROFILE]);
	report_json_u64("defs_weak", rep->defs.roles[KPGO_AFDO_ROLE_WEAK]);
	report_json_u64("defs_left_out", rep->defs.roles[KPGO_AFDO_ROLE_LEFT_OUT]);
	report_json_u64("sites_weak", c->weak_sites);
	report_json_u64("sites_outside", c->outside_sites);
	printf(",\n  \"outside\": [");
	for (i = 0; i < rep->log.n; i++) {
		const struct kpgo_afdo_site *s = &rep->log.sites[i];

		if (s->kind != KPGO_AFDO_SITE_OUTSIDE)
			continue;
		printf("%s{\"file\": ", first ? "" : ", ");
		json_str(stdout, s->file);
		printf(", \"line\": %" PRIu32 ", \"ordinal\": %" PRIu32 "}", s->line, s->ordinal);
		first = false;
	}
	printf("]");
}

static void print_json_clang(const struct kpgo_afdo_report *rep, const char *output)
{
	const struct kpgo_afdo_report_counts *c = &rep->c;

	report_json_head("clang", rep->release, rep->profile, rep->profile_sha256, output);
	report_json_u64("compiler_lines", rep->log.cc_lines);
	report_json_u64("functions", rep->prof.functions);
	report_json_u64("records", rep->prof.records);
	report_json_u64("samples", rep->prof.samples);
	report_json_u64("functions_total_zero", rep->prof.zero_total);
	report_json_u64("coverage_records_warnings", rep->log.records_warnings);
	report_json_u64("coverage_samples_warnings", rep->log.samples_warnings);
	report_json_u64("coverage_repeats", rep->log.repeats);
	report_json_u64("coverage_unpaired", rep->log.unpaired);
	report_json_u64("coverage_malformed", rep->log.malformed);
	report_json_u64("log_long_lines", rep->log.long_lines);
	report_json_u64("sites", c->sites);
	report_json_u64("functions_applied", c->applied);
	printf(",\n  \"functions_applied_pct\": %s", c->pct_applied);
	printf(",\n  \"functions_applied_capped\": %s", c->capped ? "true" : "false");
	report_json_u64("functions_not_applied", c->not_applied);
	report_json_u64("records_applied", c->records_applied);
	report_json_u64("records_of_applied", c->records);
	printf(",\n  \"records_applied_pct\": %s", c->pct_records);
	printf(",\n  \"records_applied_of_all_pct\": %s", c->pct_records_all);
	report_json_u64("samples_applied", c->samples_applied);
	report_json_u64("samples_of_applied", c->samples);
	printf(",\n  \"samples_applied_pct\": %s", c->pct_samples);
	printf(",\n  \"samples_applied_of_all_pct\": %s", c->pct_samples_all);
	if (rep->defs_file)
		print_json_defs(rep);
	printf(",\n  \"min_applied\": %u,\n  \"ok\": %s\n}\n", rep->min_applied,
	       c->ok ? "true" : "false");
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
	if (report_check_log(o->log, rep.log.cc_lines, rep.log.long_lines))
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
		print_json_clang(&rep, o->output);
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
