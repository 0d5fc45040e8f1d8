// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Clang's sample profile coverage warnings read from a build log; see
 * afdo-report.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afdo-report.h"
#include "afdo.h"
#include "buildlog.h"

#define WARNING "warning: "
#define FLAG " [-Wbackend-plugin]"
#define TAIL "%) were applied"

static const char *const kind_text[] = {
	[KPGO_AFDO_COV_RECORDS] = " available profile records (",
	[KPGO_AFDO_COV_SAMPLES] = " available profile samples (",
};

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* [@b, *@e) ends with @suffix: *@e is moved before it. */
static bool cut_suffix(const char *b, const char **e, const char *suffix)
{
	size_t n = strlen(suffix);

	if ((size_t)(*e - b) < n || memcmp(*e - n, suffix, n))
		return false;
	*e -= n;
	return true;
}

/*
 * The decimal number that ends at *@e, as clang prints one (no leading
 * zeros), at most @max; *@e is moved before it.
 */
static bool cut_number(const char *b, const char **e, uint64_t max, uint64_t *v)
{
	const char *d = *e;
	uint64_t x = 0;

	while (d > b && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == *e || (*d == '0' && *e - d > 1))
		return false;
	for (const char *p = d; p < *e; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (x > max)
		return false;
	*v = x;
	*e = d;
	return true;
}

int kpgo_afdo_cov_parse(const char *s, size_t len, struct kpgo_afdo_cov *c)
{
	const char *b, *e = s + len, *p;
	uint64_t pct, line;
	size_t i;

	if (!starts_with(s, len, WARNING))
		return 0;
	b = s + strlen(WARNING);
	for (i = 0; i < 2; i++)
		if (memmem(s, len, kind_text[i], strlen(kind_text[i])))
			break;
	if (i == 2)
		return 0;
	/*
	 * From the end: FILE may hold anything, even ": ". The percentage is
	 * clang's unsigned arithmetic (it wraps for large sample counts): only
	 * its shape is checked.
	 */
	cut_suffix(b, &e, FLAG);
	if (!cut_suffix(b, &e, TAIL) || !cut_number(b, &e, UINT32_MAX, &pct))
		return -EINVAL;
	if (cut_suffix(b, &e, kind_text[KPGO_AFDO_COV_RECORDS]))
		c->kind = KPGO_AFDO_COV_RECORDS;
	else if (cut_suffix(b, &e, kind_text[KPGO_AFDO_COV_SAMPLES]))
		c->kind = KPGO_AFDO_COV_SAMPLES;
	else
		return -EINVAL;
	/* clang counts records in an unsigned, samples in a uint64_t. */
	if (!cut_number(b, &e, c->kind == KPGO_AFDO_COV_RECORDS ? UINT32_MAX : UINT64_MAX,
			&c->available) ||
	    !cut_suffix(b, &e, " of ") || !cut_number(b, &e, c->available, &c->applied) ||
	    !cut_suffix(b, &e, ": ") || !cut_number(b, &e, UINT32_MAX, &line) || !line ||
	    !cut_suffix(b, &e, ":") || e == b)
		return -EINVAL;
	for (p = b; p < e; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -EINVAL;
	c->file = b;
	c->file_len = (size_t)(e - b);
	c->line = (uint32_t)line;
	return 1;
}

/* --- the log ------------------------------------------------------------ */

static int parse_line(void *ctx, char *s, size_t len);

void kpgo_afdo_cov_log_init(struct kpgo_afdo_cov_log *log)
{
	memset(log, 0, sizeof(*log));
	kpgo_lines_init(&log->in, KPGO_BUILDLOG_LINE_MAX, parse_line, log);
	strbuf_init(&log->file);
	log->pending = SIZE_MAX;
}

void kpgo_afdo_cov_log_release(struct kpgo_afdo_cov_log *log)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		free(log->sites[i].file);
	free(log->sites);
	kpgo_lines_release(&log->in);
	strbuf_release(&log->file);
	kpgo_afdo_cov_log_init(log);
}

static int add_site(struct kpgo_afdo_cov_log *log, const struct kpgo_afdo_cov *c)
{
	struct kpgo_afdo_site *s;

	if (KPGO_ALLOC_GROW(log->sites, log->n + 1, log->alloc))
		return -ENOMEM;
	s = &log->sites[log->n];
	memset(s, 0, sizeof(*s));
	s->file = malloc(c->file_len + 1);
	if (!s->file)
		return -ENOMEM;
	memcpy(s->file, c->file, c->file_len);
	s->file[c->file_len] = '\0';
	s->line = c->line;
	s->object = log->cc_lines;
	s->seq = log->n;
	log->n++;
	return 0;
}

/*
 * @c's FILE with "." components and "dir/.." pairs removed, in @log's
 * buffer, where @c then points: clang names a header as it was included.
 */
static int normalize_file(struct kpgo_afdo_cov_log *log, struct kpgo_afdo_cov *c)
{
	struct strbuf raw = STRBUF_INIT;
	int r = strbuf_add(&raw, c->file, c->file_len);

	strbuf_reset(&log->file);
	if (!r)
		r = kpgo_afdo_source_key("", raw.buf, &log->file);
	strbuf_release(&raw);
	c->file = log->file.buf;
	c->file_len = log->file.len;
	return r;
}

static bool same_site(const struct kpgo_afdo_site *s, const struct kpgo_afdo_cov *c)
{
	return s->line == c->line && strlen(s->file) == c->file_len &&
	       !memcmp(s->file, c->file, c->file_len);
}

static int parse_line(void *ctx, char *s, size_t len)
{
	struct kpgo_afdo_cov_log *log = ctx;
	struct kpgo_afdo_cov c;
	struct kpgo_afdo_site *site;
	size_t obj;
	int r;

	if (len && s[len - 1] == '\r')
		len--;
	if (kpgo_buildlog_cc_line(s, len, &obj)) {
		log->cc_lines++;
		return 0;
	}
	r = kpgo_afdo_cov_parse(s, len, &c);
	if (r < 0) {
		if (!log->malformed++)
			log->first_malformed = log->in.lines;
		return 0;
	}
	if (!r)
		return 0;
	if (normalize_file(log, &c))
		return -ENOMEM;
	if (c.kind == KPGO_AFDO_COV_RECORDS) {
		log->records_warnings++;
		if (add_site(log, &c))
			return -ENOMEM;
		site = &log->sites[log->n - 1];
		site->has_records = true;
		site->records_applied = c.applied;
		site->records = c.available;
		log->pending = log->n - 1;
		return 0;
	}
	log->samples_warnings++;
	/* clang gives the samples warning right after the records one of the function. */
	if (log->pending != SIZE_MAX && same_site(&log->sites[log->pending], &c)) {
		site = &log->sites[log->pending];
	} else {
		if (add_site(log, &c))
			return -ENOMEM;
		site = &log->sites[log->n - 1];
	}
	log->pending = SIZE_MAX;
	site->has_samples = true;
	site->samples_applied = c.applied;
	site->samples = c.available;
	return 0;
}

int kpgo_afdo_cov_log_feed(struct kpgo_afdo_cov_log *log, const void *data, size_t len,
			   struct kpgo_error *err)
{
	return kpgo_lines_feed(&log->in, data, len, err);
}

static int cmp_file_line(const struct kpgo_afdo_site *x, const struct kpgo_afdo_site *y)
{
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* By FILE:LINE, object, place in the log: to number the reports in an object. */
static int cmp_in_object(const void *a, const void *b)
{
	const struct kpgo_afdo_site *x = a, *y = b;
	int c = cmp_file_line(x, y);

	if (c)
		return c;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

/* By FILE:LINE and ordinal, the most records applied first. */
static int cmp_best(const void *a, const void *b)
{
	const struct kpgo_afdo_site *x = a, *y = b;
	int c = cmp_file_line(x, y);

	if (c)
		return c;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	if ((c = cmp_u64_desc(x->has_records, y->has_records)) ||
	    (c = cmp_u64_desc(x->records_applied, y->records_applied)) ||
	    (c = cmp_u64_desc(x->has_samples, y->has_samples)) ||
	    (c = cmp_u64_desc(x->samples_applied, y->samples_applied)))
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Numbers the reports of each FILE:LINE in an object, then merges the repeats. */
static int merge_sites(struct kpgo_afdo_cov_log *log)
{
	struct kpgo_afdo_site *s;
	size_t i, o;

	log->pending = SIZE_MAX;
	if (!log->n)
		return 0;
	s = log->sites; /* the last line may have moved them */
	/*
	 * A header's inline function is reported once in every object that
	 * compiled it, at the same FILE:LINE; two functions one macro defines
	 * on one line are reported twice in one object. The nth report of a
	 * FILE:LINE in an object is its nth function.
	 */
	qsort(s, log->n, sizeof(*s), cmp_in_object);
	for (i = 0; i < log->n; i++) {
		if (!s[i].has_records || !s[i].has_samples)
			log->unpaired++;
		if (i && !cmp_file_line(&s[i - 1], &s[i]) && s[i - 1].object == s[i].object &&
		    s[i - 1].ordinal < UINT32_MAX)
			s[i].ordinal = s[i - 1].ordinal + 1;
		else
			s[i].ordinal = 1;
	}
	qsort(s, log->n, sizeof(*s), cmp_best);
	for (i = 0, o = 0; i < log->n; i++) {
		if (o && !cmp_file_line(&s[o - 1], &s[i]) && s[o - 1].ordinal == s[i].ordinal) {
			free(s[i].file);
			log->repeats++;
			continue;
		}
		s[o++] = s[i];
	}
	log->n = o;
	return 0;
}

int kpgo_afdo_cov_log_finish(struct kpgo_afdo_cov_log *log, struct kpgo_error *err)
{
	int r = kpgo_lines_finish(&log->in, err);

	return r ? r : merge_sites(log);
}

int kpgo_afdo_cov_log_read(struct kpgo_afdo_cov_log *log, const char *path, struct kpgo_error *err)
{
	int r = kpgo_lines_read_file(&log->in, path, err);

	return r ? r : merge_sites(log);
}
