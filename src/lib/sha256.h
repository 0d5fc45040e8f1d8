/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_SHA256_H
#define KPGO_SHA256_H

#include <stddef.h>

#define KPGO_SHA256_LEN 32
#define KPGO_SHA256_HEX (2 * KPGO_SHA256_LEN + 1)

/* A running SHA-256 (OpenSSL's libcrypto underneath). */
struct kpgo_sha256;

struct kpgo_sha256 *kpgo_sha256_new(void);
void kpgo_sha256_update(struct kpgo_sha256 *h, const void *data, size_t len);
/* Writes the lower-case hex digest to @hex and frees @h. */
void kpgo_sha256_final_hex(struct kpgo_sha256 *h, char hex[KPGO_SHA256_HEX]);
void kpgo_sha256_free(struct kpgo_sha256 *h);

/* Hash of a whole file, read in blocks. */
int kpgo_sha256_file(const char *path, char hex[KPGO_SHA256_HEX]);

#endif
