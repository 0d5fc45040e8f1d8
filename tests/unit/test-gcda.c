// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .gcda reader and writer (gcda.h): every layout GCC writes, what the
 * kernel serves, malformed files, scaling.
 *
 * Files are built word by word here, independently of the writer under
 * test, so that a reader and writer sharing one mistake cannot agree on it.
 * Where a real GCC is installed, its runtime's own files are read too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcda.h"
#include "tap.h"
#include "testlib.h"

#define GCNO_MAGIC 0x67636e6fu

static int parse(const struct strbuf *b, struct kpgo_gcda *g, struct kpgo_error *err)
{
	err->msg[0] = '\0';
	return kpgo_gcda_parse(b->buf, b->len, g, err);
}

static bool gcda_empty(const struct kpgo_gcda *g)
{
	return !g->n_fns && !g->fns && !g->n_ctrs && !g->ctrs && !g->version && !g->has_summary;
}

/* Parse must refuse @b with exactly @want_r and @want_msg, leaving @g empty. */
static void check_bad(const char *what, const struct strbuf *b, int want_r, const char *want_msg)
{
	struct kpgo_error err;
	struct kpgo_gcda g;
	int r;

	memset(&g, 0xa5, sizeof(g));
	r = parse(b, &g, &err);
	is_int(r, want_r, "%s: refused", what);
	is_str(err.msg, want_msg, "%s: message", what);
	ok(gcda_empty(&g), "%s: result left empty", what);
	if (!r)
		kpgo_gcda_release(&g);
}

/* --- version stamps ------------------------------------------------- */

static void test_versions(void)
{
	struct kpgo_gcc_version v;
	uint32_t w = 0;
	char s[5];

	memset(&v, 0, sizeof(v));
	is_int(kpgo_gcc_version_decode(stamp_of("B22*"), &v), 0, "B22* decodes");
	ok(v.major == 12 && v.minor == 2 && v.byte_lengths && v.has_checksum,
	   "B22* is GCC 12.2, byte lengths, checksum");
	is_int(kpgo_gcc_version_decode(stamp_of("B12*"), &v), 0, "B12* decodes");
	ok(v.major == 11 && v.minor == 2 && !v.byte_lengths && !v.has_checksum,
	   "B12* is GCC 11.2, word lengths, no checksum");
	is_int(kpgo_gcc_version_decode(stamp_of("A94*"), &v), 0, "A94* decodes");
	ok(v.major == 9 && v.minor == 4 && !v.byte_lengths && !v.has_checksum, "A94* is GCC 9.4");
	is_int(kpgo_gcc_version_decode(stamp_of("A83*"), &v), 0, "A83* decodes");
	ok(v.major == 8 && v.minor == 3, "A83* is GCC 8.3");
	is_int(kpgo_gcc_version_decode(stamp_of("B42*"), &v), 0, "B42* (GCC 14.2) decodes");
	is_int(kpgo_gcc_version_decode(stamp_of("A75*"), &v), -EPROTONOSUPPORT, "GCC 7 unsupported");
	is_int(v.major, 7, "A75* still reports GCC 7");
	is_int(kpgo_gcc_version_decode(stamp_of("B50*"), &v), -EPROTONOSUPPORT,
	       "GCC 15 unsupported");
	is_int(kpgo_gcc_version_decode(stamp_of("b22*"), &v), -EINVAL, "lowercase letter: no stamp");
	is_int(kpgo_gcc_version_decode(stamp_of("BX2*"), &v), -EINVAL, "letter as digit: no stamp");
	is_int(kpgo_gcc_version_decode(0, &v), -EINVAL, "zero word: no stamp");
	is_int(kpgo_gcc_version_decode(0xdeadbeef, &v), -EINVAL, "garbage: no stamp");

	kpgo_gcc_version_str(stamp_of("B22*"), s);
	is_str(s, "B22*", "version_str B22*");
	kpgo_gcc_version_str(0x01020304, s);
	is_str(s, "????", "version_str of unprintable bytes");
	is_int(kpgo_gcc_version_parse("B12*", &w), 0, "version_parse B12*");
	is_int(w, stamp_of("B12*"), "version_parse gives the word");
	is_int(kpgo_gcc_version_parse("B12", &w), -EINVAL, "version_parse: three characters");
	is_int(kpgo_gcc_version_parse("B12**", &w), -EINVAL, "version_parse: five characters");
	is_int(kpgo_gcc_version_parse("B1\t*", &w), -EINVAL, "version_parse: control character");
}

/* --- GCC 12 layout --------------------------------------------------- */

static void test_gcc12_round_trip(void)
{
	static const uint64_t a1[] = { 5, 0, 0x100000007ull };
	static const uint64_t want[] = { 5, 0, 0x100000007ull, 0, 0 };
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, exp = STRBUF_INIT;
	struct kpgo_gcda g, g2;
	struct kpgo_error err;

	/* As GCC 12's runtime writes it. */
	header(&in, "B22*", 0x11223344, 0xcafef00d);
	summary_rec(&in, 4, 3, 1000);
	fn_rec(&in, 4, 1, 0x1111, 0x2222);
	arcs_rec(&in, 4, 3, a1);
	rec(&in, KPGO_TAG_FUNCTION, 0); /* placeholder: the function lives elsewhere */
	fn_rec(&in, 4, 9, 0x3333, 0x4444);
	rec(&in, KPGO_TAG_ARCS, (uint32_t)-16); /* two counters, all zero */
	fn_rec(&in, 4, 4, 0x5555, 0x6666);
	arcs_rec(&in, 4, 0, NULL);
	w32(&in, 0); /* the runtime's end marker */

	is_int(parse(&in, &g, &err), 0, "GCC 12 file parses");
	is_str(err.msg, "", "no message on success");
	is_int(g.version, stamp_of("B22*"), "version");
	is_int(g.stamp, 0x11223344, "stamp");
	is_int(g.checksum, 0xcafef00d, "checksum word");
	ok(g.has_summary && g.runs == 3 && g.sum_max == 1000, "summary runs=3 sum_max=1000");
	is_int(g.n_fns, 3, "placeholder dropped: three functions");
	check_fn(&g, 0, 1, 0x1111, 0x2222, 3, 0);
	check_fn(&g, 1, 9, 0x3333, 0x4444, 2, 3);
	check_fn(&g, 2, 4, 0x5555, 0x6666, 0, 5);
	check_ctrs(&g, want, 5, "GCC 12");
	ok(kpgo_gcda_max(&g) == 0x100000007ull, "max is the 64-bit counter");
	ok(kpgo_gcda_sum(&g) == 0x10000000cull, "sum of all counters");
	ok(kpgo_gcda_fn_sum(&g, &g.fns[0]) == 0x10000000cull, "sum of function 0");
	ok(kpgo_gcda_fn_sum(&g, &g.fns[1]) == 0, "sum of the all-zero function");
	ok(kpgo_gcda_find(&g, 4, 0) == &g.fns[2], "find ident 4 with a wrong hint");
	ok(kpgo_gcda_find(&g, 9, 1) == &g.fns[1], "find ident 9 with the right hint");
	ok(kpgo_gcda_find(&g, 77, 99) == NULL, "find a missing ident");

	/* The kernel's layout: no summary, every counter stored, no end marker. */
	header(&exp, "B22*", 0x11223344, 0xcafef00d);
	fn_rec(&exp, 4, 1, 0x1111, 0x2222);
	arcs_rec(&exp, 4, 3, a1);
	fn_rec(&exp, 4, 9, 0x3333, 0x4444);
	arcs_rec(&exp, 4, 2, want + 3);
	fn_rec(&exp, 4, 4, 0x5555, 0x6666);
	arcs_rec(&exp, 4, 0, NULL);
	is_int(kpgo_gcda_write(&g, 0, &out), 0, "write without summary");
	ok(bytes_same(&out, &exp), "written as the kernel writes it (byte lengths)");
	is_int(parse(&out, &g2, &err), 0, "written file parses");
	ok(gcda_same(&g, &g2, false) && !g2.has_summary, "round trip: same data, no summary");
	kpgo_gcda_release(&g2);

	strbuf_reset(&out);
	strbuf_reset(&exp);
	header(&exp, "B22*", 0x11223344, 0xcafef00d);
	summary_rec(&exp, 4, 3, 1000);
	fn_rec(&exp, 4, 1, 0x1111, 0x2222);
	arcs_rec(&exp, 4, 3, a1);
	fn_rec(&exp, 4, 9, 0x3333, 0x4444);
	arcs_rec(&exp, 4, 2, want + 3);
	fn_rec(&exp, 4, 4, 0x5555, 0x6666);
	arcs_rec(&exp, 4, 0, NULL);
	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), 0, "write with summary");
	ok(bytes_same(&out, &exp), "summary record right after the header, length 8 bytes");
	is_int(parse(&out, &g2, &err), 0, "written file with summary parses");
	ok(gcda_same(&g, &g2, true), "round trip with summary: identical");
	kpgo_gcda_release(&g2);

	/* Writing appends to what the buffer holds. */
	strbuf_reset(&out);
	strbuf_addstr(&out, "xy");
	is_int(kpgo_gcda_write(&g, 0, &out), 0, "write after existing bytes");
	ok(out.len == 2 + exp.len - 16 && !memcmp(out.buf, "xy", 2), "write appends");

	g.sum_max = (uint64_t)UINT32_MAX + 1;
	strbuf_reset(&out);
	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), -ERANGE,
	       "summary with sum_max past 32 bits refused");
	g.sum_max = UINT32_MAX;
	strbuf_reset(&out);
	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), 0, "sum_max of exactly 2^32-1 written");
	g.version = stamp_of("A75*");
	strbuf_reset(&out);
	is_int(kpgo_gcda_write(&g, 0, &out), -EPROTONOSUPPORT, "write for GCC 7 refused");
	g.version = 0;
	is_int(kpgo_gcda_write(&g, 0, &out), -EINVAL, "write without a version refused");

	kpgo_gcda_release(&g);
	ok(gcda_empty(&g), "release leaves it empty");
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&exp);
}

static void test_gcc12_small_cases(void)
{
	static const uint64_t one[] = { 42 };
	struct strbuf b = STRBUF_INIT;
	struct kpgo_gcda g;
	struct kpgo_error err;
	unsigned i;

	header(&b, "B22*", 1, 0);
	is_int(parse(&b, &g, &err), 0, "header only: an object without functions");
	ok(g.n_fns == 0 && g.n_ctrs == 0 && !g.has_summary && g.checksum == 0, "empty object");
	kpgo_gcda_release(&g);

	w32(&b, 0);
	is_int(parse(&b, &g, &err), 0, "header and end marker");
	is_int(g.n_fns, 0, "end marker is no record");
	kpgo_gcda_release(&g);

	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 0);
	fn_rec(&b, 4, 7, 1, 2);
	arcs_rec(&b, 4, 1, one);
	is_int(parse(&b, &g, &err), 0, "placeholder before a function");
	ok(g.n_fns == 1 && g.fns[0].ident == 7 && g.n_ctrs == 1 && g.ctrs[0] == 42,
	   "the function after the placeholder is read");
	kpgo_gcda_release(&g);

	/* A function record with no counter record: no counters. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 7, 1, 2);
	fn_rec(&b, 4, 8, 1, 2);
	arcs_rec(&b, 4, 1, one);
	is_int(parse(&b, &g, &err), 0, "function without counters");
	ok(g.n_fns == 2 && g.fns[0].n_arcs == 0 && g.fns[1].n_arcs == 1 && g.fns[1].arcs == 0,
	   "it has none, the next one has the first counter");
	kpgo_gcda_release(&g);

	/* Counts up to the limit in all-zero records are fine. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	for (i = 0; i < 4; i++) {
		fn_rec(&b, 4, 1 + i, 0, 0);
		rec(&b, KPGO_TAG_ARCS, (uint32_t)(-(int32_t)(KPGO_GCDA_MAX_FN_COUNTERS * 8)));
	}
	is_int(parse(&b, &g, &err), 0, "exactly KPGO_GCDA_MAX_COUNTERS counters accepted");
	ok(g.n_ctrs == KPGO_GCDA_MAX_COUNTERS && kpgo_gcda_max(&g) == 0, "all of them zero");
	kpgo_gcda_release(&g);
	strbuf_release(&b);
}

/* --- GCC 9 to 11 layout ---------------------------------------------- */

static void test_gcc11_round_trip(void)
{
	static const uint64_t a1[] = { 1, 2 }, a2[] = { UINT64_MAX };
	static const uint64_t want[] = { 1, 2, UINT64_MAX };
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, exp = STRBUF_INIT;
	struct kpgo_gcda g, g2;
	struct kpgo_error err;

	/* The kernel's layout for GCC 11.2: lengths in words, no checksum. */
	header(&in, "B12*", 0xabcdef01, 0);
	fn_rec(&in, 1, 3, 0x10, 0x20);
	arcs_rec(&in, 1, 2, a1);
	fn_rec(&in, 1, 5, 0x30, 0x40);
	arcs_rec(&in, 1, 1, a2);
	is_int(in.len, 12 + 20 + 8 + 16 + 20 + 8 + 8, "GCC 11 test file is laid out as expected");

	is_int(parse(&in, &g, &err), 0, "GCC 11 file parses");
	is_int(g.version, stamp_of("B12*"), "version B12*");
	is_int(g.stamp, 0xabcdef01, "stamp (third word)");
	is_int(g.checksum, 0, "no checksum word before GCC 12");
	ok(!g.has_summary, "no summary");
	is_int(g.n_fns, 2, "two functions");
	check_fn(&g, 0, 3, 0x10, 0x20, 2, 0);
	check_fn(&g, 1, 5, 0x30, 0x40, 1, 2);
	check_ctrs(&g, want, 3, "GCC 11");

	is_int(kpgo_gcda_write(&g, 0, &out), 0, "write GCC 11 layout");
	ok(bytes_same(&out, &in), "written bytes identical to the kernel's (word lengths)");

	strbuf_reset(&out);
	g.has_summary = true;
	g.runs = 7;
	g.sum_max = 99;
	header(&exp, "B12*", 0xabcdef01, 0);
	summary_rec(&exp, 1, 7, 99);
	fn_rec(&exp, 1, 3, 0x10, 0x20);
	arcs_rec(&exp, 1, 2, a1);
	fn_rec(&exp, 1, 5, 0x30, 0x40);
	arcs_rec(&exp, 1, 1, a2);
	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), 0, "write GCC 11 with summary");
	ok(bytes_same(&out, &exp), "summary of 2 words after a 3-word header");
	is_int(parse(&out, &g2, &err), 0, "re-parse");
	ok(gcda_same(&g, &g2, true), "GCC 11 round trip with summary");
	kpgo_gcda_release(&g2);
	kpgo_gcda_release(&g);

	/* GCC's runtime form of the same: summary and end marker. */
	w32(&exp, 0);
	is_int(parse(&exp, &g, &err), 0, "GCC 11 runtime file with end marker parses");
	ok(g.has_summary && g.runs == 7 && g.sum_max == 99 && g.n_ctrs == 3, "summary read");
	kpgo_gcda_release(&g);

	/* GCC 11's runtime also writes placeholders, of length 0 words. */
	strbuf_reset(&in);
	header(&in, "B12*", 1, 0);
	rec(&in, KPGO_TAG_FUNCTION, 0);
	fn_rec(&in, 1, 8, 0, 0);
	arcs_rec(&in, 1, 1, a2);
	rec(&in, KPGO_TAG_FUNCTION, 0);
	is_int(parse(&in, &g, &err), 0, "GCC 11 placeholders parse");
	ok(g.n_fns == 1 && g.fns[0].ident == 8 && g.n_ctrs == 1 && g.ctrs[0] == UINT64_MAX,
	   "GCC 11 placeholders dropped");
	kpgo_gcda_release(&g);

	/* GCC 9.4. */
	strbuf_reset(&in);
	header(&in, "A94*", 9, 0);
	summary_rec(&in, 1, 1, 2);
	fn_rec(&in, 1, 1, 0, 0);
	arcs_rec(&in, 1, 2, a1);
	w32(&in, 0);
	is_int(parse(&in, &g, &err), 0, "GCC 9.4 file parses");
	ok(g.version == stamp_of("A94*") && g.has_summary && g.runs == 1 && g.sum_max == 2 &&
		   g.n_ctrs == 2 && g.ctrs[1] == 2,
	   "GCC 9.4 contents");
	kpgo_gcda_release(&g);

	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&exp);
}

/*
 * GCC 11's runtime (libgcov-driver.c, write_one_data) writes an all-zero
 * counter array as a negative length already, in words: -4 is two counters.
 * Seen with Debian's gcc-11 11.3 ("B13*"), which test_real_gcc() checks.
 */
static void test_gcc11_negative_length(void)
{
	static const uint64_t one[] = { 10 };
	struct strbuf b = STRBUF_INIT;
	struct kpgo_gcda g;
	struct kpgo_error err;

	header(&b, "B13*", 1, 0);
	summary_rec(&b, 1, 1, 10);
	fn_rec(&b, 1, 1, 0x11, 0x12);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)-4);
	fn_rec(&b, 1, 2, 0x21, 0x22);
	arcs_rec(&b, 1, 1, one);
	w32(&b, 0);
	is_int(parse(&b, &g, &err), 0, "GCC 11 all-zero record (length -4 words) parses");
	is_str(err.msg, "", "GCC 11 all-zero record: no message");
	ok(g.n_fns == 2 && g.n_ctrs == 3 && g.fns[0].n_arcs == 2 && g.ctrs[0] == 0 &&
		   g.ctrs[1] == 0 && g.ctrs[2] == 10,
	   "length -4 words is two zero counters");
	kpgo_gcda_release(&g);
	strbuf_release(&b);
}

/* --- GCC 8 -------------------------------------------------------------- */

static void test_gcc8(void)
{
	static const uint64_t a1[] = { 3, 4 };
	struct strbuf b = STRBUF_INIT, out = STRBUF_INIT, exp = STRBUF_INIT;
	struct kpgo_gcda g;
	struct kpgo_error err;
	int i;

	header(&b, "A83*", 5, 0);
	/* GCC 8's summaries: checksum, then a count-summary with a histogram. */
	rec(&b, KPGO_TAG_OBJECT_SUMMARY, 22);
	for (i = 0; i < 22; i++)
		w32(&b, 0x1000u + (uint32_t)i);
	rec(&b, KPGO_TAG_PROGRAM_SUMMARY, 22);
	for (i = 0; i < 22; i++)
		w32(&b, 0x2000u + (uint32_t)i);
	fn_rec(&b, 1, 1, 0x11, 0x12);
	arcs_rec(&b, 1, 2, a1);
	w32(&b, 0);
	is_int(parse(&b, &g, &err), 0, "GCC 8.3 file parses");
	ok(!g.has_summary && g.runs == 0 && g.sum_max == 0, "GCC 8 summaries skipped");
	ok(g.n_fns == 1 && g.n_ctrs == 2 && g.ctrs[0] == 3 && g.ctrs[1] == 4, "GCC 8 counters read");

	header(&exp, "A83*", 5, 0);
	fn_rec(&exp, 1, 1, 0x11, 0x12);
	arcs_rec(&exp, 1, 2, a1);
	is_int(kpgo_gcda_write(&g, 0, &out), 0, "GCC 8 written without summary");
	ok(bytes_same(&out, &exp), "GCC 8 in the kernel's layout");
	strbuf_reset(&out);
	g.runs = 1;
	g.sum_max = 4;
	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), -EPROTONOSUPPORT,
	       "GCC 8 summary refused");
	is_int(out.len, 0, "nothing written on refusal");
	kpgo_gcda_release(&g);

	/* A summary record of another length is skipped too: GCC 8 has histograms. */
	strbuf_reset(&b);
	header(&b, "A83*", 5, 0);
	rec(&b, KPGO_TAG_OBJECT_SUMMARY, 1);
	w32(&b, 0);
	rec(&b, KPGO_TAG_OBJECT_SUMMARY, 1);
	w32(&b, 0);
	is_int(parse(&b, &g, &err), 0, "GCC 8: two summaries of any length are skipped");
	kpgo_gcda_release(&g);

	strbuf_release(&b);
	strbuf_release(&out);
	strbuf_release(&exp);
}

/* --- malformed files ----------------------------------------------------- */

static void test_malformed(void)
{
	static const uint64_t one[] = { 1 };
	struct strbuf b = STRBUF_INIT;
	unsigned i;

	/* Magic. */
	w32(&b, 0x12345678);
	w32(&b, stamp_of("B22*"));
	w32(&b, 0);
	w32(&b, 0);
	check_bad("wrong magic", &b, -EINVAL, "bad magic 0x12345678, not a .gcda file at offset 0");
	strbuf_reset(&b);
	w32(&b, GCNO_MAGIC);
	w32(&b, stamp_of("B22*"));
	w32(&b, 0);
	w32(&b, 0);
	check_bad(".gcno magic", &b, -EINVAL,
		  "a .gcno notes file, not a .gcda data file at offset 0");
	strbuf_reset(&b);
	w32(&b, __builtin_bswap32(KPGO_GCDA_MAGIC));
	w32(&b, __builtin_bswap32(stamp_of("B22*")));
	w32(&b, 0);
	w32(&b, 0);
	check_bad("byte-swapped magic", &b, -EINVAL,
		  "written on a machine of the other byte order at offset 0");

	/* Version. */
	strbuf_reset(&b);
	header(&b, "A75*", 0, 0);
	check_bad("GCC 7", &b, -EPROTONOSUPPORT,
		  "unsupported gcov version 'A75*' (GCC 7.5) at offset 4; kpgo reads GCC 8 to 14");
	strbuf_reset(&b);
	header(&b, "B50*", 0, 0);
	w32(&b, 0);
	check_bad("GCC 15", &b, -EPROTONOSUPPORT,
		  "unsupported gcov version 'B50*' (GCC 15.0) at offset 4; kpgo reads GCC 8 to 14");
	strbuf_reset(&b);
	w32(&b, KPGO_GCDA_MAGIC);
	w32(&b, 0xdeadbeef);
	w32(&b, 0);
	w32(&b, 0);
	check_bad("garbage version", &b, -EINVAL, "bad version stamp 0xdeadbeef at offset 4");

	/* Truncated header. */
	strbuf_reset(&b);
	check_bad("empty file", &b, -EINVAL, "truncated header (0 bytes) at offset 0");
	strbuf_add(&b, "gc", 2);
	check_bad("two bytes", &b, -EINVAL, "truncated header (2 bytes) at offset 2");
	strbuf_reset(&b);
	w32(&b, KPGO_GCDA_MAGIC);
	check_bad("magic only", &b, -EINVAL, "truncated header (4 bytes) at offset 4");
	w32(&b, stamp_of("B22*"));
	check_bad("magic and version", &b, -EINVAL, "truncated header (8 bytes) at offset 8");
	w32(&b, 1);
	check_bad("GCC 12 without checksum word", &b, -EINVAL,
		  "truncated header (12 bytes) at offset 12");
	strbuf_add(&b, "\0\0", 2);
	check_bad("GCC 12 half a checksum word", &b, -EINVAL,
		  "truncated header (14 bytes) at offset 14");

	/* Truncated record header. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	w32(&b, KPGO_TAG_FUNCTION);
	check_bad("tag without length", &b, -EINVAL, "truncated record header at offset 16");
	strbuf_add(&b, "\x0c\0", 2);
	check_bad("tag and half a length", &b, -EINVAL, "truncated record header at offset 16");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	fn_rec(&b, 1, 1, 0, 0);
	strbuf_add(&b, "\0\0\xa1", 3);
	check_bad("GCC 11: three bytes after a record", &b, -EINVAL,
		  "truncated record header at offset 32");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	w32(&b, 0);
	w32(&b, 0);
	check_bad("a zero word that is not the last", &b, -EINVAL,
		  "unknown record tag 0x00000000 at offset 16");

	/* Record length past the end. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 12);
	w32(&b, 1);
	w32(&b, 2);
	check_bad("GCC 12 function cut short", &b, -EINVAL,
		  "record length 12 past the end of the file (8 bytes left) at offset 16");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 3);
	w32(&b, 1);
	w32(&b, 2);
	check_bad("GCC 11 function cut short", &b, -EINVAL,
		  "record length 3 past the end of the file (8 bytes left) at offset 12");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	fn_rec(&b, 1, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, 0x40000002u); /* times 4 wraps to 8 in 32 bits */
	w64(&b, 1);
	check_bad("GCC 11 word length that wraps when multiplied", &b, -EINVAL,
		  "record length 1073741826 past the end of the file (8 bytes left) at offset 32");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, 0x7ffffff8u);
	check_bad("GCC 12 counter record of 2 GiB", &b, -EINVAL,
		  "record length 2147483640 past the end of the file (0 bytes left) at offset 36");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, 0xdeadbeef, 0xffffffffu);
	check_bad("unknown tag with a negative length", &b, -EINVAL,
		  "record length 4294967295 past the end of the file (0 bytes left) at offset 16");

	/* Function record of the wrong length. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 8);
	w32(&b, 1);
	w32(&b, 2);
	check_bad("GCC 12 function of 8 bytes", &b, -EINVAL,
		  "function record of 8 bytes, expected 12 at offset 16");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 4);
	w64(&b, 1);
	w64(&b, 2);
	check_bad("GCC 11 function of 4 words", &b, -EINVAL,
		  "function record of 16 bytes, expected 12 at offset 12");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 3); /* a GCC 11 length in a GCC 12 file */
	w32(&b, 1);
	w32(&b, 2);
	w32(&b, 3);
	check_bad("GCC 12 function with a word length", &b, -EINVAL,
		  "function record of 3 bytes, expected 12 at offset 16");

	/* Counters outside a function. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	arcs_rec(&b, 4, 1, one);
	check_bad("counters before any function", &b, -EINVAL,
		  "counter record outside a function at offset 16");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)-8);
	check_bad("all-zero counters before any function", &b, -EINVAL,
		  "counter record outside a function at offset 16");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_FUNCTION, 0);
	arcs_rec(&b, 4, 1, one);
	check_bad("counters after a placeholder", &b, -EINVAL,
		  "counter record outside a function at offset 24");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	summary_rec(&b, 1, 1, 1);
	arcs_rec(&b, 1, 1, one);
	check_bad("GCC 11 counters after the summary", &b, -EINVAL,
		  "counter record outside a function at offset 28");

	/* Two counter records for one function. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	arcs_rec(&b, 4, 1, one);
	arcs_rec(&b, 4, 1, one);
	check_bad("two counter records", &b, -EINVAL,
		  "counter record outside a function at offset 52");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	arcs_rec(&b, 4, 1, one);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)-8);
	check_bad("counter record then an all-zero one", &b, -EINVAL,
		  "counter record outside a function at offset 52");

	/* Counter lengths that are not whole counters. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, 12);
	w64(&b, 1);
	w32(&b, 2);
	check_bad("GCC 12 counters of 12 bytes", &b, -EINVAL,
		  "counter record of 12 bytes, not whole counters at offset 36");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)-12);
	check_bad("GCC 12 all-zero length -12", &b, -EINVAL,
		  "counter length -12 not a whole number of counters at offset 36");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	fn_rec(&b, 1, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, 3);
	w64(&b, 1);
	w32(&b, 2);
	check_bad("GCC 11 counters of 3 words", &b, -EINVAL,
		  "counter record of 12 bytes, not whole counters at offset 32");

	/* Value profiles. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_COUNTER_BASE + (1u << 17), 8); /* interval */
	w64(&b, 1);
	check_bad("counter type 1", &b, -EINVAL,
		  "unsupported counter type 1 (value profiles; the kernel writes arcs only) at offset 36");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	fn_rec(&b, 1, 1, 0, 0);
	arcs_rec(&b, 1, 1, one);
	rec(&b, KPGO_TAG_COUNTER_BASE + (8u << 17), 2); /* time profiler */
	w64(&b, 1);
	check_bad("counter type 8 after the arcs", &b, -EINVAL,
		  "unsupported counter type 8 (value profiles; the kernel writes arcs only) at offset 48");

	/* Absurd all-zero lengths. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)(-(int32_t)((KPGO_GCDA_MAX_FN_COUNTERS + 1) * 8)));
	check_bad("all-zero record of FN_MAX+1 counters", &b, -EINVAL,
		  "too many counters (262145 in one function, at most 262144) at offset 36");
	/* GCC 12 layout, 44 bytes claiming 2^24 counters (issue 18). */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)(-(int32_t)((1u << 24) * 8)));
	is_int((int)b.len, 44, "the 44-byte file");
	check_bad("44 bytes claiming 2^24 counters", &b, -EINVAL,
		  "too many counters (16777216 in one function, at most 262144) at offset 36");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 1, 0, 0);
	rec(&b, KPGO_TAG_ARCS, 0x80000000u);
	check_bad("all-zero length INT32_MIN", &b, -EINVAL,
		  "too many counters (268435456 in one function, at most 262144) at offset 36");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	for (i = 0; i < 4; i++) {
		fn_rec(&b, 4, 1 + i, 0, 0);
		rec(&b, KPGO_TAG_ARCS, (uint32_t)(-(int32_t)(KPGO_GCDA_MAX_FN_COUNTERS * 8)));
	}
	fn_rec(&b, 4, 9, 0, 0);
	rec(&b, KPGO_TAG_ARCS, (uint32_t)(-(int32_t)8));
	check_bad("all-zero records adding up to MAX+1", &b, -EINVAL,
		  "too many counters (more than 1048576 in one file) at offset 148");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	for (i = 0; i <= KPGO_GCDA_MAX_FUNCTIONS; i++)
		fn_rec(&b, 4, 1 + i, 0, 0);
	check_bad("FUNCTIONS_MAX+1 functions", &b, -EINVAL,
		  "too many functions (more than 65536 in one file) at offset 1310736");

	/* Summaries. */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	summary_rec(&b, 4, 1, 1);
	summary_rec(&b, 4, 1, 1);
	check_bad("second summary", &b, -EINVAL, "second summary record at offset 32");
	strbuf_reset(&b);
	header(&b, "A94*", 1, 0);
	summary_rec(&b, 1, 1, 1);
	fn_rec(&b, 1, 1, 0, 0);
	summary_rec(&b, 1, 1, 1);
	check_bad("GCC 9 second summary after a function", &b, -EINVAL,
		  "second summary record at offset 48");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, KPGO_TAG_OBJECT_SUMMARY, 4);
	w32(&b, 1);
	check_bad("summary of 4 bytes", &b, -EINVAL,
		  "summary record of 4 bytes, expected 8 at offset 16");
	strbuf_reset(&b);
	header(&b, "B12*", 1, 0);
	rec(&b, KPGO_TAG_PROGRAM_SUMMARY, 0);
	check_bad("program summary after GCC 8", &b, -EINVAL,
		  "unknown record tag 0xa3000000 at offset 12");
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	rec(&b, 0x01410000, 0); /* a .gcno BLOCKS record */
	check_bad("notes record in a data file", &b, -EINVAL,
		  "unknown record tag 0x01410000 at offset 16");

	/*
	 * Duplicate idents. gcda.h promises "<problem> at offset N" for every
	 * failure; the offset is that of the second record with the ident.
	 */
	strbuf_reset(&b);
	header(&b, "B22*", 1, 0);
	fn_rec(&b, 4, 5, 0, 0);
	arcs_rec(&b, 4, 1, one);
	fn_rec(&b, 4, 6, 0, 0);
	arcs_rec(&b, 4, 0, NULL);
	fn_rec(&b, 4, 5, 0, 0);
	arcs_rec(&b, 4, 0, NULL);
	check_bad("duplicate function ident", &b, -EINVAL,
		  "function ident 5 appears twice at offset 80");

	strbuf_release(&b);
}

/* A file cut anywhere is refused, never read past its end (ASan checks). */
static void test_every_truncation(void)
{
	static const uint64_t a1[] = { 1, 2, 3 };
	struct strbuf b = STRBUF_INIT;
	size_t cut, accepted = 0;
	bool all_refused_cleanly = true;

	header(&b, "B22*", 1, 0);
	summary_rec(&b, 4, 1, 3);
	fn_rec(&b, 4, 1, 0, 0);
	arcs_rec(&b, 4, 3, a1);
	for (cut = 0; cut < b.len; cut++) {
		struct kpgo_gcda g;
		struct kpgo_error err;
		int r = kpgo_gcda_parse(b.buf, cut, &g, &err);

		if (r == 0) {
			accepted++;
			kpgo_gcda_release(&g);
		} else if (!strstr(err.msg, " at offset ") || !gcda_empty(&g)) {
			all_refused_cleanly = false;
			diag("cut at %zu: '%s'", cut, err.msg);
		}
	}
	/* Whole records end at 16 (header), 32 (summary) and 52 (function). */
	is_int(accepted, 3, "only cuts at record boundaries parse");
	ok(all_refused_cleanly, "every other cut refused with an offset");
	strbuf_release(&b);
}

/* --- scale ---------------------------------------------------------- */

static void test_scale(void)
{
	static const struct fnspec f[] = {
		{ 1, 0, 0, 4, { 0, 1, 9, 10 } },
		{ 2, 0, 0, 3, { 11, 20, UINT64_MAX } },
	};
	struct kpgo_gcda g;

	make_gcda(&g, "B22*", f, 2);
	kpgo_gcda_scale(&g, 1);
	ok(g.ctrs[3] == 10 && g.ctrs[6] == UINT64_MAX, "scale by 1 changes nothing");
	kpgo_gcda_scale(&g, 0);
	ok(g.ctrs[3] == 10 && g.ctrs[1] == 1, "scale by 0 changes nothing");
	kpgo_gcda_scale(&g, 10);
	is_int(g.ctrs[0], 0, "0/10 stays 0");
	is_int(g.ctrs[1], 1, "1/10 rounds up to 1: executed stays executed");
	is_int(g.ctrs[2], 1, "9/10 rounds up to 1");
	is_int(g.ctrs[3], 1, "10/10 is 1");
	is_int(g.ctrs[4], 2, "11/10 rounds up to 2");
	is_int(g.ctrs[5], 2, "20/10 is 2");
	ok(g.ctrs[6] == 1844674407370955162ull, "UINT64_MAX/10 rounds up without overflow");
	kpgo_gcda_scale(&g, UINT64_MAX);
	ok(g.ctrs[0] == 0 && g.ctrs[1] == 1 && g.ctrs[4] == 1 && g.ctrs[6] == 1,
	   "scale by UINT64_MAX: non-zero becomes 1, zero stays 0");
	kpgo_gcda_release(&g);
}

/* --- files from a real GCC runtime ----------------------------------- */

static const char prog_c[] = "static int f(int x) { if (x > 5) return 1; return 0; }\n"
			     "static int never(int x) { if (x > 5) return 2; return 3; }\n"
			     "int main(int argc, char **argv)\n"
			     "{\n"
			     "	int s = 0;\n"
			     "	(void)argv;\n"
			     "	for (int i = 0; i < 10; i++)\n"
			     "		s += f(i);\n"
			     "	if (argc > 5)\n"
			     "		s += never(argc);\n"
			     "	return s > 100;\n"
			     "}\n";

static bool have_cc(const char *cc)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", cc);
	return system(cmd) == 0;
}

static void test_real_gcc(const char *cc)
{
	char dir[] = "/tmp/kpgo-test-gcda.XXXXXX", cmd[1024], path[512], ver[32] = "";
	struct strbuf data = STRBUF_INIT, out = STRBUF_INIT;
	struct kpgo_gcc_version v;
	struct kpgo_gcda g, g2;
	struct kpgo_error err;
	size_t i, zero_fns = 0;
	unsigned major = 0;
	FILE *f;

	if (!have_cc(cc)) {
		skip("%s is not installed", cc);
		return;
	}
	if (!mkdtemp(dir))
		bail_out("mkdtemp failed");
	snprintf(cmd, sizeof(cmd), "%s -dumpversion", cc);
	f = popen(cmd, "r");
	if (f) {
		if (!fgets(ver, sizeof(ver), f))
			ver[0] = '\0';
		pclose(f);
	}
	major = (unsigned)strtoul(ver, NULL, 10);
	snprintf(path, sizeof(path), "%s/p.c", dir);
	f = fopen(path, "w");
	if (!f || fputs(prog_c, f) < 0 || fclose(f))
		bail_out("cannot write the test program");
	snprintf(cmd, sizeof(cmd),
		 "cd %s && %s -O0 --coverage p.c -o p >/dev/null 2>&1 && ./p && ./p", dir, cc);
	if (system(cmd) != 0) {
		ok(0, "%s: compile and run a --coverage program", cc);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/p-p.gcda", dir);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/p.gcda", dir);
	is_int(kpgo_read_file(path, &data, 1 << 20), 0, "%s: read its .gcda", cc);
	ok(data.len >= 4 && !memcmp(data.buf + data.len - 4, "\0\0\0\0", 4),
	   "%s: its runtime ends the file with a zero word", cc);
	if (!is_int(parse(&data, &g, &err), 0, "%s (GCC %u): runtime file parses", cc, major)) {
		diag("%s", err.msg);
		goto out;
	}
	ok(kpgo_gcc_version_decode(g.version, &v) == 0 && v.major == major,
	   "%s: version stamp says GCC %u", cc, major);
	ok(g.has_summary && g.runs == 2, "%s: summary of two runs", cc);
	ok(g.sum_max == kpgo_gcda_max(&g) && g.sum_max >= 20,
	   "%s: sum_max is the largest counter of this one-object program", cc);
	is_int(g.n_fns, 3, "%s: three functions", cc);
	for (i = 0; i < g.n_fns; i++)
		if (g.fns[i].n_arcs && !kpgo_gcda_fn_sum(&g, &g.fns[i]))
			zero_fns++;
	is_int(zero_fns, 1, "%s: the function never called has all-zero counters", cc);

	is_int(kpgo_gcda_write(&g, KPGO_GCDA_SUMMARY, &out), 0, "%s: write back", cc);
	is_int(parse(&out, &g2, &err), 0, "%s: written file parses", cc);
	ok(gcda_same(&g, &g2, true), "%s: same data as GCC's runtime wrote", cc);
	ok(out.len > data.len, "%s: kpgo stores the zero counters GCC left out", cc);
	kpgo_gcda_release(&g2);
	kpgo_gcda_release(&g);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	strbuf_release(&data);
	strbuf_release(&out);
}

int main(void)
{
	test_versions();
	test_gcc12_round_trip();
	test_gcc12_small_cases();
	test_gcc11_round_trip();
	test_gcc11_negative_length();
	test_gcc8();
	test_malformed();
	test_every_truncation();
	test_scale();
	test_real_gcc("gcc-12");
	test_real_gcc("gcc-11");
	return done_testing();
}
