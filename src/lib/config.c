// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collection settings file (/etc/default/kpgo, /etc/sysconfig/kpgo):
 * shell assignment syntax read as data. See config.h for what is accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#define DURATION_MAX (3650ull * 86400)

int kpgo_config_init(struct kpgo_config *c)
{
	memset(c, 0, sizeof(*c));
	c->workload = strdup("default");
	c->spool_dir = strdup(KPGO_SPOOL_DEFAULT);
	c->upload_command = strdup("");
	c->upload_user = strdup("");
	c->snapshot_interval = 6 * 3600;
	c->collect_timeout = 60;
	c->keep_count = 10;
	c->keep_age = 30 * 86400;
	c->spool_max = 200;
	c->upload_timeout = 600;
	c->retry_max = 6 * 3600;
	if (!c->workload || !c->spool_dir || !c->upload_command || !c->upload_user) {
		kpgo_config_release(c);
		return -ENOMEM;
	}
	return 0;
}

void kpgo_config_release(struct kpgo_config *c)
{
	free(c->path);
	free(c->workload);
	free(c->spool_dir);
	free(c->upload_command);
	free(c->upload_user);
	kpgo_strlist_clear(&c->upload_argv);
	kpgo_strlist_clear(&c->warnings);
	memset(c, 0, sizeof(*c));
}

const char *kpgo_config_default_path(const char *opt)
{
	const char *env = getenv("KPGO_SETTINGS");

	if (opt && *opt)
		return opt;
	if (env && *env)
		return env;
	if (access(KPGO_CONFIG_DEBIAN, F_OK) == 0 || access(KPGO_CONFIG_RPM, F_OK) < 0)
		return KPGO_CONFIG_DEBIAN;
	return KPGO_CONFIG_RPM;
}

bool kpgo_label_ok(const char *s)
{
	return kpgo_label_okn(s, strlen(s));
}

/* --- durations ------------------------------------------------------------ */

int kpgo_duration_parse(const char *s, uint64_t *secs)
{
	char num[24];
	size_t n = strspn(s, "0123456789");
	uint64_t v, unit = 1;

	if (n == 0 || n >= sizeof(num))
		return n ? -ERANGE : -EINVAL;
	if (s[n]) {
		if (s[n + 1])
			return -EINVAL;
		switch (s[n]) {
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		default: return -EINVAL;
		}
	}
	memcpy(num, s, n);
	num[n] = '\0';
	if (kpgo_parse_u64(num, &v))
		return -ERANGE;
	if (v > DURATION_MAX / unit)
		return -ERANGE;
	*secs = v * unit;
	return 0;
}

void kpgo_duration_format(uint64_t secs, char out[32])
{
	if (secs && secs % 86400 == 0)
		snprintf(out, 32, "%" PRIu64 "d", secs / 86400);
	else if (secs && secs % 3600 == 0)
		snprintf(out, 32, "%" PRIu64 "h", secs / 3600);
	else if (secs && secs % 60 == 0)
		snprintf(out, 32, "%" PRIu64 "m", secs / 60);
	else if (secs)
		snprintf(out, 32, "%" PRIu64 "s", secs);
	else
		snprintf(out, 32, "0");
}

/* --- shell words ---------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One word at *@pp (up to @end, an unquoted blank or '\n'), unquoted into
 * @out. Sets *@why and returns -EINVAL for what a shell would read otherwise.
 */
static int read_word(const char **pp, const char *end, struct strbuf *out, const char **why)
{
	const char *p = *pp;
	int r = 0;

	if (p < end && *p == '~') {
		*why = "'~' (home directory expansion) is not supported; quote it";
		return -EINVAL;
	}
	while (p < end && !blank(*p) && *p != '\n' && !r) {
		unsigned char c = (unsigned char)*p;

		if (c == '\'') {
			const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));

			if (!q) {
				*why = "unterminated quote (')";
				return -EINVAL;
			}
			r = strbuf_add(out, p + 1, (size_t)(q - p - 1));
			p = q + 1;
		} else if (c == '"') {
			for (p++;; p++) {
				if (p >= end) {
					*why = "unterminated quote (\")";
					return -EINVAL;
				}
				if (*p == '"')
					break;
				if (*p == '$' || *p == '`') {
					*why = "'$' and '`' (expansions) are not supported; use single quotes";
					return -EINVAL;
				}
				if (*p == '\\' && p + 1 < end && strchr("$`\"\\\n", p[1])) {
					if (p[1] == '\n') {
						*why = "line continuation is not supported";
						return -EINVAL;
					}
					p++;
				}
				if (strbuf_addch(out, *p))
					return -ENOMEM;
			}
			p++;
		} else if (c == '\\') {
			if (p + 1 >= end || p[1] == '\n') {
				*why = "line continuation is not supported";
				return -EINVAL;
			}
			r = strbuf_addch(out, p[1]);
			p += 2;
		} else if (c == '$' || c == '`') {
			*why = "'$' and '`' (expansions) are not supported; use single quotes";
			return -EINVAL;
		} else if (strchr(";&|<>()", c)) {
			*why = "shell operators (; & | < > ( )) are not supported; quote them";
			return -EINVAL;
		} else {
			r = strbuf_addch(out, (char)c);
			p++;
		}
	}
	if (r)
		return -ENOMEM;
	*pp = p;
	return 0;
}

/* No control characters in a value once unquoted. */
static bool text_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

int kpgo_split_words(const char *s, struct kpgo_strlist *words, struct kpgo_error *err)
{
	const char *p = s, *end = s + strlen(s), *why = NULL;
	struct strbuf w = STRBUF_INIT;
	int r = 0;

	for (; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return kpgo_error_set(err, -EINVAL, "control character in the command");
	p = s;
	while (!r) {
		while (p < end && blank(*p))
			p++;
		if (p >= end)
			break;
		if (*p == '#') {
			r = kpgo_error_set(err, -EINVAL, "'#' starts a comment in sh; quote it");
			break;
		}
		strbuf_reset(&w);
		r = read_word(&p, end, &w, &why);
		if (r == -EINVAL)
			r = kpgo_error_set(err, r, "%s", why);
		else if (r)
			r = kpgo_error_set(err, r, "out of memory");
		else if (words->n >= KPGO_UPLOAD_WORDS_MAX)
			r = kpgo_error_set(err, -E2BIG, "more than %d words", KPGO_UPLOAD_WORDS_MAX);
		else if (kpgo_strlist_add(words, w.buf))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
	}
	strbuf_release(&w);
	return r;
}

/* --- keys ----------------------------------------------------------------- */

struct key {
	const char *name;
	/* -EINVAL with the reason in @err, which the caller prefixes */
	int (*set)(struct kpgo_config *c, const struct key *k, const char *v,
		   struct kpgo_error *err);
	uint64_t min, max; /* durations and counts; 0..0 for strings */
	bool zero_ok;	   /* 0 allowed below min ("off", "no limit") */
	size_t offset;	   /* of the uint64_t or char * field */
};

#define FIELD(f) offsetof(struct kpgo_config, f)

static int set_str(struct kpgo_config *c, const struct key *k, const char *v)
{
	char **f = (char **)((char *)c + k->offset);
	char *d = strdup(v);

	if (!d)
		return -ENOMEM;
	free(*f);
	*f = d;
	return 0;
}

static int set_workload(struct kpgo_config *c, const struct key *k, const char *v,
			struct kpgo_error *err)
{
	if (!kpgo_label_ok(v))
		return kpgo_error_set(err, -EINVAL, "a workload label is 1 to 64 of [A-Za-z0-9._-]");
	return set_str(c, k, v);
}

static int set_dir(struct kpgo_config *c, const struct key *k, const char *v, struct kpgo_error *err)
{
	char buf[1025];
	size_t n = strlen(v);

	/* Also goes into unit files (RequiresMountsFor=): no quoting needed there. */
	if (n == 0 || n >= sizeof(buf) || v[0] != '/' ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+@-") != n)
		return kpgo_error_set(err, -EINVAL,
				      "an absolute path of [A-Za-z0-9/._+@-] is needed");
	memcpy(buf, v, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if (n == 1 || !kpgo_path_is_safe(buf + 1))
		return kpgo_error_set(err, -EINVAL,
				      "an absolute path without '.', '..' or empty components, and not '/', is needed");
	return set_str(c, k, buf);
}

bool kpgo_user_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n &&
	       s[0] != '-' && !(s[0] >= '0' && s[0] <= '9');
}

/* A user name (kpgo_user_name_ok()), or empty. */
static int set_user(struct kpgo_config *c, const struct key *k, const char *v,
		    struct kpgo_error *err)
{
	if (*v && !kpgo_user_name_ok(v))
		return kpgo_error_set(err, -EINVAL,
				      "a user name of [a-z0-9_-], not starting with a digit or '-', at most 32 bytes, is needed");
	return set_str(c, k, v);
}

static int set_duration(struct kpgo_config *c, const struct key *k, const char *v,
			struct kpgo_error *err)
{
	uint64_t *f = (uint64_t *)((char *)c + k->offset), s;
	char lo[32], hi[32];

	if (k->zero_ok && !strcmp(v, "off")) {
		*f = 0;
		return 0;
	}
	kpgo_duration_format(k->min, lo);
	kpgo_duration_format(k->max, hi);
	if (kpgo_duration_parse(v, &s) || (s < k->min && !(s == 0 && k->zero_ok)) || s > k->max)
		return kpgo_error_set(err, -EINVAL,
				      "a duration from %s to %s is needed (e.g. 90s, 15m, 6h, 2d)%s",
				      lo, hi, k->zero_ok ? ", or 0 (off)" : "");
	*f = s;
	return 0;
}

static int set_count(struct kpgo_config *c, const struct key *k, const char *v,
		     struct kpgo_error *err)
{
	uint64_t *f = (uint64_t *)((char *)c + k->offset), n;

	if (kpgo_parse_u64(v, &n) || n < k->min || n > k->max)
		return kpgo_error_set(err, -EINVAL,
				      "a whole number from %" PRIu64 " to %" PRIu64 " is needed",
				      k->min, k->max);
	*f = n;
	return 0;
}

static int set_command(struct kpgo_config *c, const struct key *k, const char *v,
		       struct kpgo_error *err)
{
	struct kpgo_strlist words = { 0 };
	int r;

	r = kpgo_split_words(v, &words, err);
	if (r) {
		kpgo_strlist_clear(&words);
		return r;
	}
	if (words.n && words.items[0][0] != '/' && strchr(words.items[0], '/')) {
		kpgo_strlist_clear(&words);
		return kpgo_error_set(err, -EINVAL,
				      "the command must be a name found in PATH or an absolute path");
	}
	r = set_str(c, k, v);
	if (r) {
		kpgo_strlist_clear(&words);
		return r;
	}
	kpgo_strlist_clear(&c->upload_argv);
	c->upload_argv = words;
	return 0;
}

static const struct key keys[] = {
	{ "KPGO_WORKLOAD", set_workload, 0, 0, false, FIELD(workload) },
	{ "KPGO_SPOOL_DIR", set_dir, 0, 0, false, FIELD(spool_dir) },
	{ "KPGO_SNAPSHOT_INTERVAL", set_duration, 60, 30 * 86400, true, FIELD(snapshot_interval) },
	{ "KPGO_COLLECT_TIMEOUT", set_duration, 5, 3600, false, FIELD(collect_timeout) },
	{ "KPGO_KEEP_COUNT", set_count, 0, 100000, false, FIELD(keep_count) },
	{ "KPGO_KEEP_AGE", set_duration, 3600, DURATION_MAX, true, FIELD(keep_age) },
	{ "KPGO_SPOOL_MAX", set_count, 0, 1000000, false, FIELD(spool_max) },
	{ "KPGO_UPLOAD_COMMAND", set_command, 0, 0, false, FIELD(upload_command) },
	{ "KPGO_UPLOAD_USER", set_user, 0, 0, false, FIELD(upload_user) },
	{ "KPGO_UPLOAD_TIMEOUT", set_duration, 1, 86400, false, FIELD(upload_timeout) },
	{ "KPGO_UPLOAD_RETRY_MAX", set_duration, 60, 7 * 86400, false, FIELD(retry_max) },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static bool key_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

int kpgo_config_parse(struct kpgo_config *c, const char *name, const char *text, size_t len,
		      struct kpgo_error *err)
{
	const char *p = text, *end = text + len, *why = NULL;
	unsigned seen_line[N_KEYS] = { 0 };
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	unsigned line = 0;
	int r = 0;
	size_t i;

	if (memchr(text, '\0', len))
		return kpgo_error_set(err, -EINVAL, "'%s' is not a text file (NUL byte)", name);
	while (p < end && !r) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *k;

		if (!eol)
			eol = end;
		line++;
		while (p < eol && blank(*p))
			p++;
		if (p == eol || *p == '#' || (*p == '\r' && p + 1 == eol))
			goto next;
		if ((size_t)(eol - p) > 7 && !memcmp(p, "export", 6) && blank(p[6])) {
			p += 7;
			while (p < eol && blank(*p))
				p++;
		}
		for (k = p; p < eol && key_char(*p, p == k); p++)
			;
		if (p == k || p >= eol || *p != '=') {
			r = kpgo_error_set(err, -EINVAL, "%s:%u: expected KEY=VALUE%s", name, line,
					   p < eol && blank(*p) ? " (no blanks around '=')" : "");
			break;
		}
		strbuf_reset(&key);
		strbuf_reset(&val);
		if (strbuf_add(&key, k, (size_t)(p - k))) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		p++;
		r = read_word(&p, eol, &val, &why);
		if (r == -EINVAL) {
			r = kpgo_error_set(err, r, "%s:%u: %s: %s", name, line, key.buf, why);
			break;
		}
		if (r) {
			r = kpgo_error_set(err, r, "out of memory");
			break;
		}
		while (p < eol && blank(*p))
			p++;
		if (p < eol && *p == '\r' && p + 1 == eol)
			p++;
		if (p < eol && *p != '#') {
			r = kpgo_error_set(err, -EINVAL,
					   "%s:%u: %s: unexpected text after the value (quote a value that has blanks)",
					   name, line, key.buf);
			break;
		}
		if (!text_ok(val.buf, val.len)) {
			r = kpgo_error_set(err, -EINVAL, "%s:%u: %s: control character in the value",
					   name, line, key.buf);
			break;
		}
		for (i = 0; i < N_KEYS && strcmp(keys[i].name, key.buf); i++)
			;
		if (i == N_KEYS) {
			char w[256];

			snprintf(w, sizeof(w), "%s:%u: unknown key '%.80s' ignored", name, line,
				 key.buf);
			if (kpgo_strlist_add(&c->warnings, w))
				r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto next;
		}
		if (seen_line[i]) {
			r = kpgo_error_set(err, -EINVAL, "%s:%u: %s is already set on line %u",
					   name, line, key.buf, seen_line[i]);
			break;
		}
		seen_line[i] = line;
		r = keys[i].set(c, &keys[i], val.buf, err);
		if (r == -ENOMEM)
			r = kpgo_error_set(err, r, "out of memory");
		else if (r)
			kpgo_error_prefix(err, "%s:%u: bad %s '%.200s'", name, line, key.buf,
					  val.buf);
	next:
		p = eol < end ? eol + 1 : end;
	}
	strbuf_release(&key);
	strbuf_release(&val);
	return r;
}

int kpgo_config_load(struct kpgo_config *c, const char *path, bool must_exist,
		     struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd, r;

	r = kpgo_config_init(c);
	if (r)
		return kpgo_error_set(err, r, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return 0;
		r = kpgo_error_set(err, -errno, "cannot read '%s': %s", path, strerror(errno));
		kpgo_config_release(c);
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = kpgo_error_set(err, -errno, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = kpgo_error_set(err, -EINVAL, "cannot read '%s': not a regular file", path);
		goto out;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		r = kpgo_error_set(err, -EPERM,
				   "refusing '%s': it must be owned by root and writable by its owner only (its upload command runs as this user)",
				   path);
		goto out;
	}
	r = kpgo_read_fd(fd, &sb, KPGO_CONFIG_FILE_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "cannot read '%s': larger than %d bytes", path,
				   KPGO_CONFIG_FILE_MAX);
	else if (r)
		r = kpgo_error_set(err, r, "cannot read '%s': %s", path, strerror(-r));
	if (!r)
		r = kpgo_config_parse(c, path, sb.buf, sb.len, err);
	if (!r && !(c->path = strdup(path)))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
out:
	close(fd);
	strbuf_release(&sb);
	if (r)
		kpgo_config_release(c);
	return r;
}

/* 'value' with each ' written as '\'' */
static int add_quoted(struct strbuf *out, const char *s)
{
	int r = strbuf_addch(out, '\'');

	for (; *s && !r; s++)
		r = *s == '\'' ? strbuf_addstr(out, "'\\''") : strbuf_addch(out, *s);
	return r ? r : strbuf_addch(out, '\'');
}

int kpgo_config_format(const struct kpgo_config *c, struct strbuf *out)
{
	size_t i;
	int r = 0;

	for (i = 0; i < N_KEYS && !r; i++) {
		const struct key *k = &keys[i];
		char d[32];

		r = strbuf_addf(out, "%s=", k->name);
		if (r)
			break;
		if (k->set == set_duration) {
			kpgo_duration_format(*(const uint64_t *)((const char *)c + k->offset), d);
			r = add_quoted(out, d);
		} else if (k->set == set_count) {
			snprintf(d, sizeof(d), "%" PRIu64,
				 *(const uint64_t *)((const char *)c + k->offset));
			r = add_quoted(out, d);
		} else {
			r = add_quoted(out, *(char *const *)((const char *)c + k->offset));
		}
		if (!r)
			r = strbuf_addch(out, '\n');
	}
	return r;
}
