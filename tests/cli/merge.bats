#!/usr/bin/env bats
# kpgo merge: agrees with gcov-tool, is associative and commutative,
# refuses what does not belong together.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
    make_program "$W/build"
    # Three training runs of the same build with different inputs.
    for run in 1 2 3; do
        rm -f "$W"/build/*.gcda "$W"/build/lib/*.gcda
        run_program "$W/build" $((run * 2 + 1))
        mkdir -p "$W/raw$run"
        (cd "$W/build" && find . -name '*.gcda' -exec cp --parents {} "$W/raw$run" \;)
        gcov_tree "$W/build" "$W/gcov$run"
        kpgo collect -q --gcov-dir "$W/gcov$run" --kernel-release 6.1.0-test \
            --build-id 00ff -o "$W/p$run.kpgo"
        find "$W/gcov$run" -name '*.gcda' -delete
    done
}

# Counters only, function by function, as gcov-dump prints them.
counters() {
    gcov-dump -l "$1" | sed -n 's/^[^:]*:[[:space:]]*//p' |
        grep -E '^(01000000|[0-9]+: )' | sed -e 's/lineno_checksum.*//' -e 's/ *$//'
}

payload() {
    tar --zstd -xOf "$1" MANIFEST | sed -n 's/^PAYLOAD_SHA256=//p'
}

@test "merge agrees counter for counter with gcov-tool merge, weights included" {
    kpgo merge --weights 2,3 -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    gcov-tool merge -w 2,3 -o "$W/gt" "$W/raw1" "$W/raw2"
    kpgo stage --cc none --profile-dir "$W/st" --objtree "$W/build" "$W/m.kpgo" >/dev/null
    n=0
    for f in main lib/a lib/b; do
        mangled=$(echo "$W/build/$f" | sed 's|/|#|g').gcda
        [ -s "$W/st/$mangled" ]
        diff <(counters "$W/gt/$f.gcda") <(counters "$W/st/$mangled")
        n=$((n + $(counters "$W/gt/$f.gcda" | grep -c ': ')))
    done
    [ "$n" -gt 3 ]
}

@test "merge is commutative and associative" {
    kpgo merge -q -o "$W/ab.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    kpgo merge -q -o "$W/ba.kpgo" "$W/p2.kpgo" "$W/p1.kpgo"
    [ "$(payload "$W/ab.kpgo")" = "$(payload "$W/ba.kpgo")" ]
    kpgo merge -q -o "$W/ab_c.kpgo" "$W/ab.kpgo" "$W/p3.kpgo"
    kpgo merge -q -o "$W/bc.kpgo" "$W/p2.kpgo" "$W/p3.kpgo"
    kpgo merge -q -o "$W/a_bc.kpgo" "$W/p1.kpgo" "$W/bc.kpgo"
    kpgo merge -q -o "$W/abc.kpgo" "$W/p3.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    [ "$(payload "$W/ab_c.kpgo")" = "$(payload "$W/a_bc.kpgo")" ]
    [ "$(payload "$W/ab_c.kpgo")" = "$(payload "$W/abc.kpgo")" ]
    # ... and really adds: the merge differs from its inputs.
    [ "$(payload "$W/ab.kpgo")" != "$(payload "$W/p1.kpgo")" ]
    run kpgo info "$W/abc.kpgo"
    assert_line "  RUNS=3"
    assert_line "  MERGED_PROFILES=3"
}

@test "weights multiply counters, RUNS and SUM_MAX" {
    kpgo merge -q --weights 3 -o "$W/w3.kpgo" "$W/p1.kpgo"
    kpgo merge -q -o "$W/x3.kpgo" "$W/p1.kpgo" "$W/p1.kpgo" "$W/p1.kpgo"
    [ "$(payload "$W/w3.kpgo")" = "$(payload "$W/x3.kpgo")" ]
    max1=$(tar --zstd -xOf "$W/p1.kpgo" MANIFEST | sed -n 's/^SUM_MAX=//p')
    run kpgo info "$W/w3.kpgo"
    assert_line "  RUNS=3"
    assert_line "  SUM_MAX=$((max1 * 3))"
}

@test "the merged manifest names the machines: HOSTS, sorted, each once, and how many (HOSTS_TOTAL)" {
    with_manifest "$W/p1.kpgo" "$W/a.kpgo" HOST=web-01
    with_manifest "$W/p2.kpgo" "$W/b.kpgo" HOST=db-7.example
    with_manifest "$W/p3.kpgo" "$W/c.kpgo" HOST=web-01
    kpgo merge -q -o "$W/m.kpgo" "$W/a.kpgo" "$W/b.kpgo" "$W/c.kpgo"
    run kpgo info "$W/m.kpgo"
    assert_line "  HOSTS=db-7.example,web-01"
    assert_line "  HOSTS_TOTAL=2"
    refute_line --partial "  HOST="
    # a merge of a merge keeps its machines; a HOST that is no host name
    # (a blank, a comma) is left out, and a machine without one adds nothing
    with_manifest "$W/p1.kpgo" "$W/e.kpgo" "HOST=a b"
    with_manifest "$W/p2.kpgo" "$W/f.kpgo" "HOST=x,y"
    with_manifest "$W/p3.kpgo" "$W/g.kpgo" HOST=
    kpgo merge -q -o "$W/mm.kpgo" "$W/m.kpgo" "$W/e.kpgo" "$W/f.kpgo" "$W/g.kpgo" "$W/a.kpgo"
    run kpgo info "$W/mm.kpgo"
    assert_line "  HOSTS=db-7.example,web-01"
    assert_line "  HOSTS_TOTAL=2"
    # as many as a manifest value holds; the count says how many there were
    for i in $(seq 1 100); do
        with_manifest "$W/p1.kpgo" "$W/h$i.kpgo" "HOST=machine-$(printf %03d "$i")-$(printf '%040d' 0)"
    done
    kpgo merge -q -o "$W/many.kpgo" "$W"/h*.kpgo
    run kpgo info "$W/many.kpgo"
    assert_line "  HOSTS_TOTAL=100"
    hosts=$(sed -n 's/^  HOSTS=//p' <<<"$output")
    [ "${#hosts}" -le 4000 ]
    [[ $hosts == machine-001-*,machine-002-* ]]
    [ "$(tr ',' '\n' <<<"$hosts" | wc -l)" -eq 75 ]  # (52 bytes and a comma each)
}

@test "bad weights are a usage error" {
    run kpgo merge --weights 1 -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    assert_failure 2
    run kpgo merge --weights 1,x -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    assert_failure 2
    run kpgo merge --weights 0,0 -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p2.kpgo"
    assert_failure 1
    assert_output "kpgo: all weights are zero"
    [ ! -e "$W/m.kpgo" ]
}

@test "profiles of different kernel builds are refused unless --allow-mismatch" {
    rm -f "$W"/build/*.gcda "$W"/build/lib/*.gcda
    run_program "$W/build" 4
    gcov_tree "$W/build" "$W/g4"
    kpgo collect -q --gcov-dir "$W/g4" --kernel-release 6.1.0-other --build-id 11ee -o "$W/other.kpgo"
    run kpgo merge -o "$W/m.kpgo" "$W/p1.kpgo" "$W/other.kpgo"
    assert_failure 1
    assert_output --partial "different kernel builds"
    [ ! -e "$W/m.kpgo" ]
    run kpgo merge --allow-mismatch -o "$W/m.kpgo" "$W/p1.kpgo" "$W/other.kpgo"
    assert_success
    run kpgo info "$W/m.kpgo"
    assert_line "  KERNEL_RELEASE=6.1.0-test"
}

@test "functions whose checksums differ: refused, or with --allow-mismatch the first input's kept" {
    # The same program with lib/b.c changed: b_work's control flow differs.
    make_program "$W/build" 2
    rm -f "$W"/build/*.gcda "$W"/build/lib/*.gcda
    run_program "$W/build" 5
    gcov_tree "$W/build" "$W/gv2"
    kpgo collect -q --gcov-dir "$W/gv2" --kernel-release 6.1.0-test --build-id 00ff -o "$W/v2.kpgo"
    run kpgo merge -o "$W/m.kpgo" "$W/p1.kpgo" "$W/v2.kpgo"
    assert_failure 1
    assert_output --partial "do not match"
    assert_output --partial "lib/b.gcda"
    run kpgo merge --allow-mismatch -o "$W/m.kpgo" "$W/p1.kpgo" "$W/v2.kpgo"
    assert_success
    assert_output --partial "1 functions left out"
    run kpgo info "$W/m.kpgo"
    assert_line "  MISMATCHED_FUNCTIONS=1"
    # b_work is p1's alone; the unchanged objects are summed.
    mkdir "$W/x1" "$W/xm"
    tar --zstd -xf "$W/p1.kpgo" -C "$W/x1"
    tar --zstd -xf "$W/m.kpgo" -C "$W/xm"
    cmp "$W/x1/gcda/lib/b.gcda" "$W/xm/gcda/lib/b.gcda"
    run cmp -s "$W/x1/gcda/lib/a.gcda" "$W/xm/gcda/lib/a.gcda"
    assert_failure
}

@test "--allow-mismatch: GCC 11 objects merged into a GCC 12 profile are left out and counted" {
    command -v gcc-11 >/dev/null || skip "gcc-11 is not installed"
    mkdir -p "$W/b11/lib"
    cp "$W/build/main.c" "$W/b11/"
    cp "$W/build/lib/a.c" "$W/build/lib/b.c" "$W/b11/lib/"
    (cd "$W/b11" && for f in main lib/a lib/b; do
        gcc-11 -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o" || exit 1
    done && gcc-11 -fprofile-arcs main.o lib/a.o lib/b.o -o prog)
    run_program "$W/b11" 3
    gcov_tree "$W/b11" "$W/g11"
    kpgo collect -q --gcov-dir "$W/g11" --kernel-release 6.1.0-test --build-id 00ff -o "$W/p11.kpgo"
    run kpgo info "$W/p11.kpgo"
    assert_line --regexp "^  COMPILER=gcc 11\\."
    n11=$(tar --zstd -xOf "$W/p11.kpgo" MANIFEST | sed -n 's/^FUNCTIONS=//p')
    [ "$n11" -gt 0 ]
    run kpgo merge -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p11.kpgo"
    assert_failure 1
    assert_output --partial "gcov version"
    run kpgo merge --allow-mismatch -o "$W/m.kpgo" "$W/p1.kpgo" "$W/p11.kpgo"
    assert_success
    assert_output --partial "$n11 functions left out"
    run kpgo info "$W/m.kpgo"
    assert_line "  MISMATCHED_FUNCTIONS=$n11"
    assert_line "  GCOV_VERSION=B22*"
    # Nothing of GCC 11's counts in it: every object is p1's alone.
    mkdir "$W/x1" "$W/xm"
    tar --zstd -xf "$W/p1.kpgo" -C "$W/x1"
    tar --zstd -xf "$W/m.kpgo" -C "$W/xm"
    for f in main lib/a lib/b; do
        cmp "$W/x1/gcda/$f.gcda" "$W/xm/gcda/$f.gcda"
    done
}

@test "a corrupt input fails the merge and leaves no output" {
    head -c 300 "$W/p2.kpgo" >"$W/bad.kpgo"
    run kpgo merge -o "$W/m.kpgo" "$W/p1.kpgo" "$W/bad.kpgo"
    assert_failure 1
    assert_output --partial "cannot read '$W/bad.kpgo'"
    [ ! -e "$W/m.kpgo" ]
    run ls "$W"
    refute_output --partial "m.kpgo"
}

@test "more inputs than are read at once: merged in rounds, the same result, nothing left behind" {
    # 40 inputs, more than the 32 kpgo keeps open: p1, p2 and p3, 13, 14 and 13 times.
    inputs=()
    for i in $(seq 1 40); do inputs+=("$W/p$((i % 3 + 1)).kpgo"); done
    kpgo merge -q --weights 13,14,13 -o "$W/w.kpgo" "$W/p1.kpgo" "$W/p2.kpgo" "$W/p3.kpgo"
    mkdir "$W/out"
    kpgo merge -q -o "$W/out/r.kpgo" "${inputs[@]}"
    [ "$(payload "$W/w.kpgo")" = "$(payload "$W/out/r.kpgo")" ]
    run kpgo info "$W/out/r.kpgo"
    assert_line "  RUNS=40"
    assert_line "  MERGED_PROFILES=40"
    run ls -A "$W/out"
    assert_output "r.kpgo"

    # A corrupt 41st input: refused, no output, no temporary file.
    head -c 300 "$W/p2.kpgo" >"$W/bad.kpgo"
    run kpgo merge -o "$W/out/m.kpgo" "${inputs[@]}" "$W/bad.kpgo"
    assert_failure 1
    assert_output --partial "cannot read '$W/bad.kpgo'"
    run ls -A "$W/out"
    assert_output "r.kpgo"
}

@test "kill -9 of merge and collect leaves no temporary file beside the output" {
    "$KPGO_TESTS_BIN/gen-profile" -q -n 3000 -o "$W/big"
    kpgo collect -q --gcov-dir "$W/big" --build-root /build/linux-6.1 -o "$W/big.kpgo"
    mkdir "$W/out"
    for i in 1 2 3 4 5 6; do
        "$KPGO" merge -q -o "$W/out/m.kpgo" "$W/big.kpgo" "$W/big.kpgo" &
        pid=$!
        sleep "0.$((i * 15))"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" || true
        "$KPGO" collect -q --gcov-dir "$W/big" --build-root /build/linux-6.1 -o "$W/out/c.kpgo" &
        pid=$!
        sleep "0.$((i * 15))"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" || true
    done
    run find "$W/out" -mindepth 1 ! -name m.kpgo ! -name c.kpgo
    assert_output ""
}
