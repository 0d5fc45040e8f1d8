#!/usr/bin/env bats
# blockprof: the QEMU plugin that profiles an uninstrumented kernel's blocks
# and branches for llvm-profgen (tests/bench/blockprof.c), run on a small
# static program under QEMU's user mode (qemu-x86_64), counting the
# program's own text: a loop of known length gives known counts. The
# plugin is built by tests/bench/qemu-plugin.sh (make cachesim), or taken
# from $KPGO_BLOCKPROF.

load helpers
bats_require_minimum_version 1.5.0

setup() {
    skip_if_sanitized "QEMU's blockprof plugin is no kpgo code and never built sanitized; make check-tool tests it"
    W=$BATS_TEST_TMPDIR
    P=$(bench_plugin blockprof "${KPGO_BLOCKPROF:-}") || return 1
    # loop: 1000 passes of a two-instruction block that jumps back to
    # itself; the symbols mark where the loop and its block start.
    # Line numbers matter: dec is on line 9.
    cat >"$W/t.S" <<'S'
	.section .note.GNU-stack,"",@progbits
	.text
	.globl	main
	.type	main, @function
main:
	mov	$1000, %ecx
	.globl	loop
loop:
	dec	%ecx
	jnz	loop
	.globl	after
after:
	xor	%eax, %eax
	ret
	.size	main, .-main
S
    gcc -static "$W/t.S" -o "$W/t"
    loop=$(nm "$W/t" | awk '$3 == "loop" { print $1 }')
    after=$(nm "$W/t" | awk '$3 == "after" { print $1 }')
    main=$(nm "$W/t" | awk '$3 == "main" { print $1 }')
    # the loop's last instruction, jnz (dec %ecx is 2 bytes); the
    # addresses as the plugin writes them, without leading zeros
    jnz=$(printf '%x' $((0x$loop + 2)))
    main=$(printf '%x' $((0x$main)))
    loop=$(printf '%x' $((0x$loop)))
    lo=$main
    hi=$(printf '%x' $((0x$after + 4)))
}

@test "blockprof: the loop's block and its branch back counted, in llvm-profgen's format" {
    qemu-x86_64 -plugin "$P,out=$W/prof,text=$lo-$hi" "$W/t"
    # N ranges, then M branches; addresses in hexadecimal. QEMU's first
    # block runs from main to the jnz (the first pass), then the loop's
    # own block 999 times, each after a taken jnz.
    run awk 'NR == 1 { n = $1; next } NR == n + 2 { print "branches " $1; exit } { print }' "$W/prof"
    assert_line "$main-$jnz:1"
    assert_line "$loop-$jnz:999"
    run grep -- "^$jnz->" "$W/prof"
    assert_output "$jnz->$loop:999"
    # nothing outside the text asked for
    run grep -c -v -e '^[0-9]*$' -e "^${lo:0:4}" "$W/prof"
    assert_output 0
}

@test "blockprof: llvm-profgen-16 reads the profile" {
    [ -x /usr/lib/llvm-16/bin/llvm-profgen ] || skip "llvm-profgen (llvm-16) is not installed"
    gcc -g -static "$W/t.S" -o "$W/t"
    qemu-x86_64 -plugin "$P,out=$W/prof,text=$lo-$hi" "$W/t"
    run /usr/lib/llvm-16/bin/llvm-profgen --binary "$W/t" --unsymbolized-profile "$W/prof" \
        --use-offset=0 --format=text -o "$W/prof.txt"
    assert_success
    # dec and jnz (lines 9 and 10) ran 1000 times: the first pass in
    # main's block, 999 in the loop's
    run grep -A8 '^main:' "$W/prof.txt"
    assert_line ' 9: 1000'
    assert_line ' 10: 1000'
}

@test "blockprof: the profile is written whole at exit or not at all" {
    qemu-x86_64 -plugin "$P,out=$W/prof,text=$lo-$hi" "$W/t"
    [ -s "$W/prof" ]
    [ ! -e "$W/prof.tmp" ]
}

@test "blockprof: bad options stop QEMU with one line" {
    run qemu-x86_64 -plugin "$P" "$W/t"
    assert_failure
    assert_output --partial "blockprof: out=FILE is required"
    run qemu-x86_64 -plugin "$P,out=$W/prof,text=zz" "$W/t"
    assert_failure
    assert_output --partial "blockprof: bad argument 'text=zz'"
    run qemu-x86_64 -plugin "$P,out=$W/prof,text=20-10" "$W/t"
    assert_failure
    [ ! -e "$W/prof" ]
}

@test "entry-profile.sh: the block profile as a sample profile and a places table at the functions' names" {
    [ -x /usr/lib/llvm-16/bin/llvm-profgen ] || skip "llvm-profgen (llvm-16) is not installed"
    mkdir -p "$W/obj" "$W/src"
    # Line numbers matter: hot's name is on line 2, main's on line 9.
    cat >"$W/src/p.c" <<'C'
__attribute__((noinline)) int
hot(int v)
{
	if (v & 1)
		return v * 3;
	return v / 2;
}
int
main(void)
{
	int s = 0;
	for (int i = 0; i < 5000; i++)
		s += hot(i);
	return s == 42;
}
C
    (cd "$W/obj" && gcc -O1 -g -static ../src/p.c -o p)
    lo=$(nm "$W/obj/p" | awk '$3 == "hot" { print $1 }')
    hi=$(printf '%x' $((0x$(nm "$W/obj/p" | awk '$3 == "main" { print $1 }') + 256)))
    qemu-x86_64 -plugin "$P,out=$W/blocks,text=$lo-$hi" "$W/obj/p"
    run "$BATS_TEST_DIRNAME/../bench/entry-profile.sh" --vmlinux "$W/obj/p" --objtree "$W/obj" \
        --blocks "$W/blocks" --out "$W/out"
    assert_success
    assert_output --partial "entry-profile.sh: 2 functions, 2 with a place"
    run grep -E '^(hot|main):' "$W/out/entry.afdo.txt"
    assert_line --regexp '^hot:[0-9]+:5000$'
    # places: the names' lines, the files as the compiler was given them
    run cat "$W/out/entry.places"
    assert_output "$(printf '# kpgo afdo defs 1\nhot\tprofile\t../src/p.c\t2\nmain\tprofile\t../src/p.c\t9')"
    # no debug information: refused with one line
    strip -g "$W/obj/p"
    run "$BATS_TEST_DIRNAME/../bench/entry-profile.sh" --vmlinux "$W/obj/p" --objtree "$W/obj" \
        --blocks "$W/blocks" --out "$W/out2"
    assert_failure 1
    assert_output "entry-profile.sh: '$W/obj/p' has no debug information (kpgo-kbuild --debug-info)"
}
