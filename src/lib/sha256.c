// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "sha256.h"
#include "util.h"

struct kpgo_sha256 {
	EVP_MD_CTX *ctx;
};

struct kpgo_sha256 *kpgo_sha256_new(void)
{
	struct kpgo_sha256 *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h->ctx);
		free(h);
		return NULL;
	}
	return h;
}

void kpgo_sha256_update(struct kpgo_sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void kpgo_sha256_final_hex(struct kpgo_sha256 *h, char hex[KPGO_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	kpgo_hex(md, KPGO_SHA256_LEN, hex);
	kpgo_sha256_free(h);
}

void kpgo_sha256_free(struct kpgo_sha256 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int kpgo_sha256_file(const char *path, char hex[KPGO_SHA256_HEX])
{
	struct kpgo_sha256 *h;
	char buf[65536];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	h = kpgo_sha256_new();
	if (!h) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			kpgo_sha256_free(h);
			close(fd);
			return -e;
		}
		kpgo_sha256_update(h, buf, (size_t)n);
	}
	close(fd);
	kpgo_sha256_final_hex(h, hex);
	return 0;
}
