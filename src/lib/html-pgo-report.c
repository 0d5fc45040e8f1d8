// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report's section on what a build applied, from its pgo-report
 * (kpgo report's text, GCC's or Clang's), read as untrusted text: the
 * first line is the title; each paragraph of "key: value" lines becomes
 * table rows (the verdict and the profile's sha256 marked), other
 * paragraphs a folded note, each "== title" section a folded list.
 */
#include <stdbool.h>
#include <string.h>

#include "html-report.h"

struct line {
	const char *s;
	size_t len;
};

static bool next_line(const char **p, const char *end, struct line *l)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	l->s = *p;
	l->len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

/* "key: value" with a short key of words: its key length, else 0. */
static size_t kv_key(const struct line *l)
{
	size_t i;

	if (!l->len || l->s[0] == ' ' || l->s[0] == '=')
		return 0;
	for (i = 0; i + 1 < l->len && i < 100; i++) {
		char c = l->s[i];

		if (c == ':' && l->s[i + 1] == ' ')
			return i;
		if (c == '.' || c == '"' || c == '\t')
			return 0;
	}
	return 0;
}

static bool starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->s, prefix, n);
}

/* Are all lines of the paragraph at @p "key: value"? */
static bool kv_paragraph(const char *p, const char *end)
{
	struct line l;
	bool any = false;

	while (next_line(&p, end, &l) && l.len) {
		if (starts(&l, "== ") || !kv_key(&l))
			return false;
		any = true;
	}
	return any;
}

static int kv_row(struct strbuf *out, const struct line *l, size_t k, const char *sha)
{
	const char *v = l->s + k + 2;
	size_t vlen = l->len - k - 2;
	int r = 0;

	r |= strbuf_addstr(out, "<tr><th>");
	r |= kpgo_html_escape(out, l->s, k);
	r |= strbuf_addstr(out, "</th><td>");
	if (k == 7 && !memcmp(l->s, "verdict", 7)) {
		bool ok = vlen >= 3 && !memcmp(v, "ok:", 3);

		r |= strbuf_addf(out, "<span class=\"%s\" id=\"verdict\">", ok ? "ok" : "bad");
		r |= kpgo_html_escape(out, v, vlen);
		r |= strbuf_addstr(out, "</span>");
	} else if (k == 14 && !memcmp(l->s, "profile sha256", 14)) {
		bool same = vlen == strlen(sha) && !memcmp(v, sha, vlen);

		r |= strbuf_addstr(out, "<code>");
		r |= kpgo_html_escape(out, v, vlen);
		r |= strbuf_addf(out, "</code> <span class=\"%s\" id=\"same-profile\">%s</span>",
				 same ? "ok" : "bad",
				 same ? "this profile" : "another profile than this report's");
	} else {
		r |= kpgo_html_escape(out, v, vlen);
	}
	return r | strbuf_addstr(out, "</td></tr>\n");
}

static int section(struct strbuf *out, const struct line *title, const char **p, const char *end)
{
	const char *body = *p;
	size_t lines = 0, shown = 0;
	struct line l;
	int r = 0;

	for (const char *q = body; next_line(&q, end, &l) && !starts(&l, "== ");)
		lines += l.len > 0;
	r |= strbuf_addstr(out, "<details><summary>");
	r |= kpgo_html_escape(out, title->s + 3, title->len - 3);
	r |= strbuf_addf(out, " — %zu line%s</summary>\n", lines, lines == 1 ? "" : "s");
	if (lines)
		r |= strbuf_addstr(out, "<pre>");
	while (*p < end) {
		const char *at = *p;

		if (!next_line(p, end, &l))
			break;
		if (starts(&l, "== ")) {
			*p = at;
			break;
		}
		if (!l.len || shown >= KPGO_HTML_SECTION_LINES)
			continue;
		r |= kpgo_html_escape(out, l.s, l.len);
		r |= strbuf_addch(out, '\n');
		shown++;
	}
	if (lines > shown)
		r |= strbuf_addf(out, "… and %zu more lines (see the pgo-report)\n", lines - shown);
	if (lines)
		r |= strbuf_addstr(out, "</pre>");
	return r | strbuf_addstr(out, "</details>\n");
}

int kpgo_html_pgo_report(const struct kpgo_html_input *in, struct strbuf *out)
{
	const char *p = in->pgo_report, *end = in->pgo_report + in->pgo_report_len;
	struct strbuf notes = STRBUF_INIT;
	struct line l;
	bool in_kv = false, para_start = true;
	int r = 0;

	r |= strbuf_addstr(out,
			   "<h2 id=\"applied\">What the build applied</h2>\n<p class=\"note\">From <code>");
	r |= kpgo_html_escape(out, in->pgo_report_name, strlen(in->pgo_report_name));
	r |= strbuf_addstr(out, "</code>");
	if (next_line(&p, end, &l)) {
		r |= strbuf_addstr(out, ": ");
		r |= kpgo_html_escape(out, l.s, l.len);
	}
	r |= strbuf_addstr(out, "</p>\n<table id=\"pgo-report\">\n");
	while (p < end) {
		const char *at = p;

		if (!next_line(&p, end, &l))
			break;
		if (starts(&l, "== ")) {
			p = at;
			break;
		}
		if (!l.len) {
			para_start = true;
			continue;
		}
		if (para_start) {
			in_kv = kv_paragraph(at, end);
			para_start = false;
		}
		if (in_kv && kv_key(&l)) {
			r |= kv_row(out, &l, kv_key(&l), in->sha256);
		} else {
			r |= kpgo_html_escape(&notes, l.s, l.len);
			r |= strbuf_addch(&notes, '\n');
		}
	}
	r |= strbuf_addstr(out, "</table>\n");
	if (notes.len)
		r |= strbuf_addf(out,
				 "<details><summary>How the numbers are counted</summary><pre>%s</pre>"
				 "</details>\n",
				 notes.buf);
	while (p < end && next_line(&p, end, &l))
		if (starts(&l, "== "))
			r |= section(out, &l, &p, end);
	strbuf_release(&notes);
	return r;
}
