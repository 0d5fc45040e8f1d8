// SPDX-License-Identifier: GPL-2.0-or-later
/* The ingest weights file: a merge weight per workload label (see store.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

void kpgo_weights_init(struct kpgo_weights *w)
{
	memset(w, 0, sizeof(*w));
	w->other = 1;
}

void kpgo_weights_release(struct kpgo_weights *w)
{
	kpgo_strlist_clear(&w->labels);
	free(w->w);
	kpgo_weights_init(w);
}

int kpgo_weights_parse(struct kpgo_weights *w, const char *name, const char *text, size_t len,
		       struct kpgo_error *err)
{
	const char *p = text, *end = text + len;
	bool other_set = false;
	unsigned line = 0;
	size_t i;

	if (memchr(text, '\0', len))
		return kpgo_error_set(err, -EINVAL, "'%s' is not a text file (NUL byte)", name);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *eq;
		char label[65], num[16];
		size_t n, ln, vn;
		uint64_t v;

		if (!eol)
			eol = end;
		line++;
		n = (size_t)(eol - p);
		if (n && p[n - 1] == '\r')
			n--;
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n == 0 || *p == '#')
			goto next;
		eq = memchr(p, '=', n);
		if (!eq)
			return kpgo_error_set(err, -EINVAL, "%s:%u: expected WORKLOAD=WEIGHT", name,
					      line);
		ln = (size_t)(eq - p);
		vn = n - ln - 1;
		if (!(ln == 1 && *p == '*') && !kpgo_label_okn(p, ln))
			return kpgo_error_set(err, -EINVAL,
					      "%s:%u: bad workload label (1 to 64 of [A-Za-z0-9._-], or '*')",
					      name, line);
		memcpy(label, p, ln);
		label[ln] = '\0';
		if (vn == 0 || vn >= sizeof(num))
			goto bad_weight;
		memcpy(num, eq + 1, vn);
		num[vn] = '\0';
		if (kpgo_parse_u64(num, &v) || v > KPGO_WEIGHT_MAX)
			goto bad_weight;
		if (!strcmp(label, "*")) {
			if (other_set)
				goto twice;
			other_set = true;
			w->other = v;
			goto next;
		}
		for (i = 0; i < w->labels.n; i++)
			if (!strcmp(w->labels.items[i], label))
				goto twice;
		if (KPGO_ALLOC_GROW(w->w, w->labels.n + 1, w->w_alloc) ||
		    kpgo_strlist_add(&w->labels, label))
			return kpgo_error_set(err, -ENOMEM, "out of memory");
		w->w[w->labels.n - 1] = v;
	next:
		p = eol < end ? eol + 1 : end;
		continue;
	bad_weight:
		return kpgo_error_set(err, -EINVAL,
				      "%s:%u: bad weight for '%s' (a whole number from 0 to %d)",
				      name, line, label, KPGO_WEIGHT_MAX);
	twice:
		return kpgo_error_set(err, -EINVAL, "%s:%u: '%s' has a weight already", name, line,
				      label);
	}
	return 0;
}

int kpgo_weights_load(struct kpgo_weights *w, const char *path, struct kpgo_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	kpgo_weights_init(w);
	r = kpgo_read_file(path, &sb, KPGO_WEIGHTS_FILE_MAX);
	if (r == -EFBIG)
		r = kpgo_error_set(err, r, "cannot read '%s': larger than %d bytes", path,
				   KPGO_WEIGHTS_FILE_MAX);
	else if (r)
		r = kpgo_error_set(err, r, "cannot read '%s': %s", path, strerror(-r));
	else
		r = kpgo_weights_parse(w, path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	if (r)
		kpgo_weights_release(w);
	return r;
}

uint64_t kpgo_weights_get(const struct kpgo_weights *w, const char *label)
{
	size_t i;

	if (!w)
		return 1;
	for (i = 0; i < w->labels.n; i++)
		if (!strcmp(w->labels.items[i], label))
			return w->w[i];
	return w->other;
}
