// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kconfig.h: .config and fragment text (hostile too: NUL bytes, long
 * lines, files that are not there or too large), the symbols of a tree's
 * Kconfig files, and the checks of a flavour's final .config: fragments,
 * key files, the flavour's own options.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kconfig.h"
#include "tap.h"

static char *tmp;

/* Writes @text to TMP/@name, making its directories. */
static void put(const char *name, const char *text, size_t len)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) || kpgo_write_file_atomic(path, text, len, 0644))
		bail_out("cannot write a test file");
}

static void puts_file(const char *name, const char *text)
{
	put(name, text, strlen(text));
}

static int parse(struct kpgo_kconfig *c, const char *text, struct kpgo_error *err)
{
	kpgo_kconfig_init(c);
	return kpgo_kconfig_parse(c, "f", text, strlen(text), err);
}

static void test_parse(void)
{
	struct kpgo_kconfig c;
	struct kpgo_error err;
	const struct kpgo_kconfig_line *l;

	is_int(parse(&c,
		     "#\n# Automatically generated file\n#\nCONFIG_A=y\n# CONFIG_B is not set\n"
		     "CONFIG_S=\"a b\"\nCONFIG_A=m\n#CONFIG_C is not set\n# CONFIG_D is not set \n"
		     "# CONFIG_E=y\nCONFIG_=y\nCONFIG_F\n CONFIG_G=y\nconfig_h=y\nCONFIG_I-J=y\n"
		     "CONFIG_K=",
		     &err),
	       0, "a .config parses");
	is_int(c.n, 5, "  five settings: A twice, B, S, K (no other line is one)");
	l = kpgo_kconfig_get(&c, "CONFIG_A");
	ok(l && !strcmp(l->line, "CONFIG_A=m") && l->lineno == 7,
	   "  a symbol set twice has its last line's value (line 7)");
	l = kpgo_kconfig_get(&c, "CONFIG_B");
	ok(l && !strcmp(l->line, "# CONFIG_B is not set") && l->lineno == 5, "  \"is not set\"");
	ok(kpgo_kconfig_has(&c, "CONFIG_S=\"a b\""), "  a string, whole");
	ok(kpgo_kconfig_has(&c, "CONFIG_K="), "  an empty value, on the last line without newline");
	ok(!kpgo_kconfig_get(&c, "CONFIG_C") && !kpgo_kconfig_get(&c, "CONFIG_D") &&
		   !kpgo_kconfig_get(&c, "CONFIG_E") && !kpgo_kconfig_get(&c, "CONFIG_G") &&
		   !kpgo_kconfig_get(&c, "CONFIG_I"),
	   "  near-misses are comments, as for kconfig");
	ok(!kpgo_kconfig_has(&c, "CONFIG_A=y") && !kpgo_kconfig_has(&c, "CONFIG_NONE=y") &&
		   !kpgo_kconfig_has(&c, "not a setting"),
	   "  has: only the last value, only settings");
	kpgo_kconfig_release(&c);

	is_int(parse(&c, "", &err), 0, "empty text is an empty config");
	ok(c.n == 0 && !kpgo_kconfig_get(&c, "CONFIG_A"), "  with nothing in it");
	kpgo_kconfig_release(&c);
	is_int(parse(&c, "CONFIG_A=y\r\n", &err), 0, "CRLF: the line keeps its CR");
	ok(!kpgo_kconfig_has(&c, "CONFIG_A=y") && kpgo_kconfig_has(&c, "CONFIG_A=y\r"),
	   "  so it is not CONFIG_A=y");
	kpgo_kconfig_release(&c);
}

static void test_hostile(void)
{
	struct kpgo_kconfig c;
	struct kpgo_error err;
	char *big, path[300];
	size_t n = KPGO_KCONFIG_LINE_MAX + 100;
	int fd;

	kpgo_kconfig_init(&c);
	is_int(kpgo_kconfig_parse(&c, "frag", "CONFIG_A=y\nCONFIG_B=\0y\n", 23, &err), -EBADMSG,
	       "a NUL byte is refused");
	is_str(err.msg, "frag: NUL byte on line 2: not a text file", "  where");
	kpgo_kconfig_release(&c);

	big = malloc(n + 32);
	if (!big)
		bail_out("out of memory");
	memcpy(big, "CONFIG_A=y\nCONFIG_S=\"", 21);
	memset(big + 21, 'x', n - 21);
	memcpy(big + n, "\"\nCONFIG_B=y\n", 14);
	kpgo_kconfig_init(&c);
	is_int(kpgo_kconfig_parse(&c, "frag", big, n + 13, &err), -E2BIG,
	       "a line longer than %u bytes is refused, not passed over", KPGO_KCONFIG_LINE_MAX);
	is_str(err.msg, "frag: 1 line longer than 65536 bytes", "  said");
	kpgo_kconfig_release(&c);
	free(big);

	kpgo_kconfig_init(&c);
	snprintf(path, sizeof(path), "%s/none", tmp);
	is_int(kpgo_kconfig_read(&c, path, &err), -ENOENT, "a missing file");
	ok(strstr(err.msg, "cannot read '") && strstr(err.msg, "No such file"), "  said: %s",
	   err.msg);
	puts_file("nul.config", "CONFIG_A=y\n");
	snprintf(path, sizeof(path), "%s/nul.config", tmp);
	put("nul.config", "CONFIG_A=y\n\0", 12);
	is_int(kpgo_kconfig_read(&c, path, &err), -EBADMSG, "a file with a NUL byte");
	kpgo_kconfig_release(&c);
	kpgo_kconfig_init(&c);
	snprintf(path, sizeof(path), "%s/huge.config", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, KPGO_KCONFIG_MAX + 1) || close(fd))
		bail_out("cannot make a sparse file");
	is_int(kpgo_kconfig_read(&c, path, &err), -EFBIG, "a file over 16 MiB is not read");
	ok(strstr(err.msg, "larger than 16 MiB") != NULL, "  said: %s", err.msg);
	kpgo_kconfig_release(&c);
	unlink(path);
}

static void test_symbols(void)
{
	struct kpgo_strlist syms = { 0 };
	struct kpgo_error err;
	char top[300], path[300];
	char *big;
	size_t n = KPGO_KCONFIG_LINE_MAX + 10;

	puts_file("src/Kconfig", "config A\n\tbool \"a\"\n\thelp\n\t  config is a word\n"
				 "menuconfig B\n  config\tC # c\nconfigX D\n  menu config E\n"
				 "config\nconfig F-G\nconfig _H\n");
	puts_file("src/arch/x86/Kconfig.debug", "config I\nmenuconfig J\n");
	puts_file("src/notKconfig", "config K\n");
	puts_file("src/pgo/.config", "CONFIG_A=y\n");
	puts_file("src/pgo/Kconfig", "config L\n");
	puts_file("src/deep/pgo/Kconfig", "config M\n");
	snprintf(path, sizeof(path), "%s/src/Kconfig.link", tmp);
	if (symlink("arch/x86/Kconfig.debug", path))
		bail_out("cannot make a symbolic link");
	big = malloc(n + 32);
	if (!big)
		bail_out("out of memory");
	memcpy(big, "config N\n# ", 11);
	memset(big + 11, 'x', n - 11);
	memcpy(big + n, "\nconfig O\n", 11);
	put("src/lib/Kconfig", big, n + 10);
	free(big);

	snprintf(top, sizeof(top), "%s/src", tmp);
	is_int(kpgo_kconfig_symbols(top, &syms, &err), 0, "the symbols of a tree's Kconfig files");
	ok(syms.n == 11, "  %zu symbols", syms.n);
	ok(kpgo_kconfig_symbol_known(&syms, "A") && kpgo_kconfig_symbol_known(&syms, "B") &&
		   kpgo_kconfig_symbol_known(&syms, "C") && kpgo_kconfig_symbol_known(&syms, "F") &&
		   kpgo_kconfig_symbol_known(&syms, "_H"),
	   "  config and menuconfig, indented, with a comment, up to the first odd character");
	ok(kpgo_kconfig_symbol_known(&syms, "is"), "  a help line like a definition counts too");
	ok(!kpgo_kconfig_symbol_known(&syms, "D") && !kpgo_kconfig_symbol_known(&syms, "E"),
	   "  not configX, not \"menu config\"");
	ok(kpgo_kconfig_symbol_known(&syms, "I") && kpgo_kconfig_symbol_known(&syms, "J"),
	   "  Kconfig.* in subdirectories");
	ok(!kpgo_kconfig_symbol_known(&syms, "K"), "  not other names");
	ok(!kpgo_kconfig_symbol_known(&syms, "L") && kpgo_kconfig_symbol_known(&syms, "M"),
	   "  a top directory with a .config is a build tree, left out; deeper ones are not");
	ok(kpgo_kconfig_symbol_known(&syms, "N") && kpgo_kconfig_symbol_known(&syms, "O"),
	   "  a line too long is skipped, the file's other lines read");
	ok(!kpgo_kconfig_symbol_known(&syms, "CONFIG_A") && !kpgo_kconfig_symbol_known(&syms, ""),
	   "  names without the prefix");

	put("src/mm/Kconfig", "config P\n\0", 10);
	is_int(kpgo_kconfig_symbols(top, &syms, &err), -EBADMSG, "a Kconfig file with a NUL byte");
	ok(strstr(err.msg, "src/mm/Kconfig': NUL byte on line 2") != NULL, "  said: %s", err.msg);
	snprintf(path, sizeof(path), "%s/src/mm/Kconfig", tmp);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nowhere", tmp);
	is_int(kpgo_kconfig_symbols(path, &syms, &err), -ENOENT, "a source tree that is not there");
	ok(syms.n == 0, "  no symbols");
	kpgo_strlist_clear(&syms);
}

/* The problems as lines "KIND|file|sym|want|have". */
static int log_problem(void *ctx, const struct kpgo_kconfig_problem *p)
{
	static const char *const kinds[] = { "mismatch", "left-out", "key-file", "required",
					     "forbidden" };

	return strbuf_addf(ctx, "%s|%s|%s|%s|%s\n", kinds[p->kind], p->file ? p->file : "-", p->sym,
			   p->want, p->have ? p->have : "-");
}

static int stop(void *ctx, const struct kpgo_kconfig_problem *p)
{
	(void)ctx;
	(void)p;
	return -ECANCELED;
}

static void test_fragments(void)
{
	static const char *const names[] = { "base", "flavour", "gen" };
	struct kpgo_strlist known = { 0 };
	struct kpgo_kconfig config, frags[3];
	struct strbuf log = STRBUF_INIT;
	struct kpgo_error err;
	size_t i;

	kpgo_strlist_add(&known, "A");
	kpgo_strlist_add(&known, "B");
	kpgo_strlist_add(&known, "C");
	kpgo_strlist_add(&known, "D");
	kpgo_strlist_add(&known, "E");
	kpgo_strlist_add(&known, "LOCALVERSION");
	kpgo_strlist_sort(&known);
	parse(&config,
	      "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\nCONFIG_LOCALVERSION=\"-pgo\"\n", &err);
	parse(&frags[0],
	      "CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\nCONFIG_OLD=y\n# CONFIG_GONE is not set\n"
	      "CONFIG_LOCALVERSION=\"-x\"\n# a comment\nCONFIG_E=y\n# CONFIG_E is not set\n",
	      &err);
	parse(&frags[1], "CONFIG_C=m\n# CONFIG_D is not set\nCONFIG_D=y\n", &err);
	parse(&frags[2], "CONFIG_LOCALVERSION=\"-pgo\"\n", &err);

	is_int(kpgo_kconfig_check_fragments(&config, frags, names, 3, &known, log_problem, &log), 2,
	       "two failures");
	is_str(log.buf,
	       "mismatch|base|CONFIG_B|CONFIG_B=y|# CONFIG_B is not set\n"
	       "left-out|base|CONFIG_OLD|CONFIG_OLD=y|-\n"
	       "mismatch|flavour|CONFIG_D|CONFIG_D=y|-\n",
	       "  a later fragment's symbols (C, LOCALVERSION) are not the earlier one's; \"is not "
	       "set\" may be absent (GONE, E: its last line); an unknown symbol is left out, a "
	       "known one absent is not; in the fragments' order");
	strbuf_reset(&log);
	is_int(kpgo_kconfig_check_fragments(&config, frags + 1, names + 1, 2, &known, log_problem,
					    &log),
	       1, "without the base fragment: one failure");
	is_int(kpgo_kconfig_check_fragments(&config, frags, names, 3, &known, stop, NULL),
	       -ECANCELED, "the callback's error stops the check");
	is_int(kpgo_kconfig_check_fragments(&config, frags, names, 0, &known, stop, NULL), 0,
	       "no fragments: nothing to check");
	for (i = 0; i < 3; i++)
		kpgo_kconfig_release(&frags[i]);
	kpgo_kconfig_release(&config);
	kpgo_strlist_clear(&known);
	strbuf_release(&log);
}

static void test_key_files(void)
{
	struct kpgo_kconfig config;
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct kpgo_error err;
	char src[300], obj[300];

	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(obj, sizeof(obj), "%s/obj", tmp);
	puts_file("src/certs/in-src.pem", "x");
	puts_file("obj/certs/in-obj.pem", "x");
	strbuf_addf(&text,
		    "CONFIG_SYSTEM_TRUSTED_KEYS=\"certs/in-src.pem\"\n"
		    "CONFIG_SYSTEM_REVOCATION_KEYS=\"certs/in-obj.pem\"\n"
		    "CONFIG_MODULE_SIG_KEY=\"certs/signing_key.pem\"\n"
		    "CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE=\"%s/certs/in-src.pem\"\n",
		    src);
	kpgo_kconfig_init(&config);
	kpgo_kconfig_parse(&config, "c", text.buf, text.len, &err);
	is_int(kpgo_kconfig_check_key_files(&config, src, obj, log_problem, &log), 0,
	       "key files in the source, in the build tree, the build's own, absolute");
	kpgo_kconfig_release(&config);

	strbuf_reset(&text);
	strbuf_addf(&text, "CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/debian-uefi-certs.pem\"\n"
			   "CONFIG_SYSTEM_REVOCATION_KEYS=\"\"\n"
			   "CONFIG_MODULE_SIG_KEY=\"pkcs11:token=x\"\n"
			   "CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE=\"/nonexistent/k.pem\"\n"
			   "CONFIG_OTHER_KEY=\"debian/none.pem\"\n");
	kpgo_kconfig_init(&config);
	kpgo_kconfig_parse(&config, "c", text.buf, text.len, &err);
	is_int(kpgo_kconfig_check_key_files(&config, src, obj, log_problem, &log), 2,
	       "a distro's key and a missing absolute one fail");
	is_str(log.buf,
	       "key-file|-|CONFIG_SYSTEM_TRUSTED_KEYS|debian/certs/debian-uefi-certs.pem|"
	       "CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/debian-uefi-certs.pem\"\n"
	       "key-file|-|CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE|/nonexistent/k.pem|"
	       "CONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE=\"/nonexistent/k.pem\"\n",
	       "  each said; \"\", pkcs11: and other symbols are fine");
	strbuf_reset(&log);
	is_int(kpgo_kconfig_check_key_files(&config, NULL, obj, log_problem, &log), 2,
	       "  the same without a source tree");
	kpgo_kconfig_release(&config);

	kpgo_kconfig_init(&config);
	kpgo_kconfig_parse(&config, "c",
			   "CONFIG_SYSTEM_TRUSTED_KEYS=\"certs/in-obj.pem\"\n"
			   "CONFIG_MODULE_SIG_KEY=unquoted\nCONFIG_SYSTEM_REVOCATION_KEYS=\"a\n",
			   92, &err);
	strbuf_reset(&log);
	is_int(kpgo_kconfig_check_key_files(&config, NULL, obj, log_problem, &log), 0,
	       "a relative name beside the .config without a source tree; values not quoted "
	       "whole are none");
	kpgo_kconfig_release(&config);
	strbuf_release(&log);
	strbuf_release(&text);
}

static void test_flavour(void)
{
	struct kpgo_kflavour_opts o = { .flavour = KPGO_KFLAVOUR_PGO_INSTR };
	struct strbuf log = STRBUF_INIT;
	struct kpgo_kconfig c;
	struct kpgo_error err;
	enum kpgo_kflavour f;

	ok(!kpgo_kflavour_parse("pgo-instr", &f) && f == KPGO_KFLAVOUR_PGO_INSTR &&
		   !kpgo_kflavour_parse("o3", &f) && f == KPGO_KFLAVOUR_O3,
	   "flavours by name");
	is_int(kpgo_kflavour_parse("PGO", &f), -EINVAL, "  not others");

	parse(&c, "CONFIG_GCOV_KERNEL=y\nCONFIG_GCOV_PROFILE_ALL=y\n", &err);
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 0, "pgo-instr: gcov on all");
	o.flavour = KPGO_KFLAVOUR_PGO;
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 1, "pgo: gcov is refused");
	is_str(log.buf, "forbidden|-|CONFIG_GCOV_KERNEL|CONFIG_GCOV_KERNEL=y|CONFIG_GCOV_KERNEL=y\n",
	       "  said");
	kpgo_kconfig_release(&c);

	parse(&c, "# CONFIG_GCOV_KERNEL is not set\nCONFIG_MODULE_SIG_ALL=y\n", &err);
	strbuf_reset(&log);
	o.flavour = KPGO_KFLAVOUR_PGO_INSTR;
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 2,
	       "pgo-instr without gcov: two failures");
	is_str(log.buf,
	       "required|-|CONFIG_GCOV_KERNEL|CONFIG_GCOV_KERNEL=y|# CONFIG_GCOV_KERNEL is not set\n"
	       "required|-|CONFIG_GCOV_PROFILE_ALL|CONFIG_GCOV_PROFILE_ALL=y|-\n",
	       "  each said, with what the config has");
	strbuf_reset(&log);
	o = (struct kpgo_kflavour_opts){ .flavour = KPGO_KFLAVOUR_BASELINE,
					 .clang = true,
					 .module_sig = true };
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 1,
	       "clang, signed modules: ThinLTO missing");
	is_str(log.buf, "required|-|CONFIG_LTO_CLANG_THIN|CONFIG_LTO_CLANG_THIN=y|-\n", "  said");
	strbuf_reset(&log);
	o.full_lto = true;
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 1,
	       "clang, full LTO: CONFIG_LTO_CLANG_FULL missing");
	is_str(log.buf, "required|-|CONFIG_LTO_CLANG_FULL|CONFIG_LTO_CLANG_FULL=y|-\n", "  said");
	kpgo_kconfig_release(&c);
	parse(&c, "CONFIG_LTO_CLANG_FULL=y\nCONFIG_MODULE_SIG_ALL=y\n", &err);
	strbuf_reset(&log);
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 0, "clang, full LTO: taken");
	o.full_lto = false;
	is_int(kpgo_kconfig_check_flavour(&c, &o, log_problem, &log), 1,
	       "the same config for ThinLTO: refused");
	is_str(log.buf, "required|-|CONFIG_LTO_CLANG_THIN|CONFIG_LTO_CLANG_THIN=y|-\n", "  said");
	is_int(kpgo_kconfig_check_flavour(&c, &o, stop, NULL), -ECANCELED,
	       "the callback's error stops the check");
	kpgo_kconfig_release(&c);
	strbuf_release(&log);
}

int main(void)
{
	char tmpl[] = "/tmp/kpgo-test-kconfig.XXXXXX";
	char cmd[300];

	tmp = mkdtemp(tmpl);
	if (!tmp)
		return 1;
	test_parse();
	test_hostile();
	test_symbols();
	test_fragments();
	test_key_files();
	test_flavour();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		diag("cannot remove %s", tmp);
	return done_testing();
}
