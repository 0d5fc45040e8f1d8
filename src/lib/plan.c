// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan of a kernel package build: versions, releases and names (see
 * plan.h for the scheme). Pure functions over texts the caller read.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

/* The value of a "KEY = VALUE" line of a Makefile, trimmed; NULL if none. */
static const char *makefile_value(const char *text, size_t len, const char *key, size_t *vlen)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t l = nl ? (size_t)(nl - line) : len - i;

		i += l + 1;
		if (l <= klen || memcmp(line, key, klen))
			continue;
		size_t j = klen;

		while (j < l && (line[j] == ' ' || line[j] == '\t'))
			j++;
		if (j >= l || line[j] != '=')
			continue;
		j++;
		while (j < l && (line[j] == ' ' || line[j] == '\t'))
			j++;
		while (l > j && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
			l--;
		*vlen = l - j;
		return line + j;
	}
	return NULL;
}

static int makefile_number(const char *text, size_t len, const char *key, unsigned *out,
			   struct kpgo_error *err)
{
	size_t vlen, i;
	const char *v = makefile_value(text, len, key, &vlen);
	unsigned long n = 0;

	if (!v)
		return kpgo_error_set(err, -EINVAL, "the kernel Makefile has no %s line", key);
	if (!vlen || vlen > 6)
		return kpgo_error_set(err, -EINVAL, "the kernel Makefile's %s is not a number", key);
	for (i = 0; i < vlen; i++) {
		if (!isdigit((unsigned char)v[i]))
			return kpgo_error_set(err, -EINVAL,
					      "the kernel Makefile's %s is not a number", key);
		n = n * 10 + (unsigned)(v[i] - '0');
	}
	*out = (unsigned)n;
	return 0;
}

int kpgo_kernel_version_parse(const char *text, size_t len, struct kpgo_kernel_version *v,
			      struct kpgo_error *err)
{
	const char *extra;
	size_t elen, i;
	int r;

	memset(v, 0, sizeof(*v));
	if ((r = makefile_number(text, len, "VERSION", &v->version, err)) ||
	    (r = makefile_number(text, len, "PATCHLEVEL", &v->patchlevel, err)) ||
	    (r = makefile_number(text, len, "SUBLEVEL", &v->sublevel, err)))
		return r;
	extra = makefile_value(text, len, "EXTRAVERSION", &elen);
	if (extra) {
		if (elen >= sizeof(v->extra))
			return kpgo_error_set(err, -EINVAL,
					      "the kernel Makefile's EXTRAVERSION is too long");
		for (i = 0; i < elen; i++)
			if (!isalnum((unsigned char)extra[i]) && extra[i] != '-' && extra[i] != '.')
				return kpgo_error_set(err, -EINVAL,
						      "the kernel Makefile's EXTRAVERSION '%.*s' has "
						      "characters other than letters, digits, '-' and '.'",
						      (int)elen, extra);
		memcpy(v->extra, extra, elen);
		v->extra[elen] = '\0';
	}
	return 0;
}

void kpgo_kernel_version_str(const struct kpgo_kernel_version *v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u%s", v->version, v->patchlevel, v->sublevel, v->extra);
}

void kpgo_kernel_series_str(const struct kpgo_kernel_version *v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u", v->version, v->patchlevel);
}

/* Copies a field value of @n bytes into @dst (@size); false when too long or empty. */
static bool field_copy(char *dst, size_t size, const char *s, size_t n)
{
	if (!n || n >= size)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* A Debian version or package name: no blanks or control characters. */
static bool token_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

int kpgo_dpkg_status_lookup(const char *text, size_t len, const char *package,
			    struct kpgo_dpkg_package *p, struct kpgo_error *err)
{
	size_t i = 0, plen = strlen(package);

	memset(p, 0, sizeof(*p));
	while (i < len) {
		bool match = false, installed = false;
		const char *ver = NULL, *src = NULL;
		size_t verlen = 0, srclen = 0;

		/* one stanza: lines up to an empty one */
		while (i < len) {
			const char *line = text + i, *nl = memchr(line, '\n', len - i);
			size_t l = nl ? (size_t)(nl - line) : len - i;

			i += l + 1;
			if (!l)
				break;
			if (line[0] == ' ' || line[0] == '\t')
				continue;
#define FIELD(name) (l > sizeof(name) - 1 && !memcmp(line, name, sizeof(name) - 1))
#define VALUE(name) (line + sizeof(name) - 1 + (line[sizeof(name) - 1] == ' '))
#define VLEN(name) (l - (size_t)(VALUE(name) - line))
			if (FIELD("Package:"))
				match = VLEN("Package:") == plen &&
					!memcmp(VALUE("Package:"), package, plen);
			else if (FIELD("Status:"))
				installed = VLEN("Status:") == strlen("install ok installed") &&
					    !memcmp(VALUE("Status:"), "install ok installed",
						    VLEN("Status:"));
			else if (FIELD("Version:"))
				ver = VALUE("Version:"), verlen = VLEN("Version:");
			else if (FIELD("Source:"))
				src = VALUE("Source:"), srclen = VLEN("Source:");
#undef FIELD
#undef VALUE
#undef VLEN
		}
		if (!match || !installed)
			continue;
		if (!ver || !field_copy(p->version, sizeof(p->version), ver, verlen) ||
		    !token_ok(p->version))
			return kpgo_error_set(err, -EINVAL,
					      "dpkg's status of '%s' has a bad Version", package);
		if (!src) {
			snprintf(p->source, sizeof(p->source), "%s", package);
			memcpy(p->source_version, p->version, sizeof(p->version));
			return 0;
		}
		/* "linux" or "linux-signed-amd64 (6.1.192+3)" */
		const char *sp = memchr(src, ' ', srclen);
		size_t namelen = sp ? (size_t)(sp - src) : srclen;

		if (!field_copy(p->source, sizeof(p->source), src, namelen) || !token_ok(p->source))
			return kpgo_error_set(err, -EINVAL,
					      "dpkg's status of '%s' has a bad Source", package);
		if (!sp) {
			memcpy(p->source_version, p->version, sizeof(p->version));
			return 0;
		}
		const char *open = sp + 1, *end = src + srclen;

		if (end - open < 3 || *open != '(' || end[-1] != ')' ||
		    !field_copy(p->source_version, sizeof(p->source_version), open + 1,
				(size_t)(end - open - 2)) ||
		    !token_ok(p->source_version))
			return kpgo_error_set(err, -EINVAL,
					      "dpkg's status of '%s' has a bad Source", package);
		return 0;
	}
	return -ENOENT;
}

/* Debian's flavour configs in linux-config-SERIES: name, tag, file. */
static const struct {
	const char *name, *alias, *tag, *file;
} debian_configs[] = {
	{ "debian-amd64", NULL, "amd64", "config.amd64_none_amd64.xz" },
	{ "debian-cloud-amd64", "debian-cloud", "cloud-amd64", "config.amd64_none_cloud-amd64.xz" },
	{ "debian-rt-amd64", "debian-rt", "rt-amd64", "config.amd64_rt_amd64.xz" },
};

static bool custom_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > 32 || !isalnum((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' ||
		      s[i] == '.'))
			return false;
	return true;
}

int kpgo_config_name_parse(const char *name, int full, struct kpgo_config_name *c,
			   struct kpgo_error *err)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	if (full) {
		if (!strcmp(name, "small") || !strncmp(name, "debian-", 7) || !custom_name_ok(name))
			return kpgo_error_set(err, -EINVAL,
					      "bad name '%s' for a complete config (lowercase letters, "
					      "digits, '-' and '.', at most 32; not 'small' or "
					      "'debian-...')",
					      name);
		c->kind = KPGO_CONFIG_FULL;
		snprintf(c->name, sizeof(c->name), "%s", name);
		snprintf(c->tag, sizeof(c->tag), "%s", name);
		return 0;
	}
	if (!strcmp(name, "small")) {
		c->kind = KPGO_CONFIG_FRAGMENT;
		snprintf(c->name, sizeof(c->name), "small");
		return 0;
	}
	for (i = 0; i < sizeof(debian_configs) / sizeof(debian_configs[0]); i++) {
		if (strcmp(name, debian_configs[i].name) &&
		    (!debian_configs[i].alias || strcmp(name, debian_configs[i].alias)))
			continue;
		c->kind = KPGO_CONFIG_DEBIAN;
		snprintf(c->name, sizeof(c->name), "%s", debian_configs[i].name);
		snprintf(c->tag, sizeof(c->tag), "%s", debian_configs[i].tag);
		snprintf(c->file, sizeof(c->file), "%s", debian_configs[i].file);
		return 0;
	}
	return kpgo_error_set(err, -EINVAL,
			      "unknown config '%s' (small, debian-amd64, debian-cloud, debian-rt; "
			      "or a complete config with KPGO_FULL_CONFIG)",
			      name);
}

int kpgo_profile_stamp(const char *w, char stamp[15], struct kpgo_error *err)
{
	/* 2026-12-03T15:26:30Z */
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t i, n = 0;

	if (!w || strlen(w) != sizeof(shape) - 1)
		goto bad;
	for (i = 0; shape[i]; i++) {
		if (shape[i] == 'd') {
			if (!isdigit((unsigned char)w[i]))
				goto bad;
			stamp[n++] = w[i];
		} else if (w[i] != shape[i]) {
			goto bad;
		}
	}
	stamp[n] = '\0';
	return 0;
bad:
	return kpgo_error_set(err, -EINVAL,
			      "the profile's WINDOW_END '%s' is not a UTC time like "
			      "2026-12-03T15:26:30Z",
			      w ? w : "");
}

/* The revision of a Debian version (after its last '-'), or NULL. */
static const char *debian_revision(const char *v)
{
	const char *dash = strrchr(v, '-');

	return dash && dash[1] ? dash + 1 : NULL;
}

static bool version_chars_ok(const char *v)
{
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && !strchr(".+~-:", *v))
			return false;
	return true;
}

/* snprintf that reports truncation as false. */
__attribute__((format(printf, 3, 4))) static bool fit(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

int kpgo_plan_make(const struct kpgo_plan_input *in, struct kpgo_plan *p, struct kpgo_error *err)
{
	const struct kpgo_config_name *c = in->config;
	char srcver[160], tag[48] = "", serial[16] = "", cfgname[48];
	const char *rev, *name;
	size_t i;

	memset(p, 0, sizeof(*p));
	kpgo_kernel_series_str(in->kver, p->series, sizeof(p->series));
	kpgo_kernel_version_str(in->kver, p->kver, sizeof(p->kver));
	if (in->series && strcmp(in->series, p->series))
		return kpgo_error_set(err, -EINVAL,
				      "the kernel source is Linux %s, not of the series %s asked for",
				      p->kver, in->series);
	if (!in->tool_version || !*in->tool_version || !version_chars_ok(in->tool_version))
		return kpgo_error_set(err, -EINVAL, "bad kpgo version '%s'",
				      in->tool_version ? in->tool_version : "");
	if (in->serial)
		snprintf(serial, sizeof(serial), ".%u", in->serial);
	if (*c->tag)
		snprintf(tag, sizeof(tag), "-%s", c->tag);

	if (in->source_version) {
		const char *colon = strchr(in->source_version, ':');
		const char *sv = colon ? colon + 1 : in->source_version;

		rev = debian_revision(sv);
		if (!version_chars_ok(in->source_version) || !rev || strchr(in->source_version, ' '))
			return kpgo_error_set(err, -EINVAL,
					      "bad Debian version '%s' of the kernel source (no revision)",
					      in->source_version);
		/* the upstream part must be this kernel: 6.1.192 of 6.1.192-3 */
		if ((size_t)(rev - 1 - sv) != strlen(p->kver) ||
		    strncmp(sv, p->kver, strlen(p->kver)))
			return kpgo_error_set(err, -EINVAL,
					      "the kernel source is Linux %s, but its package's version "
					      "is %s",
					      p->kver, in->source_version);
		if (!fit(p->debrev, sizeof(p->debrev), "%s", rev) ||
		    !fit(srcver, sizeof(srcver), "%s", in->source_version))
			return kpgo_error_set(err, -EINVAL,
					      "the kernel source's version is too long");
	} else {
		snprintf(p->debrev, sizeof(p->debrev), "0");
		if (!fit(srcver, sizeof(srcver), "%s-0", p->kver))
			return kpgo_error_set(err, -EINVAL, "the kernel version is too long");
	}
	/* the ABI name: the revision with '~' and '+' as '.', for file names */
	snprintf(p->abi_instr, sizeof(p->abi_instr), "%s", p->debrev);
	for (i = 0; p->abi_instr[i]; i++)
		if (p->abi_instr[i] == '~' || p->abi_instr[i] == '+')
			p->abi_instr[i] = '.';

	if (!fit(p->rel_instr, sizeof(p->rel_instr), "%s-%s%s-pgo-instr", p->kver, p->abi_instr, tag))
		return kpgo_error_set(err, -EINVAL,
				      "the release '%s-%s%s-pgo-instr' is longer than %d", p->kver,
				      p->abi_instr, tag, KPGO_RELEASE_MAX);
	/* RPM: Version has no '-'; Release neither */
	snprintf(p->rpm_version, sizeof(p->rpm_version), "%s", p->kver);
	for (i = 0; p->rpm_version[i]; i++)
		if (p->rpm_version[i] == '-')
			p->rpm_version[i] = '~';
	if (!fit(p->deb_instr, sizeof(p->deb_instr), "%s+kpgo%s%s", srcver, in->tool_version,
		 serial) ||
	    !fit(p->rpm_release_instr, sizeof(p->rpm_release_instr), "%s.kpgo%s%s", p->abi_instr,
		 in->tool_version, serial))
		return kpgo_error_set(err, -EINVAL, "the package version is too long");

	name = c->kind == KPGO_CONFIG_DEBIAN ? c->name + strlen("debian-") : c->name;
	snprintf(cfgname, sizeof(cfgname), "%s", name);
	/* trees: "pgo" for small, "cloud-pgo" for debian-cloud-amd64, "NAME-pgo" */
	char shortname[48];
	size_t sl;

	snprintf(shortname, sizeof(shortname), "%s", c->tag);
	sl = strlen(shortname);
	if (sl > 6 && !strcmp(shortname + sl - 6, "-amd64"))
		shortname[sl - 6] = '\0';
	snprintf(p->tree_instr, sizeof(p->tree_instr), "%s%spgo-instr", shortname,
		 *shortname ? "-" : "");
	snprintf(p->tree_pgo, sizeof(p->tree_pgo), "%s%spgo", shortname, *shortname ? "-" : "");
	if (!fit(p->source_name, sizeof(p->source_name), "linux-pgo-%s-%s", p->series, cfgname))
		return kpgo_error_set(err, -EINVAL, "the source package name is too long");

	if (!in->stamp) {
		if (!fit(p->source_version, sizeof(p->source_version), "%s+%s+kpgo%s%s", p->kver,
			 p->debrev, in->tool_version, serial))
			return kpgo_error_set(err, -EINVAL, "the source version is too long");
		return 0;
	}
	if (strlen(in->stamp) != 14 || strspn(in->stamp, "0123456789") != 14)
		return kpgo_error_set(err, -EINVAL, "bad profile stamp '%s'", in->stamp);
	snprintf(p->abi_pgo, sizeof(p->abi_pgo), "%s.%s", p->abi_instr, in->stamp);
	if (!fit(p->rel_pgo, sizeof(p->rel_pgo), "%s-%s%s-pgo", p->kver, p->abi_pgo, tag))
		return kpgo_error_set(err, -EINVAL, "the release '%s-%s%s-pgo' is longer than %d",
				      p->kver, p->abi_pgo, tag, KPGO_RELEASE_MAX);
	if (!fit(p->deb_pgo, sizeof(p->deb_pgo), "%s+kpgo%s%s", srcver, in->stamp, serial) ||
	    !fit(p->rpm_release_pgo, sizeof(p->rpm_release_pgo), "%s.kpgo%s%s", p->abi_instr,
		 in->stamp, serial) ||
	    !fit(p->source_version, sizeof(p->source_version), "%s+%s+kpgo%s%s", p->kver, p->debrev,
		 in->stamp, serial))
		return kpgo_error_set(err, -EINVAL, "the package version is too long");
	return 0;
}
