/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_HTML_REPORT_H
#define KPGO_HTML_REPORT_H

#include <stddef.h>

#include "profstat.h"
#include "strbuf.h"

/* Largest pgo-report read into a report. */
#define KPGO_HTML_PGO_REPORT_MAX (64u << 20)
/* Lines of one pgo-report section shown; the rest are counted. */
#define KPGO_HTML_SECTION_LINES 400

/**
 * struct kpgo_html_input - what a report shows besides the statistics
 * @file: the profile's file name, as given
 * @sha256: its sha256 (hex), to tell whether @pgo_report is of this profile
 * @objtree: where the names came from (NULL: not named)
 * @top: rows of the function and object tables (subsystems: the chart
 *	shows at most 15 and the rest as one bar; the table all of them)
 * @pgo_report, @pgo_report_len: a build's pgo-report (kpgo report's text,
 *	GCC's or Clang's), untrusted bytes; NULL for none
 * @pgo_report_name: its file name
 * @generator: what made the report ("kpgo 0.1.0")
 */
struct kpgo_html_input {
	const char *file;
	const char *sha256;
	const char *objtree;
	size_t top;
	const char *pgo_report;
	size_t pgo_report_len;
	const char *pgo_report_name;
	const char *generator;
};

/**
 * kpgo_html_report() - a profile's report as one self-contained HTML page
 *
 * Appends to @out an HTML page that needs nothing else: inline CSS and SVG,
 * no script, no link to anywhere. It is also well-formed XML (XHTML
 * syntax), so XML tools can check it. Every string from the profile, the
 * .gcno files or the pgo-report is escaped; bytes that are not valid UTF-8,
 * and control characters, appear as \xNN.
 *
 * Sections: the profile's identity and summary (counts, coverage, how
 * concentrated the counts are), a chart of the subsystems' shares, the
 * hottest functions and objects, every subsystem with its coverage, what
 * the build applied (from @in->pgo_report: its count lines, the verdict
 * highlighted, whether it names this profile, its lists folded), and the
 * manifest. Returns 0 or -ENOMEM.
 */
int kpgo_html_report(const struct kpgo_pstat *ps, const struct kpgo_html_input *in,
		     struct strbuf *out);

/*
 * Appends the section on what the build applied, from @in->pgo_report
 * (html-pgo-report.c). Returns 0 or -ENOMEM.
 */
int kpgo_html_pgo_report(const struct kpgo_html_input *in, struct strbuf *out);

/* Appends @len bytes of @s escaped for HTML/XML text and attributes (see above). */
int kpgo_html_escape(struct strbuf *out, const char *s, size_t len);

#endif
