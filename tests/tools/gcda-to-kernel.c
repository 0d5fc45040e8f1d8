// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gcda-to-kernel - rewrite a .gcda written by GCC's runtime (libgcov) into
 * the form the Linux kernel serves from /sys/kernel/debug/gcov.
 *
 * This is the test suite's oracle for "what the kernel hands us", so it is
 * written independently of kpgo's own reader and writer, from a reading of
 * kernel/gcov/gcc_4_7.c (convert_to_gcda) and GCC's gcov-io.h.
 *
 * Differences between the two producers that matter here:
 *  - the kernel writes no OBJECT_SUMMARY record;
 *  - the kernel writes 0 as the compilation unit checksum (GCC >= 12 only);
 *  - the kernel stores every counter; GCC >= 11's libgcov writes an all-zero
 *    counter array as a negative length and no values;
 *  - libgcov ends the file with a zero word, the kernel just stops.
 *
 * Only what a kernel built with -fprofile-arcs can produce is accepted: arc
 * counters only, every function present.  Anything else is an error, so that a
 * test never silently runs on a file this tool did not understand.
 *
 * Usage: gcda-to-kernel IN.gcda OUT.gcda
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCDA_MAGIC 0x67636461u /* "gcda" */
#define GCDA_MAGIC_SWAPPED 0x61646367u
#define TAG_FUNCTION 0x01000000u
#define TAG_ARCS 0x01a10000u	     /* GCOV_TAG_FOR_COUNTER(0) */
#define TAG_COUNTER_BASE 0x01a10000u /* + (type << 17) */
#define TAG_COUNTER_MAX 0x01ff0000u
#define TAG_OBJECT_SUMMARY 0xa1000000u
#define FUNCTION_WORDS 3
#define SUMMARY_WORDS 2
#define MAX_INPUT (1u << 30)
#define MAX_COUNTERS (1u << 24) /* per function */

struct input {
	const char *name;
	unsigned char *data;
	size_t size;
	size_t pos;
};

struct output {
	unsigned char *data;
	size_t len;
	size_t alloc;
};

static const char *progname = "gcda-to-kernel";

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void read_file(struct input *in, const char *name)
{
	size_t alloc = 1u << 16;
	FILE *f;
	size_t n;

	in->name = name;
	in->pos = 0;
	in->size = 0;
	in->data = malloc(alloc);
	if (!in->data)
		die("out of memory");
	f = fopen(name, "rb");
	if (!f)
		die("cannot open '%s': %s", name, strerror(errno));
	/* Read to EOF rather than trusting st_size: debugfs reports 0. */
	while ((n = fread(in->data + in->size, 1, alloc - in->size, f)) > 0) {
		in->size += n;
		if (in->size < alloc)
			continue;
		if (alloc >= MAX_INPUT)
			die("'%s': larger than %u bytes", name, MAX_INPUT);
		alloc *= 2;
		in->data = realloc(in->data, alloc);
		if (!in->data)
			die("out of memory");
	}
	if (ferror(f))
		die("cannot read '%s': %s", name, strerror(errno));
	fclose(f);
}

static bool is_counter_tag(uint32_t tag)
{
	return tag >= TAG_COUNTER_BASE && tag <= TAG_COUNTER_MAX &&
	       (tag - TAG_COUNTER_BASE) % (1u << 17) == 0;
}

static bool at_end(const struct input *in)
{
	return in->pos == in->size;
}

static uint32_t get_u32(struct input *in, const char *what)
{
	uint32_t v;

	if (in->size - in->pos < 4)
		die("'%s': truncated %s at offset %zu", in->name, what, in->pos);
	/* Words are host-endian, as libgcov and the kernel both write them. */
	memcpy(&v, in->data + in->pos, 4);
	in->pos += 4;
	return v;
}

static void out_bytes(struct output *out, const void *p, size_t n)
{
	if (out->alloc - out->len < n) {
		size_t alloc = out->alloc ? out->alloc : 4096;

		while (alloc - out->len < n) {
			if (alloc > SIZE_MAX / 2)
				die("out of memory");
			alloc *= 2;
		}
		out->data = realloc(out->data, alloc);
		if (!out->data)
			die("out of memory");
		out->alloc = alloc;
	}
	memcpy(out->data + out->len, p, n);
	out->len += n;
}

static void out_u32(struct output *out, uint32_t v)
{
	out_bytes(out, &v, 4);
}

static void write_file(const struct output *out, const char *name)
{
	FILE *f = fopen(name, "wb");

	if (!f)
		die("cannot create '%s': %s", name, strerror(errno));
	if (fwrite(out->data, 1, out->len, f) != out->len || fflush(f) != 0)
		die("cannot write '%s': %s", name, strerror(errno));
	if (fclose(f) != 0)
		die("cannot write '%s': %s", name, strerror(errno));
}

/*
 * The version word holds four characters, most significant first: GCC >= 5
 * encodes major/10 + 'A', major%10 + '0', minor + '0', then '*' for a release
 * ('p' prerelease, 'e' experimental).  "B22*" is GCC 12.2, "B12*" GCC 11.2.
 */
static unsigned int parse_major(const struct input *in, uint32_t version)
{
	unsigned char c[4] = { (unsigned char)(version >> 24), (unsigned char)(version >> 16),
			       (unsigned char)(version >> 8), (unsigned char)version };
	unsigned int major;

	if (c[0] < 'A' || c[0] > 'Z' || c[1] < '0' || c[1] > '9' || c[2] < '0' || c[2] > '9' ||
	    (c[3] != '*' && c[3] != 'p' && c[3] != 'e'))
		die("'%s': unrecognised version stamp 0x%08" PRIx32, in->name, version);
	major = (unsigned int)(c[0] - 'A') * 10 + (unsigned int)(c[1] - '0');
	if (major < 9)
		die("'%s': GCC %u.%c format not supported (need GCC >= 9)", in->name, major, c[2]);
	return major;
}

/*
 * Convert a record length to a count of 32-bit words.  Since GCC 12 lengths
 * are in bytes; GCC 9-11 count words.  A negative length (GCC >= 11) means an
 * all-zero counter array that is not stored.
 */
static uint32_t length_words(const struct input *in, size_t rec, uint32_t raw, bool bytes,
			     bool *zeros)
{
	uint32_t mag = raw;

	*zeros = false;
	if (raw & 0x80000000u) {
		if (raw == 0x80000000u)
			die("'%s': invalid record length at offset %zu", in->name, rec);
		mag = (uint32_t)0 - raw;
		*zeros = true;
	}
	if (bytes) {
		if (mag % 4)
			die("'%s': record length %" PRIu32 " at offset %zu is not a whole number "
			    "of words",
			    in->name, mag, rec);
		mag /= 4;
	}
	return mag;
}

static void convert(struct input *in, struct output *out)
{
	uint32_t magic, version, stamp;
	unsigned int major;
	bool bytes, zeros, seen_summary = false, want_arcs = false;
	uint32_t unit;
	uint32_t ident = 0;
	unsigned long functions = 0;

	magic = get_u32(in, "header");
	if (magic == GCDA_MAGIC_SWAPPED)
		die("'%s': written on a machine of the other byte order", in->name);
	if (magic != GCDA_MAGIC)
		die("'%s': not a .gcda file (magic 0x%08" PRIx32 ")", in->name, magic);
	version = get_u32(in, "header");
	major = parse_major(in, version);
	bytes = major >= 12;
	unit = bytes ? 4 : 1;
	stamp = get_u32(in, "header");

	out_u32(out, GCDA_MAGIC);
	out_u32(out, version);
	out_u32(out, stamp);
	if (bytes) {
		(void)get_u32(in, "header checksum");
		/* The kernel has no checksum to give and writes zero. */
		out_u32(out, 0);
	}

	while (!at_end(in)) {
		size_t rec = in->pos;
		uint32_t tag = get_u32(in, "record tag");
		uint32_t raw, words;

		if (tag == 0) {
			/* libgcov ends its files with a zero word; the kernel does not. */
			if (!at_end(in))
				die("'%s': data after the end marker at offset %zu", in->name, rec);
			break;
		}
		raw = get_u32(in, "record length");
		words = length_words(in, rec, raw, bytes, &zeros);

		if (zeros && !is_counter_tag(tag))
			die("'%s': negative length for tag 0x%08" PRIx32 " at offset %zu", in->name,
			    tag, rec);
		if (!zeros && words > (in->size - in->pos) / 4)
			die("'%s': truncated record at offset %zu", in->name, rec);

		if (tag == TAG_OBJECT_SUMMARY) {
			if (seen_summary || functions)
				die("'%s': unexpected OBJECT_SUMMARY at offset %zu", in->name, rec);
			if (words != SUMMARY_WORDS)
				die("'%s': OBJECT_SUMMARY at offset %zu has %" PRIu32
				    " words, expected %d (GCC >= 9 layout)",
				    in->name, rec, words, SUMMARY_WORDS);
			/* Dropped: the kernel writes no summary. */
			in->pos += (size_t)words * 4;
			seen_summary = true;
		} else if (tag == TAG_FUNCTION) {
			uint32_t lineno, cfg;

			if (want_arcs)
				die("'%s': function ident %" PRIu32 " has no arc counters",
				    in->name, ident);
			if (words == 0)
				die("'%s': empty FUNCTION record at offset %zu (a COMDAT function "
				    "emitted elsewhere; the kernel has none)",
				    in->name, rec);
			if (words != FUNCTION_WORDS)
				die("'%s': FUNCTION record at offset %zu has %" PRIu32
				    " words, expected %d",
				    in->name, rec, words, FUNCTION_WORDS);
			ident = get_u32(in, "function ident");
			lineno = get_u32(in, "function checksum");
			cfg = get_u32(in, "function checksum");
			out_u32(out, TAG_FUNCTION);
			out_u32(out, FUNCTION_WORDS * unit);
			out_u32(out, ident);
			out_u32(out, lineno);
			out_u32(out, cfg);
			want_arcs = true;
			functions++;
		} else if (tag == TAG_ARCS) {
			uint32_t n, i;
			static const unsigned char zero8[8];

			if (!want_arcs)
				die("'%s': arc counters at offset %zu belong to no function",
				    in->name, rec);
			if (words % 2)
				die("'%s': arc counters at offset %zu have an odd number of words",
				    in->name, rec);
			n = words / 2;
			/* Bounds what an all-zero (negative) length can make us write. */
			if (n > MAX_COUNTERS)
				die("'%s': %" PRIu32 " counters at offset %zu, more than %u",
				    in->name, n, rec, MAX_COUNTERS);
			out_u32(out, TAG_ARCS);
			out_u32(out, n * 2 * unit);
			if (zeros) {
				for (i = 0; i < n; i++)
					out_bytes(out, zero8, 8);
			} else {
				/* 64-bit counters, low word first: copied as they are. */
				out_bytes(out, in->data + in->pos, (size_t)n * 8);
				in->pos += (size_t)n * 8;
			}
			want_arcs = false;
		} else if (is_counter_tag(tag)) {
			die("'%s': counter type %" PRIu32 " at offset %zu: the kernel profiles arcs "
			    "only (built with -fprofile-generate or -fprofile-values?)",
			    in->name, (tag - TAG_COUNTER_BASE) >> 17, rec);
		} else {
			die("'%s': unexpected tag 0x%08" PRIx32 " at offset %zu", in->name, tag,
			    rec);
		}
	}
	if (want_arcs)
		die("'%s': function ident %" PRIu32 " has no arc counters", in->name, ident);
	if (!seen_summary)
		die("'%s': no OBJECT_SUMMARY: not written by GCC's runtime (already "
		    "kernel-style?)",
		    in->name);
}

int main(int argc, char **argv)
{
	struct input in;
	struct output out = { NULL, 0, 0 };

	if (argc != 3) {
		fprintf(stderr, "usage: %s IN.gcda OUT.gcda\n", progname);
		return 2;
	}
	read_file(&in, argv[1]);
	convert(&in, &out);
	write_file(&out, argv[2]);
	free(in.data);
	free(out.data);
	return 0;
}
