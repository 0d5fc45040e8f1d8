// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kconfig.h"
#include "lines.h"

#define PREFIX "CONFIG_"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

void kpgo_kconfig_init(struct kpgo_kconfig *c)
{
	memset(c, 0, sizeof(*c));
}

void kpgo_kconfig_release(struct kpgo_kconfig *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->lines[i].sym);
		free(c->lines[i].line);
	}
	free(c->lines);
	free(c->index);
	kpgo_kconfig_init(c);
}

static size_t sym_len(const char *s)
{
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
}

/*
 * The symbol a config line sets, as kconfig's own parser takes it:
 * "CONFIG_X=..." or exactly "# CONFIG_X is not set". Its length, 0 for
 * any other line.
 */
static size_t setting_sym(const char *line, const char **sym)
{
	static const char not_set[] = " is not set";
	size_t n;

	if (!strncmp(line, PREFIX, PREFIX_LEN)) {
		n = sym_len(line + PREFIX_LEN);
		*sym = line;
		return n && line[PREFIX_LEN + n] == '=' ? PREFIX_LEN + n : 0;
	}
	if (strncmp(line, "# " PREFIX, 2 + PREFIX_LEN))
		return 0;
	n = sym_len(line + 2 + PREFIX_LEN);
	*sym = line + 2;
	return n && !strcmp(line + 2 + PREFIX_LEN + n, not_set) ? PREFIX_LEN + n : 0;
}

struct parse {
	struct kpgo_kconfig *c;
	const struct kpgo_lines *lr;
};

static int parse_line(void *ctx, char *line, size_t len)
{
	struct parse *p = ctx;
	struct kpgo_kconfig *c = p->c;
	struct kpgo_kconfig_line *l;
	const char *sym = NULL;
	size_t n;

	n = setting_sym(line, &sym);
	if (!n)
		return 0;
	if (KPGO_ALLOC_GROW(c->lines, c->n + 1, c->alloc))
		return -ENOMEM;
	l = &c->lines[c->n];
	l->sym = strndup(sym, n);
	l->line = strndup(line, len);
	l->lineno = p->lr->lines; /* this one included */
	if (!l->sym || !l->line) {
		free(l->sym);
		free(l->line);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* By symbol, then by position (the lines are one array): the last setting last. */
static int cmp_index(const void *a, const void *b)
{
	const struct kpgo_kconfig_line *x = *(const struct kpgo_kconfig_line *const *)a;
	const struct kpgo_kconfig_line *y = *(const struct kpgo_kconfig_line *const *)b;
	int r = strcmp(x->sym, y->sym);

	return r ? r : (x > y) - (x < y);
}

/* The settings of @text; the message in @err without the file's name. */
static int parse_text(struct kpgo_kconfig *c, const char *text, size_t len, struct kpgo_error *err)
{
	struct kpgo_lines lr;
	struct parse p = { c, &lr };
	size_t i;
	int r;

	kpgo_lines_init(&lr, KPGO_KCONFIG_LINE_MAX, parse_line, &p);
	r = kpgo_lines_feed(&lr, text, len, err);
	if (!r)
		r = kpgo_lines_finish(&lr, err);
	if (!r && lr.long_lines)
		r = kpgo_error_set(err, -E2BIG, "%zu line%s longer than %u bytes", lr.long_lines,
				   lr.long_lines == 1 ? "" : "s", KPGO_KCONFIG_LINE_MAX);
	kpgo_lines_release(&lr);
	if (r)
		return r;
	free(c->index);
	c->index = calloc(c->n ? c->n : 1, sizeof(*c->index));
	if (!c->index)
		return kpgo_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < c->n; i++)
		c->index[i] = &c->lines[i];
	qsort(c->index, c->n, sizeof(*c->index), cmp_index);
	return 0;
}

int kpgo_kconfig_parse(struct kpgo_kconfig *c, const char *name, const char *text, size_t len,
		       struct kpgo_error *err)
{
	int r = parse_text(c, text, len, err);

	if (r)
		kpgo_error_prefix(err, "%s", name);
	return r;
}

int kpgo_kconfig_read(struct kpgo_kconfig *c, const char *path, struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	r = kpgo_read_file(path, &sb, KPGO_KCONFIG_MAX);
	if (r)
		r = kpgo_error_set(err, r, "%s", r == -EFBIG ? "larger than 16 MiB" : strerror(-r));
	else
		r = parse_text(c, sb.buf, sb.len, err);
	if (r)
		kpgo_error_prefix(err, "cannot read '%s'", path);
	strbuf_release(&sb);
	return r;
}

const struct kpgo_kconfig_line *kpgo_kconfig_get(const struct kpgo_kconfig *c, const char *sym)
{
	size_t lo = 0, hi = c->n, found = SIZE_MAX;

	/* the last of the lines that set @sym: the index sorts them by position */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(c->index[mid]->sym, sym);

		if (r <= 0) {
			if (!r)
				found = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return found == SIZE_MAX ? NULL : c->index[found];
}

/* The setting of the symbol that @line sets; NULL when none (or out of memory). */
static const struct kpgo_kconfig_line *get_setting(const struct kpgo_kconfig *c, const char *line)
{
	const struct kpgo_kconfig_line *l;
	const char *sym = NULL;
	size_t n = setting_sym(line, &sym);
	char *s;

	if (!n)
		return NULL;
	s = strndup(sym, n);
	if (!s)
		return NULL;
	l = kpgo_kconfig_get(c, s);
	free(s);
	return l;
}

bool kpgo_kconfig_has(const struct kpgo_kconfig *c, const char *line)
{
	const struct kpgo_kconfig_line *l = get_setting(c, line);

	return l && !strcmp(l->line, line);
}

/* --- the symbols of the Kconfig files ----------------------------------- */

struct symbols {
	const char *top;
	struct strbuf *path;
	struct kpgo_strlist *syms;
	struct kpgo_error *err;
};

static int kconfig_line(void *ctx, char *line, size_t len)
{
	static const char space[] = " \t\v\f\r";
	struct symbols *s = ctx;
	char *p = line + strspn(line, space);
	size_t n;

	(void)len;
	if (!strncmp(p, "menu", 4))
		p += 4;
	if (strncmp(p, "config", 6) || !p[6] || !strchr(space, p[6]))
		return 0;
	p += 6;
	p += strspn(p, space);
	n = sym_len(p);
	if (!n)
		return 0;
	p[n] = '\0';
	return kpgo_strlist_add(s->syms, p);
}

static int kconfig_file(void *ctx, int dirfd, const char *name)
{
	struct symbols *s = ctx;
	struct strbuf full = STRBUF_INIT;
	struct kpgo_error err;
	struct kpgo_lines lr;
	int r;

	(void)dirfd;
	if (strncmp(name, "Kconfig", 7))
		return 0;
	if (strbuf_addf(&full, "%s/%s", s->top, s->path->buf))
		return kpgo_error_set(s->err, -ENOMEM, "out of memory");
	kpgo_lines_init(&lr, KPGO_KCONFIG_LINE_MAX, kconfig_line, s);
	r = kpgo_lines_read_file(&lr, full.buf, &err);
	kpgo_lines_release(&lr);
	if (r)
		r = kpgo_error_set(s->err, r, "cannot read '%s': %s", full.buf, err.msg);
	strbuf_release(&full);
	return r;
}

/* The top directories of @srctree that hold a .config: build trees. */
static int build_trees(const char *srctree, struct kpgo_strlist *out, struct kpgo_error *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	d = opendir(srctree);
	if (!d)
		return kpgo_error_set(err, -errno, "cannot open '%s': %s", srctree, strerror(errno));
	while ((de = readdir(d))) {
		struct strbuf cfg = STRBUF_INIT;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (strbuf_addf(&cfg, "%s/.config", de->d_name)) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		if (!fstatat(dirfd(d), cfg.buf, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
		    kpgo_strlist_add(out, de->d_name))
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
		strbuf_release(&cfg);
		if (r)
			break;
	}
	closedir(d);
	return r;
}

int kpgo_kconfig_symbols(const char *srctree, struct kpgo_strlist *syms, struct kpgo_error *err)
{
	struct kpgo_strlist prune = { 0 };
	struct strbuf path = STRBUF_INIT;
	struct symbols s = { srctree, &path, syms, err };
	const char **names = NULL;
	size_t i;
	int r;

	kpgo_strlist_clear(syms);
	r = build_trees(srctree, &prune, err);
	if (r)
		goto out;
	names = calloc(prune.n + 1, sizeof(*names));
	if (!names) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < prune.n; i++)
		names[i] = prune.items[i];
	/* the walk's errors and kconfig_file()'s are in @err */
	r = kpgo_walk_files(srctree, "", names, &path, kconfig_file, &s, err);
	if (!r)
		kpgo_strlist_sort(syms);
out:
	free(names);
	kpgo_strlist_clear(&prune);
	strbuf_release(&path);
	return r;
}

bool kpgo_kconfig_symbol_known(const struct kpgo_strlist *syms, const char *sym)
{
	size_t lo = 0, hi = syms->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(syms->items[mid], sym);

		if (!r)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* --- checks -------------------------------------------------------------- */

static int tell(kpgo_kconfig_problem_fn fn, void *ctx, enum kpgo_kconfig_problem_kind kind,
		const char *file, const char *sym, const char *want,
		const struct kpgo_kconfig_line *have)
{
	struct kpgo_kconfig_problem p = { kind, file, sym, want, have ? have->line : NULL };

	return fn(ctx, &p);
}

int kpgo_kconfig_check_fragments(const struct kpgo_kconfig *config,
				 const struct kpgo_kconfig *frags, const char *const *names,
				 size_t n, const struct kpgo_strlist *known,
				 kpgo_kconfig_problem_fn fn, void *ctx)
{
	int bad = 0, r;
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		const struct kpgo_kconfig *f = &frags[i];

		for (k = 0; k < f->n; k++) {
			const struct kpgo_kconfig_line *want = &f->lines[k], *have;
			bool later = false;

			if (kpgo_kconfig_get(f, want->sym) != want)
				continue; /* set again further down */
			for (j = i + 1; j < n && !later; j++)
				later = kpgo_kconfig_get(&frags[j], want->sym);
			if (later)
				continue;
			have = kpgo_kconfig_get(config, want->sym);
			if (have ? !strcmp(have->line, want->line) : want->line[0] == '#')
				continue;
			if (!have && !kpgo_kconfig_symbol_known(known, want->sym + PREFIX_LEN)) {
				r = tell(fn, ctx, KPGO_KCONFIG_LEFT_OUT, names[i], want->sym,
					 want->line, NULL);
			} else {
				r = tell(fn, ctx, KPGO_KCONFIG_MISMATCH, names[i], want->sym,
					 want->line, have);
				bad++;
			}
			if (r < 0)
				return r;
		}
	}
	return bad;
}

static bool readable_in(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok;

	if (!dir)
		return false;
	ok = !strbuf_addf(&sb, "%s/%s", dir, name) && !access(sb.buf, R_OK);
	strbuf_release(&sb);
	return ok;
}

int kpgo_kconfig_check_key_files(const struct kpgo_kconfig *config, const char *srctree,
				 const char *objtree, kpgo_kconfig_problem_fn fn, void *ctx)
{
	static const char *const syms[] = {
		"CONFIG_SYSTEM_TRUSTED_KEYS",
		"CONFIG_SYSTEM_REVOCATION_KEYS",
		"CONFIG_MODULE_SIG_KEY",
		"CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE",
	};
	int bad = 0, r;
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		const struct kpgo_kconfig_line *l = kpgo_kconfig_get(config, syms[i]);
		size_t n = strlen(syms[i]), len;
		char *file;

		/* CONFIG_X="name", the name as written (kconfig escapes " and \) */
		if (!l || l->line[n] != '=' || l->line[n + 1] != '"')
			continue;
		len = strlen(l->line + n + 2);
		if (!len || l->line[n + 2 + len - 1] != '"')
			continue;
		file = strndup(l->line + n + 2, len - 1);
		if (!file)
			return -ENOMEM;
		if (!*file || !strcmp(file, "certs/signing_key.pem") ||
		    !strncmp(file, "pkcs11:", 7) ||
		    (file[0] == '/' ? !access(file, R_OK) :
				      readable_in(srctree, file) || readable_in(objtree, file))) {
			free(file);
			continue;
		}
		r = tell(fn, ctx, KPGO_KCONFIG_KEY_FILE, NULL, syms[i], file, l);
		free(file);
		if (r < 0)
			return r;
		bad++;
	}
	return bad;
}

int kpgo_kflavour_parse(const char *s, enum kpgo_kflavour *f)
{
	static const char *const names[] = {
		[KPGO_KFLAVOUR_PGO_INSTR] = "pgo-instr",
		[KPGO_KFLAVOUR_PGO] = "pgo",
		[KPGO_KFLAVOUR_BASELINE] = "baseline",
		[KPGO_KFLAVOUR_O3] = "o3",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*f = (enum kpgo_kflavour)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* @line ("CONFIG_X=y", a constant) must be in @config, or must not (@want false). */
static int need(const struct kpgo_kconfig *config, const char *line, bool want,
		kpgo_kconfig_problem_fn fn, void *ctx, int *bad)
{
	const char *sym = NULL;
	size_t n = setting_sym(line, &sym);
	char name[64];
	int r;

	if (kpgo_kconfig_has(config, line) == want)
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)n, sym);
	r = tell(fn, ctx, want ? KPGO_KCONFIG_REQUIRED : KPGO_KCONFIG_FORBIDDEN, NULL, name, line,
		 get_setting(config, line));
	(*bad)++;
	return r < 0 ? r : 0;
}

int kpgo_kconfig_check_flavour(const struct kpgo_kconfig *config, const struct kpgo_kflavour_opts *o,
			       kpgo_kconfig_problem_fn fn, void *ctx)
{
	bool instr = o->flavour == KPGO_KFLAVOUR_PGO_INSTR;
	int bad = 0, r;

	/* gcov on every object, and only in the instrumented flavour */
	r = need(config, "CONFIG_GCOV_KERNEL=y", instr, fn, ctx, &bad);
	if (!r && instr)
		r = need(config, "CONFIG_GCOV_PROFILE_ALL=y", true, fn, ctx, &bad);
	/* Clang's LTO: upstream's ThinLTO, or full LTO (far more memory and
	 * time in the link: the benchmark's) */
	if (!r && o->clang)
		r = need(config, o->full_lto ? "CONFIG_LTO_CLANG_FULL=y" : "CONFIG_LTO_CLANG_THIN=y",
			 true, fn, ctx, &bad);
	/* modules_install signs every module only with _ALL */
	if (!r && o->module_sig)
		r = need(config, "CONFIG_MODULE_SIG_ALL=y", true, fn, ctx, &bad);
	return r ? r : bad;
}
