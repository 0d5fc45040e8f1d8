// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo_ccache_specs(): compiler flags that ccache caches. ccache 4.7
 * (Debian 12's) compiles uncached any profiling option it does not know:
 * -fprofile-partial-training (the pgo flavour's KCFLAGS) and the kernel's
 * -fprofile-update=prefer-atomic (CFLAGS_GCOV, every instrumented object)
 * among them. They reach cc1 through a specs file instead: the objects are
 * the same, and ccache hashes the specs file's path, size and mtime, so the
 * file is named by its content and written once.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "sha256.h"
#include "toolchain.h"

static bool uncached(const char *w, size_t n)
{
	static const char partial[] = "-fprofile-partial-training";
	static const char update[] = "-fprofile-update=";

	return (n == sizeof(partial) - 1 && !memcmp(w, partial, n)) ||
	       (n >= sizeof(update) - 1 && !memcmp(w, update, sizeof(update) - 1));
}

int kpgo_ccache_split(const char *flags, struct strbuf *kept, struct strbuf *specs)
{
	struct strbuf word = STRBUF_INIT;
	const char *p = flags;
	int r = 0, moved = 0;

	/* kept: " FLAGS " with the first " WORD " of each moved word made " " */
	if (strbuf_addch(kept, ' ') || strbuf_addstr(kept, flags) || strbuf_addch(kept, ' '))
		return -ENOMEM;
	while (!r && *p) {
		size_t n = strcspn(p, " \t\n");
		char *at;

		if (!n || !uncached(p, n)) {
			p += n ? n : 1;
			continue;
		}
		strbuf_reset(&word);
		if (strbuf_addch(&word, ' ') || strbuf_add(&word, p, n) || strbuf_addch(&word, ' ') ||
		    (!moved && strbuf_addstr(specs, "*cc1_options:\n+")) ||
		    strbuf_add(specs, word.buf, n + 1)) {
			r = -ENOMEM;
			break;
		}
		at = strstr(kept->buf, word.buf);
		if (at) {
			memmove(at + 1, at + word.len,
				kept->len - (size_t)(at - kept->buf) - word.len + 1);
			kept->len -= word.len - 1;
		}
		moved++;
		p += n;
	}
	strbuf_release(&word);
	return r ? r : moved;
}

/* mkdir -p @dir. */
static int mkdirs(const char *dir)
{
	struct strbuf d = STRBUF_INIT;
	size_t i;
	int r = 0;

	if (strbuf_addstr(&d, dir))
		return -ENOMEM;
	for (i = 1; !r && i <= d.len; i++) {
		if (d.buf[i] != '/' && d.buf[i] != '\0')
			continue;
		d.buf[i] = '\0';
		if (mkdir(d.buf, 0755) < 0 && errno != EEXIST)
			r = -errno;
		d.buf[i] = i < d.len ? '/' : '\0';
	}
	strbuf_release(&d);
	return r;
}

int kpgo_ccache_specs_name(const struct strbuf *specs, char name[24])
{
	char hex[KPGO_SHA256_HEX];
	struct kpgo_sha256 *h = kpgo_sha256_new();

	if (!h)
		return -ENOMEM;
	kpgo_sha256_update(h, specs->buf, specs->len);
	kpgo_sha256_final_hex(h, hex);
	memcpy(name, hex, 16);
	memcpy(name + 16, ".specs", 7);
	return 0;
}

int kpgo_ccache_specs(const char *flags, const char *dir, struct strbuf *out, struct kpgo_error *err)
{
	struct strbuf kept = STRBUF_INIT, specs = STRBUF_INIT, path = STRBUF_INIT;
	struct stat st;
	char name[24];
	int r = kpgo_ccache_split(flags, &kept, &specs);

	if (r <= 0)
		goto unchanged;
	r = kpgo_ccache_specs_name(&specs, name);
	if (!r && strbuf_addf(&path, "%s/%s", dir, name))
		r = -ENOMEM;
	if (r)
		goto unchanged;
	if (stat(path.buf, &st) < 0 || !S_ISREG(st.st_mode)) {
		/* the file ends in a blank line, as GCC's own specs do */
		r = mkdirs(dir);
		if (!r && strbuf_addstr(&specs, "\n\n"))
			r = -ENOMEM;
		if (!r)
			r = kpgo_write_file_atomic(path.buf, specs.buf, specs.len, 0644);
		if (r) {
			kpgo_error_set(err, r, "cannot write the specs file '%s': %s", path.buf,
				       strerror(-r));
			goto unchanged;
		}
	}
	r = strbuf_addf(out, "%s-specs=%s", kept.buf + 1, path.buf) ? -ENOMEM : 0;
	goto out;
unchanged:
	if (strbuf_addstr(out, flags))
		r = -ENOMEM;
	if (r == -ENOMEM)
		kpgo_error_set(err, r, "out of memory");
out:
	strbuf_release(&kept);
	strbuf_release(&specs);
	strbuf_release(&path);
	return r < 0 ? r : 0;
}
