// SPDX-License-Identifier: GPL-2.0-or-later
/* The machines a merged profile came from: HOSTS and HOSTS_TOTAL. */
#include <errno.h>
#include <string.h>

#include "manifest.h"

/* Adds the host names of @v (one, or a comma-separated list) that kpgo_label_okn() takes. */
static int add_hosts(struct kpgo_strlist *l, const char *v)
{
	char name[65];

	while (*v) {
		size_t n = strcspn(v, ",");

		if (kpgo_label_okn(v, n)) {
			memcpy(name, v, n);
			name[n] = '\0';
			if (kpgo_strlist_add(l, name))
				return -ENOMEM;
		}
		v += n;
		if (*v == ',')
			v++;
	}
	return 0;
}

int kpgo_hosts_add(struct kpgo_hosts *h, const struct kpgo_manifest *in)
{
	const char *hosts = kpgo_manifest_get(in, MF_HOSTS), *host = kpgo_manifest_get(in, MF_HOST);
	uint64_t v;

	if (!kpgo_manifest_get_u64(in, MF_HOSTS_TOTAL, &v) && v > h->most)
		h->most = v;
	if (hosts)
		return add_hosts(&h->names, hosts);
	if (host && kpgo_label_okn(host, strlen(host)))
		return kpgo_strlist_add(&h->names, host) ? -ENOMEM : 0;
	return 0;
}

int kpgo_hosts_set(struct kpgo_hosts *h, struct kpgo_manifest *m)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t total = 0;
	size_t i;
	int r = 0;

	kpgo_strlist_sort(&h->names);
	for (i = 0; i < h->names.n && !r; i++) {
		if (i && !strcmp(h->names.items[i], h->names.items[i - 1]))
			continue;
		total++;
		if (sb.len + strlen(h->names.items[i]) + 1 <= KPGO_HOSTS_MAX)
			r = (sb.len ? strbuf_addch(&sb, ',') : 0) ||
			    strbuf_addstr(&sb, h->names.items[i]);
	}
	if (!r && total)
		r = kpgo_manifest_set(m, MF_HOSTS, sb.buf) ||
		    kpgo_manifest_set_u64(m, MF_HOSTS_TOTAL, total > h->most ? total : h->most);
	kpgo_hosts_release(h);
	strbuf_release(&sb);
	return r ? -ENOMEM : 0;
}

void kpgo_hosts_release(struct kpgo_hosts *h)
{
	kpgo_strlist_clear(&h->names);
	h->most = 0;
}
