// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo_afdo_convert(): a profile archive's objects paired with their .gcno
 * files in a private directory, gcov run over them in batches, its JSON
 * read into the conversion (afdo.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afdo.h"
#include "gcda.h"
#include "gcno.h"
#include "profile-archive.h"
#include "profile.h"
#include "run.h"

#define GCNO_MAGIC 0x67636e6fu /* "gcno" */
#define AFDO_BATCH_DEFAULT 64
/* gcov's output for one batch; a large kernel object prints a few MiB. */
#define GCOV_OUTPUT_MAX (1ul << 30)
#define GCOV_STDERR_MAX (1ul << 20)
/* An object file read for its symbol table; the kernel's largest are tens of MiB. */
#define ELF_OBJECT_MAX (512ul << 20)

void kpgo_afdo_result_init(struct kpgo_afdo_result *r)
{
	strbuf_init(&r->text);
	strbuf_init(&r->defs);
	kpgo_afdo_summary_init(&r->sum);
}

void kpgo_afdo_result_release(struct kpgo_afdo_result *r)
{
	strbuf_release(&r->text);
	strbuf_release(&r->defs);
	kpgo_afdo_summary_release(&r->sum);
}

struct gcov_run {
	struct kpgo_run_result res;
	struct strbuf out;  /* standard output */
	struct strbuf errs; /* standard error */
};

/*
 * Runs @argv in directory @dirfd with standard input from /dev/null,
 * standard output read into @run->out (at most @max bytes) and standard
 * error into a file @errname in @errfd's directory, then read back.
 */
static int run_gcov(char *const argv[], int dirfd, int errdirfd, const char *errname, size_t max,
		    struct gcov_run *run)
{
	struct kpgo_run o = KPGO_RUN_INIT;
	int errfd, r;

	errfd = openat(errdirfd, errname, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (errfd < 0)
		return -errno;
	o.argv = argv;
	o.dirfd = dirfd;
	o.in = KPGO_RUN_DEVNULL;
	o.out = KPGO_RUN_CAPTURE;
	o.out_buf = &run->out;
	o.out_max = max;
	o.err = KPGO_RUN_FD;
	o.err_fd = errfd;
	r = kpgo_run(&o, &run->res);
	if (!r && lseek(errfd, 0, SEEK_SET) == 0)
		kpgo_read_fd(errfd, &run->errs, GCOV_STDERR_MAX);
	close(errfd);
	return r;
}

static void first_line(const struct strbuf *sb, char *out, size_t len)
{
	size_t n = strcspn(sb->buf, "\n");

	snprintf(out, len, "%.*s", (int)(n > 300 ? 300 : n), sb->buf);
}

static size_t count_lines(const struct strbuf *sb)
{
	size_t i, n = 0;

	for (i = 0; i < sb->len; i++)
		if (sb->buf[i] == '\n')
			n++;
	if (sb->len && sb->buf[sb->len - 1] != '\n')
		n++;
	return n;
}

/* `GCOV --version`: the release on its first line's end ("... 12.2.0"). */
static int check_gcov_version(const char *gcov, uint32_t stamp, int tmpfd, struct kpgo_error *err)
{
	char *argv[] = { (char *)gcov, (char *)"--version", NULL };
	struct gcov_run run = { .out = STRBUF_INIT, .errs = STRBUF_INIT };
	char line[320], vs[5];
	const char *v;
	int r;

	kpgo_gcc_version_str(stamp, vs);
	r = run_gcov(argv, tmpfd, tmpfd, "err", 65536, &run);
	if (r) {
		r = kpgo_error_set(err, r, "cannot run '%s': %s", gcov, strerror(-r));
		goto out;
	}
	if (run.res.exec_errno) {
		r = kpgo_error_set(err, -ENOENT, "cannot run '%s': not found or not executable",
				   gcov);
		goto out;
	}
	first_line(&run.out, line, sizeof(line));
	v = strrchr(line, ' ');
	v = v ? v + 1 : line;
	if (run.res.status != 0 || !kpgo_afdo_version_matches(v, stamp)) {
		struct kpgo_gcc_version gv = { 0 };

		kpgo_gcc_version_decode(stamp, &gv);
		r = kpgo_error_set(err, -EPROTO,
				   "'%s' is gcov of GCC %s, but the profile is of gcov version '%s' (GCC %u.%u): use that GCC's gcov",
				   gcov, run.res.status || !*v ? "(unknown)" : v, vs, gv.major,
				   gv.minor);
		goto out;
	}
	r = 0;
out:
	strbuf_release(&run.out);
	strbuf_release(&run.errs);
	return r;
}

static bool in_path(const char *prog)
{
	const char *p = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	bool found = false;

	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (!found) {
		size_t n = strcspn(p, ":");

		strbuf_reset(&sb);
		if (!strbuf_add(&sb, n ? p : ".", n ? n : 1) && !strbuf_addf(&sb, "/%s", prog))
			found = access(sb.buf, X_OK) == 0;
		if (!p[n])
			break;
		p += n + 1;
	}
	strbuf_release(&sb);
	return found;
}

/* gcov-MAJOR of the profile's GCC when in PATH (Debian, Fedora), else gcov. */
static const char *default_gcov(uint32_t stamp, char *buf, size_t len)
{
	struct kpgo_gcc_version gv;

	if (kpgo_gcc_version_decode(stamp, &gv) == 0) {
		snprintf(buf, len, "gcov-%u", gv.major);
		if (in_path(buf))
			return buf;
	}
	return "gcov";
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

struct converter {
	const struct kpgo_afdo_opts *o;
	struct kpgo_afdo_result *res;
	struct kpgo_error *err;
	const char *profile;
	const char *gcov; /* the program */
	char gcov_default[32];
	int gcnofd;		     /* the .gcno tree */
	char *gcno_abs;		     /* its absolute path */
	int tmpfd;		     /* the private directory */
	int objfd;		     /* its "o", where the pairs go */
	struct kpgo_strlist pending; /* objects paired, for gcov */
};

/* @c->err: notes file @rel could not be read (@r, as kpgo_gcno_read_fd's). */
static int gcno_read_error(struct converter *c, const char *rel, int r)
{
	return kpgo_error_set(c->err, r, "cannot read '%s/%s': %s", c->gcno_abs, rel,
			      r == -EISDIR ? "not a regular file" : strerror(-r));
}

/*
 * @g against the notes file open on @fd (@rel, of another compilation: the
 * stamps differ). GCC's function ident and its checksums (of the control
 * flow graph, and of the source place) are the same in every compilation of
 * the same code; the stamp is not. As GCC's -fprofile-use does, a function
 * is the same when its ident and control flow checksum are: its counters
 * are those of the same arcs, and the notes file's lines are where they
 * are now. @same gets those functions under the notes file's stamp and
 * source checksums, so that gcov reads them (*@moved counts the ones whose
 * source place changed); each other function (changed since, or gone) is
 * counted in *@changed and left out, since gcov drops the whole object at
 * one function's mismatch. Returns the number of functions kept (0: the
 * object is left out), or a negative errno with @c->err set.
 */
static int keep_same_code(struct converter *c, int fd, const char *rel, const struct kpgo_gcda *g,
			  struct kpgo_gcda *same, size_t *changed, size_t *moved)
{
	struct strbuf raw = STRBUF_INIT;
	struct kpgo_gcno n;
	size_t i, kept = 0, nc = 0;
	int r;

	kpgo_gcno_init(&n);
	r = lseek(fd, 0, SEEK_SET) < 0 ? -errno : kpgo_gcno_read_fd(fd, &raw);
	if (r) {
		r = gcno_read_error(c, rel, r);
		goto out;
	}
	r = kpgo_gcno_parse(raw.buf, raw.len, &n, c->err);
	if (r) {
		kpgo_error_prefix(c->err, "'%s/%s'", c->gcno_abs, rel);
		goto out;
	}
	same->fns = malloc((g->n_fns ? g->n_fns : 1) * sizeof(*same->fns));
	same->ctrs = malloc((g->n_ctrs ? g->n_ctrs : 1) * sizeof(*same->ctrs));
	if (!same->fns || !same->ctrs) {
		r = kpgo_error_set(c->err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < g->n_fns; i++) {
		const struct kpgo_gcda_fn *f = &g->fns[i];
		const struct kpgo_gcno_fn *nf = kpgo_gcno_find(&n, f->ident);

		if (!nf || nf->cfg_checksum != f->cfg_checksum) {
			(*changed)++;
			continue;
		}
		*moved += nf->lineno_checksum != f->lineno_checksum;
		same->fns[kept] = *f;
		same->fns[kept].lineno_checksum = nf->lineno_checksum;
		same->fns[kept].arcs = nc;
		memcpy(same->ctrs + nc, g->ctrs + f->arcs, f->n_arcs * sizeof(*g->ctrs));
		nc += f->n_arcs;
		kept++;
	}
	same->version = g->version;
	same->stamp = n.stamp;
	same->checksum = n.checksum;
	same->n_fns = kept;
	same->n_ctrs = nc;
	r = (int)(kept < INT_MAX ? kept : INT_MAX);
out:
	kpgo_gcno_release(&n);
	strbuf_release(&raw);
	return r;
}

/*
 * Pairs object @path (".gcda") with its .gcno: 1 when paired, 0 when left
 * out (listed), or a negative errno. A .gcno of another compilation of the
 * same code pairs too, with the functions whose checksums it has.
 */
static int pair_object(struct converter *c, const char *path, const struct kpgo_gcda *g)
{
	struct strbuf rel = STRBUF_INIT, link = STRBUF_INIT, data = STRBUF_INIT;
	struct kpgo_gcda same;
	unsigned char hdr[12];
	const char *slash, *name;
	uint32_t magic, version, stamp;
	ssize_t n;
	int fd = -1, dfd = -1, r;

	kpgo_gcda_init(&same);
	r = -ENOMEM;
	if (strbuf_add(&rel, path, strlen(path) - 5) || strbuf_addstr(&rel, ".gcno"))
		goto nomem;
	/* O_NONBLOCK: a fifo of that name must not hang the open (checked below) */
	fd = openat(c->gcnofd, rel.buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT || r == -ENOTDIR) {
			r = kpgo_strlist_add(&c->res->sum.no_gcno, path) ? -ENOMEM : 0;
			if (r)
				goto nomem;
			goto out;
		}
		r = kpgo_error_set(c->err, r, "cannot open '%s/%s': %s", c->gcno_abs, rel.buf,
				   strerror(-r));
		goto out;
	}
	r = kpgo_gcno_regular_fd(fd);
	if (r) {
		r = gcno_read_error(c, rel.buf, r);
		goto out;
	}
	n = read(fd, hdr, sizeof(hdr));
	if (n == (ssize_t)sizeof(hdr)) {
		memcpy(&magic, hdr, 4);
		memcpy(&version, hdr + 4, 4);
		memcpy(&stamp, hdr + 8, 4);
	}
	if (n != (ssize_t)sizeof(hdr) || magic != GCNO_MAGIC) {
		r = kpgo_error_set(c->err, -EINVAL, "'%s/%s' is not a gcov notes file", c->gcno_abs,
				   rel.buf);
		goto out;
	}
	if (version != g->version) {
		char vn[5], vd[5];

		kpgo_gcc_version_str(version, vn);
		kpgo_gcc_version_str(g->version, vd);
		r = kpgo_error_set(c->err, -EPROTO,
				   "'%s/%s' is of gcov version '%s', but the profile of '%s'",
				   c->gcno_abs, rel.buf, vn, vd);
		goto out;
	}
	if (stamp != g->stamp) {
		size_t changed = 0, moved = 0;

		r = keep_same_code(c, fd, rel.buf, g, &same, &changed, &moved);
		if (r < 0)
			goto out;
		if (!r) {
			if (kpgo_strlist_add(&c->res->sum.other_build, path))
				goto nomem;
			goto out;
		}
		if (kpgo_strlist_add(&c->res->sum.rebuilt, path))
			goto nomem;
		c->res->sum.changed_functions += changed;
		c->res->sum.moved_functions += moved;
		g = &same;
	}
	/* The pair: OBJ.gcda as the kernel writes it, OBJ.gcno a link to the real one. */
	slash = strrchr(path, '/');
	if (slash) {
		struct strbuf dir = STRBUF_INIT;

		if (strbuf_add(&dir, path, (size_t)(slash - path))) {
			strbuf_release(&dir);
			goto nomem;
		}
		dfd = kpgo_mkdirs_at(c->objfd, dir.buf, true);
		strbuf_release(&dir);
		name = slash + 1;
	} else {
		dfd = dup(c->objfd);
		name = path;
	}
	if (dfd < 0) {
		r = dfd == -1 ? -errno : dfd;
		goto werr;
	}
	r = kpgo_gcda_write(g, 0, &data);
	if (r)
		goto werr;
	close(fd);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		goto werr;
	}
	r = kpgo_write_all(fd, data.buf, data.len);
	if (r)
		goto werr;
	if (strbuf_addf(&link, "%s/%s", c->gcno_abs, rel.buf))
		goto nomem;
	if (symlinkat(link.buf, dfd, strrchr(rel.buf, '/') ? strrchr(rel.buf, '/') + 1 : rel.buf) <
	    0) {
		r = -errno;
		goto werr;
	}
	if (kpgo_strlist_add(&c->pending, path))
		goto nomem;
	r = 1;
	goto out;
werr:
	r = kpgo_error_set(c->err, r, "cannot pair '%s' with its .gcno in a temporary directory: %s",
			   path, strerror(-r));
	goto out;
nomem:
	r = kpgo_error_set(c->err, -ENOMEM, "out of memory");
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	strbuf_release(&rel);
	strbuf_release(&link);
	strbuf_release(&data);
	kpgo_gcda_release(&same);
	return r;
}

/* kpgo_afdo_binding_fn: OBJ.o beside OBJ.gcno, read for its symbol table. */
static enum kpgo_elf_binding object_binding(void *ctx, const char *object, const char *name)
{
	struct converter *c = ctx;
	struct strbuf rel = STRBUF_INIT, data = STRBUF_INIT;
	enum kpgo_elf_binding b = KPGO_ELF_UNKNOWN;
	int fd;

	if (!strbuf_add(&rel, object, strlen(object) - 5) && !strbuf_addstr(&rel, ".o")) {
		fd = openat(c->gcnofd, rel.buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (kpgo_read_fd(fd, &data, ELF_OBJECT_MAX) == 0)
				b = kpgo_elf_function_binding(data.buf, data.len, name);
			close(fd);
		}
	}
	strbuf_release(&rel);
	strbuf_release(&data);
	return b;
}

/* One gcov run over pending objects [@from, @to), its documents added to @a. */
static int run_batch(struct converter *c, struct kpgo_afdo *a, size_t from, size_t to)
{
	struct gcov_run run = { .out = STRBUF_INIT, .errs = STRBUF_INIT };
	size_t i, pos = 0, nargs = to - from + 5;
	char **argv, msg[320];
	int r;

	argv = calloc(nargs, sizeof(*argv));
	if (!argv)
		return kpgo_error_set(c->err, -ENOMEM, "out of memory");
	argv[0] = (char *)c->gcov;
	argv[1] = (char *)"--json-format";
	argv[2] = (char *)"--stdout";
	argv[3] = (char *)"--";
	for (i = from; i < to; i++)
		argv[4 + i - from] = c->pending.items[i];
	r = run_gcov(argv, c->objfd, c->tmpfd, "err", GCOV_OUTPUT_MAX, &run);
	free(argv);
	if (r == -EFBIG) {
		r = kpgo_error_set(c->err, r, "'%s' printed more than %lu bytes for %zu objects",
				   c->gcov, GCOV_OUTPUT_MAX, to - from);
		goto out;
	}
	if (r) {
		r = kpgo_error_set(c->err, r, "cannot run '%s': %s", c->gcov, strerror(-r));
		goto out;
	}
	first_line(&run.errs, msg, sizeof(msg));
	if (run.res.status) {
		if (run.res.status > 128)
			r = kpgo_error_set(c->err, -EIO, "'%s' was killed by signal %d%s%s",
					   c->gcov, run.res.status - 128, *msg ? ": " : "", msg);
		else
			r = kpgo_error_set(c->err, -EIO, "'%s' failed with status %d%s%s", c->gcov,
					   run.res.status, *msg ? ": " : "",
					   *msg ? msg : "(no message)");
		goto out;
	}
	if (run.errs.len) {
		if (!c->res->sum.gcov_messages &&
		    strbuf_addstr(&c->res->sum.gcov_first_message, msg)) {
			r = kpgo_error_set(c->err, -ENOMEM, "out of memory");
			goto out;
		}
		c->res->sum.gcov_messages += count_lines(&run.errs);
	}
	for (i = from; i < to; i++) {
		const char *obj = c->pending.items[i];
		const struct kpgo_json *df;
		struct kpgo_json doc;
		size_t used;

		while (pos < run.out.len && strchr(" \t\r\n", run.out.buf[pos]))
			pos++;
		if (pos >= run.out.len) {
			r = kpgo_error_set(c->err, -EINVAL, "'%s' printed nothing for '%s'",
					   c->gcov, obj);
			goto out;
		}
		r = kpgo_json_parse(run.out.buf + pos, run.out.len - pos, &used, &doc, c->err);
		if (r) {
			kpgo_error_prefix(c->err, "malformed gcov output for '%s'", obj);
			goto out;
		}
		pos += used;
		df = kpgo_json_get(&doc, "data_file");
		if (!df || df->type != KPGO_JSON_STRING || strcmp(df->s, obj)) {
			r = kpgo_error_set(c->err, -EINVAL,
					   "malformed gcov output for '%s': its data_file is '%.200s'",
					   obj,
					   df && df->type == KPGO_JSON_STRING ? df->s : "(none)");
			kpgo_json_release(&doc);
			goto out;
		}
		r = kpgo_afdo_add_gcov(a, &doc, obj, c->err);
		kpgo_json_release(&doc);
		if (r)
			goto out;
	}
	while (pos < run.out.len && strchr(" \t\r\n", run.out.buf[pos]))
		pos++;
	if (pos < run.out.len)
		r = kpgo_error_set(c->err, -EINVAL,
				   "malformed gcov output: more documents than objects");
out:
	strbuf_release(&run.out);
	strbuf_release(&run.errs);
	return r;
}

int kpgo_afdo_convert(const char *profile, const struct kpgo_afdo_opts *o,
		      struct kpgo_afdo_result *res, struct kpgo_error *err)
{
	struct converter c = { .o = o,
			       .res = res,
			       .err = err,
			       .profile = profile,
			       .gcnofd = -1,
			       .tmpfd = -1,
			       .objfd = -1 };
	const char *tmpdir = o->tmpdir, *gcno_dir = o->gcno_dir, *vstr;
	size_t batch = o->batch ? o->batch : AFDO_BATCH_DEFAULT, i;
	struct kpgo_archive *arc = NULL;
	const struct kpgo_manifest *m;
	struct kpgo_afdo *a = NULL;
	struct strbuf tmp = STRBUF_INIT;
	struct kpgo_gcda *g;
	const char *path;
	uint32_t stamp;
	int r;

	if (!tmpdir || !*tmpdir)
		tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	r = kpgo_archive_open(&arc, profile, err);
	if (r) {
		kpgo_error_prefix(err, "cannot read '%s'", profile);
		return r;
	}
	m = kpgo_archive_manifest(arc);
	vstr = kpgo_manifest_get(m, MF_GCOV_VERSION);
	if (!vstr || kpgo_gcc_version_parse(vstr, &stamp)) {
		r = kpgo_error_set(err, -EINVAL, "cannot read '%s': no valid %s in its manifest",
				   profile, MF_GCOV_VERSION);
		goto out;
	}
	if (!gcno_dir)
		gcno_dir = kpgo_manifest_get(m, MF_BUILD_ROOT);
	if (!gcno_dir || !*gcno_dir) {
		r = kpgo_error_set(err, -EINVAL,
				   "'%s' names no build root: give the .gcno directory", profile);
		goto out;
	}
	c.gcno_abs = realpath(gcno_dir, NULL);
	if (c.gcno_abs)
		c.gcnofd = open(c.gcno_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.gcnofd < 0) {
		r = kpgo_error_set(err, -errno, "cannot use '%s' as the .gcno directory: %s",
				   gcno_dir, strerror(errno));
		goto out;
	}
	if (strbuf_addf(&tmp, "%s/kpgo-afdo.XXXXXX", tmpdir) || !mkdtemp(tmp.buf)) {
		r = kpgo_error_set(err, -errno, "cannot make a temporary directory in '%s': %s",
				   tmpdir, strerror(errno));
		strbuf_reset(&tmp);
		goto out;
	}
	c.tmpfd = open(tmp.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.tmpfd < 0 || mkdirat(c.tmpfd, "o", 0700) < 0 ||
	    (c.objfd = openat(c.tmpfd, "o", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = kpgo_error_set(err, -errno, "cannot use temporary directory '%s': %s", tmp.buf,
				   strerror(errno));
		goto out;
	}
	c.gcov = o->gcov;
	if (!c.gcov || !*c.gcov)
		c.gcov = default_gcov(stamp, c.gcov_default, sizeof(c.gcov_default));
	r = check_gcov_version(c.gcov, stamp, c.tmpfd, err);
	if (r)
		goto out;
	while ((r = kpgo_archive_next(arc, &path, &g, err)) == 1) {
		res->sum.profile_objects++;
		r = pair_object(&c, path, g);
		if (r < 0)
			goto out;
	}
	if (r < 0) {
		kpgo_error_prefix(err, "cannot read '%s'", profile);
		goto out;
	}
	if (!c.pending.n) {
		r = kpgo_error_set(err, -ENOENT,
				   "no object of '%s' has its .gcno in '%s' (%zu without, %zu of another build)",
				   profile, c.gcno_abs, res->sum.no_gcno.n, res->sum.other_build.n);
		goto out;
	}
	r = kpgo_afdo_new(&a, stamp);
	if (r) {
		r = kpgo_error_set(err, r, "out of memory");
		goto out;
	}
	for (i = 0; i < c.pending.n; i += batch) {
		r = run_batch(&c, a, i, i + batch < c.pending.n ? i + batch : c.pending.n);
		if (r)
			goto out;
	}
	res->sum.inlined = o->inlined;
	r = kpgo_afdo_place_inlined(a, o->inlined, &res->sum.unplaced_examples);
	if (!r)
		r = kpgo_afdo_write(a, object_binding, &c, &res->text, &res->defs, &res->sum.st,
				    &res->sum.ambiguous);
	if (r) {
		r = kpgo_error_set(err, r, "out of memory");
		goto out;
	}
	if (o->add) {
		res->sum.added_from = strdup(o->add);
		r = res->sum.added_from ? kpgo_afdo_add_profile(a, o->add, o->add_places, &res->text,
								&res->defs, &res->sum.st, err) :
					  kpgo_error_set(err, -ENOMEM, "out of memory");
	}
out:
	kpgo_afdo_free(a);
	kpgo_archive_close(arc);
	kpgo_strlist_clear(&c.pending);
	if (c.objfd >= 0)
		close(c.objfd);
	if (c.tmpfd >= 0)
		close(c.tmpfd);
	if (tmp.len)
		nftw(tmp.buf, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (c.gcnofd >= 0)
		close(c.gcnofd);
	free(c.gcno_abs);
	strbuf_release(&tmp);
	return r;
}
