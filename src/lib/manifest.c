// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

#define KEY_MAX 64
#define VALUE_MAX 4096
#define ENTRIES_MAX 256

static const char *const required[] = {
	MF_FORMAT,    MF_GCOV_VERSION, MF_BUILD_ROOT, MF_RUNS,	  MF_OBJECTS,
	MF_FUNCTIONS, MF_COUNTERS,     MF_SUM_MAX,    MF_PAYLOAD,
};

void kpgo_manifest_init(struct kpgo_manifest *m)
{
	memset(m, 0, sizeof(*m));
}

void kpgo_manifest_release(struct kpgo_manifest *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->e[i].key);
		free(m->e[i].value);
	}
	free(m->e);
	kpgo_manifest_init(m);
}

int kpgo_manifest_copy(struct kpgo_manifest *dst, const struct kpgo_manifest *src)
{
	size_t i;

	kpgo_manifest_init(dst);
	for (i = 0; i < src->n; i++) {
		if (kpgo_manifest_set(dst, src->e[i].key, src->e[i].value)) {
			kpgo_manifest_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

const char *kpgo_manifest_get(const struct kpgo_manifest *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].key, key))
			return m->e[i].value;
	return NULL;
}

int kpgo_manifest_get_u64(const struct kpgo_manifest *m, const char *key, uint64_t *v)
{
	const char *s = kpgo_manifest_get(m, key);

	if (!s)
		return -EINVAL;
	return kpgo_parse_u64(s, v) ? -EINVAL : 0;
}

bool kpgo_manifest_key_ok(const char *k)
{
	size_t n = strlen(k);

	if (n == 0 || n > KEY_MAX)
		return false;
	for (; *k; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	return true;
}

bool kpgo_manifest_value_ok(const char *v)
{
	size_t n = strlen(v);

	if (n > VALUE_MAX)
		return false;
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
			return false;
	return true;
}

int kpgo_manifest_set(struct kpgo_manifest *m, const char *key, const char *value)
{
	char *k, *v;
	size_t i;

	if (!kpgo_manifest_key_ok(key) || !kpgo_manifest_value_ok(value))
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->e[i].key, key)) {
			free(m->e[i].value);
			m->e[i].value = v;
			return 0;
		}
	}
	if (m->n >= ENTRIES_MAX) {
		free(v);
		return -E2BIG;
	}
	if (KPGO_ALLOC_GROW(m->e, m->n + 1, m->alloc)) {
		free(v);
		return -ENOMEM;
	}
	k = strdup(key);
	if (!k) {
		free(v);
		return -ENOMEM;
	}
	m->e[m->n].key = k;
	m->e[m->n].value = v;
	m->n++;
	return 0;
}

int kpgo_manifest_set_u64(struct kpgo_manifest *m, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return kpgo_manifest_set(m, key, buf);
}

void kpgo_manifest_unset(struct kpgo_manifest *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->e[i].key, key)) {
			free(m->e[i].key);
			free(m->e[i].value);
			memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(m->e[0]));
			m->n--;
			return;
		}
	}
}

int kpgo_manifest_parse(const char *text, size_t len, struct kpgo_manifest *m,
			struct kpgo_error *err)
{
	char key[KEY_MAX + 1], *val = NULL;
	size_t pos = 0, lineno = 0, i;
	uint64_t fmt;
	int r;

	kpgo_manifest_init(m);
	if (len > KPGO_MANIFEST_MAX)
		return kpgo_error_set(err, -EINVAL, "manifest too large (%zu bytes)", len);
	if (memchr(text, '\0', len))
		return kpgo_error_set(err, -EINVAL, "manifest contains a NUL byte");
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *eq;
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		lineno++;
		pos += n + (nl ? 1 : 0);
		if (n == 0 || line[0] == '#')
			continue;
		eq = memchr(line, '=', n);
		if (!eq || eq == line || (size_t)(eq - line) > KEY_MAX) {
			r = kpgo_error_set(err, -EINVAL, "manifest line %zu is not KEY=VALUE",
					   lineno);
			goto out_fail;
		}
		memcpy(key, line, (size_t)(eq - line));
		key[eq - line] = '\0';
		val = strndup(eq + 1, n - (size_t)(eq - line) - 1);
		if (!val) {
			r = kpgo_error_set(err, -ENOMEM, "out of memory");
			goto out_fail;
		}
		if (!kpgo_manifest_key_ok(key) || !kpgo_manifest_value_ok(val)) {
			r = kpgo_error_set(err, -EINVAL, "manifest line %zu has a bad key or value",
					   lineno);
			goto out_fail;
		}
		if (kpgo_manifest_get(m, key)) {
			r = kpgo_error_set(err, -EINVAL, "manifest has '%s' twice", key);
			goto out_fail;
		}
		r = kpgo_manifest_set(m, key, val);
		if (r) {
			kpgo_error_set(err, r, "manifest has too many entries");
			goto out_fail;
		}
		free(val);
		val = NULL;
	}
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!kpgo_manifest_get(m, required[i])) {
			r = kpgo_error_set(err, -EINVAL, "manifest lacks %s", required[i]);
			goto out_fail;
		}
	}
	if (kpgo_manifest_get_u64(m, MF_FORMAT, &fmt) || fmt != KPGO_FORMAT_VERSION) {
		r = kpgo_error_set(err, -EPROTONOSUPPORT, "unsupported archive format '%s'",
				   kpgo_manifest_get(m, MF_FORMAT));
		goto out_fail;
	}
	return 0;
out_fail:
	free(val);
	kpgo_manifest_release(m);
	return r;
}

int kpgo_manifest_format(const struct kpgo_manifest *m, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strbuf_addf(out, "%s=%s\n", m->e[i].key, m->e[i].value))
			return -ENOMEM;
	return 0;
}
