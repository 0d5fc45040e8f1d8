// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The objects of an instrumented object tree that kpgo afdo reads besides
 * the .gcno files: those that define a function some object defines weak,
 * and the weak ones. See afdo.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afdo.h"

/* An object file read for its symbol table; the kernel's largest are tens of MiB. */
#define OBJECT_MAX (512ul << 20)

struct sym {
	char *name;
	size_t object;
	bool weak;
};

struct walk {
	const char *top;
	struct strbuf path; /* relative to the top, "" at the top */
	struct strbuf data;
	struct kpgo_strlist objects; /* every object read */
	struct sym *syms;
	size_t n, alloc;
	struct kpgo_error *err;
};

static int add_sym(void *ctx, const char *name, enum kpgo_elf_binding b)
{
	struct walk *w = ctx;
	struct sym *s;

	if (KPGO_ALLOC_GROW(w->syms, w->n + 1, w->alloc))
		return -ENOMEM;
	s = &w->syms[w->n];
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	s->object = w->objects.n - 1;
	s->weak = b == KPGO_ELF_WEAK;
	w->n++;
	return 0;
}

/* OBJ.o beside OBJ.gcno (@name in @dfd; w->path ends in it): its visible functions. */
static int read_object(void *ctx, int dfd, const char *name)
{
	struct walk *w = ctx;
	struct strbuf obj = STRBUF_INIT;
	struct stat st;
	int fd, r;

	/* "x.gcno" to "x.o", in the name and in the path */
	w->path.len -= 4;
	if (strbuf_add(&obj, name, strlen(name) - 4) || strbuf_addch(&obj, 'o') ||
	    strbuf_addch(&w->path, 'o')) {
		r = kpgo_error_set(w->err, -ENOMEM, "out of memory");
		goto out;
	}
	fd = openat(dfd, obj.buf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* No object (it failed to build, or was cleaned): nothing of it is needed. */
		r = errno == ENOENT || errno == ELOOP ?
			    0 :
			    kpgo_error_set(w->err, -errno, "cannot open '%s/%s': %s", w->top,
					   w->path.buf, strerror(errno));
		goto out;
	}
	r = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		strbuf_reset(&w->data);
		r = kpgo_read_fd(fd, &w->data, OBJECT_MAX);
		if (r)
			r = kpgo_error_set(w->err, r, "cannot read '%s/%s': %s", w->top, w->path.buf,
					   r == -EFBIG ? "larger than 512 MiB" : strerror(-r));
		else if (kpgo_strlist_add(&w->objects, w->path.buf) ||
			 kpgo_elf_functions(w->data.buf, w->data.len, add_sym, w))
			r = kpgo_error_set(w->err, -ENOMEM, "out of memory");
	}
	close(fd);
out:
	strbuf_release(&obj);
	return r;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->object < y->object ? -1 : x->object > y->object;
}

int kpgo_afdo_objects(const char *objtree, struct kpgo_strlist *out, struct kpgo_error *err)
{
	/* The host programs have no place in the kernel's profile (as kpgo-kinstall's find). */
	static const char *const prune[] = { "scripts", "tools", NULL };
	struct walk w = { .top = objtree, .path = STRBUF_INIT, .data = STRBUF_INIT, .err = err };
	bool *needed = NULL;
	size_t i, j;
	int r;

	r = kpgo_walk_files(objtree, ".gcno", prune, &w.path, read_object, &w, err);
	if (r)
		goto out;
	/* Names with a weak definition: every object that defines them, weak or strong. */
	if (w.n) /* syms is NULL when none: qsort's base is nonnull */
		qsort(w.syms, w.n, sizeof(*w.syms), cmp_sym);
	needed = calloc(w.objects.n ? w.objects.n : 1, sizeof(*needed));
	if (!needed) {
		r = kpgo_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < w.n; i = j) {
		bool weak = false;

		for (j = i; j < w.n && !strcmp(w.syms[j].name, w.syms[i].name); j++)
			weak |= w.syms[j].weak;
		while (weak && i < j)
			needed[w.syms[i++].object] = true;
	}
	for (i = 0; i < w.objects.n; i++) {
		if (needed[i] && kpgo_strlist_add(out, w.objects.items[i])) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	kpgo_strlist_sort(out);
out:
	for (i = 0; i < w.n; i++)
		free(w.syms[i].name);
	free(w.syms);
	free(needed);
	kpgo_strlist_clear(&w.objects);
	strbuf_release(&w.path);
	strbuf_release(&w.data);
	return r;
}
