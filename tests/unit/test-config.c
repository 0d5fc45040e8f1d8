// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config.h: durations, shell words, the settings file's syntax and values;
 * and the ingest weights file (store.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "store.h"
#include "tap.h"

static void test_duration(void)
{
	static const struct {
		const char *s;
		int r;
		uint64_t secs;
	} cases[] = {
		{ "0", 0, 0 },
		{ "90", 0, 90 },
		{ "90s", 0, 90 },
		{ "15m", 0, 900 },
		{ "6h", 0, 21600 },
		{ "30d", 0, 2592000 },
		{ "3650d", 0, 315360000 },
		{ "3651d", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "h", -EINVAL, 0 },
		{ "6 h", -EINVAL, 0 },
		{ "6hh", -EINVAL, 0 },
		{ "6y", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "1.5h", -EINVAL, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
	};
	char out[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int r = kpgo_duration_parse(cases[i].s, &v);

		is_int(r, cases[i].r, "duration '%s'", cases[i].s);
		if (!r)
			ok(v == cases[i].secs, "'%s' is %llu s", cases[i].s,
			   (unsigned long long)cases[i].secs);
	}
	kpgo_duration_format(0, out);
	is_str(out, "0", "format 0");
	kpgo_duration_format(90, out);
	is_str(out, "90s", "format 90 s");
	kpgo_duration_format(3600 * 30, out);
	is_str(out, "30h", "format 30 h");
	kpgo_duration_format(86400 * 2, out);
	is_str(out, "2d", "format 2 d");
	kpgo_duration_format(120, out);
	is_str(out, "2m", "format 2 m");
}

/* The words of @s joined by '|', or "ERR" */
static const char *words(const char *s)
{
	static char buf[512];
	struct kpgo_strlist l = { 0 };
	struct kpgo_error err;
	size_t i, n = 0;

	buf[0] = '\0';
	if (kpgo_split_words(s, &l, &err)) {
		kpgo_strlist_clear(&l);
		return "ERR";
	}
	for (i = 0; i < l.n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "|" : "", l.items[i]);
	kpgo_strlist_clear(&l);
	return buf;
}

static void test_words(void)
{
	is_str(words(""), "", "no words");
	is_str(words("  cp\t-t  /x "), "cp|-t|/x", "blanks separate");
	is_str(words("scp -i '/root/my key' {}"), "scp|-i|/root/my key|{}", "single quotes");
	is_str(words("a\"b c\"d"), "ab cd", "double quotes join");
	is_str(words("\"a\\\"b\\\\c\\d\""), "a\"b\\c\\d", "escapes in double quotes");
	is_str(words("a\\ b"), "a b", "escaped blank");
	is_str(words("''"), "", "an empty word");
	is_str(words("it's"), "ERR", "unterminated '");
	is_str(words("\"open"), "ERR", "unterminated \"");
	is_str(words("echo $HOME"), "ERR", "$ expansion");
	is_str(words("echo \"$HOME\""), "ERR", "$ in double quotes");
	is_str(words("echo '$HOME'"), "echo|$HOME", "$ in single quotes is literal");
	is_str(words("echo `id`"), "ERR", "backquotes");
	is_str(words("a;b"), "ERR", ";");
	is_str(words("a | b"), "ERR", "|");
	is_str(words("a > b"), "ERR", ">");
	is_str(words("a & "), "ERR", "&");
	is_str(words("(a)"), "ERR", "( )");
	is_str(words("~/bin/x"), "ERR", "~ at the start");
	is_str(words("a~b"), "a~b", "~ inside a word");
	is_str(words("a # c"), "ERR", "a comment");
	is_str(words("a\\"), "ERR", "a trailing backslash");
	is_str(words("a\tb\x01"), "ERR", "a control character");
}

static int parse(struct kpgo_config *c, const char *text, struct kpgo_error *err)
{
	kpgo_config_init(c);
	err->msg[0] = '\0';
	return kpgo_config_parse(c, "f", text, strlen(text), err);
}

static void test_parse(void)
{
	struct kpgo_config c;
	struct kpgo_error err;
	struct strbuf out = STRBUF_INIT;

	is_int(parse(&c, "", &err), 0, "an empty file");
	is_str(c.workload, "default", "default workload");
	is_str(c.spool_dir, KPGO_SPOOL_DEFAULT, "default spool");
	ok(c.snapshot_interval == 21600 && c.collect_timeout == 60 && c.keep_count == 10 &&
		   c.keep_age == 30 * 86400 && c.spool_max == 200 && c.upload_timeout == 600 &&
		   c.retry_max == 21600 && c.upload_argv.n == 0,
	   "the documented defaults");
	kpgo_config_release(&c);

	is_int(parse(&c,
		     "# comment\n\n  export KPGO_WORKLOAD=web  # trailing\r\n"
		     "KPGO_SPOOL_DIR=\"/srv/kpgo//\"\n"
		     "KPGO_SNAPSHOT_INTERVAL=off\nKPGO_KEEP_AGE=0\n"
		     "KPGO_UPLOAD_COMMAND='rsync -t {} farm::drop/'\n"
		     "KPGO_FOO=1\nlowercase_key=2\n",
		     &err),
	       0, "a file with everything: %s", err.msg);
	is_str(c.workload, "web", "export, comment, CRLF");
	is_str(c.spool_dir, "/srv/kpgo", "trailing slashes go");
	ok(c.snapshot_interval == 0 && c.keep_age == 0, "off and 0");
	ok(c.upload_argv.n == 4 && !strcmp(c.upload_argv.items[2], "{}"), "the command's words");
	is_int((int)c.warnings.n, 2, "two unknown keys warned about");
	is_str(c.warnings.items[0], "f:8: unknown key 'KPGO_FOO' ignored", "the warning");
	ok(kpgo_config_format(&c, &out) == 0 &&
		   strstr(out.buf, "KPGO_UPLOAD_COMMAND='rsync -t {} farm::drop/'\n") &&
		   strstr(out.buf, "KPGO_SNAPSHOT_INTERVAL='0'\n"),
	   "format");
	strbuf_release(&out);
	kpgo_config_release(&c);

	is_int(parse(&c, "KPGO_WORKLOAD=a\nKPGO_WORKLOAD=b\n", &err), -EINVAL, "a key twice");
	is_str(err.msg, "f:2: KPGO_WORKLOAD is already set on line 1", "says where");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_SNAPSHOT_INTERVAL=59s\n", &err), -EINVAL, "below the minimum");
	is_str(err.msg,
	       "f:1: bad KPGO_SNAPSHOT_INTERVAL '59s': a duration from 1m to 30d is needed (e.g. 90s, 15m, 6h, 2d), or 0 (off)",
	       "the message");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_UPLOAD_COMMAND=\"a; b\"\n", &err), -EINVAL,
	       "operators in the command");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_WORKLOAD='a\nb'\n", &err), -EINVAL, "a quote across lines");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_WORKLOAD=\"a\\tb\"\n", &err), -EINVAL, "no tab in a label");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_SPOOL_DIR=/a b\n", &err), -EINVAL, "text after the value");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_SPOOL_DIR='/a b'\n", &err), -EINVAL, "a blank in the spool");
	kpgo_config_release(&c);
	is_int(parse(&c, "KPGO_SPOOL_DIR=/a/./b\n", &err), -EINVAL, "'.' in the spool");
	kpgo_config_release(&c);
	is_int(parse(&c, "export\n", &err), -EINVAL, "'export' alone");
	kpgo_config_release(&c);
	is_int(parse(&c, "=x\n", &err), -EINVAL, "no key");
	kpgo_config_release(&c);
	is_int(parse(&c, "9KEY=x\n", &err), -EINVAL, "a key starting with a digit");
	kpgo_config_release(&c);
	{
		char text[] = "KPGO_WORKLOAD=a\0b\n";

		kpgo_config_init(&c);
		is_int(kpgo_config_parse(&c, "f", text, sizeof(text) - 1, &err), -EINVAL, "a NUL");
		kpgo_config_release(&c);
	}
}

static void test_load(void)
{
	char dir[] = "/tmp/kpgo-test-config.XXXXXX", path[64];
	struct kpgo_config c;
	struct kpgo_error err;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/kpgo", dir);
	is_int(kpgo_config_load(&c, path, false, &err), 0, "a missing file: defaults");
	ok(c.path == NULL, "no path");
	kpgo_config_release(&c);
	is_int(kpgo_config_load(&c, path, true, &err), -ENOENT, "unless it must exist");
	f = fopen(path, "w");
	fputs("KPGO_KEEP_COUNT=3\n", f);
	fclose(f);
	chmod(path, 0644);
	is_int(kpgo_config_load(&c, path, true, &err), 0, "a file");
	ok(c.keep_count == 3 && c.path && !strcmp(c.path, path), "read");
	kpgo_config_release(&c);
	chmod(path, 0664);
	is_int(kpgo_config_load(&c, path, true, &err), -EPERM, "group-writable is refused");
	chmod(path, 0644);
	unlink(path);
	rmdir(dir);
}

static void test_weights(void)
{
	static const char *const bad[] = {
		"redis",    "redis=",	 "=1",	     "redis=-1", "redis=1000001",
		"re dis=1", "redis=1 2", "a=1\na=2", "*=1\n*=0", "x=99999999999999999999",
	};
	struct kpgo_weights w;
	struct kpgo_error err;
	size_t i;
	const char *good = "# weights\n\n redis=3 \r\n*=2\nidle=0\nlong.label_1-x=1000000\n";

	kpgo_weights_init(&w);
	ok(kpgo_weights_get(NULL, "x") == 1, "no weights: 1");
	is_int(kpgo_weights_parse(&w, "w", good, strlen(good), &err), 0, "good weights");
	ok(kpgo_weights_get(&w, "redis") == 3 && kpgo_weights_get(&w, "idle") == 0 &&
		   kpgo_weights_get(&w, "other") == 2 &&
		   kpgo_weights_get(&w, "long.label_1-x") == 1000000,
	   "looked up, '*' for the rest");
	kpgo_weights_release(&w);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		kpgo_weights_init(&w);
		is_int(kpgo_weights_parse(&w, "w", bad[i], strlen(bad[i]), &err), -EINVAL,
		       "refused: '%s' (%s)", bad[i], err.msg);
		ok(!strncmp(err.msg, "w:", 2), "names the file");
		kpgo_weights_release(&w);
	}
}

int main(void)
{
	test_duration();
	test_words();
	test_parse();
	test_load();
	test_weights();
	return done_testing();
}
