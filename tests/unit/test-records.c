// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * records.h: named records written to an unlinked temporary file beside
 * the output and read back in order, across the I/O buffer's boundaries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "tap.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/kpgo-test-records.XXXXXX";

static void test_records(void)
{
	struct strbuf near = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	struct strbuf big = STRBUF_INIT, name = STRBUF_INIT;
	struct kpgo_records *s;
	struct kpgo_error err;
	const void *data;
	const char *n;
	size_t len, i;
	bool all = true;
	int r;

	strbuf_addf(&near, "%s/out.kpgo", tmpdir);
	listing(tmpdir, &before);
	is_int(kpgo_records_open(&s, near.buf, &err), 0, "records: open");
	listing(tmpdir, &after);
	is_str(after.buf, before.buf, "records: its file is unlinked at once");
	for (i = 0; i < 300000; i++)
		strbuf_addch(&big, (char)('a' + i % 26));
	is_int(kpgo_records_next(s, &n, &data, &len), -EINVAL, "records: no reading before rewind");
	is_int(kpgo_records_add(s, "empty", "", 0), 0, "records: an empty record");
	is_int(kpgo_records_add(s, "big", big.buf, big.len), 0, "records: a record over the buffer");
	for (i = 0; i < 5000 && all; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "r%zu", i);
		all = !kpgo_records_add(s, name.buf, name.buf, name.len);
	}
	ok(all, "records: 5000 small records across buffer boundaries");
	is_int(kpgo_records_rewind(s), 0, "records: rewind");
	is_int(kpgo_records_add(s, "late", "x", 1), -EINVAL, "records: no writing after rewind");
	r = kpgo_records_next(s, &n, &data, &len);
	ok(r == 1 && !strcmp(n, "empty") && len == 0, "records: the empty record");
	r = kpgo_records_next(s, &n, &data, &len);
	ok(r == 1 && !strcmp(n, "big") && len == big.len && !memcmp(data, big.buf, len),
	   "records: the big record, byte for byte");
	for (i = 0, all = true; i < 5000 && all; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "r%zu", i);
		r = kpgo_records_next(s, &n, &data, &len);
		all = r == 1 && !strcmp(n, name.buf) && len == name.len &&
		      !memcmp(data, name.buf, len);
	}
	ok(all, "records: the small records, in order");
	is_int(kpgo_records_next(s, &n, &data, &len), 0, "records: then the end");
	is_int(kpgo_records_next(s, &n, &data, &len), 0, "records: and the end stays");
	is_int(kpgo_records_rewind(s), 0, "records: rewind again");
	r = kpgo_records_next(s, &n, &data, &len);
	ok(r == 1 && !strcmp(n, "empty"), "records: reads from the start again");
	kpgo_records_free(s);

	strbuf_reset(&near);
	strbuf_addf(&near, "%s/no/such/dir/out.kpgo", tmpdir);
	r = kpgo_records_open(&s, near.buf, &err);
	ok(r == -ENOENT && s == NULL, "records: a missing directory is an error");
	strbuf_reset(&name);
	strbuf_addf(&name, "cannot create '%s': %s", near.buf, strerror(ENOENT));
	is_str(err.msg, name.buf, "records: the message names the file being made");
	strbuf_release(&near);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&big);
	strbuf_release(&name);
}

int main(void)
{
	struct strbuf cmd = STRBUF_INIT;

	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp failed");
	test_records();
	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd.buf) != 0)
		diag("cannot remove %s", tmpdir);
	strbuf_release(&cmd);
	return done_testing();
}
