// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo info: what a profile archive holds, by name, subsystem and object. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "html-report.h"
#include "json-writer.h"
#include "profstat.h"
#include "sha256.h"

static const char usage_text[] =
	"usage: kpgo info [options] FILE.kpgo\n"
	"   or: kpgo info --html OUT.html [--pgo-report FILE] [options] FILE.kpgo\n"
	"\n"
	"Shows the manifest, the totals, the coverage (objects and functions with\n"
	"any count), and the hottest subsystems, objects and functions with their\n"
	"share of the profile. A function's count is the sum of its arc counters.\n"
	"The whole archive is verified.\n"
	"\n"
	"  -t, --objtree DIR   name the functions from the instrumented build's .gcno\n"
	"                      files: its object tree, a copy of its .gcno files (the\n"
	"                      -pgo-instr headers package), or a gcov debugfs directory\n"
	"  -n, --top N         how many of each list (default 10; 0: all)\n"
	"  -d, --depth N       directory levels of a subsystem (default 2: net/ipv4)\n"
	"      --json          print JSON (format version 1, see kpgo(1))\n"
	"      --html OUT      write a self-contained HTML report to OUT, atomically\n"
	"                      (default --top 25)\n"
	"  -r, --pgo-report FILE\n"
	"                      with --html: a build's pgo-report (kpgo report), shown\n"
	"                      in the report with what applied\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 usage error.\n";

enum { OPT_JSON = 1000, OPT_HTML };

/*
 * A name from a .gcno as a JSON string: bytes that are not UTF-8 as the
 * text \xNN (JSON has no way to carry them), as in the text output.
 */
static void jw_name(struct kpgo_json_writer *w, const char *key, const char *s)
{
	struct strbuf b = STRBUF_INIT;

	if (!kpgo_strbuf_add_utf8(&b, s))
		kpgo_jw_string(w, key, b.buf);
	else if (!w->err)
		w->err = -ENOMEM;
	strbuf_release(&b);
}

/* The members every function entry of `kpgo info` and `kpgo diff` has. */
void json_pstat_fn(struct kpgo_json_writer *w, const struct kpgo_pstat *ps,
		   const struct kpgo_pstat_fn *f)
{
	static const char *const state[] = { "none", "exact", "changed" };
	char hex[16];

	kpgo_jw_string(w, "object", ps->objs[f->obj].path);
	kpgo_jw_u64(w, "ident", f->ident);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, f->lineno_checksum);
	kpgo_jw_string(w, "lineno_checksum", hex);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, f->cfg_checksum);
	kpgo_jw_string(w, "cfg_checksum", hex);
	kpgo_jw_string(w, "named", state[f->state]);
	if (f->name) {
		jw_name(w, "name", f->name);
		jw_name(w, "file", f->file);
		kpgo_jw_u64(w, "line", f->line);
	} else {
		kpgo_jw_null(w, "name");
		kpgo_jw_null(w, "file");
		kpgo_jw_null(w, "line");
	}
}

void json_pstat_names(struct kpgo_json_writer *w, const struct kpgo_pstat *ps, const char *objtree)
{
	const struct kpgo_pstat_names *n = &ps->names;

	if (!ps->named) {
		kpgo_jw_null(w, "names");
		return;
	}
	kpgo_jw_object_begin_inline(w, "names");
	kpgo_jw_string(w, "objtree", objtree);
	kpgo_jw_u64(w, "objects_gcno", n->objects_gcno);
	kpgo_jw_u64(w, "objects_no_gcno", n->objects_no_gcno);
	kpgo_jw_u64(w, "objects_other_build", n->objects_other_build);
	kpgo_jw_u64(w, "functions_exact", n->fns_exact);
	kpgo_jw_u64(w, "functions_changed", n->fns_changed);
	kpgo_jw_u64(w, "functions_unnamed", n->fns_none);
	kpgo_jw_u64(w, "count_named", n->count_named);
	kpgo_jw_end(w);
}

int parse_top(const char *cmd, const char *arg, size_t *top)
{
	uint64_t v;

	if (kpgo_parse_u64(arg, &v) || v > 10000)
		return usage_error(cmd, "bad --top '%s'", arg);
	*top = (size_t)v;
	return 0;
}

int parse_depth(const char *cmd, const char *arg, unsigned *depth)
{
	uint64_t v;

	if (kpgo_parse_u64(arg, &v) || v < 1 || v > KPGO_PSTAT_DEPTH_MAX)
		return usage_error(cmd, "bad --depth '%s' (1 to %u)", arg, KPGO_PSTAT_DEPTH_MAX);
	*depth = (unsigned)v;
	return 0;
}

int pstat_open(struct kpgo_pstat *ps, const char *file, unsigned depth, const char *objtree)
{
	struct kpgo_error err;

	if (kpgo_pstat_load(ps, file, depth, &err))
		return error("cannot read '%s': %s", file, err.msg);
	if (objtree && kpgo_pstat_name(ps, objtree, &err))
		return error("%s", err.msg);
	return 0;
}

static int print_json(const struct kpgo_pstat *ps, const char *file, const char *objtree, size_t top)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_json_writer w;
	size_t *idx = NULL, i;
	ssize_t n;

	kpgo_jw_init(&w, &out);
	kpgo_jw_object_begin(&w, NULL);
	kpgo_jw_u64(&w, "version", KPGO_INFO_JSON_VERSION);
	kpgo_jw_string(&w, "file", file);
	kpgo_jw_object_begin(&w, "manifest");
	for (i = 0; i < ps->manifest.n; i++)
		kpgo_jw_string(&w, ps->manifest.e[i].key, ps->manifest.e[i].value);
	kpgo_jw_end(&w);
	kpgo_jw_object_begin_inline(&w, "totals");
	kpgo_jw_u64(&w, "objects", ps->n_objs);
	kpgo_jw_u64(&w, "functions", ps->n_fns);
	kpgo_jw_u64(&w, "counters", ps->counters);
	kpgo_jw_u64(&w, "sum_all", ps->sum);
	kpgo_jw_u64(&w, "max", ps->max);
	kpgo_jw_end(&w);
	kpgo_jw_object_begin_inline(&w, "coverage");
	kpgo_jw_u64(&w, "objects", ps->n_objs);
	kpgo_jw_u64(&w, "objects_run", ps->objs_run);
	kpgo_jw_u64(&w, "functions", ps->n_fns);
	kpgo_jw_u64(&w, "functions_run", ps->fns_run);
	kpgo_jw_end(&w);
	json_pstat_names(&w, ps, objtree);
	kpgo_jw_u64(&w, "subsystem_depth", ps->depth);

	kpgo_jw_array_begin(&w, "hottest_subsystems");
	n = kpgo_pstat_hottest_groups(ps, top, &idx);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		const struct kpgo_pstat_group *g = &ps->groups[idx[i]];

		kpgo_jw_object_begin_inline(&w, NULL);
		kpgo_jw_string(&w, "directory", g->dir);
		kpgo_jw_u64(&w, "count", g->count);
		kpgo_jw_fraction(&w, "share", kpgo_pstat_share(ps, g->count));
		kpgo_jw_u64(&w, "objects", g->n_objs);
		kpgo_jw_u64(&w, "objects_run", g->n_objs_run);
		kpgo_jw_u64(&w, "functions", g->n_fns);
		kpgo_jw_u64(&w, "functions_run", g->n_fns_run);
		kpgo_jw_end(&w);
	}
	free(idx);
	kpgo_jw_end(&w);
	if (n < 0)
		goto nomem;

	kpgo_jw_array_begin(&w, "hottest_objects");
	n = kpgo_pstat_hottest_objs(ps, top, &idx);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		const struct kpgo_pstat_obj *o = &ps->objs[idx[i]];

		kpgo_jw_object_begin_inline(&w, NULL);
		kpgo_jw_string(&w, "object", o->path);
		kpgo_jw_u64(&w, "count", o->count);
		kpgo_jw_fraction(&w, "share", kpgo_pstat_share(ps, o->count));
		kpgo_jw_u64(&w, "functions", o->n_fns);
		kpgo_jw_u64(&w, "functions_run", o->n_run);
		kpgo_jw_end(&w);
	}
	free(idx);
	kpgo_jw_end(&w);
	if (n < 0)
		goto nomem;

	kpgo_jw_array_begin(&w, "hottest_functions");
	n = kpgo_pstat_hottest_fns(ps, top, &idx);
	for (i = 0; n > 0 && i < (size_t)n; i++) {
		const struct kpgo_pstat_fn *f = &ps->fns[idx[i]];

		kpgo_jw_object_begin_inline(&w, NULL);
		json_pstat_fn(&w, ps, f);
		kpgo_jw_u64(&w, "count", f->count);
		kpgo_jw_fraction(&w, "share", kpgo_pstat_share(ps, f->count));
		kpgo_jw_end(&w);
	}
	free(idx);
	kpgo_jw_end(&w);
	if (n < 0)
		goto nomem;
	kpgo_jw_end(&w);
	return print_json_doc(&w);
nomem:
	if (!w.err)
		w.err = -ENOMEM;
	return print_json_doc(&w);
}

static int write_html(const struct kpgo_pstat *ps, const char *file, const char *objtree,
		      const char *pgo_report, const char *out, size_t top)
{
	struct kpgo_html_input in = {
		.file = file,
		.objtree = objtree,
		.top = top,
		.generator = "kpgo " KPGO_VERSION,
	};
	struct strbuf report = STRBUF_INIT, html = STRBUF_INIT;
	char sha[KPGO_SHA256_HEX];
	int r, ret = 1;

	r = kpgo_sha256_file(file, sha);
	if (r)
		return error("cannot read '%s': %s", file, strerror(-r));
	in.sha256 = sha;
	if (pgo_report) {
		r = kpgo_read_file(pgo_report, &report, KPGO_HTML_PGO_REPORT_MAX);
		if (r) {
			error("cannot read '%s': %s", pgo_report,
			      r == -EFBIG ? "larger than 64 MiB" : strerror(-r));
			goto out;
		}
		in.pgo_report = report.buf;
		in.pgo_report_len = report.len;
		in.pgo_report_name = pgo_report;
	}
	if (kpgo_html_report(ps, &in, &html)) {
		error("out of memory");
		goto out;
	}
	r = kpgo_write_file_atomic(out, html.buf, html.len, 0644);
	if (r) {
		error("cannot write '%s': %s", out, strerror(-r));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&report);
	strbuf_release(&html);
	return ret;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "pgo-report", required_argument, NULL, 'r' },
		{ "objtree", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'n' },
		{ "depth", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *objtree = NULL, *html = NULL, *pgo_report = NULL, *file;
	struct strbuf text = STRBUF_INIT;
	unsigned depth = KPGO_PSTAT_DEPTH_DEFAULT;
	struct kpgo_pstat ps;
	bool json = false, top_set = false;
	size_t top = 10;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "t:n:d:r:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_HTML: html = optarg; break;
		case 'r': pgo_report = optarg; break;
		case 't': objtree = optarg; break;
		case 'n':
			if (parse_top("info", optarg, &top))
				return EXIT_USAGE;
			top_set = true;
			break;
		case 'd':
			if (parse_depth("info", optarg, &depth))
				return EXIT_USAGE;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("info", "bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("info", "expected one profile archive");
	if (json && html)
		return usage_error("info", "--json and --html exclude each other");
	if (pgo_report && !html)
		return usage_error("info", "--pgo-report goes with --html");
	if (html && !top_set)
		top = 25;
	file = argv[optind];
	kpgo_pstat_init(&ps);
	if (pstat_open(&ps, file, depth, objtree))
		goto out;
	if (html) {
		ret = write_html(&ps, file, objtree, pgo_report, html, top);
		goto out;
	}
	if (json) {
		if (print_json(&ps, file, objtree, top))
			goto out;
	} else {
		if (kpgo_pstat_format(&ps, file, top, &text)) {
			error("out of memory");
			goto out;
		}
		fwrite(text.buf, 1, text.len, stdout);
	}
	ret = 0;
out:
	strbuf_release(&text);
	kpgo_pstat_release(&ps);
	return ret;
}
