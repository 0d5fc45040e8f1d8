// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "toolchain.h"
#include "util.h"

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
