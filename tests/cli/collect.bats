#!/usr/bin/env bats
# kpgo collect / info / reset on directories laid out like /sys/kernel/debug/gcov.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
    make_program "$W/build"
    run_program "$W/build" 5
    gcov_tree "$W/build" "$W/gcov"
    BUILD=$(cd "$W/build" && pwd)
}

manifest() {
    tar --zstd -xOf "$1" MANIFEST
}

@test "collect writes MANIFEST first, then the objects relative to the build root" {
    run kpgo collect --gcov-dir "$W/gcov" --workload redis -o "$W/p.kpgo"
    assert_success
    run tar --zstd -tf "$W/p.kpgo"
    assert_success
    assert_output "MANIFEST
gcda/lib/a.gcda
gcda/lib/b.gcda
gcda/main.gcda"
    run manifest "$W/p.kpgo"
    assert_line "BUILD_ROOT=$BUILD"
    assert_line "WORKLOAD=redis"
    assert_line "GCOV_VERSION=B22*"
    assert_line "OBJECTS=3"
    assert_line "RUNS=1"
    assert_line --regexp '^PAYLOAD_SHA256=[0-9a-f]{64}$'
}

@test "SUM_MAX is the largest counter of the whole program, as GCC's runtime computes it" {
    kpgo collect -q --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    # GCC's own runtime wrote the whole-program sum_max into each file.
    want=$(gcov-dump -l "$W/build/main.gcda" | sed -n 's/.*sum_max=\([0-9]*\).*/\1/p')
    [ -n "$want" ]
    run manifest "$W/p.kpgo"
    assert_line "SUM_MAX=$want"
}

@test "the archive's objects keep every counter of the kernel-style files" {
    kpgo collect -q --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    mkdir "$W/x"
    tar --zstd -xf "$W/p.kpgo" -C "$W/x"
    for f in main lib/a lib/b; do
        cmp "$W/x/gcda/$f.gcda" "$W/gcov$BUILD/$f.gcda"
    done
}

@test "the kernel's init/main.gcda marks the build root" {
    mkdir -p "$W/k/usr/src/linux/init" "$W/k/usr/src/linux/kernel/sched"
    cp "$W/gcov$BUILD/main.gcda" "$W/k/usr/src/linux/init/main.gcda"
    cp "$W/gcov$BUILD/lib/a.gcda" "$W/k/usr/src/linux/kernel/sched/core.gcda"
    run kpgo collect --gcov-dir "$W/k" -o "$W/k.kpgo"
    assert_success
    run manifest "$W/k.kpgo"
    assert_line "BUILD_ROOT=/usr/src/linux"
    run tar --zstd -tf "$W/k.kpgo"
    assert_line "gcda/kernel/sched/core.gcda"
}

@test "--build-root overrides, and objects outside it are left out with a warning" {
    run kpgo collect --gcov-dir "$W/gcov" --build-root "$BUILD/lib" -o "$W/p.kpgo"
    assert_success
    assert_output --partial "1 .gcda files outside the build root"
    run tar --zstd -tf "$W/p.kpgo"
    assert_output "MANIFEST
gcda/a.gcda
gcda/b.gcda"
}

@test "symbolic links are not followed (the .gcno links point into the build tree)" {
    ln -s "$W/build/lib" "$W/gcov$BUILD/linked"
    ln -s "$W/gcov$BUILD/main.gcda" "$W/gcov$BUILD/alias.gcda"
    kpgo collect -q --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    run tar --zstd -tf "$W/p.kpgo"
    refute_output --partial linked
    refute_output --partial alias
}


@test "a malformed .gcda fails the collection with the file and offset, and writes nothing" {
    f=$W/gcov$BUILD/lib/a.gcda
    head -c $(($(stat -c %s "$f") - 6)) "$f" >"$W/gcov$BUILD/lib/a.gcda.new"
    mv "$W/gcov$BUILD/lib/a.gcda.new" "$W/gcov$BUILD/lib/a.gcda"
    run kpgo collect --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    assert_failure 1
    assert_output --regexp "^kpgo: cannot read '.*/lib/a.gcda': .* at offset [0-9]+$"
    [ ! -e "$W/p.kpgo" ]
    run ls -A "$W"
    refute_output --partial "p.kpgo."
}

@test "an existing output is left untouched when collection fails" {
    echo old >"$W/p.kpgo"
    printf 'xxxxxxxxxxxxxxxx' >"$W/gcov$BUILD/main.gcda"
    run kpgo collect --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    assert_failure 1
    [ "$(cat "$W/p.kpgo")" = old ]
}

@test "no .gcda files, a missing directory, bad labels: one clear error" {
    mkdir "$W/empty"
    run kpgo collect --gcov-dir "$W/empty" -o "$W/p.kpgo"
    assert_failure 1
    assert_output "kpgo: no .gcda files found in '$W/empty'"
    run kpgo collect --gcov-dir "$W/nope" -o "$W/p.kpgo"
    assert_failure 1
    assert_output --partial "cannot open '$W/nope'"
    run kpgo collect --gcov-dir "$W/gcov" --workload 'a b' -o "$W/p.kpgo"
    assert_failure 2
    run kpgo collect --gcov-dir "$W/gcov"
    assert_failure 2
    assert_output --partial "output file is required"
    [ ! -e "$W/p.kpgo" ]
}

@test "--reset zeroes the counters after a successful collection" {
    echo 0 >"$W/gcov/reset"
    KPGO_STATE_DIR=$W run kpgo collect --gcov-dir "$W/gcov" --reset -o "$W/p.kpgo"
    assert_success
    [ "$(cat "$W/gcov/reset")" = 1 ]
    [ -s "$W/last-reset" ]
}

@test "--reset without a reset file fails after writing the profile" {
    run kpgo collect --gcov-dir "$W/gcov" --reset -o "$W/p.kpgo"
    assert_failure 1
    assert_output --partial "cannot reset counters"
    [ -s "$W/p.kpgo" ]
    run kpgo reset --gcov-dir "$W/gcov"
    assert_failure 1
    [ ! -e "$W/gcov/reset" ]
}

@test "info shows the manifest, totals and hottest code; --json is valid JSON" {
    kpgo collect -q --gcov-dir "$W/gcov" --kernel-release 6.1.0-9-pgo-instr -o "$W/p.kpgo"
    run kpgo info "$W/p.kpgo"
    assert_success
    assert_line "  KERNEL_RELEASE=6.1.0-9-pgo-instr"
    assert_output --regexp "totals: 3 objects, [0-9]+ functions"
    assert_output --partial "lib/a.gcda"
    run kpgo info --json "$W/p.kpgo"
    assert_success
    echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["totals"]["objects"] == 3, d
assert d["manifest"]["KERNEL_RELEASE"] == "6.1.0-9-pgo-instr"
assert d["hottest_functions"][0]["count"] >= d["hottest_functions"][-1]["count"]
'
}

@test "GCC 11 files (lengths in words) are read and staged for GCC 11" {
    command -v gcc-11 || skip "gcc-11 is not installed (tests/install-deps.sh installs it)"
    mkdir -p "$W/b11"
    cp "$W/build/main.c" "$W/build/lib/a.c" "$W/build/lib/b.c" "$W/b11/"
    (cd "$W/b11" && for f in main a b; do
        gcc-11 -O2 -fprofile-arcs -ftest-coverage -c $f.c -o $f.o || exit 1
    done && gcc-11 -fprofile-arcs main.o a.o b.o -o prog && ./prog 4) || true
    mkdir -p "$W/g11$W/b11"
    "$KPGO_TESTS_BIN/gcda-to-kernel" "$W/b11/main.gcda" "$W/g11$W/b11/main.gcda"
    run kpgo collect --gcov-dir "$W/g11" -o "$W/p11.kpgo"
    assert_success
    run manifest "$W/p11.kpgo"
    assert_line --regexp '^GCOV_VERSION=B1[0-9]\*$'
    assert_line --regexp '^COMPILER=gcc 11\.[0-9]$'
    run kpgo stage --cc gcc --objtree "$W/b11" "$W/p11.kpgo"
    assert_failure 1
    assert_output --partial "GCC ignores profiles of another version"
    rm -f "$W/b11/main.gcda"
    run kpgo stage --cc gcc-11 --objtree "$W/b11" "$W/p11.kpgo"
    assert_success
    read -ra flags <<<"$(kpgo flags)"
    (cd "$W/b11" && gcc-11 -O2 "${flags[@]}" -Werror=coverage-mismatch -Wmissing-profile -c main.c -o main.o 2>"$W/err")
    run cat "$W/err"
    refute_output --partial "profile"
}
