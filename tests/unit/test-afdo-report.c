// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afdo-report.c: the counts of the Clang report, without and with kpgo
 * afdo's definitions table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afdo-log.h"
#include "afdo-report.h"
#include "tap.h"

/* --- the counts ---------------------------------------------------------- */

static void test_counts(void)
{
	struct kpgo_afdo_report r;
	struct strbuf out = STRBUF_INIT;
	size_t i;

	kpgo_afdo_report_init(&r);
	kpgo_afdo_cov_log_release(&r.log); /* parse() sets it up again */
	is_int(parse(&r.log, sample, sizeof(sample) - 1, 64), 0, "the sample log");
	r.prof.functions = 12;
	r.prof.records = 40;
	r.prof.samples = 0;
	r.head.min_applied = 50;
	kpgo_afdo_report_count(&r);
	is_int(r.c.sites, 6, "six sites");
	is_int(r.c.applied, 6, "six applied");
	ok(!r.c.capped, "not capped");
	is_int(r.c.not_applied, 6, "six not applied");
	is_str(r.c.pct_applied, "50.0", "50.0%%");
	ok(r.c.ok, "50.0 is at least 50");
	is_int(r.c.records_applied, 10, "records applied 3+2+3+1+0+1");
	is_int(r.c.records, 19, "of 4+2+3+9+0+1");
	is_str(r.c.pct_records, "52.6", "  52.6%%");
	is_str(r.c.pct_records_all, "25.0", "  25.0%% of the profile's 40");
	is_int(r.c.samples_applied, 85, "samples applied 30+20+30+5");
	is_str(r.c.pct_samples_all, "0.0", "a profile without samples: 0.0, no division by zero");

	/* More sites than functions: capped, and said. */
	r.prof.functions = 4;
	kpgo_afdo_report_count(&r);
	ok(r.c.capped && r.c.applied == 4 && r.c.not_applied == 0, "capped at the functions");
	is_str(r.c.pct_applied, "100.0", "100.0%%");
	kpgo_afdo_report_format_counts(&r, &out);
	ok(strstr(out.buf, "clang reported 6 distinct FILE:LINE, more than the profile has "
			   "functions") != NULL,
	   "the report says so");
	ok(strstr(out.buf, "coverage lines skipped as malformed: 1 (the first on line 15 of "
			   "the log)\n") != NULL,
	   "and names the first malformed line");

	/* 0 functions (not from the reader, which refuses that): no division by zero. */
	r.prof.functions = 0;
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "0.0", "0 functions: 0.0%%");
	ok(!r.c.ok, "  not ok");
	kpgo_afdo_cov_log_release(&r.log);

	/* The percentage as printed is what is checked: 1999 of 4000 is 49.975, printed 50.0. */
	r.prof.functions = 4000;
	strbuf_reset(&out);
	strbuf_addstr(&out, "  CC      a.o\n");
	for (i = 1; i <= 1999; i++)
		strbuf_addf(&out,
			    "warning: f.c:%zu: 1 of 1 available profile records (100%%) were "
			    "applied\n",
			    i);
	is_int(parse(&r.log, out.buf, out.len, out.len), 0, "1999 functions");
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "50.0", "1999 of 4000 printed as 50.0");
	ok(r.c.ok, "  which is at least 50");
	r.prof.functions = 4006;
	kpgo_afdo_report_count(&r);
	is_str(r.c.pct_applied, "49.9", "1999 of 4006 printed as 49.9");
	ok(!r.c.ok, "  which is below 50");
	strbuf_release(&out);
	kpgo_afdo_report_release(&r);
}

/* --- the counts with a definitions table -------------------------------- */

/*
 * Two objects: f, h (a header's, named two ways), two functions of one
 * macro line (a.c:20, the profile's m1 and a weak m2), a weak w, and two
 * reports the table does not hold as the profile's: x.c:7 (not in it) and
 * c.c:9 (a left-out static s there; the report is of another function).
 */
static const char defs_log[] = "  CC      kernel/a.o\n" REC("../kernel/a.c", 10, 1,
							    2) SMP("../kernel/a.c", 10, 10, 20)
	REC("../include/h.h", 5, 1, 1) SMP("../include/h.h", 5, 5, 5) REC("../kernel/a.c", 20, 2, 4)
		SMP("../kernel/a.c", 20, 30, 40) REC("../kernel/a.c", 20, 100, 100)
			SMP("../kernel/a.c", 20, 1000,
			    1000) "  CC      kernel/b.o\n" REC("./../include/h.h", 5, 0, 1)
				SMP("./../include/h.h", 5, 0, 5) REC("../kernel/b.c", 3, 7, 7)
					SMP("../kernel/b.c", 3, 70, 70)
						REC("../drivers/x.c", 7, 9, 9) SMP("../drivers/x.c",
										   7, 90, 90)
							REC("../kernel/c.c", 9, 8, 8)
								SMP("../kernel/c.c", 9, 80, 80);

static const char defs_table[] = KPGO_AFDO_DEFS_HEAD "\n"
						     "f\tprofile\t../kernel/a.c\t10\n"
						     "h\tprofile\t../include/h.h\t5\n"
						     "m1\tprofile\t../kernel/a.c\t20\n"
						     "m2\tprofile\t../kernel/m.c\t1\n"
						     "m2\tweak\t../kernel/a.c\t20\n"
						     "s\tleft-out\t../kernel/c.c\t9\n"
						     "s\tleft-out\t../kernel/d.c\t9\n"
						     "w\tprofile\t../kernel/w.c\t2\n"
						     "w\tweak\t../kernel/b.c\t3\n";

static void test_counts_defs(void)
{
	static const char *const kinds[] = { "profile", "weak", "outside" };
	struct strbuf out = STRBUF_INIT;
	struct kpgo_afdo_report r;
	struct kpgo_error err;
	size_t i;

	kpgo_afdo_report_init(&r);
	is_int(parse(&r.log, defs_log, sizeof(defs_log) - 1, 7), 0, "the log parses");
	is_int(r.log.repeats, 1, "h.h:5, named two ways, is one site");
	is_int(kpgo_afdo_defs_parse(&r.defs, defs_table, sizeof(defs_table) - 1, &err), 0,
	       "the table parses");
	r.defs_file = "defs";
	r.prof.functions = 5;
	r.prof.records = 20;
	r.prof.samples = 200;
	r.head.min_applied = 60;
	kpgo_afdo_report_count(&r);
	for (i = 0; i < r.log.n; i++)
		strbuf_addf(&out, "%s:%u#%u %s\n", r.log.sites[i].file, r.log.sites[i].line,
			    r.log.sites[i].ordinal, kinds[r.log.sites[i].kind]);
	is_str(out.buf,
	       "../drivers/x.c:7#1 outside\n"
	       "../include/h.h:5#1 profile\n"
	       "../kernel/a.c:10#1 profile\n"
	       "../kernel/a.c:20#1 profile\n"
	       "../kernel/a.c:20#2 weak\n"
	       "../kernel/b.c:3#1 weak\n"
	       "../kernel/c.c:9#1 outside\n",
	       "each site told apart by the table");
	is_int(r.c.sites, 7, "seven sites");
	is_int(r.c.applied, 3, "three applied");
	ok(!r.c.capped, "not capped");
	is_int(r.c.weak_sites, 2, "two weak");
	is_int(r.c.outside_sites, 2, "two outside the profile");
	is_int(r.c.not_applied, 2, "two not applied");
	is_str(r.c.pct_applied, "60.0", "60.0%%");
	ok(r.c.ok, "60.0 is at least 60");
	ok(r.c.records_applied == 1 + 1 + 2 && r.c.records == 2 + 1 + 4,
	   "records of the profile sites only");
	ok(r.c.samples_applied == 10 + 5 + 30 && r.c.samples == 20 + 5 + 40,
	   "samples of the profile sites only");
	strbuf_reset(&out);
	is_int(kpgo_afdo_report_format_counts(&r, &out), 0, "formatted");
	ok(strstr(out.buf, "definitions table: 5 profile, 2 weak, 2 left out\n") != NULL,
	   "the table's lines by role");
	ok(strstr(out.buf, "functions applied: 3 (60.0%): clang reported coverage at their "
			   "definition (a profile line of the definitions table)\n") != NULL,
	   "the applied ones");
	ok(strstr(out.buf, "weak definitions compiled with the strong one's profile (dropped by "
			   "the linker): 2\n") != NULL,
	   "the weak ones");
	ok(strstr(out.buf,
		  "definitions outside the profile that took a profile by name: 2: "
		  "each shares its name with a profile function but is another function") != NULL &&
		   strstr(out.buf, "two functions of one name mixed\n"
				   "  ../drivers/x.c:7\n  ../kernel/c.c:9\nrecords applied:"),
	   "the outside ones, listed");
	ok(!strstr(out.buf, "more\n") && !strstr(out.buf, "relative"), "all listed, no hint");
	kpgo_afdo_report_release(&r);

	/* Only sites outside: 25, 20 listed; none applied, which hints at file names. */
	strbuf_reset(&out);
	strbuf_addstr(&out, "  CC      a.o\n");
	for (i = 1; i <= 25; i++)
		strbuf_addf(&out,
			    "warning: /src/a.c:%zu: 1 of 1 available profile records (100%%) "
			    "were applied\n",
			    i);
	strbuf_addstr(&out, REC("/src/a.c", 5, 1, 1));
	kpgo_afdo_report_init(&r);
	is_int(parse(&r.log, out.buf, out.len, out.len), 0, "26 reports");
	is_int(kpgo_afdo_defs_parse(&r.defs, defs_table, sizeof(defs_table) - 1, &err), 0,
	       "the table again");
	r.defs_file = "defs";
	r.prof.functions = 5;
	kpgo_afdo_report_count(&r);
	ok(r.c.applied == 0 && r.c.outside_sites == 26 && r.c.not_applied == 5,
	   "none applied, 26 outside");
	strbuf_reset(&out);
	kpgo_afdo_report_format_counts(&r, &out);
	ok(strstr(out.buf, "  /src/a.c:5\n  /src/a.c:5 (report 2 of that line in one object)\n") !=
		   NULL,
	   "a second report of one line says so");
	ok(strstr(out.buf, "  /src/a.c:19\n  and 6 more\n") != NULL, "20 listed, and 6 more");
	ok(strstr(out.buf, "  (no report is at a profile definition of the table: were the two "
			   "builds given the source files by other names, one relative, one "
			   "absolute?)\n") != NULL,
	   "the hint");
	kpgo_afdo_report_release(&r);
	strbuf_release(&out);
}

int main(void)
{
	test_counts();
	test_counts_defs();
	return done_testing();
}
