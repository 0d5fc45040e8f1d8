#!/usr/bin/env bats
# cachesim: the kernel benchmark's cache-model QEMU plugin
# (tests/bench/cachesim.c), run on a small static program under QEMU's user
# mode (qemu-x86_64): what runs between its markers is known, so are the
# counts the plugin must give. The plugin is built by
# tests/bench/qemu-plugin.sh (make cachesim), or taken from $KPGO_CACHESIM.

load helpers
bats_require_minimum_version 1.5.0

setup() {
    # The plugin is built by qemu-plugin.sh with flags of its own, never
    # SANITIZE's, and runs in QEMU: no kpgo code runs in these tests.
    skip_if_sanitized "QEMU's cachesim plugin is no kpgo code and never built sanitized; make check-tool tests it"
    W=$BATS_TEST_TMPDIR
    P=$(bench_plugin cachesim "${KPGO_CACHESIM:-}") || return 1
    cat >"$W/t.c" <<'C'
#include <stdlib.h>
#include <string.h>
#define MARK() __asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x4b, 0x50, 0x47, 0x4f" ::: "memory")
static char buf[1 << 20] __attribute__((aligned(4096)));
int main(int argc, char **argv)
{
	unsigned long size, passes, i, p, n;

	if (argc != 3)
		return 2;
	size = strtoul(argv[1], NULL, 0);
	passes = strtoul(argv[2], NULL, 0);
	if (size > sizeof(buf))
		return 2;
	memset(buf, 1, sizeof(buf));
	MARK();
	__asm__ volatile("mov $1000, %0\n1:\n\tdec %0\n\tjnz 1b" : "=&r"(n) : : "cc");
	MARK();
	for (p = 0; p < passes; p++)
		for (i = 0; i < size; i += 64)
			__asm__ volatile("" : : "r"(*(volatile char *)(buf + i)));
	MARK();
	return 0;
}
C
    gcc -O1 -static "$W/t.c" -o "$W/t"
}

# field MARK N: the Nth count (1 instructions, 2 L1i accesses, 3 L1i
# misses, 4 L1d accesses, 5 L1d misses, 6 L2 accesses, 7 L2 misses) of
# mark MARK in $W/out.
field() {
    awk -v m="$1" -v n="$2" '$1 == "mark" && $2 == m { print $(n + 2) }' "$W/out"
}

# delta A B N: that count between marks A and B.
delta() {
    echo $(($(field "$2" "$3") - $(field "$1" "$3")))
}

@test "cachesim: the instructions between two marks, exactly" {
    qemu-x86_64 -plugin "$P,out=$W/out" "$W/t" 64 1
    assert_equal "$(head -1 "$W/out")" "caches l1i=32768:8:64 l1d=32768:8:64 l2=1048576:8:64"
    # mov, 1000 x (dec, jnz), the second marker
    assert_equal "$(delta 1 2 1)" 2002
    # one fetch per line a translated block enters: the loop's block, 1000
    # times, give or take the block the first mark's own block runs into
    [ "$(delta 1 2 2)" -ge 1000 ]
    [ "$(delta 1 2 2)" -le 1002 ]
    assert_equal "$(delta 1 2 4)" 0
    grep -q '^end 3 ' "$W/out"
}

@test "cachesim: what fits in L1d misses once, what does not misses every time (LRU)" {
    # 16 KiB, 10 passes: 256 lines, each missed on the first pass only
    qemu-x86_64 -plugin "$P,out=$W/out" "$W/t" 16384 10
    assert_equal "$(delta 2 3 4)" 2560
    assert_equal "$(delta 2 3 5)" 256
    # 64 KiB through a 32 KiB 8-way LRU cache in order: every load misses,
    # every line is in the 1 MiB L2 (the memset put it there)
    qemu-x86_64 -plugin "$P,out=$W/out" "$W/t" 65536 10
    assert_equal "$(delta 2 3 5)" 10240
    [ "$(delta 2 3 7)" -le 4 ]
}

@test "cachesim: cache sizes are options; an L2 too small misses every time" {
    qemu-x86_64 -plugin "$P,out=$W/out,l2=262144:8:64" "$W/t" 524288 4
    assert_equal "$(head -1 "$W/out")" "caches l1i=32768:8:64 l1d=32768:8:64 l2=262144:8:64"
    assert_equal "$(delta 2 3 5)" 32768
    [ "$(delta 2 3 7)" -ge 32768 ]
    [ "$(delta 2 3 7)" -le 32772 ]
}

@test "cachesim: bad options stop QEMU with one line" {
    run qemu-x86_64 -plugin "$P,out=$W/out,l2=26214:8:64" "$W/t" 64 1
    assert_failure
    assert_output --partial "cachesim: bad cache 'l2=26214:8:64'"
    run qemu-x86_64 -plugin "$P" "$W/t" 64 1
    assert_failure
    assert_output --partial "cachesim: out=FILE is required"
    run qemu-x86_64 -plugin "$P,out=$W/out,l3=1:1:1" "$W/t" 64 1
    assert_failure
    assert_output --partial "cachesim: unknown argument 'l3=1:1:1'"
}
