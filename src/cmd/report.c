// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo report: how much of the profile an optimized kernel build applied,
 * GCC's (--profile, report.h) or Clang's (--afdo, afdo-report.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afdo-report.h"
#include "cmd/cmd.h"
#include "json-writer.h"
#include "report.h"
#include "stage-summary.h"

static const char usage_text[] =
	"usage: kpgo report --profile FILE.kpgo --objtree DIR --build-log LOG [options]\n"
	"   or: kpgo report --afdo PROFILE.txt --objtree DIR --build-log LOG [options]\n"
	"\n"
	"Reports how much of the profile the optimized build in DIR applied. The\n"
	"report explains its numbers. The count lines go to stderr.\n"
	"\n"
	"GCC (--profile): from the profile, the objects in DIR and GCC's profile\n"
	"warnings in LOG (the build's make output, with --output-sync and without\n"
	"V=1). A profile object applied if DIR has its .o; functions are counted\n"
	"from the FUNCTION records and the warnings.\n"
	"\n"
	"Clang (--afdo): from the sample profile (kpgo afdo's text) and the coverage\n"
	"warnings clang gives in LOG (make output, with --output-sync and without\n"
	"V=1) when the build used -fprofile-sample-use=PROFILE with\n"
	"-mllvm -sample-profile-check-record-coverage=101 and\n"
	"-mllvm -sample-profile-check-sample-coverage=101: a profile function applied\n"
	"if clang reported its coverage (counted by distinct FILE:LINE). Clang\n"
	"matches a profile by name alone: with --defs, kpgo afdo's table of the\n"
	"definitions behind PROFILE, each FILE:LINE is told apart as the profile's\n"
	"definition (applied), a weak one the linker drops, or another function of\n"
	"a profile function's name that took its counts (listed).\n"
	"\n"
	"  -p, --profile FILE        the profile the build was staged from (GCC)\n"
	"  -a, --afdo PROFILE        the sample profile the build used (Clang)\n"
	"      --defs FILE           its definitions table (kpgo afdo --defs; Clang);\n"
	"                            it must name the profile's functions, else an error\n"
	"  -t, --objtree DIR         the build's object tree (O=)\n"
	"  -l, --build-log LOG       the build's output\n"
	"  -s, --stage-summary FILE  kpgo stage's --summary of this profile, included\n"
	"                            (GCC only)\n"
	"      --afdo-summary FILE   kpgo afdo's --summary of PROFILE: its lines go\n"
	"                            into the report's head (Clang only)\n"
	"  -m, --min-applied PCT     fail below PCT% of the profile's functions\n"
	"                            applied, 0 to 100 (default 50)\n"
	"  -r, --kernel-release REL  default: DIR/include/config/kernel.release\n"
	"  -H, --header 'KEY: VALUE' a line for the report's head (repeatable)\n"
	"      --policy V,AGE,BEHIND what the store's freshness policy said of the\n"
	"                            profile, as kpgo plan gives it (PROFILE_POLICY,\n"
	"                            PROFILE_AGE_DAYS, PROFILE_RELEASES_BEHIND): a\n"
	"                            'profile policy:' line for the head; none: no line\n"
	"  -o, --output REPORT       write the report here, atomically (default stdout)\n"
	"      --json                print the counts as JSON on stdout instead (the\n"
	"                            report then only with -o)\n"
	"  -q, --quiet               no count lines on stderr\n"
	"\n"
	"Exit status: 0 enough applied, 1 too little (the report is still written)\n"
	"or an error (nothing written), 2 usage error.\n";

/* The options of both modes. */
struct report_opts {
	const char *profile;
	const char *afdo;
	const char *defs;
	const char *objtree;
	const char *log;
	const char *stage;
	const char *afdo_summary;
	const char *release;
	const char *output;
	struct kpgo_strlist headers;
	unsigned min_applied;
	bool json;
};

static bool header_ok(const char *s)
{
	const char *sep = strstr(s, ": ");

	return sep && sep != s && kpgo_report_text_ok(s);
}

/* The head both modes share; 1 after the error message. */
static int set_head(const struct report_opts *o, const char *profile, struct kpgo_report_head *h)
{
	struct kpgo_error err;

	if (kpgo_report_head_set(h, o->objtree, o->release, profile, &err))
		return error("%s", err.msg);
	h->min_applied = o->min_applied;
	h->headers = &o->headers;
	return 0;
}

/* Refuses a log without compiler lines; warns about skipped long lines. */
static int check_log(const char *log, size_t cc_lines, size_t long_lines)
{
	if (!cc_lines)
		return error("'%s' is no kernel build log: it has no compiler lines ('  CC      x.o'; was it V=1?)",
			     log);
	if (long_lines)
		warning("%zu lines of '%s' longer than %d bytes were skipped", long_lines, log,
			KPGO_BUILDLOG_LINE_MAX);
	return 0;
}

/* The report to -o (atomically) or, without --json, to stdout; 1 after the message. */
static int write_report(const struct report_opts *o, const struct strbuf *text)
{
	if (o->output)
		return write_out(o->output, text);
	if (!o->json)
		fwrite(text->buf, 1, text->len, stdout);
	return 0;
}

/* After the JSON or the count lines: 0 when @ok, else 1 after one line. */
static int verdict(const struct report_opts *o, bool ok, const char *pct)
{
	if (fflush(stdout))
		return error("cannot write to standard output: %s", strerror(errno));
	if (ok)
		return 0;
	/* With --json and no -o there is no report to point to. */
	return error("only %s%% of the profile's functions applied (at least %u%% required)%s%s",
		     pct, o->min_applied, o->output || !o->json ? "; see " : "",
		     o->output ? o->output :
		     o->json   ? "" :
				 "the report");
}

/* Begins the JSON of both modes with its first members, "mode" to "report". */
static void json_head(struct kpgo_json_writer *w, const char *mode,
		      const struct kpgo_report_head *h, const char *output)
{
	kpgo_jw_object_begin(w, NULL);
	kpgo_jw_string(w, "mode", mode);
	kpgo_jw_string(w, "kernel_release", h->release.buf);
	kpgo_jw_string(w, "profile", h->profile);
	kpgo_jw_string(w, "profile_sha256", h->profile_sha256);
	kpgo_jw_string(w, "report", output);
}

/* Ends it with "min_applied" and "ok" and prints it; 1 after the error message. */
static int json_tail(struct kpgo_json_writer *w, const struct kpgo_report_head *h, bool ok)
{
	kpgo_jw_u64(w, "min_applied", h->min_applied);
	kpgo_jw_bool(w, "ok", ok);
	kpgo_jw_end(w);
	return print_json_doc(w);
}

static int print_json_gcc(const struct kpgo_report *rep, const char *output)
{
	const struct kpgo_report_counts *c = &rep->c;
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, &sb);
	json_head(&w, "gcc", &rep->head, output);
	kpgo_jw_u64(&w, "objects", c->objects);
	if (rep->stage)
		kpgo_jw_u64(&w, "objects_staged", rep->stage->staged);
	else
		kpgo_jw_null(&w, "objects_staged");
	kpgo_jw_u64(&w, "objects_applied", c->objects_applied);
	kpgo_jw_number(&w, "objects_applied_pct", c->pct_objects);
	kpgo_jw_number(&w, "objects_applied_weighted_pct", c->pct_weighted);
	kpgo_jw_u64(&w, "functions", c->functions);
	kpgo_jw_u64(&w, "functions_in_objects_not_compiled", c->functions_unbuilt);
	kpgo_jw_u64(&w, "functions_dropped", c->dropped);
	kpgo_jw_u64(&w, "functions_stale", c->stale);
	kpgo_jw_u64(&w, "functions_applied_at_most", c->at_most);
	kpgo_jw_number(&w, "functions_applied_at_most_pct", c->pct_at_most);
	kpgo_jw_u64(&w, "functions_applied", c->applied);
	kpgo_jw_number(&w, "functions_applied_pct", c->pct_applied);
	kpgo_jw_u64(&w, "objects_without_profile", c->noobj);
	kpgo_jw_u64(&w, "functions_without_profile", c->nofunc);
	kpgo_jw_u64(&w, "other_warnings", c->other);
	return json_tail(&w, &rep->head, c->ok);
}

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

static int print_json_afdo(const struct kpgo_afdo_report *rep, const char *output)
{
	const struct kpgo_afdo_report_counts *c = &rep->c;
	struct strbuf sb = STRBUF_INIT;
	struct kpgo_json_writer w;

	kpgo_jw_init(&w, &sb);
	json_head(&w, "clang", &rep->head, output);
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
	return json_tail(&w, &rep->head, c->ok);
}

static int report_gcc(const struct report_opts *o)
{
	struct strbuf text = STRBUF_INIT;
	struct kpgo_stage_summary stage;
	char *real = NULL;
	const char *trees[2];
	struct kpgo_report rep;
	struct kpgo_error err;
	size_t n_trees = 0;
	int fd, ret = 1;

	fd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open object tree '%s': %s", o->objtree, strerror(errno));
	kpgo_stage_summary_init(&stage);
	/* GCC names a missing .gcda by the object tree's real path (kbuild's abs_objtree). */
	real = realpath(o->objtree, NULL);
	if (real)
		trees[n_trees++] = real;
	if (o->objtree[0] == '/' && (!real || strcmp(real, o->objtree)))
		trees[n_trees++] = o->objtree;
	if (kpgo_report_init(&rep, trees, n_trees)) {
		error("out of memory");
		goto out_fd;
	}
	if (set_head(o, o->profile, &rep.head))
		goto out;
	if (kpgo_report_load_profile(&rep, o->profile, fd, &err)) {
		error("cannot read '%s': %s", o->profile, err.msg);
		goto out;
	}
	if (kpgo_buildlog_read(&rep.log, o->log, &err)) {
		error("cannot read '%s': %s", o->log, err.msg);
		goto out;
	}
	if (check_log(o->log, rep.log.cc_lines, rep.log.in.long_lines))
		goto out;
	if (o->stage) {
		if (kpgo_stage_summary_read(&stage, o->stage, &err)) {
			error("cannot read '%s': %s", o->stage, err.msg);
			goto out;
		}
		rep.stage = &stage;
		if (kpgo_report_check_stage(&rep, &err)) {
			error("'%s': %s", o->stage, err.msg);
			goto out;
		}
	}
	if (kpgo_report_count(&rep) || kpgo_report_format(&rep, &text)) {
		error("out of memory");
		goto out;
	}
	if (write_report(o, &text))
		goto out;
	if (o->json) {
		if (print_json_gcc(&rep, o->output))
			goto out;
	} else if (verbosity > 0) {
		strbuf_reset(&text);
		if (!kpgo_report_format_counts(&rep, &text))
			fwrite(text.buf, 1, text.len, stderr);
	}
	ret = verdict(o, rep.c.ok, rep.c.pct_applied);
out:
	kpgo_report_release(&rep);
out_fd:
	close(fd);
	free(real);
	kpgo_stage_summary_release(&stage);
	strbuf_release(&text);
	return ret;
}

static int report_afdo(const struct report_opts *o)
{
	struct strbuf text = STRBUF_INIT;
	struct kpgo_strlist names = { 0 };
	struct kpgo_afdo_summary summary;
	struct kpgo_afdo_report rep;
	struct kpgo_error err;
	int fd, ret = 1;

	fd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open object tree '%s': %s", o->objtree, strerror(errno));
	close(fd);
	kpgo_afdo_report_init(&rep);
	kpgo_afdo_summary_init(&summary);
	if (set_head(o, o->afdo, &rep.head))
		goto out;
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
	if (o->afdo_summary) {
		if (kpgo_afdo_summary_read(&summary, o->afdo_summary, &err)) {
			error("cannot read '%s': %s", o->afdo_summary, err.msg);
			goto out;
		}
		rep.summary = &summary;
		if (kpgo_afdo_report_check_summary(&rep, &err)) {
			error("'%s': %s", o->afdo_summary, err.msg);
			goto out;
		}
	}
	if (kpgo_afdo_cov_log_read(&rep.log, o->log, &err)) {
		error("cannot read '%s': %s", o->log, err.msg);
		goto out;
	}
	if (check_log(o->log, rep.log.cc_lines, rep.log.in.long_lines))
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
	if (write_report(o, &text))
		goto out;
	if (o->json) {
		if (print_json_afdo(&rep, o->output))
			goto out;
	} else if (verbosity > 0) {
		strbuf_reset(&text);
		if (!kpgo_afdo_report_format_counts(&rep, &text))
			fwrite(text.buf, 1, text.len, stderr);
	}
	ret = verdict(o, rep.c.ok, rep.c.pct_applied);
out:
	kpgo_afdo_report_release(&rep);
	kpgo_afdo_summary_release(&summary);
	kpgo_strlist_clear(&names);
	strbuf_release(&text);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_DEFS, OPT_AFDO_SUMMARY, OPT_POLICY };
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "afdo", required_argument, NULL, 'a' },
		{ "defs", required_argument, NULL, OPT_DEFS },
		{ "objtree", required_argument, NULL, 't' },
		{ "build-log", required_argument, NULL, 'l' },
		{ "stage-summary", required_argument, NULL, 's' },
		{ "afdo-summary", required_argument, NULL, OPT_AFDO_SUMMARY },
		{ "min-applied", required_argument, NULL, 'm' },
		{ "kernel-release", required_argument, NULL, 'r' },
		{ "header", required_argument, NULL, 'H' },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .min_applied = KPGO_REPORT_MIN_APPLIED };
	struct strbuf line = STRBUF_INIT;
	int c, ret;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "p:a:t:l:s:m:r:H:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o.profile = optarg; break;
		case 'a': o.afdo = optarg; break;
		case OPT_DEFS: o.defs = optarg; break;
		case 't': o.objtree = optarg; break;
		case 'l': o.log = optarg; break;
		case 's': o.stage = optarg; break;
		case OPT_AFDO_SUMMARY: o.afdo_summary = optarg; break;
		case 'm':
			if (kpgo_parse_u64(optarg, &v) || v > 100) {
				ret = usage_error("report", "bad --min-applied '%s' (0 to 100)",
						  optarg);
				goto out;
			}
			o.min_applied = (unsigned)v;
			break;
		case 'r':
			if (!*optarg || !kpgo_report_text_ok(optarg)) {
				ret = usage_error("report", "bad --kernel-release");
				goto out;
			}
			o.release = optarg;
			break;
		case 'H':
			if (!header_ok(optarg)) {
				ret = usage_error("report",
						  "bad --header '%s' (one line 'KEY: VALUE')",
						  optarg);
				goto out;
			}
			if (kpgo_strlist_add(&o.headers, optarg)) {
				ret = error("out of memory");
				goto out;
			}
			break;
		case OPT_POLICY:
			if (kpgo_report_policy_line(optarg, &line)) {
				ret = usage_error("report",
						  "bad --policy '%s' (VERDICT,AGE,BEHIND: none, ok, "
						  "warn or overridden, then days and releases or nothing)",
						  optarg);
				goto out;
			}
			if (line.len && kpgo_strlist_add(&o.headers, line.buf)) {
				ret = error("out of memory");
				goto out;
			}
			break;
		case 'o': o.output = optarg; break;
		case OPT_JSON: o.json = true; break;
		case 'q': verbosity = 0; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = 0;
			goto out;
		default: ret = usage_error("report", "bad option"); goto out;
		}
	}
	if (optind != argc)
		ret = usage_error("report", "unexpected argument '%s'", argv[optind]);
	else if (o.profile && o.afdo)
		ret = usage_error("report", "--profile (GCC) and --afdo (Clang) exclude each other");
	else if (o.afdo && o.stage)
		ret = usage_error("report", "--stage-summary is for GCC builds, not with --afdo");
	else if (o.defs && !o.afdo)
		ret = usage_error("report", "--defs is for Clang builds, with --afdo");
	else if (o.afdo_summary && !o.afdo)
		ret = usage_error("report", "--afdo-summary is for Clang builds, with --afdo");
	else if (!(o.profile || o.afdo) || !o.objtree || !o.log)
		ret = usage_error("report",
				  "--profile (or --afdo), --objtree and --build-log are required");
	else
		ret = o.afdo ? report_afdo(&o) : report_gcc(&o);
out:
	kpgo_strlist_clear(&o.headers);
	strbuf_release(&line);
	return ret;
}
