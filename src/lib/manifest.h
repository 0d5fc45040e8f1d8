/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_MANIFEST_H
#define KPGO_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

/*
 * The MANIFEST of a .kpgo archive: KEY=VALUE lines as in os-release(5),
 * without quoting. Keys are [A-Z0-9_], values printable ASCII. Unknown keys
 * are kept and written back in their order.
 */
#define KPGO_FORMAT_VERSION 1
#define KPGO_MANIFEST_MAX 65536

/* Keys the format defines (see docs/FORMAT.md). */
#define MF_FORMAT "KPGO_FORMAT"
#define MF_RELEASE "KERNEL_RELEASE"
#define MF_BUILD_ID "KERNEL_BUILD_ID"
#define MF_ARCH "ARCH"
#define MF_GCOV_VERSION "GCOV_VERSION"
#define MF_COMPILER "COMPILER"
#define MF_BUILD_ROOT "BUILD_ROOT"
#define MF_WORKLOAD "WORKLOAD"
#define MF_WINDOW_START "WINDOW_START"
#define MF_WINDOW_END "WINDOW_END"
#define MF_HOST "HOST"
#define MF_HOSTS "HOSTS"
#define MF_HOSTS_TOTAL "HOSTS_TOTAL"
#define MF_RUNS "RUNS"
#define MF_MERGED "MERGED_PROFILES"
#define MF_OBJECTS "OBJECTS"
#define MF_FUNCTIONS "FUNCTIONS"
#define MF_COUNTERS "COUNTERS"
#define MF_SUM_ALL "SUM_ALL"
#define MF_SUM_MAX "SUM_MAX"
#define MF_PAYLOAD "PAYLOAD_SHA256"
#define MF_VANISHED "VANISHED_FILES"
#define MF_MISMATCHED "MISMATCHED_FUNCTIONS"

struct kpgo_manifest_entry {
	char *key;
	char *value;
};

struct kpgo_manifest {
	size_t n;
	size_t alloc;
	struct kpgo_manifest_entry *e;
};

void kpgo_manifest_init(struct kpgo_manifest *m);
void kpgo_manifest_release(struct kpgo_manifest *m);
int kpgo_manifest_copy(struct kpgo_manifest *dst, const struct kpgo_manifest *src);

/* NULL when absent. */
const char *kpgo_manifest_get(const struct kpgo_manifest *m, const char *key);
/* -EINVAL when absent or not a number. */
int kpgo_manifest_get_u64(const struct kpgo_manifest *m, const char *key, uint64_t *v);

/*
 * The machines of a merge's inputs: kpgo_hosts_add() each input's HOST (a
 * single collection) or HOSTS (a merge), then kpgo_hosts_set() writes
 * HOSTS (sorted, each once, host names only: kpgo_label_okn();
 * as many as KPGO_HOSTS_MAX bytes hold) and HOSTS_TOTAL (how many different
 * ones, at least: an input's own HOSTS_TOTAL may count more than its list
 * names) into the result's manifest and releases @h. -ENOMEM.
 */
#define KPGO_HOSTS_MAX 4000
struct kpgo_hosts {
	struct kpgo_strlist names;
	uint64_t most;
};
int kpgo_hosts_add(struct kpgo_hosts *h, const struct kpgo_manifest *in);
int kpgo_hosts_set(struct kpgo_hosts *h, struct kpgo_manifest *m);
void kpgo_hosts_release(struct kpgo_hosts *h);
/* Sets or replaces; -EINVAL for a bad key or value. */
int kpgo_manifest_set(struct kpgo_manifest *m, const char *key, const char *value);
int kpgo_manifest_set_u64(struct kpgo_manifest *m, const char *key, uint64_t v);
void kpgo_manifest_unset(struct kpgo_manifest *m, const char *key);

bool kpgo_manifest_key_ok(const char *k);
bool kpgo_manifest_value_ok(const char *v);

/*
 * Parses the text of a MANIFEST (untrusted). Blank lines and lines starting
 * with '#' are skipped; anything else must be KEY=VALUE. A key twice is an
 * error. Checks that the keys every archive must have are present and that
 * KPGO_FORMAT is one this version reads.
 */
int kpgo_manifest_parse(const char *text, size_t len, struct kpgo_manifest *m,
			struct kpgo_error *err);
int kpgo_manifest_format(const struct kpgo_manifest *m, struct strbuf *out);

#endif
