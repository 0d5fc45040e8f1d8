/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A clang build log with -sample-profile-check-*-coverage warnings, for
 * the coverage reader's tests (test-afdo-cov.c) and the report's
 * (test-afdo-report.c).
 */
#ifndef KPGO_AFDO_LOG_H
#define KPGO_AFDO_LOG_H

#include <stddef.h>

#include "afdo-report.h"

#define REC(f, l, n, m)                                                                            \
	"warning: " f ":" #l ": " #n " of " #m " available profile records (0%) were applied "     \
	"[-Wbackend-plugin]\n"
#define SMP(f, l, n, m)                                                                            \
	"warning: " f ":" #l ": " #n " of " #m " available profile samples (0%) were applied "     \
	"[-Wbackend-plugin]\n"

/*
 * Three objects: a header's inline function (list.h:10) in all three, with
 * different coverage; two functions of one macro line (sys.c:5) in one
 * object; a samples warning without its records one; noise in between.
 */
static const char sample[] =
	"make[1]: Entering directory '/build'\n"
	"  CC      kernel/sys.o\n" REC("../include/linux/list.h", 10, 1,
				       4) SMP("../include/linux/list.h", 10, 10,
					      40) REC("../kernel/sys.c", 5, 2, 2)
		SMP("../kernel/sys.c", 5, 20,
		    20) "../kernel/sys.c:7:1: warning: unused function 'x' [-Wunused-function]\n" REC("../kernel/sys.c",
												      5,
												      3,
												      3)
			SMP("../kernel/sys.c", 5, 30, 30)
				REC("../kernel/sys.c", 40, 1,
				    9) "4 warnings generated.\n"
				       "  CC [M]  drivers/a.o\n" REC("../include/linux/list.h", 10,
								     3, 4)
					       SMP("../include/linux/list.h", 10, 30,
						   40) "warning: ../drivers/a.c:1: 9 of 8 available profile records (112%) were applied "
						       "[-Wbackend-plugin]\n"
						       "  HOSTCC  scripts/x.o\n"
						       "  CC      mm/b.o\r\n" REC("../include/linux/list.h",
										  10, 2, 4)
							       SMP("../include/linux/list.h", 10, 20,
								   40) SMP("../mm/b.c", 3, 5,
									   6) "ld.lld: warning: ../mm/b.c:3: 5 of 6 available profile samples (83%) were applied\n"
									      "warning: ../mm/b.c:9: 1 of 1 available profile records (100%) were applied";

/* Reads @s fed in pieces of @chunk bytes into @log (initialised here). */
static inline int parse(struct kpgo_afdo_cov_log *log, const char *s, size_t len, size_t chunk)
{
	struct kpgo_error err;
	size_t off;
	int r = 0;

	kpgo_afdo_cov_log_init(log);
	for (off = 0; !r && off < len; off += chunk)
		r = kpgo_afdo_cov_log_feed(log, s + off, len - off < chunk ? len - off : chunk,
					   &err);
	return r ? r : kpgo_afdo_cov_log_finish(log, &err);
}

#endif
