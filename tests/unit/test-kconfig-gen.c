// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kconfig-gen.h: the fragments a build generates (their text byte for
 * byte, in merge order, an earlier configuration's removed) and the
 * signing key's check (a PEM key and certificate, a path a config string
 * holds).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kconfig-gen.h"
#include "tap.h"

static char top[] = "/tmp/kpgo-kconfig-gen-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail_out("cannot write a fixture");
}

static void slurp(const char *name, char *out, size_t n)
{
	char path[128];
	FILE *f;
	size_t got = 0;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	f = fopen(path, "r");
	if (f) {
		got = fread(out, 1, n - 1, f);
		fclose(f);
	}
	out[got] = '\0';
}

static void test_key(void)
{
	struct kpgo_error err;
	char path[128], *abs;

	put("key.pem", "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n"
		       "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n");
	put("rsa.pem", "junk\n-----BEGIN RSA PRIVATE KEY-----\nx\n-----BEGIN CERTIFICATE-----\n");
	put("nocert.pem", "-----BEGIN PRIVATE KEY-----\nMII\n");
	put("split.pem", "-----BEGIN \nPRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\n");
	put("a b.pem", "-----BEGIN PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\n");
	snprintf(path, sizeof(path), "%s/key.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), 0, "a key and its certificate");
	is_str(abs, path, "  its absolute path");
	free(abs);
	snprintf(path, sizeof(path), "%s/./rsa.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), 0, "an RSA key, lines of other text");
	ok(abs && !strstr(abs, "/./"), "  the path made absolute (realpath)");
	free(abs);
	snprintf(path, sizeof(path), "%s/nocert.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), -EINVAL, "no certificate");
	ok(strstr(err.msg, "is not a PEM file with a private key and its certificate") && !abs,
	   "  said");
	snprintf(path, sizeof(path), "%s/split.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), -EINVAL,
	       "BEGIN and PRIVATE KEY on two lines: no key");
	snprintf(path, sizeof(path), "%s/a b.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), -EINVAL, "a blank in the path");
	ok(strstr(err.msg, "has characters a config string cannot hold") != NULL, "  said");
	snprintf(path, sizeof(path), "%s/none.pem", top);
	is_int(kpgo_signing_key_check(path, &abs, &err), -ENOENT, "no such file");
	snprintf(path, sizeof(path) - 1, "cannot read signing key '%s/none.pem'", top);
	is_str(err.msg, path, "  said");
}

static void test_write(void)
{
	struct kpgo_strlist w = { 0 };
	struct kpgo_kconfig_gen g = { "-kpgo-pgo", "/keys/k.pem", true };
	struct kpgo_error err;
	char text[512], want[128];
	struct stat st;

	put("kpgo-gen-old.config", "x\n");
	is_int(kpgo_kconfig_gen_write(&g, top, &w, &err), 0, "all three");
	is_int(w.n, 3, "  three paths");
	snprintf(want, sizeof(want), "%s/kpgo-gen-release.config", top);
	ok(w.n == 3 && !strcmp(w.items[0], want) && strstr(w.items[1], "/kpgo-gen-signing.config") &&
		   strstr(w.items[2], "/kpgo-gen-debug.config"),
	   "  in merge order: release, signing, debug");
	slurp("kpgo-gen-release.config", text, sizeof(text));
	is_str(text, "# kpgo-kbuild --release\nCONFIG_LOCALVERSION=\"-kpgo-pgo\"\n",
	       "  the release");
	slurp("kpgo-gen-signing.config", text, sizeof(text));
	is_str(text,
	       "# kpgo-kbuild --signing-key\nCONFIG_MODULE_SIG=y\nCONFIG_MODULE_SIG_ALL=y\n"
	       "CONFIG_MODULE_SIG_SHA256=y\nCONFIG_MODULE_SIG_KEY=\"/keys/k.pem\"\n",
	       "  the signing key");
	slurp("kpgo-gen-debug.config", text, sizeof(text));
	is_str(text,
	       "# kpgo-kbuild --debug-info\nCONFIG_DEBUG_KERNEL=y\n"
	       "CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y\n",
	       "  debug information");
	snprintf(want, sizeof(want), "%s/kpgo-gen-old.config", top);
	ok(stat(want, &st) < 0, "  an earlier configuration's removed");
	kpgo_strlist_clear(&w);
	g = (struct kpgo_kconfig_gen){ NULL, NULL, false };
	is_int(kpgo_kconfig_gen_write(&g, top, &w, &err), 0, "none");
	is_int(w.n, 0, "  no paths");
	snprintf(want, sizeof(want), "%s/kpgo-gen-release.config", top);
	ok(stat(want, &st) < 0, "  the earlier ones removed");
	g.localversion = "-a\"b";
	is_int(kpgo_kconfig_gen_write(&g, top, &w, &err), -EINVAL, "a quote in the local version");
	snprintf(want, sizeof(want), "%s/none", top);
	g.localversion = "-x";
	is_int(kpgo_kconfig_gen_write(&g, want, &w, &err), -ENOENT, "no such directory");
	kpgo_strlist_clear(&w);
}

int main(void)
{
	char cmd[96];

	if (!mkdtemp(top))
		bail_out("mkdtemp");
	test_key();
	test_write();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		diag("cannot remove %s", top);
	return done_testing();
}
