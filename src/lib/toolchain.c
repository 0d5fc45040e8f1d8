// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "toolchain.h"
#include "util.h"

int kpgo_compiler_parse(const char *name, enum kpgo_compiler *c)
{
	if (!strcmp(name, "gcc"))
		*c = KPGO_COMPILER_GCC;
	else if (!strcmp(name, "clang"))
		*c = KPGO_COMPILER_CLANG;
	else
		return -EINVAL;
	return 0;
}

int kpgo_lto_parse(const char *name, bool *full)
{
	if (!strcmp(name, "thin"))
		*full = false;
	else if (!strcmp(name, "full"))
		*full = true;
	else
		return -EINVAL;
	return 0;
}

/* One word on a make command line, as the shell and make pass it on. */
static bool make_word_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f || strchr("'\"\\$", *s))
			return false;
	return true;
}

int kpgo_flags(const struct kpgo_flags_opts *o, struct strbuf *cflags, struct strbuf *ldflags,
	       struct kpgo_error *err)
{
	bool gcc = o->compiler == KPGO_COMPILER_GCC;
	const char *path = gcc ? o->profile_dir : o->sample_profile;
	int r;

	if (gcc && o->sample_profile)
		return kpgo_error_set(err, -EINVAL, "a sample profile is for Clang, not GCC");
	if (!gcc && (o->profile_dir || o->partial_training))
		return kpgo_error_set(err, -EINVAL,
				      "a profile directory and partial training are for GCC, not Clang");
	if (!gcc && !path)
		return kpgo_error_set(err, -EINVAL, "Clang needs a sample profile");
	if (path && !make_word_ok(path))
		return kpgo_error_set(err, -EINVAL,
				      "the %s must not be empty nor contain blanks, control characters, quotes, backslashes or '$'",
				      gcc ? "profile directory" : "sample profile");
	if (gcc) {
		r = strbuf_addstr(cflags, "-fprofile-use");
		if (!r && path)
			r = strbuf_addf(cflags, "=%s", path);
		if (!r)
			r = strbuf_addstr(cflags, " -fprofile-correction -Wno-error=coverage-mismatch"
						  " -Wno-error=missing-profile");
		if (!r && o->partial_training)
			r = strbuf_addstr(cflags, " -fprofile-partial-training");
	} else {
		/*
		 * Line tables: the profile's counts are by line offset. The
		 * coverage options make clang 16 warn for every function it found
		 * in the profile, how much of it applied.
		 */
		r = strbuf_addf(cflags,
				"-fprofile-sample-use=%s -gline-tables-only"
				" -mllvm -sample-profile-check-record-coverage=101"
				" -mllvm -sample-profile-check-sample-coverage=101",
				path);
		if (!r)
			r = strbuf_addf(ldflags, "--lto-sample-profile=%s", path);
	}
	return r ? kpgo_error_set(err, -ENOMEM, "out of memory") : 0;
}

int kpgo_compiler_gcov_version(const char *cc, uint32_t *stamp)
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
