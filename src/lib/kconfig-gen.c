// SPDX-License-Identifier: GPL-2.0-or-later
/* The config fragments a kernel build generates: release, signing key, debug information. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "kconfig-gen.h"

/* A key and its certificate are a few KiB; a file this large is no key. */
#define SIGNING_KEY_MAX (1u << 20)

/* A line of @text (@n bytes) holding @a and, after it, @b (b may be NULL). */
static bool some_line_has(const char *text, size_t n, const char *a, const char *b)
{
	const char *p = text, *end = text + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *at = memmem(p, (size_t)(e - p), a, strlen(a));

		if (at && (!b || memmem(at + strlen(a), (size_t)(e - at) - strlen(a), b, strlen(b))))
			return true;
		p = e + 1;
	}
	return false;
}

int kpgo_signing_key_check(const char *path, char **abs, struct kpgo_error *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *c;
	int r;

	*abs = NULL;
	r = kpgo_read_file(path, &text, SIGNING_KEY_MAX);
	if (!r && !(*abs = realpath(path, NULL)))
		r = -errno;
	if (r) {
		strbuf_release(&text);
		return kpgo_error_set(err, r, "cannot read signing key '%s'", path);
	}
	for (c = *abs; *c; c++) {
		if (!strchr("-./_", *c) && !(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9')) {
			r = kpgo_error_set(err, -EINVAL,
					   "the signing key's path '%s' has characters a config "
					   "string cannot hold",
					   *abs);
			goto out;
		}
	}
	if (!some_line_has(text.buf, text.len, "-----BEGIN ", "PRIVATE KEY-----") ||
	    !some_line_has(text.buf, text.len, "-----BEGIN CERTIFICATE-----", NULL))
		r = kpgo_error_set(err, -EINVAL,
				   "'%s' is not a PEM file with a private key and its certificate",
				   *abs);
out:
	if (r) {
		free(*abs);
		*abs = NULL;
	}
	strbuf_release(&text);
	return r;
}

static bool config_string_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f || *s == '"' || *s == '\\')
			return false;
	return true;
}

/* Removes DIR/kpgo-gen-*.config. */
static int remove_old(const char *dir, struct kpgo_error *err)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return kpgo_error_set(err, -errno, "cannot open '%s': %s", dir, strerror(errno));
	while ((errno = 0, de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "kpgo-gen-", 9) || n < 9 + 7 ||
		    strcmp(de->d_name + n - 7, ".config"))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT) {
			r = kpgo_error_set(err, -errno, "cannot remove '%s/%s': %s", dir,
					   de->d_name, strerror(errno));
			break;
		}
	}
	closedir(d);
	return r;
}

static int put(const char *dir, const char *name, const struct strbuf *text,
	       struct kpgo_strlist *written, struct kpgo_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int r = strbuf_addf(&path, "%s/%s", dir, name) ? -ENOMEM : 0;

	if (!r)
		r = kpgo_write_file_atomic(path.buf, text->buf, text->len, 0644);
	if (r)
		kpgo_error_set(err, r, "cannot write '%s': %s", path.buf, strerror(-r));
	else if (kpgo_strlist_add(written, path.buf))
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
	strbuf_release(&path);
	return r;
}

int kpgo_kconfig_gen_write(const struct kpgo_kconfig_gen *g, const char *dir,
			   struct kpgo_strlist *written, struct kpgo_error *err)
{
	struct strbuf t = STRBUF_INIT;
	int r;

	if (g->localversion && !config_string_ok(g->localversion))
		return kpgo_error_set(err, -EINVAL, "the local version '%s' is not a config string",
				      g->localversion);
	r = remove_old(dir, err);
	if (!r && g->localversion) {
		if (strbuf_addf(&t, "# kpgo-kbuild --release\nCONFIG_LOCALVERSION=\"%s\"\n",
				g->localversion))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		else
			r = put(dir, "kpgo-gen-release.config", &t, written, err);
	}
	if (!r && g->signing_key) {
		strbuf_reset(&t);
		if (strbuf_addf(&t,
				"# kpgo-kbuild --signing-key\nCONFIG_MODULE_SIG=y\n"
				"CONFIG_MODULE_SIG_ALL=y\nCONFIG_MODULE_SIG_SHA256=y\n"
				"CONFIG_MODULE_SIG_KEY=\"%s\"\n",
				g->signing_key))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		else
			r = put(dir, "kpgo-gen-signing.config", &t, written, err);
	}
	if (!r && g->debug_info) {
		strbuf_reset(&t);
		if (strbuf_addstr(&t, "# kpgo-kbuild --debug-info\nCONFIG_DEBUG_KERNEL=y\n"
				      "CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y\n"))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		else
			r = put(dir, "kpgo-gen-debug.config", &t, written, err);
	}
	strbuf_release(&t);
	return r;
}
