// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "run.h"
#include "util.h"

int verbosity = 1;

int error(const char *fmt, ...)
{
	va_list ap;

	fputs("kpgo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	fputs("kpgo: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void note(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kpgo %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'kpgo %s --help'\n", cmd);
	return EXIT_USAGE;
}

int run_subcommand(const char *cmd, const struct subcommand_entry *t, size_t n, int argc,
		   char **argv)
{
	char names[256];
	size_t i, used = 0;

	if (optind >= argc) {
		names[0] = '\0';
		for (i = 0; i < n && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 i ? ", " : "", t[i].name);
		return usage_error(cmd, "which command? (%s)", names);
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(argv[optind], t[i].name)) {
			argc -= optind;
			argv += optind;
			optind = 0; /* glibc: start over, at argv[1] */
			return t[i].fn(argc, argv);
		}
	}
	return usage_error(cmd, "'%s' is not a %s command", argv[optind], cmd);
}

void json_str(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (kpgo_json_quote(&sb, s) == 0)
		fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

int print_json_doc(struct kpgo_json_writer *w)
{
	int r = kpgo_jw_finish(w);

	if (!r)
		fwrite(w->out->buf, 1, w->out->len, stdout);
	strbuf_release(w->out);
	if (r)
		return error("cannot print the JSON: %s", strerror(-r));
	return 0;
}

void kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(buf, len, "%s", u.release);
	else
		snprintf(buf, len, "%s", "");
}

void machine_arch(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(buf, len, "%s", u.machine);
	else
		snprintf(buf, len, "%s", "");
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

int read_build_id(const char *notes_path, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t pos = 0;
	int r;

	buf[0] = '\0';
	r = kpgo_read_file(notes_path, &sb, 1 << 20);
	if (r)
		goto out;
	r = -ENOENT;
	/* ELF notes: namesz, descsz, type, name and desc each padded to 4. */
	while (sb.len - pos >= 12) {
		const unsigned char *p = (const unsigned char *)sb.buf + pos;
		uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
		size_t nlen = ((size_t)namesz + 3) & ~(size_t)3;
		size_t dlen = ((size_t)descsz + 3) & ~(size_t)3;

		if (nlen > sb.len - pos - 12 || dlen > sb.len - pos - 12 - nlen)
			break;
		if (type == 3 && namesz == 4 && !memcmp(p + 12, "GNU", 4) && descsz > 0 &&
		    2 * (size_t)descsz < len && descsz <= 64) {
			kpgo_hex(p + 12 + nlen, descsz, buf);
			r = 0;
			break;
		}
		pos += 12 + nlen + dlen;
	}
out:
	strbuf_release(&sb);
	return r;
}

int compiler_gcov_version(const char *cc, uint32_t *stamp)
{
	char dir[] = "/tmp/kpgo-cc.XXXXXX", obj[64], notes[64], src[64];
	char *argv[32], *copy, *p;
	struct kpgo_run run = KPGO_RUN_INIT;
	struct kpgo_run_result res;
	struct strbuf sb = STRBUF_INIT;
	int argc = 0, r;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(src, sizeof(src), "%s/v.c", dir);
	snprintf(obj, sizeof(obj), "%s/v.o", dir);
	snprintf(notes, sizeof(notes), "%s/v.gcno", dir);
	copy = strdup(cc);
	if (!copy || kpgo_write_file_atomic(src, "int v;\n", 7, 0644)) {
		r = -ENOMEM;
		goto out;
	}
	/* CC may be "ccache gcc": split on blanks, no shell. */
	for (p = copy; *p && argc < 24;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (!argc) {
		r = -EINVAL;
		goto out;
	}
	argv[argc++] = (char *)"-fprofile-arcs";
	argv[argc++] = (char *)"-ftest-coverage";
	argv[argc++] = (char *)"-c";
	argv[argc++] = src;
	argv[argc++] = (char *)"-o";
	argv[argc++] = obj;
	argv[argc] = NULL;
	run.argv = argv;
	run.out = KPGO_RUN_DEVNULL;
	run.err = KPGO_RUN_DEVNULL;
	r = kpgo_run(&run, &res);
	if (!r && res.exec_errno)
		r = -res.exec_errno;
	else if (!r && res.status)
		r = -ENOEXEC;
	if (!r)
		r = kpgo_read_file(notes, &sb, 1 << 20);
	if (!r && sb.len < 8)
		r = -EINVAL;
	if (!r)
		memcpy(stamp, sb.buf + 4, 4);
out:
	unlink(src);
	unlink(obj);
	unlink(notes);
	rmdir(dir);
	free(copy);
	strbuf_release(&sb);
	return r;
}
