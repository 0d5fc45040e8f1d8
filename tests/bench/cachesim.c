// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachesim: a QEMU TCG plugin for the kernel benchmark's cache mode
 * (tests/bench/bench-kernel.sh, BENCH_MODES=cache). It counts the guest's
 * instructions and models three caches, a split first level (L1i, L1d)
 * and a unified second level (L2) behind both, and writes the counts so
 * far each time the guest executes the marker instruction: the host takes
 * the difference of two marks as the counts of what ran between them.
 *
 *   qemu-system-x86_64 ... -plugin PATH/cachesim.so,out=FILE[,l1i=S:W:L]
 *                          [,l1d=S:W:L][,l2=S:W:L]
 *
 * S:W:L is a cache's size in bytes, its ways and its line size; every
 * one a power of two but the ways (1 to 64; sets = S / (W * L), a power
 * of two). Defaults: a current server core, AMD EPYC 9004 (Zen 4): L1i
 * 32 KiB 8-way, L1d 32 KiB 8-way, L2 1 MiB 8-way, 64-byte lines.
 *
 * The model, and what it leaves out:
 *   - caches are physically addressed (the guest's physical address of
 *     each load and store; for instructions, the address QEMU gives for
 *     the instruction's bytes), least recently used replacement, allocate
 *     on every miss, loads and stores alike;
 *   - an instruction fetch is one L1i access per cache line that a
 *     translated block enters (two for an instruction that straddles a
 *     line), not one per instruction: a fetch unit reads whole lines;
 *   - an L1 miss is one L2 access; the L2 is neither inclusive nor
 *     exclusive of the L1s, write-backs are not modelled, nor prefetchers,
 *     nor the TLBs, nor memory-mapped I/O (not cached: not counted);
 *   - one vCPU (the benchmark boots with -smp 1): no coherence.
 *
 * The marker is a 7-byte no-op that compilers do not emit,
 * `nopl 0x4f47504b(%rax)` (0f 1f 80 "KPGO"); wl-micro -t mark executes it.
 * Each mark writes one line to FILE:
 *
 *   mark SEQ INSNS L1I_ACCESSES L1I_MISSES L1D_ACCESSES L1D_MISSES
 *        L2_ACCESSES L2_MISSES
 *
 * (one line; SEQ counts from 1), and at exit the same counts as
 * "end ...". Counts are cumulative from the start of the guest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 'K', 'P', 'G', 'O' };

struct cache {
	const char *name;
	uint64_t *tags; /* sets * ways; line number + 1, 0 = empty */
	uint64_t *used; /* when each way was last used */
	uint64_t set_mask;
	unsigned int ways, line_shift;
	uint64_t clock, accesses, misses;
};

static struct cache l1i = { .name = "l1i" }, l1d = { .name = "l1d" }, l2 = { .name = "l2" };
static uint64_t insns, marks;
static FILE *out;

/* True on a hit; on a miss the line is brought in over the least recently used way. */
static bool cache_access(struct cache *c, uint64_t addr)
{
	uint64_t line = addr >> c->line_shift;
	uint64_t *tags = c->tags + (line & c->set_mask) * c->ways;
	uint64_t *used = c->used + (line & c->set_mask) * c->ways;
	unsigned int i, victim = 0;

	c->accesses++;
	c->clock++;
	for (i = 0; i < c->ways; i++) {
		if (tags[i] == line + 1) {
			used[i] = c->clock;
			return true;
		}
		if (used[i] < used[victim])
			victim = i;
	}
	c->misses++;
	tags[victim] = line + 1;
	used[victim] = c->clock;
	return false;
}

static void access_l1(struct cache *c, uint64_t addr)
{
	if (!cache_access(c, addr))
		cache_access(&l2, addr);
}

/*
 * The userdata of an instruction fetch callback is the address itself:
 * nothing to allocate per translated instruction (blocks are translated
 * again and again over a boot). Bit 0 set: the instruction straddles into
 * the next line.
 */
static void on_fetch(unsigned int vcpu, void *udata)
{
	uint64_t a = (uintptr_t)udata;

	(void)vcpu;
	access_l1(&l1i, a & ~(uint64_t)1);
	if (a & 1)
		access_l1(&l1i, (a & ~(uint64_t)1) + (1ULL << l1i.line_shift));
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	(void)vcpu;
	(void)udata;
	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;
	access_l1(&l1d, hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr);
}

static void write_counts(const char *what)
{
	if (!out)
		return;
	fprintf(out,
		"%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 "\n",
		what, marks, insns, l1i.accesses, l1i.misses, l1d.accesses, l1d.misses, l2.accesses,
		l2.misses);
	fflush(out);
}

static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	marks++;
	write_counts("mark");
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t last_line = UINT64_MAX;

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(insn);
		void *h = qemu_plugin_insn_haddr(insn);
		uint64_t a = h ? (uint64_t)(uintptr_t)h : qemu_plugin_insn_vaddr(insn);
		uint64_t first = a >> l1i.line_shift, end = (a + size - 1) >> l1i.line_shift;

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns,
							   1);
		if (first != last_line || end != last_line) {
			uint64_t u = first != last_line ? first << l1i.line_shift | (end != first) :
							  end << l1i.line_shift;

			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_fetch,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)u);
			last_line = end;
		}
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
		if (size == sizeof(marker) && !memcmp(qemu_plugin_insn_data(insn), marker, size))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_guest_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	write_counts("end");
	if (out)
		fclose(out);
	out = NULL;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* "SIZE:WAYS:LINE" into @c; false when it is not a cache this model can hold. */
static bool cache_init(struct cache *c, const char *spec)
{
	unsigned long long size, ways, line, sets;
	char tail;

	if (sscanf(spec, "%llu:%llu:%llu%c", &size, &ways, &line, &tail) != 3)
		return false;
	if (!is_pow2(size) || !is_pow2(line) || line < 4 || ways < 1 || ways > 64 ||
	    size > (1ULL << 32) || size % (ways * line))
		return false;
	sets = size / (ways * line);
	if (!is_pow2(sets))
		return false;
	free(c->tags);
	free(c->used);
	c->tags = calloc(sets * ways, sizeof(*c->tags));
	c->used = calloc(sets * ways, sizeof(*c->used));
	if (!c->tags || !c->used)
		return false;
	c->set_mask = sets - 1;
	c->ways = (unsigned int)ways;
	c->line_shift = (unsigned int)__builtin_ctzll(line);
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;
	int i;

	if (info->system_emulation && info->system.smp_vcpus != 1) {
		fprintf(stderr, "cachesim: one vCPU only (-smp 1), not %d\n",
			info->system.smp_vcpus);
		return -1;
	}
	if (!cache_init(&l1i, "32768:8:64") || !cache_init(&l1d, "32768:8:64") ||
	    !cache_init(&l2, "1048576:8:64")) {
		fprintf(stderr, "cachesim: out of memory\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		struct cache *c = NULL;

		if (!strncmp(a, "out=", 4)) {
			path = a + 4;
			continue;
		}
		if (!strncmp(a, "l1i=", 4))
			c = &l1i;
		else if (!strncmp(a, "l1d=", 4))
			c = &l1d;
		else if (!strncmp(a, "l2=", 3))
			c = &l2;
		if (!c) {
			fprintf(stderr, "cachesim: unknown argument '%s'\n", a);
			return -1;
		}
		if (!cache_init(c, strchr(a, '=') + 1)) {
			fprintf(stderr,
				"cachesim: bad cache '%s' (SIZE:WAYS:LINE, powers of two)\n", a);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "cachesim: out=FILE is required\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "cachesim: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(out, "caches l1i=%llu:%u:%u l1d=%llu:%u:%u l2=%llu:%u:%u\n",
		(unsigned long long)(l1i.set_mask + 1) * l1i.ways << l1i.line_shift, l1i.ways,
		1U << l1i.line_shift,
		(unsigned long long)(l1d.set_mask + 1) * l1d.ways << l1d.line_shift, l1d.ways,
		1U << l1d.line_shift,
		(unsigned long long)(l2.set_mask + 1) * l2.ways << l2.line_shift, l2.ways,
		1U << l2.line_shift);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
	return 0;
}
