// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo plan --changelog: the Debian changelog entry of a flavour's packages. */
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "manifest.h"
#include "plan.h"

/*
 * The machines a profile was collected on, for the changelog: "web-01", or
 * "3 machines (db-7, web-01, web-02)", the first CHANGELOG_HOSTS named.
 */
#define CHANGELOG_HOSTS 8
static void machines_text(const struct kpgo_manifest *m, struct strbuf *sb)
{
	const char *hosts = kpgo_manifest_get(m, MF_HOSTS), *host = kpgo_manifest_get(m, MF_HOST);
	uint64_t total = 0;
	size_t shown = 0;

	if (!hosts || !*hosts) {
		/* the kernel's "(none)" or nothing: no host name to give */
		strbuf_addstr(sb, host && kpgo_label_okn(host, strlen(host)) ? host :
									       "an unnamed machine");
		return;
	}
	if (kpgo_manifest_get_u64(m, MF_HOSTS_TOTAL, &total) || !total)
		total = 1;
	strbuf_addf(sb, "%llu machine%s (", (unsigned long long)total, total == 1 ? "" : "s");
	while (*hosts && shown < CHANGELOG_HOSTS) {
		size_t n = strcspn(hosts, ",");

		strbuf_addf(sb, "%s%.*s", shown ? ", " : "", (int)n, hosts);
		shown++;
		hosts += n;
		if (*hosts == ',')
			hosts++;
	}
	if (total > shown)
		strbuf_addf(sb, ", %llu more", (unsigned long long)(total - shown));
	strbuf_addch(sb, ')');
}

/* Wraps @text at 72 columns as a changelog item ("  * ", "    "). */
static void changelog_item(const char *text)
{
	const char *p = text;
	size_t col = 4;

	fputs("  *", stdout);
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t w = sp ? (size_t)(sp - p) : strlen(p);

		if (col + 1 + w > 76 && col > 4) {
			fputs("\n   ", stdout);
			col = 3;
		}
		printf(" %.*s", (int)w, p);
		col += 1 + w;
		p += w;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

/* "Thu, 03 Dec 2026 15:26:30 +0000" of a UTC time. */
static int rfc2822(long long epoch, char *buf, size_t len)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%a, %d %b %Y %H:%M:%S +0000", &tm))
		return -1;
	return 0;
}

int plan_print_changelog(bool pgo, bool as_source, const struct kpgo_plan *p, const char *pkg,
			 const char *maint, long long epoch, const struct kpgo_plan_input *in,
			 const char *cfgname, const char *srcpkg, const struct kpgo_dpkg_package *dp,
			 const char *sha, const struct kpgo_manifest *m)
{
	struct strbuf sb = STRBUF_INIT;
	char date[64];

	if (pgo && !in->stamp)
		return error("--changelog pgo needs a profile (--profile or --store)");
	if (rfc2822(epoch, date, sizeof(date)))
		return error("bad --date-epoch %lld", epoch);
	if (as_source)
		printf("%s (%s) unstable; urgency=medium\n\n", p->source_name, p->source_version);
	else
		printf("%s (%s) unstable; urgency=medium\n\n", pkg, pgo ? p->deb_pgo : p->deb_instr);
	if (srcpkg)
		strbuf_addf(&sb, "Linux %s from Debian's %s %s (source %s %s), ", p->kver, srcpkg,
			    in->source_version, dp->source, dp->source_version);
	else
		strbuf_addf(&sb, "Linux %s from a source tree of no Debian package, ", p->kver);
	strbuf_addf(&sb, "config %s, kernel release %s.", cfgname, pgo ? p->rel_pgo : p->rel_instr);
	changelog_item(sb.buf);
	strbuf_reset(&sb);
	if (pgo) {
		const char *rel = kpgo_manifest_get(m, MF_RELEASE);
		const char *wl = kpgo_manifest_get(m, MF_WORKLOAD);
		const char *we = kpgo_manifest_get(m, MF_WINDOW_END);
		const char *merged = kpgo_manifest_get(m, MF_MERGED);

		strbuf_addf(&sb,
			    "Optimized with the profile sha256 %s (workload %s, collected on %s by ",
			    sha, wl ? wl : "unknown", rel ? rel : "unknown");
		machines_text(m, &sb);
		strbuf_addf(&sb, ", %s profile(s) merged, collection window ending %s).",
			    merged ? merged : "1", we ? we : "unknown");
	} else {
		strbuf_addstr(&sb,
			      "Instrumented with gcov on every object, for profile collection.");
	}
	changelog_item(sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "Built by kpgo %s%s.", KPGO_VERSION, in->serial ? " (a rebuild)" : "");
	changelog_item(sb.buf);
	printf("\n -- %s  %s\n", maint, date);
	strbuf_release(&sb);
	return 0;
}
