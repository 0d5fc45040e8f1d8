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
#include "report.h"
#include "sha256.h"

static const char usage_text[] =
	"usage: kpgo report --profile FILE.kpgo --objtree DIR --build-log LOG [options]\n"
	"\n"
	"Reports how much of the profile the optimized build in DIR applied, from the\n"
	"profile, the objects in DIR and GCC's profile warnings in LOG (the build's\n"
	"make output, with --output-sync and without V=1). A profile object applied\n"
	"if DIR has its .o; functions are counted from the FUNCTION records and the\n"
	"warnings. The report explains its numbers. The count lines go to stderr.\n"
	"\n"
	"  -p, --profile FILE        the profile the build was staged from\n"
	"  -t, --objtree DIR         the build's object tree (O=)\n"
	"  -l, --build-log LOG       the build's output\n"
	"  -s, --stage-report FILE   kpgo stage's --report, included\n"
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

static void json_u64(const char *key, uint64_t v)
{
	printf(",\n  \"%s\": %" PRIu64, key, v);
}

static void print_json(const struct kpgo_report *rep, const char *output)
{
	const struct kpgo_report_counts *c = &rep->c;
	struct strbuf staged = STRBUF_INIT;
	uint64_t n;

	printf("{\n  \"kernel_release\": ");
	json_str(stdout, rep->release);
	printf(",\n  \"profile\": ");
	json_str(stdout, rep->profile);
	printf(",\n  \"profile_sha256\": \"%s\",\n  \"report\": ", rep->profile_sha256);
	if (output)
		json_str(stdout, output);
	else
		printf("null");
	json_u64("objects", c->objects);
	printf(",\n  \"objects_staged\": ");
	if (kpgo_report_staged(rep->stage_report, &staged) && !kpgo_parse_u64(staged.buf, &n))
		printf("%" PRIu64, n);
	else
		printf("null");
	json_u64("objects_applied", c->objects_applied);
	printf(",\n  \"objects_applied_pct\": %s", c->pct_objects);
	printf(",\n  \"objects_applied_weighted_pct\": %s", c->pct_weighted);
	json_u64("functions", c->functions);
	json_u64("functions_in_objects_not_compiled", c->functions_unbuilt);
	json_u64("functions_dropped", c->dropped);
	json_u64("functions_stale", c->stale);
	json_u64("functions_applied_at_most", c->at_most);
	printf(",\n  \"functions_applied_at_most_pct\": %s", c->pct_at_most);
	json_u64("functions_applied", c->applied);
	printf(",\n  \"functions_applied_pct\": %s", c->pct_applied);
	json_u64("objects_without_profile", c->noobj);
	json_u64("functions_without_profile", c->nofunc);
	json_u64("other_warnings", c->other);
	printf(",\n  \"min_applied\": %u,\n  \"ok\": %s\n}\n", rep->min_applied,
	       c->ok ? "true" : "false");
	strbuf_release(&staged);
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_JSON = 256 };
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
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
	const char *profile = NULL, *objtree = NULL, *log = NULL, *stage = NULL;
	const char *release = NULL, *output = NULL;
	struct strbuf rel = STRBUF_INIT, stage_text = STRBUF_INIT, text = STRBUF_INIT;
	struct kpgo_strlist headers = { 0 };
	char sha[KPGO_SHA256_HEX], *real = NULL;
	const char *trees[2];
	struct kpgo_report rep;
	struct kpgo_error err;
	unsigned min_applied = 50;
	size_t n_trees = 0;
	bool json = false;
	int c, r, fd = -1, ret = 1;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "p:t:l:s:m:r:H:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 't': objtree = optarg; break;
		case 'l': log = optarg; break;
		case 's': stage = optarg; break;
		case 'm':
			if (kpgo_parse_u64(optarg, &v) || v > 100)
				return usage_error("report", "bad --min-applied '%s' (0 to 100)", optarg);
			min_applied = (unsigned)v;
			break;
		case 'r':
			if (!*optarg || !text_ok(optarg))
				return usage_error("report", "bad --kernel-release");
			release = optarg;
			break;
		case 'H':
			if (!header_ok(optarg))
				return usage_error("report", "bad --header '%s' (one line 'KEY: VALUE')",
						   optarg);
			if (kpgo_strlist_add(&headers, optarg)) {
				kpgo_strlist_clear(&headers);
				return error("out of memory");
			}
			break;
		case 'o': output = optarg; break;
		case OPT_JSON: json = true; break;
		case 'q': verbosity = 0; break;
		case 'h':
			kpgo_strlist_clear(&headers);
			fputs(usage_text, stdout);
			return 0;
		default: kpgo_strlist_clear(&headers); return usage_error("report", "bad option");
		}
	}
	if (optind != argc || !profile || !objtree || !log) {
		kpgo_strlist_clear(&headers);
		if (optind != argc)
			return usage_error("report", "unexpected argument '%s'", argv[optind]);
		return usage_error("report", "--profile, --objtree and --build-log are required");
	}

	fd = open(objtree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		error("cannot open object tree '%s': %s", objtree, strerror(errno));
		kpgo_strlist_clear(&headers);
		return 1;
	}
	/* GCC names a missing .gcda by the object tree's real path (kbuild's abs_objtree). */
	real = realpath(objtree, NULL);
	if (real)
		trees[n_trees++] = real;
	if (objtree[0] == '/' && (!real || strcmp(real, objtree)))
		trees[n_trees++] = objtree;
	if (kpgo_report_init(&rep, trees, n_trees)) {
		error("out of memory");
		goto out_fd;
	}
	rep.min_applied = min_applied;
	rep.profile = profile;
	rep.headers = &headers;
	if (!release) {
		if (default_release(objtree, &rel)) {
			error("out of memory");
			goto out;
		}
		release = rel.buf;
	}
	rep.release = release;

	r = kpgo_sha256_file(profile, sha);
	if (r) {
		error("cannot read '%s': %s", profile, strerror(-r));
		goto out;
	}
	rep.profile_sha256 = sha;
	if (kpgo_report_load_profile(&rep, profile, fd, &err)) {
		error("cannot read '%s': %s", profile, err.msg);
		goto out;
	}
	if (kpgo_buildlog_read(&rep.log, log, &err)) {
		error("cannot read '%s': %s", log, err.msg);
		goto out;
	}
	if (!rep.log.cc_lines) {
		error("'%s' is no kernel build log: it has no compiler lines ('  CC      x.o'; was it V=1?)",
		      log);
		goto out;
	}
	if (rep.log.long_lines)
		warning("%zu lines of '%s' longer than %d bytes were skipped", rep.log.long_lines,
			log, KPGO_BUILDLOG_LINE_MAX);
	if (stage) {
		r = kpgo_read_file(stage, &stage_text, 16 << 20);
		if (r) {
			error("cannot read '%s': %s", stage,
			      r == -EFBIG ? "larger than 16 MiB" : strerror(-r));
			goto out;
		}
		if (memchr(stage_text.buf, '\0', stage_text.len)) {
			error("cannot read '%s': not a text file", stage);
			goto out;
		}
		rep.stage_report = stage_text.buf;
	}

	if (kpgo_report_count(&rep) || kpgo_report_format(&rep, &text)) {
		error("out of memory");
		goto out;
	}
	if (output) {
		r = kpgo_write_file_atomic(output, text.buf, text.len, 0644);
		if (r) {
			error("cannot write '%s': %s", output, strerror(-r));
			goto out;
		}
	} else if (!json) {
		fwrite(text.buf, 1, text.len, stdout);
	}
	if (json) {
		print_json(&rep, output);
	} else if (verbosity > 0) {
		strbuf_reset(&text);
		if (!kpgo_report_format_counts(&rep, &text))
			fwrite(text.buf, 1, text.len, stderr);
	}
	if (fflush(stdout)) {
		error("cannot write to standard output: %s", strerror(errno));
		goto out;
	}
	if (!rep.c.ok) {
		/* With --json and no -o there is no report to point to. */
		error("only %s%% of the profile's functions applied (at least %u%% required)%s%s",
		      rep.c.pct_applied, min_applied, output || !json ? "; see " : "",
		      output ? output : json ? "" : "the report");
		goto out;
	}
	ret = 0;
out:
	kpgo_report_release(&rep);
out_fd:
	close(fd);
	free(real);
	kpgo_strlist_clear(&headers);
	strbuf_release(&rel);
	strbuf_release(&stage_text);
	strbuf_release(&text);
	return ret;
}
