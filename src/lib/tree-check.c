// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo_tree_check(): a built kernel tree against its flavour, and its report. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "tree-check.h"

/* A .cmd file holds one compiler line and the dependencies: far below this. */
#define CMD_FILE_MAX (64u << 20)

static const char *const flavour_names[] = {
	[KPGO_KFLAVOUR_PGO_INSTR] = "pgo-instr",
	[KPGO_KFLAVOUR_PGO] = "pgo",
	[KPGO_KFLAVOUR_BASELINE] = "baseline",
	[KPGO_KFLAVOUR_O3] = "o3",
};

/* What `nm FILE | grep -c PATTERN` counts, for the patterns the checks use. */
struct symcount {
	const char *needle; /* in the name, or the name's start with @prefix, all of it with @whole */
	bool prefix;
	bool whole;
	uint64_t n;
};

static int count_one(void *ctx, const char *name, size_t len)
{
	struct symcount *c = ctx;
	size_t n = strlen(c->needle);

	if (c->whole)
		c->n += len == n && !memcmp(name, c->needle, n);
	else if (c->prefix)
		c->n += len >= n && !memcmp(name, c->needle, n);
	else
		c->n += memmem(name, len, c->needle, n) != NULL;
	return 0;
}

/* The ELF file @name (in @dirfd), mapped: *@data and *@len; 0 or a negative errno. */
static int map_file(int dirfd, const char *name, void **data, size_t *len)
{
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
	} else if (!S_ISREG(st.st_mode) || !st.st_size) {
		r = -EINVAL;
	} else {
		*len = (size_t)st.st_size;
		*data = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*data == MAP_FAILED)
			r = -errno;
	}
	close(fd);
	return r;
}

/*
 * Counts the symbols of @path (@name in @dirfd) that @c matches; the size
 * of the file in *@bytes when not NULL.
 */
static int count_symbols(int dirfd, const char *name, const char *path, struct symcount *c,
			 uint64_t *bytes, struct kpgo_error *err)
{
	void *data;
	size_t len;
	int r = map_file(dirfd, name, &data, &len);

	if (r)
		return kpgo_error_set(err, r, "cannot read '%s': %s", path,
				      r == -EINVAL ? "not an ELF file" : strerror(-r));
	c->n = 0;
	r = kpgo_elf_symbols(data, len, count_one, c);
	munmap(data, len);
	if (r)
		return kpgo_error_set(err, -EINVAL,
				      "cannot read the symbols of '%s': not an ELF "
				      "file kpgo reads (64-bit, little-endian)",
				      path);
	if (bytes)
		*bytes = len;
	return 0;
}

struct module_walk {
	const char *objtree;
	struct strbuf path;
	struct kpgo_error *err;
};

static int module_clean(void *ctx, int dirfd, const char *name)
{
	struct module_walk *w = ctx;
	struct symcount c = { "__gcov", false, false, 0 };
	struct strbuf full = STRBUF_INIT;
	int r;

	if (strbuf_addf(&full, "%s/%s", w->objtree, w->path.buf))
		return kpgo_error_set(w->err, -ENOMEM, "out of memory");
	r = count_symbols(dirfd, name, full.buf, &c, NULL, w->err);
	if (!r && c.n)
		r = kpgo_error_set(w->err, -EBADMSG,
				   "'%s' has __gcov symbols: the module is instrumented", full.buf);
	strbuf_release(&full);
	return r;
}

struct object_walk {
	const char *srctree;
	struct strbuf path;
	uint64_t n;
	bool from_c;
	struct kpgo_error *err;
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int count_file(void *ctx, int dirfd, const char *name)
{
	struct object_walk *w = ctx;
	struct strbuf c = STRBUF_INIT;
	struct stat st;

	(void)dirfd;
	if (!w->from_c) {
		w->n++;
		return 0;
	}
	if (has_suffix(name, ".mod.o"))
		return 0;
	if (strbuf_addf(&c, "%s/%.*s.c", w->srctree, (int)(w->path.len - 2), w->path.buf))
		return kpgo_error_set(w->err, -ENOMEM, "out of memory");
	w->n += !stat(c.buf, &st) && S_ISREG(st.st_mode);
	strbuf_release(&c);
	return 0;
}

/* The regular files *@suffix below @objtree (@from_c: the kernel's objects compiled from C). */
static int count_files(const char *objtree, const char *srctree, const char *suffix, bool from_c,
		       uint64_t *n, struct kpgo_error *err)
{
	static const char *const host[] = { "scripts", "tools", NULL };
	struct object_walk w = { srctree, STRBUF_INIT, 0, from_c, err };
	int r = kpgo_walk_files(objtree, suffix, from_c ? host : NULL, &w.path, count_file, &w, err);

	strbuf_release(&w.path);
	*n = w.n;
	return r;
}

void kpgo_tree_last_opt_level(const char *cmd, char out[16])
{
	const char *p = cmd;

	out[0] = '\0';
	while ((p = strstr(p, " -O"))) {
		const char *e = p + 3;

		while ((*e >= '0' && *e <= '9') || *e == 's' || *e == 'g' || *e == 'z')
			e++;
		if (*e != ' ') {
			p++;
			continue;
		}
		if ((size_t)(e - p - 1) < 16) {
			memcpy(out, p + 1, (size_t)(e - p - 1));
			out[e - p - 1] = '\0';
		}
		p = e + 1; /* grep -o: the blank after a match is not the next one's */
	}
}

/* vmlinux's .comment names clang (what `readelf -p .comment` would show). */
static int built_by_clang(const char *vmlinux, struct kpgo_error *err)
{
	static const char clang[] = "clang version";
	const void *sec = NULL;
	size_t len, n = 0;
	void *data;
	int r = map_file(AT_FDCWD, vmlinux, &data, &len);

	if (r)
		return kpgo_error_set(err, r, "cannot read '%s': %s", vmlinux, strerror(-r));
	r = kpgo_elf_section(data, len, ".comment", &sec, &n);
	if (!r && !memmem(sec, n, clang, sizeof(clang) - 1))
		r = -ENOENT;
	munmap(data, len);
	if (r)
		return kpgo_error_set(err, -EBADMSG,
				      "vmlinux's .comment does not name clang: not built by Clang");
	return 0;
}

static int check_cmd_line(const struct kpgo_tree_check_opts *o, const char *cmdpath,
			  const char *cmd, struct kpgo_tree_facts *f, struct kpgo_error *err)
{
	struct strbuf afdo = STRBUF_INIT;
	const char *want = "-O2";
	int r = 0;

	kpgo_tree_last_opt_level(cmd, f->opt_level);
	switch (o->flavour) {
	case KPGO_KFLAVOUR_O3: want = "-O3"; /* fall through */
	case KPGO_KFLAVOUR_BASELINE:
		if (strcmp(f->opt_level, want))
			return kpgo_error_set(err, -EBADMSG,
					      "init/main.o was compiled with '%s', not %s (see %s)",
					      f->opt_level, want, cmdpath);
		if (strstr(cmd, "-fprofile-use") || strstr(cmd, "-fprofile-sample-use"))
			return kpgo_error_set(err, -EBADMSG,
					      "init/main.o was compiled with a profile");
		return 0;
	case KPGO_KFLAVOUR_PGO:
		if (!o->clang) {
			if (!strstr(cmd, "-fprofile-use"))
				r = kpgo_error_set(err, -EBADMSG,
						   "init/main.o was not compiled with -fprofile-use");
			return r;
		}
		if (strbuf_addf(&afdo, "-fprofile-sample-use=%s/kpgo.afdo", o->objtree))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		if (!strstr(cmd, afdo.buf))
			r = kpgo_error_set(err, -EBADMSG,
					   "init/main.o was not compiled with -fprofile-sample-use");
		strbuf_release(&afdo);
		return r;
	default: return 0;
	}
}

static int check_uninstrumented(const struct kpgo_tree_check_opts *o, const char *vmlinux,
				struct kpgo_tree_facts *f, struct kpgo_error *err)
{
	struct symcount c = { "__gcov", false, false, 0 };
	struct module_walk w = { o->objtree, STRBUF_INIT, err };
	int r = count_symbols(AT_FDCWD, vmlinux, vmlinux, &c, &f->vmlinux_bytes, err);

	if (r)
		return r;
	if (c.n)
		return kpgo_error_set(err, -EBADMSG,
				      "vmlinux has __gcov symbols: the %s kernel is instrumented",
				      flavour_names[o->flavour]);
	r = kpgo_walk_files(o->objtree, ".ko", NULL, &w.path, module_clean, &w, err);
	strbuf_release(&w.path);
	return r;
}

static int check_instrumented(const struct kpgo_tree_check_opts *o, const char *vmlinux,
			      struct kpgo_tree_facts *f, struct kpgo_error *err)
{
	struct symcount init = { "__gcov_init", false, true, 0 };
	struct symcount counters = { "__gcov0.", true, false, 0 };
	int r = count_symbols(AT_FDCWD, vmlinux, vmlinux, &init, &f->vmlinux_bytes, err);

	if (!r && !init.n)
		r = kpgo_error_set(err, -EBADMSG, "vmlinux has no __gcov_init: not instrumented");
	if (!r)
		r = count_symbols(AT_FDCWD, vmlinux, vmlinux, &counters, NULL, err);
	if (!r && !counters.n)
		r = kpgo_error_set(err, -EBADMSG,
				   "vmlinux has no gcov counters (__gcov0.*): not instrumented");
	if (r)
		return r;
	f->counters = counters.n;
	r = count_files(o->objtree, o->srctree, ".o", true, &f->objects, err);
	if (!r)
		r = count_files(o->objtree, NULL, ".gcno", false, &f->gcno, err);
	return r;
}

int kpgo_tree_check(const struct kpgo_tree_check_opts *o, struct kpgo_tree_facts *f,
		    struct kpgo_error *err)
{
	struct strbuf vmlinux = STRBUF_INIT, cmdpath = STRBUF_INIT, cmd = STRBUF_INIT;
	int r;

	memset(f, 0, sizeof(*f));
	if ((unsigned)o->flavour >= sizeof(flavour_names) / sizeof(flavour_names[0]))
		return kpgo_error_set(err, -EINVAL, "unknown flavour");
	if (strbuf_addf(&vmlinux, "%s/vmlinux", o->objtree) ||
	    strbuf_addf(&cmdpath, "%s/init/.main.o.cmd", o->objtree)) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (o->flavour == KPGO_KFLAVOUR_PGO_INSTR) {
		r = check_instrumented(o, vmlinux.buf, f, err);
		goto out;
	}
	r = check_uninstrumented(o, vmlinux.buf, f, err);
	if (!r) {
		r = kpgo_read_file(cmdpath.buf, &cmd, CMD_FILE_MAX);
		if (r)
			r = kpgo_error_set(err, r, "cannot read '%s': %s", cmdpath.buf,
					   strerror(-r));
	}
	if (!r && o->clang) {
		/* the kernel's CC_FLAGS_LTO: -flto=thin, or -flto for full LTO */
		const char *want = o->full_lto ? " -flto " : " -flto=thin ";

		if (!strstr(cmd.buf, want) || (o->full_lto && strstr(cmd.buf, " -flto=thin ")))
			r = kpgo_error_set(err, -EBADMSG,
					   "init/main.o was not compiled with %s (see %s)",
					   o->full_lto ? "-flto (full LTO)" : "-flto=thin",
					   cmdpath.buf);
	}
	if (!r && o->clang)
		r = built_by_clang(vmlinux.buf, err);
	if (!r)
		r = check_cmd_line(o, cmdpath.buf, cmd.buf, f, err);
out:
	strbuf_release(&vmlinux);
	strbuf_release(&cmdpath);
	strbuf_release(&cmd);
	return r;
}

int kpgo_tree_report(const struct kpgo_tree_check_opts *o, const struct kpgo_tree_facts *f,
		     const struct kpgo_tree_report_info *ri, struct strbuf *out)
{
	int r;

	if (o->flavour == KPGO_KFLAVOUR_PGO_INSTR)
		r = strbuf_addf(out,
				"kernel release: %s\nbuild seconds: %s\nsource file names: %s\n"
				"objects compiled from C: %llu\nobjects with gcov (.gcno): %llu\n"
				"functions with counters in vmlinux (__gcov0.*): %llu\n"
				"vmlinux bytes: %llu\n",
				ri->release, ri->build_seconds, ri->source_names,
				(unsigned long long)f->objects, (unsigned long long)f->gcno,
				(unsigned long long)f->counters,
				(unsigned long long)f->vmlinux_bytes);
	else if (o->flavour == KPGO_KFLAVOUR_BASELINE || o->flavour == KPGO_KFLAVOUR_O3)
		r = strbuf_addf(out,
				"kernel release: %s\nbuild seconds: %s\ncompiler: %s\n"
				"toolchain: %s\n"
				"optimisation: %s (last -O on the compiler line of init/main.o)\n"
				"KCFLAGS: %s\nvmlinux bytes: %llu\n",
				ri->release, ri->build_seconds, ri->compiler,
				!o->clang   ? "gcc" :
				o->full_lto ? "clang (full LTO)" :
					      "clang (ThinLTO)",
				f->opt_level, *ri->kcflags ? ri->kcflags : "(none)",
				(unsigned long long)f->vmlinux_bytes);
	else
		return -EINVAL;
	return r ? -ENOMEM : 0;
}
