// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blockprof: a QEMU TCG plugin that profiles an uninstrumented kernel the
 * way a CPU's last-branch records would, without sampling: every executed
 * translated block of the kernel's text is counted, and every taken
 * branch between two of them. Written for the code gcov cannot see (the
 * `noinstr` entry and exit paths: tests/bench/bench-kernel.sh's
 * clang-lto-pgo-entry kernel); it changes nothing in the guest.
 *
 *   qemu-system-x86_64 ... -plugin PATH/blockprof.so,out=FILE
 *                          [,text=START-END]
 *
 * START-END (hexadecimal, END exclusive): the guest virtual addresses
 * counted, by default the kernel half of the address space. At exit FILE
 * holds llvm-profgen's "unsymbolized profile" (what its
 * --skip-symbolization writes), with virtual addresses, for
 * `llvm-profgen --binary vmlinux --unsymbolized-profile FILE --use-offset=0`:
 *
 *   N                     ranges executed: the first and the last
 *   START-LAST:COUNT      instruction's address of a block, how many times
 *   M                     taken branches: the branching instruction's
 *   SOURCE->TARGET:COUNT  address, where it went, how many times
 *
 * The blocks are QEMU's, not the compiler's: one ends at a branch, a page
 * boundary or QEMU's length limit; a block entered from the previous one
 * without a jump (it starts where the previous one ended) is a fall
 * through, not a branch. A block cut short by an exception counts as
 * executed whole. Only one vCPU (-smp 1): the previous block is global.
 * The guest's user space is not counted: the first kernel block after a
 * stretch of user code is recorded as a branch from the last kernel block
 * before it (a return to user mode "branching" to the entry code), which
 * llvm-profgen keeps only where the target is a function's entry.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One translation of a block (a block is translated again after a flush). */
struct block {
	uint64_t start, last, next; /* first and last instruction, the byte after */
	uint64_t count;
	struct block *all;
};

/* A pair of addresses and a count: open addressing, linear probing. */
struct pair {
	uint64_t a, b, count;
};
struct pairs {
	struct pair *slot;
	size_t size, used; /* size a power of two; a == 0 marks a free slot */
};

static struct block *blocks;
static const struct block *prev;
static struct pairs branches;
static uint64_t text_lo = 0xffff800000000000ULL, text_hi = UINT64_MAX;
static char *out_path;
static bool failed;

static size_t pair_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	return (size_t)(h ^ h >> 29);
}

static bool pairs_grow(struct pairs *p)
{
	size_t i, size = p->size ? p->size * 2 : 4096;
	struct pair *slot = calloc(size, sizeof(*slot));

	if (!slot)
		return false;
	for (i = 0; i < p->size; i++) {
		const struct pair *e = &p->slot[i];
		size_t j;

		if (!e->a)
			continue;
		for (j = pair_hash(e->a, e->b) & (size - 1); slot[j].a; j = (j + 1) & (size - 1))
			;
		slot[j] = *e;
	}
	free(p->slot);
	p->slot = slot;
	p->size = size;
	return true;
}

/* Adds @n to the count of (@a, @b); @a is never 0 (an address in the text counted). */
static bool pairs_add(struct pairs *p, uint64_t a, uint64_t b, uint64_t n)
{
	size_t j;

	if (p->used * 2 >= p->size && !pairs_grow(p))
		return false;
	for (j = pair_hash(a, b) & (p->size - 1); p->slot[j].a; j = (j + 1) & (p->size - 1)) {
		if (p->slot[j].a == a && p->slot[j].b == b) {
			p->slot[j].count += n;
			return true;
		}
	}
	p->slot[j] = (struct pair){ a, b, n };
	p->used++;
	return true;
}

static void on_block(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	b->count++;
	if (prev && prev->next != b->start && !pairs_add(&branches, prev->last, b->start, 1))
		failed = true;
	prev = b;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *last;
	struct block *b;
	uint64_t start = qemu_plugin_tb_vaddr(tb);

	(void)id;
	if (!n || start < text_lo || start >= text_hi)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	b = calloc(1, sizeof(*b));
	if (!b) {
		failed = true;
		return;
	}
	b->start = start;
	b->last = qemu_plugin_insn_vaddr(last);
	b->next = b->last + qemu_plugin_insn_size(last);
	b->all = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

static int write_pairs(FILE *f, const struct pairs *p, const char *sep)
{
	size_t i;

	if (fprintf(f, "%zu\n", p->used) < 0)
		return -1;
	for (i = 0; i < p->size; i++) {
		const struct pair *e = &p->slot[i];

		if (e->a && fprintf(f, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", e->a, sep, e->b,
				    e->count) < 0)
			return -1;
	}
	return 0;
}

/* Writes FILE through FILE.tmp: a profile is there whole or not at all. */
static void on_guest_exit(qemu_plugin_id_t id, void *p)
{
	struct pairs ranges = { 0 };
	const struct block *b;
	size_t len = strlen(out_path) + sizeof(".tmp");
	char *tmp = malloc(len);
	FILE *f;

	(void)id;
	(void)p;
	if (failed || !tmp) {
		fprintf(stderr, "blockprof: out of memory: no profile written\n");
		return;
	}
	for (b = blocks; b; b = b->all) {
		if (b->count && !pairs_add(&ranges, b->start, b->last, b->count)) {
			fprintf(stderr, "blockprof: out of memory: no profile written\n");
			return;
		}
	}
	snprintf(tmp, len, "%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f || write_pairs(f, &ranges, "-") || write_pairs(f, &branches, "->") || fclose(f) ||
	    rename(tmp, out_path)) {
		fprintf(stderr, "blockprof: cannot write '%s': %s\n", out_path, strerror(errno));
		remove(tmp);
	}
	free(tmp);
	free(ranges.slot);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	if (info->system_emulation && info->system.smp_vcpus != 1) {
		fprintf(stderr, "blockprof: one vCPU only (-smp 1), not %d\n",
			info->system.smp_vcpus);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		unsigned long long lo, hi;
		char tail;

		if (!strncmp(a, "out=", 4) && a[4]) {
			out_path = strdup(a + 4);
			if (!out_path)
				return -1;
		} else if (!strncmp(a, "text=", 5) &&
			   sscanf(a + 5, "%llx-%llx%c", &lo, &hi, &tail) == 2 && lo && lo < hi) {
			text_lo = lo;
			text_hi = hi;
		} else {
			fprintf(stderr, "blockprof: bad argument '%s' (out=FILE, text=START-END)\n",
				a);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "blockprof: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
	return 0;
}
