// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo report: how much of the profile an optimized kernel build applied. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "json-writer.h"
#include "report.h"
#include "sha256.h"

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
	"  -s, --stage-report FILE   kpgo stage's --report, included (GCC only)\n"
	"  -m, --min-applied PCT     fail below PCT% of the profile's functions\n"
	"                            applied, 0 to 100 (default 50)\n"
	"  -r, --kernel-release REL  default: DIR/include/config/kernel.release\n"
	"  -H, --header 'KEY: VALUE' a line for the report's head (repeatable)\n"
	"  -o, --output REPORT       write the report here, atomically (default stdout)\n"
	"      --json                print the counts as JSON on stdout instead (the\n"
	"                            report then only with -o)\n"
	"  -q, --quiet               no count lines on stderr\n"
	"\n"
	"Exit status: 0 enough applied, 1 too little (the report is still written)\n"
	"or an error (nothing written), 2 usage error.\n";

/* Printable text without control characters (a header line, a release). */
static bool text_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static bool header_ok(const char *s)
{
	const char *sep = strstr(s, ": ");

	return sep && sep != s && text_ok(s);
}

/* DIR/include/config/kernel.release, "unknown" when it has none. */
static int default_release(const char *objtree, struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT;
	int r;

	r = strbuf_addf(&path, "%s/include/config/kernel.release", objtree);
	if (!r && kpgo_read_file(path.buf, out, 4096) == 0) {
		out->len = strcspn(out->buf, "\n");
		out->buf[out->len] = '\0';
	}
	if (!r && (!out->len || !text_ok(out->buf))) {
		strbuf_reset(out);
		r = strbuf_addstr(out, "unknown");
	}
	strbuf_release(&path);
	return r;
}

void report_json_head(struct kpgo_json_writer *w, const char *mode, const char *release,
		      const char *profile, const char *sha, const char *output)
{
	kpgo_jw_object_begin(w, NULL);
	kpgo_jw_string(w, "mode", mode);
	kpgo_jw_string(w, "kernel_release", release);
	kpgo_jw_string(w, "profile", profile);
	kpgo_jw_string(w, "profile_sha256", sha);
	kpgo_jw_string(w, "report", output);
}

int report_json_tail(struct kpgo_json_writer *w, unsigned min_applied, bool ok)
{
	kpgo_jw_u64(w, "min_applied", min_applied);
	kpgo_jw_bool(w, "ok", ok);
	kpgo_jw_end(w);
	return print_json_doc(w);
}

static int print_json(const struct kpgo_report *rep, const char *output)
{
	const struct kpgo_report_counts *c = &rep->c;
	struct strbuf staged = STRBUF_INIT, sb = STRBUF_INIT;
	struct kpgo_json_writer w;
	uint64_t n;

	kpgo_jw_init(&w, &sb);
	report_json_head(&w, "gcc", rep->release, rep->profile, rep->profile_sha256, output);
	kpgo_jw_u64(&w, "objects", c->objects);
	if (kpgo_report_staged(rep->stage_report, &staged) && !kpgo_parse_u64(staged.buf, &n))
		kpgo_jw_u64(&w, "objects_staged", n);
	else
		kpgo_jw_null(&w, "objects_staged");
	strbuf_release(&staged);
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
	return report_json_tail(&w, rep->min_applied, c->ok);
}

int report_head(const struct report_opts *o, const char *profile, struct strbuf *rel,
		char sha[KPGO_SHA256_HEX])
{
	int r;

	if (o->release)
		r = strbuf_addstr(rel, o->release);
	else
		r = default_release(o->objtree, rel);
	if (r)
		return error("out of memory");
	r = kpgo_sha256_file(profile, sha);
	if (r)
		return error("cannot read '%s': %s", profile, strerror(-r));
	return 0;
}

int report_check_log(const char *log, size_t cc_lines, size_t long_lines)
{
	if (!cc_lines)
		return error("'%s' is no kernel build log: it has no compiler lines ('  CC      x.o'; was it V=1?)",
			     log);
	if (long_lines)
		warning("%zu lines of '%s' longer than %d bytes were skipped", long_lines, log,
			KPGO_BUILDLOG_LINE_MAX);
	return 0;
}

int report_write(const struct report_opts *o, const struct strbuf *text)
{
	int r;

	if (o->output) {
		r = kpgo_write_file_atomic(o->output, text->buf, text->len, 0644);
		if (r)
			return error("cannot write '%s': %s", o->output, strerror(-r));
	} else if (!o->json) {
		fwrite(text->buf, 1, text->len, stdout);
	}
	return 0;
}

int report_verdict(const struct report_opts *o, bool ok, const char *pct)
{
	if (fflush(stdout))
		return error("cannot write to standard output: %s", strerror(errno));
	if (ok)
		return 0;
	/* With --json and no -o there is no report to point to. */
	return error("only %s%% of the profile's functions applied (at least %u%% required)%s%s",
		     pct, o->min_applied, o->output || !o->json ? "; see " : "",
		     o->output ? o->output : o->json ? "" : "the report");
}

static int report_gcc(const struct report_opts *o)
{
	struct strbuf rel = STRBUF_INIT, stage_text = STRBUF_INIT, text = STRBUF_INIT;
	char sha[KPGO_SHA256_HEX], *real = NULL;
	const char *trees[2];
	struct kpgo_report rep;
	struct kpgo_error err;
	size_t n_trees = 0;
	int r, fd, ret = 1;

	fd = open(o->objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open object tree '%s': %s", o->objtree, strerror(errno));
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
	rep.min_applied = o->min_applied;
	rep.profile = o->profile;
	rep.headers = &o->headers;
	if (report_head(o, o->profile, &rel, sha))
		goto out;
	rep.release = rel.buf;
	rep.profile_sha256 = sha;
	if (kpgo_report_load_profile(&rep, o->profile, fd, &err)) {
		error("cannot read '%s': %s", o->profile, err.msg);
		goto out;
	}
	if (kpgo_buildlog_read(&rep.log, o->log, &err)) {
		error("cannot read '%s': %s", o->log, err.msg);
		goto out;
	}
	if (report_check_log(o->log, rep.log.cc_lines, rep.log.in.long_lines))
		goto out;
	if (o->stage) {
		r = kpgo_read_file(o->stage, &stage_text, 16 << 20);
		if (r) {
			error("cannot read '%s': %s", o->stage,
			      r == -EFBIG ? "larger than 16 MiB" : strerror(-r));
			goto out;
		}
		if (memchr(stage_text.buf, '\0', stage_text.len)) {
			error("cannot read '%s': not a text file", o->stage);
			goto out;
		}
		rep.stage_report = stage_text.buf;
	}

	if (kpgo_report_count(&rep) || kpgo_report_format(&rep, &text)) {
		error("out of memory");
		goto out;
	}
	if (report_write(o, &text))
		goto out;
	if (o->json) {
		if (print_json(&rep, o->output))
			goto out;
	} else if (verbosity > 0) {
		strbuf_reset(&text);
		if (!kpgo_report_format_counts(&rep, &text))
			fwrite(text.buf, 1, text.len, stderr);
	}
	ret = report_verdict(o, rep.c.ok, rep.c.pct_applied);
out:
	kpgo_report_release(&rep);
out_fd:
	close(fd);
	free(real);
	strbuf_release(&rel);
	strbuf_release(&stage_text);
	strbuf_release(&text);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_DEFS };
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "afdo", required_argument, NULL, 'a' },
		{ "defs", required_argument, NULL, OPT_DEFS },
		{ "objtree", required_argument, NULL, 't' },
		{ "build-log", required_argument, NULL, 'l' },
		{ "stage-report", required_argument, NULL, 's' },
		{ "min-applied", required_argument, NULL, 'm' },
		{ "kernel-release", required_argument, NULL, 'r' },
		{ "header", required_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .min_applied = 50 };
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
		case 'm':
			if (kpgo_parse_u64(optarg, &v) || v > 100) {
				ret = usage_error("report", "bad --min-applied '%s' (0 to 100)", optarg);
				goto out;
			}
			o.min_applied = (unsigned)v;
			break;
		case 'r':
			if (!*optarg || !text_ok(optarg)) {
				ret = usage_error("report", "bad --kernel-release");
				goto out;
			}
			o.release = optarg;
			break;
		case 'H':
			if (!header_ok(optarg)) {
				ret = usage_error("report", "bad --header '%s' (one line 'KEY: VALUE')",
						  optarg);
				goto out;
			}
			if (kpgo_strlist_add(&o.headers, optarg)) {
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
		ret = usage_error("report", "--stage-report is for GCC builds, not with --afdo");
	else if (o.defs && !o.afdo)
		ret = usage_error("report", "--defs is for Clang builds, with --afdo");
	else if (!(o.profile || o.afdo) || !o.objtree || !o.log)
		ret = usage_error("report",
				  "--profile (or --afdo), --objtree and --build-log are required");
	else
		ret = o.afdo ? report_clang(&o) : report_gcc(&o);
out:
	kpgo_strlist_clear(&o.headers);
	return ret;
}
