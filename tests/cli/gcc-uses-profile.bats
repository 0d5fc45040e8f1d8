#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Proves that GCC really uses what `kpgo stage` writes, by the generated code.
#
# The fixture (tests/fixtures/prog) is built with the kernel's gcov options and
# run once; GCC's own runtime writes a .gcda per object.  Compiling the objects
# again with `-O2 $(kpgo flags)` and those files in place gives the reference
# code.  The same counts then take the kernel's road: gcda-to-kernel rewrites each file
# as /sys/kernel/debug/gcov serves it (no summary), `kpgo collect` reads that
# tree, `kpgo stage` writes the profile back, and the objects are compiled again
# in the same directory (GCC checks the source file names).  The code must be
# identical to the reference, instruction for instruction and relocation for
# relocation.
#
# Negative controls show that the comparison can fail: the kernel's files as
# they are, no profile at all, and a per-object summary all give other code.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

KPGO=${KPGO:-$BATS_TEST_DIRNAME/../../build/kpgo}
GCDA_TO_KERNEL=${GCDA_TO_KERNEL:-${KPGO_TESTS_BIN:-$BATS_TEST_DIRNAME/../../build/tests}/gcda-to-kernel}
FIXTURE=$BATS_TEST_DIRNAME/../fixtures/prog
OBJS=(main lib/hash lib/sort lib/vm)
# Large enough that sort.c's counts stay below the whole program's hot
# threshold (sum_max / 10000); the instrumented run takes about 0.1 s.
WORKLOAD=1000000

setup() {
    [ -x "$GCDA_TO_KERNEL" ] || fail "gcda-to-kernel not built: '$GCDA_TO_KERNEL' (run make)"
    # Physical path: GCC mangles getpwd() into the names -fprofile-use=DIR reads.
    T=$(cd "$BATS_TEST_TMPDIR" && pwd -P)
    B=$T/build
}

need_kpgo() {
    [ -x "$KPGO" ] || fail "kpgo not built: '$KPGO' (run make)"
}

# cc_objects FLAGS...: compile every object of the fixture in $B at -O2.
cc_objects() (
    cd "$B" || exit 1
    for o in "${OBJS[@]}"; do
        gcc -O2 "$@" -c "$o.c" -o "$o.o" || exit 1
    done
)

# The code of every object: all executable sections with their relocations.
disasm() {
    local o

    for o in "${OBJS[@]}"; do
        objdump -d -r -w "$B/$o.o" || return 1
    done
}

# opt_build NAME FLAGS...: build the objects, keep their code in $T/NAME.dis.
# Leaves the compiler's messages in $output: a missing profile
# (-Wmissing-profile, on by default) or a mismatched one is a warning.
opt_build() {
    local name=$1

    shift
    run cc_objects "$@"
    assert_success
    disasm >"$T/$name.dis" || fail "objdump failed"
}

# pgo_flags [--profile-dir DIR]: PGO_FLAGS from `kpgo flags`, split like make would.
pgo_flags() {
    local line

    need_kpgo
    line=$("$KPGO" flags "$@") || fail "kpgo flags $* failed"
    read -r -a PGO_FLAGS <<<"$line"
    [ "${#PGO_FLAGS[@]}" -gt 0 ] || fail "kpgo flags $* printed nothing"
}

clear_profiles() {
    find "$B" -name '*.gcda' -delete
}

# Build the fixture with gcov as the kernel does, run it once, and move the
# .gcda files GCC's runtime wrote to $T/runtime.
prepare() {
    local o

    cp -R "$FIXTURE" "$B"
    run cc_objects -fprofile-arcs -ftest-coverage -fno-tree-loop-im
    assert_success
    (cd "$B" && gcc -fprofile-arcs -o prog "${OBJS[@]/%/.o}") || fail "cannot link"
    run "$B/prog" "$WORKLOAD"
    assert_success
    for o in "${OBJS[@]}"; do
        [ -s "$B/$o.gcda" ] || fail "the instrumented run wrote no '$o.gcda'"
        mkdir -p "$T/runtime/$(dirname "$o")"
        mv "$B/$o.gcda" "$T/runtime/$o.gcda"
    done
    rm -f "$B/prog"
}

# place SRC: copy SRC/<obj>.gcda next to each object, where -fprofile-use looks.
place() {
    local o

    for o in "${OBJS[@]}"; do
        cp "$1/$o.gcda" "$B/$o.gcda"
    done
}

# The reference: GCC's own runtime files in place, `kpgo flags`.
reference() {
    pgo_flags
    place "$T/runtime"
    opt_build ref "${PGO_FLAGS[@]}"
    assert_output ''
    clear_profiles
}

# $T/kernel/<obj>.gcda: the runtime files as the kernel would serve them.
kernel_files() {
    local o

    for o in "${OBJS[@]}"; do
        mkdir -p "$T/kernel/$(dirname "$o")"
        "$GCDA_TO_KERNEL" "$T/runtime/$o.gcda" "$T/kernel/$o.gcda" || fail "gcda-to-kernel failed on '$o.gcda'"
    done
}

# $T/debugfs mirrors /sys/kernel/debug/gcov: .gcda at the absolute object path,
# .gcno symlinks into the build tree beside them.
debugfs_tree() {
    local o d

    kernel_files
    for o in "${OBJS[@]}"; do
        d=$T/debugfs$B/$(dirname "$o")
        mkdir -p "$d"
        cp "$T/kernel/$o.gcda" "$d/"
        ln -s "$B/$o.gcno" "$d/$(basename "$o").gcno"
    done
}

collect() {
    need_kpgo
    debugfs_tree
    run "$KPGO" collect --gcov-dir "$T/debugfs" --workload gcc-uses-profile -o "$T/p.kpgo"
    assert_success
    [ -s "$T/p.kpgo" ] || fail "kpgo collect wrote no archive"
}

# The FUNCTION and COUNTERS records of a .gcda as gcov-dump prints them, with
# GCC's "(all zero)" for a negative length dropped: the kernel stores zeros.
records() {
    gcov-dump -l "$1" | sed 's/^[^:]*://; s/ (all zero)//' |
        grep -v -e '^data:magic' -e '^stamp ' -e '^checksum ' -e 'OBJECT_SUMMARY'
}

summary_of() {
    gcov-dump -l "$1" | grep -o 'OBJECT_SUMMARY.*'
}

# Largest counter in a .gcda, from gcov-dump's "  INDEX: COUNT COUNT..." lines.
max_counter() {
    gcov-dump -l "$1" | awk -F: '
        $2 ~ /^ +[0-9]+$/ && NF >= 3 {
            n = split($3, c, " ")
            for (i = 1; i <= n; i++) if (c[i] + 0 > m) m = c[i] + 0
        }
        END { print m + 0 }'
}

# put_u32 FILE OFFSET VALUE: overwrite one little-endian word (x86 hosts).
put_u32() {
    local v=$3

    # shellcheck disable=SC2059 # the format is the data
    printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) \
        $((v >> 16 & 255)) $((v >> 24 & 255)))" |
        dd of="$1" bs=1 seek="$2" count=4 conv=notrunc status=none
}

# GCC's name for an object's profile under -fprofile-use=DIR, for an object
# compiled with a relative -o from $B: the absolute path with '/' -> '#'.
mangled() {
    local p=$B/$2

    printf '%s/%s.gcda\n' "$1" "${p//\//#}"
}

@test "gcda-to-kernel rewrites a GCC 12 runtime file as the kernel serves it" {
    local o

    prepare
    kernel_files
    for o in "${OBJS[@]}"; do
        run gcov-dump -l "$T/kernel/$o.gcda"
        assert_success
        refute_output --partial OBJECT_SUMMARY
        refute_output --partial 'all zero'
        if [ "$(gcc -dumpversion | cut -d. -f1)" -ge 12 ]; then
            assert_line --partial 'checksum 0'
        fi
        # Same functions and counts, in the same order.
        diff -u <(records "$T/runtime/$o.gcda") <(records "$T/kernel/$o.gcda") ||
            fail "gcda-to-kernel changed the records of '$o.gcda'"
    done
}

@test "gcda-to-kernel handles the GCC 9-11 layout (lengths in words)" {
    local in=$T/in.gcda out=$T/out.gcda

    # GCC 11.2 ("B12*"): summary, one function with all-zero counters written
    # as a negative length, one with a stored counter, the end marker.
    {
        printf 'adcg*21B\x01\x02\x03\x04'
        printf '\x00\x00\x00\xa1\x02\x00\x00\x00\x01\x00\x00\x00\x07\x00\x00\x00'
        printf '\x00\x00\x00\x01\x03\x00\x00\x00\x11\x00\x00\x00\x12\x00\x00\x00\x13\x00\x00\x00'
        printf '\x00\x00\xa1\x01\xfc\xff\xff\xff'
        printf '\x00\x00\x00\x01\x03\x00\x00\x00\x21\x00\x00\x00\x22\x00\x00\x00\x23\x00\x00\x00'
        printf '\x00\x00\xa1\x01\x02\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00'
        printf '\x00\x00\x00\x00'
    } >"$in"
    run "$GCDA_TO_KERNEL" "$in" "$out"
    assert_success
    run od -An -v -tx4 -w4 "$out"
    assert_output "$(printf ' %s\n' 67636461 4231322a 04030201 \
        01000000 00000003 00000011 00000012 00000013 \
        01a10000 00000004 00000000 00000000 00000000 00000000 \
        01000000 00000003 00000021 00000022 00000023 \
        01a10000 00000002 00000007 00000000)"
}

@test "gcda-to-kernel refuses files it does not understand" {
    prepare
    kernel_files
    run "$GCDA_TO_KERNEL" "$T/kernel/main.gcda" "$T/again.gcda"
    assert_failure 1
    assert_output --partial 'no OBJECT_SUMMARY'
    head -c 30 "$T/runtime/main.gcda" >"$T/short.gcda"
    run "$GCDA_TO_KERNEL" "$T/short.gcda" "$T/out.gcda"
    assert_failure 1
    assert_output --partial 'truncated'
    run "$GCDA_TO_KERNEL" "$T/runtime/main.gcda"
    assert_failure 2
}

@test "fixture: one whole-program summary over very different objects" {
    local o gmax=0 s
    local -A max

    prepare
    s=$(summary_of "$T/runtime/main.gcda")
    for o in "${OBJS[@]}"; do
        # GCC's runtime writes the same summary into every object's file.
        assert_equal "$(summary_of "$T/runtime/$o.gcda")" "$s"
        max[$o]=$(max_counter "$T/runtime/$o.gcda")
        [ "${max[$o]}" -gt "$gmax" ] && gmax=${max[$o]}
    done
    assert_equal "$s" "OBJECT_SUMMARY runs=1, sum_max=$gmax"
    # sort.c is not hot under the whole-program threshold (sum_max / 10000)
    # but would be under its own; hash.c and vm.c are far below main.c.
    [ $((max[lib/sort] * 10000)) -lt "$gmax" ] || fail "sort.c too hot: ${max[lib/sort]} of $gmax"
    [ "${max[lib/sort]}" -gt 100 ] || fail "sort.c too cold: ${max[lib/sort]}"
    [ $((max[lib/vm] * 4)) -lt "$gmax" ] || fail "vm.c too hot: ${max[lib/vm]} of $gmax"
    [ $((max[lib/hash] * 3)) -lt $((gmax * 2)) ] || fail "hash.c too hot: ${max[lib/hash]} of $gmax"
}

@test "control: no profile gives other code than the reference" {
    prepare
    reference
    opt_build none "${PGO_FLAGS[@]}"
    assert_output --partial 'profile count data file not found'
    run cmp -s "$T/ref.dis" "$T/none.dis"
    assert_failure
    # Nor is the reference plain -O2: the profile is what changed it.
    opt_build plain
    run cmp -s "$T/ref.dis" "$T/plain.dis"
    assert_failure
}

@test "control: the kernel's files as they are give other code than the reference" {
    prepare
    reference
    kernel_files
    place "$T/kernel"
    opt_build kernel "${PGO_FLAGS[@]}"
    clear_profiles
    run cmp -s "$T/ref.dis" "$T/kernel.dis"
    assert_failure
}

@test "GCC ignores the counts of a file without a summary (the kernel's files)" {
    # GCC 12's compute_branch_probabilities gives up when no summary was
    # read, silently: the kernel's counts, staged as they are, are worth nothing.
    prepare
    pgo_flags
    kernel_files
    place "$T/kernel"
    opt_build kernel "${PGO_FLAGS[@]}"
    assert_output ''
    clear_profiles
    opt_build none "${PGO_FLAGS[@]}"
    run diff -u "$T/none.dis" "$T/kernel.dis"
    assert_success
}

@test "control: a per-object sum_max gives other code than the reference" {
    local o off f max

    off=24
    [ "$(gcc -dumpversion | cut -d. -f1)" -ge 12 ] && off=28 # after the checksum word
    prepare
    reference
    for o in "${OBJS[@]}"; do
        f=$T/perobj/$o.gcda
        mkdir -p "$(dirname "$f")"
        cp "$T/runtime/$o.gcda" "$f"
        max=$(max_counter "$f")
        put_u32 "$f" "$off" "$max"
        assert_equal "$(summary_of "$f")" "OBJECT_SUMMARY runs=1, sum_max=$max"
    done
    place "$T/perobj"
    opt_build perobj "${PGO_FLAGS[@]}"
    assert_output ''
    clear_profiles
    run cmp -s "$T/ref.dis" "$T/perobj.dis"
    assert_failure
}

@test "kpgo stage --objtree: GCC builds the code its own runtime's files give" {
    local o

    prepare
    reference
    collect
    run "$KPGO" stage "$T/p.kpgo" --objtree "$B"
    assert_success
    for o in "${OBJS[@]}"; do
        [ -f "$B/$o.gcda" ] || fail "kpgo stage wrote no '$o.gcda'"
        # The whole program's summary, as GCC's runtime wrote it.
        assert_equal "$(summary_of "$B/$o.gcda")" "$(summary_of "$T/runtime/$o.gcda")"
    done
    opt_build staged "${PGO_FLAGS[@]}"
    assert_output ''
    run diff -u "$T/ref.dis" "$T/staged.dis"
    assert_success
}

@test "kpgo stage --profile-dir: GCC builds the code its own runtime's files give" {
    local o pd=$T/pdir variant

    prepare
    pgo_flags --profile-dir "$pd"
    # The reference in this mode: GCC's own files under GCC's mangled names.
    mkdir -p "$pd"
    for o in "${OBJS[@]}"; do
        cp "$T/runtime/$o.gcda" "$(mangled "$pd" "$o")"
    done
    opt_build ref "${PGO_FLAGS[@]}"
    assert_output ''
    rm -rf "$pd"
    # Nothing found, other code: the staged files below are what GCC reads.
    opt_build none "${PGO_FLAGS[@]}"
    assert_output --partial 'profile count data file not found'
    run cmp -s "$T/ref.dis" "$T/none.dis"
    assert_failure

    collect
    for variant in recorded objtree; do
        rm -rf "$pd"
        if [ "$variant" = objtree ]; then
            run "$KPGO" stage "$T/p.kpgo" --profile-dir "$pd" --objtree "$B"
        else
            run "$KPGO" stage "$T/p.kpgo" --profile-dir "$pd"
        fi
        assert_success
        run find "$B" -name '*.gcda'
        assert_output ''
        for o in "${OBJS[@]}"; do
            [ -f "$(mangled "$pd" "$o")" ] || fail "$variant: no '$(mangled "$pd" "$o")'"
        done
        opt_build "staged-$variant" "${PGO_FLAGS[@]}"
        assert_output ''
        run diff -u "$T/ref.dis" "$T/staged-$variant.dis"
        assert_success
    done
}
