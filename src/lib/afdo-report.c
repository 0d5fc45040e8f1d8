// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report of a Clang build with a sample profile: the profile, clang's
 * coverage reports (afdo-cov.c) and, when given, kpgo afdo's definitions
 * table (afdo-defs.c) counted and explained; see afdo-report.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-report.h"
#include "buildlog.h"

static const char definitions[] =
	"Definitions. A profile function is one function of the sample profile (a\n"
	"line NAME:TOTAL:HEAD); its records are its body lines (OFFSET: COUNT), its\n"
	"samples their counts (lines of inlined callsites are not counted). For\n"
	"every function it compiles and finds in the profile, clang (with\n"
	"-mllvm -sample-profile-check-record-coverage=101 and\n"
	"-mllvm -sample-profile-check-sample-coverage=101) warns how many of the\n"
	"function's records and samples it applied: \"FILE:LINE: N of M available\n"
	"profile records (P%) were applied\", FILE:LINE being the line of the\n"
	"function's name (FILE is read with \".\" components and \"dir/..\" pairs\n"
	"removed). A profile function applied if clang reported such coverage for\n"
	"it. The log names no function, so the reports are counted: one per\n"
	"distinct FILE:LINE (a header's inline function, compiled into many\n"
	"objects, counts once: of its reports the one with the most records\n"
	"applied is kept), or more when one object reports a FILE:LINE more than\n"
	"once (functions one macro defines on one line). A function is not applied\n"
	"when clang never reported it: not compiled in this configuration, renamed,\n"
	"without line information, or with TOTAL 0 (clang skips those). A\n"
	"function's records and samples applied are clang's N of its M: M counts\n"
	"the records and samples of its hot inlined callsites too, where the\n"
	"profile has such blocks (kpgo afdo writes none).\n";

/* With a definitions table: how the reports are told apart. */
static const char definitions_defs[] =
	"Clang matches a profile by name alone, so every definition of a profile\n"
	"function's name that it compiles takes that profile. The definitions\n"
	"table (kpgo afdo --defs) tells them apart: each report's FILE:LINE is\n"
	"looked up in it (its SOURCE:LINE, read as FILE is). At a \"profile\" line\n"
	"it is that profile function: applied. At a \"weak\" line it is a weak\n"
	"definition that clang compiled with the strong one's profile; the linker\n"
	"drops it. Anywhere else it is a definition outside the profile that took\n"
	"a profile by name: a function that only shares its name with a profile\n"
	"function (a static function of a file or module the profile does not\n"
	"cover), compiled with that function's counts. Where one line holds\n"
	"several definitions (functions one macro defines), its first reports are\n"
	"taken as its profile definitions, then its weak ones. Records and\n"
	"samples applied are summed over the applied functions only.\n";

static const char definitions_tail[] =
	"--min-applied is checked against functions applied / profile functions.\n";

static void pct(char out[16], uint64_t a, uint64_t b)
{
	kpgo_report_pct(out, (double)a, (double)b);
}

void kpgo_afdo_report_init(struct kpgo_afdo_report *r)
{
	memset(r, 0, sizeof(*r));
	kpgo_report_head_init(&r->head);
	kpgo_afdo_defs_init(&r->defs);
	kpgo_afdo_cov_log_init(&r->log);
}

void kpgo_afdo_report_release(struct kpgo_afdo_report *r)
{
	kpgo_afdo_defs_release(&r->defs);
	kpgo_afdo_cov_log_release(&r->log);
	kpgo_report_head_release(&r->head);
}

int kpgo_afdo_report_check_summary(const struct kpgo_afdo_report *r, struct kpgo_error *err)
{
	if (r->summary && strcmp(r->summary->output_sha256, r->head.profile_sha256))
		return kpgo_error_set(err, -EINVAL,
				      "it is the summary of another sample profile ('%s', sha256 "
				      "%.16s...), not of '%s'",
				      r->summary->output, r->summary->output_sha256,
				      r->head.profile);
	return 0;
}

/*
 * The site's definition in the table: of the definitions at its FILE:LINE
 * the profile ones take the first reports (by ordinal), the weak ones the
 * next; a report beyond them is of a definition the table does not know.
 */
static enum kpgo_afdo_site_kind site_kind(const struct kpgo_afdo_defs *d,
					  const struct kpgo_afdo_site *s)
{
	size_t count[KPGO_AFDO_ROLES];

	kpgo_afdo_defs_at(d, s->file, s->line, count);
	if (s->ordinal <= count[KPGO_AFDO_ROLE_PROFILE])
		return KPGO_AFDO_SITE_PROFILE;
	if (s->ordinal - count[KPGO_AFDO_ROLE_PROFILE] <= count[KPGO_AFDO_ROLE_WEAK])
		return KPGO_AFDO_SITE_WEAK;
	return KPGO_AFDO_SITE_OUTSIDE;
}

void kpgo_afdo_report_count(struct kpgo_afdo_report *r)
{
	struct kpgo_afdo_report_counts *c = &r->c;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < r->log.n; i++) {
		struct kpgo_afdo_site *s = &r->log.sites[i];

		c->sites++;
		s->kind = r->defs_file ? site_kind(&r->defs, s) : KPGO_AFDO_SITE_PROFILE;
		if (s->kind == KPGO_AFDO_SITE_WEAK) {
			c->weak_sites++;
			continue;
		}
		if (s->kind == KPGO_AFDO_SITE_OUTSIDE) {
			c->outside_sites++;
			continue;
		}
		c->applied++;
		c->records_applied = kpgo_sat_add(c->records_applied, s->records_applied);
		c->records = kpgo_sat_add(c->records, s->records);
		c->samples_applied = kpgo_sat_add(c->samples_applied, s->samples_applied);
		c->samples = kpgo_sat_add(c->samples, s->samples);
	}
	/*
	 * More reports than functions: static functions of one name, or another
	 * build's log. With a table that belongs to the profile it cannot be:
	 * each profile line takes one report at most.
	 */
	c->capped = c->applied > r->prof.functions;
	if (c->capped)
		c->applied = r->prof.functions;
	c->not_applied = r->prof.functions - c->applied;
	pct(c->pct_applied, c->applied, r->prof.functions);
	pct(c->pct_records, c->records_applied, c->records);
	pct(c->pct_records_all, c->records_applied, r->prof.records);
	pct(c->pct_samples, c->samples_applied, c->samples);
	pct(c->pct_samples_all, c->samples_applied, r->prof.samples);
	c->ok = kpgo_report_pct_ok(&r->head, c->pct_applied);
}

/* The definition lines of the table: what was weak, and what was outside the profile. */
static int format_defs(const struct kpgo_afdo_report *r, struct strbuf *out)
{
	const struct kpgo_afdo_report_counts *c = &r->c;
	size_t i, listed = 0;
	int ret = 0;

	ret |= strbuf_addf(out,
			   "weak definitions compiled with the strong one's profile (dropped by "
			   "the linker): %" PRIu64 "\n",
			   c->weak_sites);
	ret |= strbuf_addf(out,
			   "definitions outside the profile that took a profile by name: %" PRIu64,
			   c->outside_sites);
	if (!c->outside_sites)
		return ret | strbuf_addch(out, '\n');
	ret |= strbuf_addstr(out,
			     ": each shares its name with a profile function but is another "
			     "function (a static function of a file or module the profile does not "
			     "cover), and clang compiled it with that function's counts: two "
			     "functions of one name mixed\n");
	for (i = 0; i < r->log.n && listed < KPGO_AFDO_REPORT_OUTSIDE_LIST; i++) {
		const struct kpgo_afdo_site *s = &r->log.sites[i];

		if (s->kind != KPGO_AFDO_SITE_OUTSIDE)
			continue;
		ret |= strbuf_addf(out, "  %s:%" PRIu32, s->file, s->line);
		if (s->ordinal > 1)
			ret |= strbuf_addf(out, " (report %" PRIu32 " of that line in one object)",
					   s->ordinal);
		ret |= strbuf_addch(out, '\n');
		listed++;
	}
	if (c->outside_sites > listed)
		ret |= strbuf_addf(out, "  and %" PRIu64 " more\n", c->outside_sites - listed);
	if (!c->applied)
		ret |= strbuf_addstr(out,
				     "  (no report is at a profile definition of the table: were the "
				     "two builds given the source files by other names, one relative, "
				     "one absolute?)\n");
	return ret;
}

int kpgo_afdo_report_format_counts(const struct kpgo_afdo_report *r, struct strbuf *out)
{
	const struct kpgo_afdo_report_counts *c = &r->c;
	const struct kpgo_afdo_cov_log *log = &r->log;
	const struct kpgo_afdo_text *p = &r->prof;
	int ret = 0;

	ret |= strbuf_addf(out,
			   "compiler lines in the build log (objects compiled): %zu\n"
			   "profile functions: %" PRIu64 " (records: %" PRIu64 ", samples: %" PRIu64
			   ")\n"
			   "profile functions with TOTAL 0, which clang skips: %" PRIu64 "\n",
			   log->cc_lines, p->functions, p->records, p->samples, p->zero_total);
	if (r->defs_file)
		ret |= strbuf_addf(out, "definitions table: %zu profile, %zu weak, %zu left out\n",
				   r->defs.roles[KPGO_AFDO_ROLE_PROFILE],
				   r->defs.roles[KPGO_AFDO_ROLE_WEAK],
				   r->defs.roles[KPGO_AFDO_ROLE_LEFT_OUT]);
	ret |= strbuf_addf(out,
			   "coverage warnings in the log: %zu on records, %zu on samples; %zu repeated "
			   "the FILE:LINE of another object (merged)\n",
			   log->records_warnings, log->samples_warnings, log->repeats);
	if (r->defs_file)
		ret |= strbuf_addf(out,
				   "functions applied: %" PRIu64
				   " (%s%%): clang reported coverage at "
				   "their definition (a profile line of the definitions table)\n",
				   c->applied, c->pct_applied);
	else
		ret |= strbuf_addf(out,
				   "functions applied: %" PRIu64
				   " (%s%%): clang found their profile and "
				   "reported its coverage (distinct FILE:LINE)\n",
				   c->applied, c->pct_applied);
	if (c->capped)
		ret |= strbuf_addf(out,
				   "  (clang reported %" PRIu64 " distinct FILE:LINE, more than the "
				   "profile has functions: counted as all of them)\n",
				   c->sites);
	if (r->defs_file)
		ret |= format_defs(r, out);
	ret |= strbuf_addf(out,
			   "records applied: %" PRIu64 " of the %" PRIu64 " records of the applied "
			   "functions (%s%%); %s%% of all profile records\n"
			   "samples applied: %" PRIu64 " of the %" PRIu64 " samples of the applied "
			   "functions (%s%%); %s%% of all profile samples\n"
			   "functions not applied: %" PRIu64
			   ": in the profile, but clang reported no "
			   "coverage for them (not compiled in this configuration, renamed, no line "
			   "information, or TOTAL 0)\n",
			   c->records_applied, c->records, c->pct_records, c->pct_records_all,
			   c->samples_applied, c->samples, c->pct_samples, c->pct_samples_all,
			   c->not_applied);
	if (log->unpaired)
		ret |= strbuf_addf(out,
				   "coverage reports with only one of the two warnings (records, "
				   "samples): %zu\n",
				   log->unpaired);
	ret |= strbuf_addf(out, "coverage lines skipped as malformed: %zu", log->malformed);
	if (log->malformed)
		ret |= strbuf_addf(out, " (the first on line %zu of the log)", log->first_malformed);
	ret |= strbuf_addch(out, '\n');
	if (log->in.long_lines)
		ret |= strbuf_addf(out, "log lines longer than %d bytes, skipped unread: %zu\n",
				   KPGO_BUILDLOG_LINE_MAX, log->in.long_lines);
	ret |= kpgo_report_verdict(&r->head, c->pct_applied, c->ok, out);
	return ret ? -ENOMEM : 0;
}

int kpgo_afdo_report_format(const struct kpgo_afdo_report *r, struct strbuf *out)
{
	size_t i;
	int ret = 0;

	ret |= strbuf_addf(out, "kpgo profile report (Clang sample profile)\nkernel release: %s\n",
			   r->head.release.buf);
	for (i = 0; r->head.headers && i < r->head.headers->n; i++)
		ret |= strbuf_addf(out, "%s\n", r->head.headers->items[i]);
	if (r->summary) {
		/* As kpgo afdo said it: its warning, then its lines. */
		struct strbuf warning = STRBUF_INIT;

		ret |= kpgo_afdo_summary_warning(r->summary, &warning);
		if (warning.len)
			ret |= strbuf_addf(out, "warning: %s\n", warning.buf);
		strbuf_release(&warning);
		ret |= kpgo_afdo_summary_format(r->summary, out);
	}
	ret |= strbuf_addf(out, "sample profile: %s\nsample profile sha256: %s\n", r->head.profile,
			   r->head.profile_sha256);
	if (r->defs_file)
		ret |= strbuf_addf(out, "definitions table: %s\n", r->defs_file);
	ret |= strbuf_addf(out, "\n%s%s%s\n", definitions, r->defs_file ? definitions_defs : "",
			   definitions_tail);
	ret |= kpgo_afdo_report_format_counts(r, out);
	return ret ? -ENOMEM : 0;
}
