#!/usr/bin/env bats
# kpgo stage and kpgo flags: where the files go, what they hold, what is reported.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
    make_program "$W/build"
    run_program "$W/build" 5
    gcov_tree "$W/build" "$W/gcov"
    kpgo collect -q --gcov-dir "$W/gcov" -o "$W/p.kpgo"
    BUILD=$(cd "$W/build" && pwd)
    # The optimized build's tree: same sources, not built yet.
    mkdir -p "$W/opt/lib"
    cp "$W/build/main.c" "$W/opt/"
    cp "$W/build/lib/a.c" "$W/build/lib/b.c" "$W/opt/lib/"
    OPT=$(cd "$W/opt" && pwd)
    SUM_MAX=$(tar --zstd -xOf "$W/p.kpgo" MANIFEST | sed -n 's/^SUM_MAX=//p')
}

@test "stage --objtree writes <obj>.gcda with the whole-program summary in every file" {
    run kpgo stage --cc gcc --objtree "$W/opt" "$W/p.kpgo"
    assert_success
    assert_line "staged 3 objects from '$W/p.kpgo' into '$W/opt' (summary runs=1 sum_max=$SUM_MAX)"
    for f in main lib/a lib/b; do
        run gcov-dump -l "$W/opt/$f.gcda"
        assert_success
        assert_output --partial "OBJECT_SUMMARY runs=1, sum_max=$SUM_MAX"
    done
}

@test "stage --profile-dir writes GCC's mangled names for the object tree" {
    run kpgo stage --cc gcc --profile-dir "$W/pd" --objtree "$W/opt" "$W/p.kpgo"
    assert_success
    run ls "$W/pd"
    assert_output "$(printf '%s\n' "$OPT/lib/a" "$OPT/lib/b" "$OPT/main" | sed 's|/|#|g; s|$|.gcda|')"
    # GCC finds them there: no missing-profile warning.
    read -ra flags <<<"$(kpgo flags --profile-dir "$W/pd")"
    (cd "$W/opt" && gcc -O2 "${flags[@]}" -Wmissing-profile -c lib/a.c -o lib/a.o 2>"$W/err")
    run cat "$W/err"
    refute_output --partial "not found"
}

@test "without --objtree the instrumented build root names the files" {
    run kpgo stage --cc none --profile-dir "$W/pd" "$W/p.kpgo"
    assert_success
    [ -s "$W/pd/$(echo "$BUILD/lib/a" | sed 's|/|#|g').gcda" ]
}

@test "the report lists profiled objects missing from the tree and tree objects without profile" {
    rm "$W/opt/lib/b.c"
    mkdir -p "$W/opt/extra"
    echo 'int x;' >"$W/opt/extra/new.c"
    gcc -c "$W/opt/extra/new.c" -o "$W/opt/extra/new.o"
    run kpgo stage --cc none --objtree "$W/opt" --report "$W/report" "$W/p.kpgo"
    assert_success
    assert_line "profiled objects missing from the tree: 1"
    assert_line "  lib/b.gcda"
    assert_line "objects in the tree without profile: 1"
    assert_line "  extra/new.o"
    run cat "$W/report"
    assert_line "  lib/b.gcda"
    assert_line "  extra/new.o"
    run kpgo stage --cc none --objtree "$W/opt" --json "$W/p.kpgo"
    echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["missing_from_tree"] == ["lib/b.gcda"], d
assert d["tree_without_profile"] == ["extra/new.o"], d
assert d["staged"] == 3
'
}

@test "the report: an unwritable path fails with the reason; an old one is replaced whole" {
    echo "old report" >"$W/report"
    chmod 0444 "$W/report"
    run kpgo stage --cc none --objtree "$W/opt" --report "$W/no/such/dir/report" "$W/p.kpgo"
    assert_failure 1
    assert_output --partial "cannot write '$W/no/such/dir/report'"
    run kpgo stage --cc none --objtree "$W/opt" --report "$W/report" "$W/p.kpgo"
    assert_success
    run cat "$W/report"
    assert_line --regexp '^staged: 3$'
    refute_line "old report"
    [ -z "$(find "$W" -maxdepth 1 -name '.report*' -o -maxdepth 1 -name 'report.*')" ]
}

@test "staging again removes stale .gcda files an older profile left" {
    echo junk >"$W/opt/lib/old.gcda"
    run kpgo stage --cc none --objtree "$W/opt" "$W/p.kpgo"
    assert_success
    assert_line "stale .gcda files removed: 1"
    [ ! -e "$W/opt/lib/old.gcda" ]
    [ -e "$W/opt/lib/a.gcda" ]
}

@test "stage never writes through a symbolic link in the tree" {
    mkdir "$W/elsewhere"
    rm -rf "$W/opt/lib"
    ln -s "$W/elsewhere" "$W/opt/lib"
    run kpgo stage --cc none --objtree "$W/opt" "$W/p.kpgo"
    assert_failure 1
    assert_output --partial "symbolic link"
    run ls -A "$W/elsewhere"
    assert_output ""
    # Nothing half-staged either.
    [ ! -e "$W/opt/main.gcda" ]
}

first_counters() {
    gcov-dump -l "$1" | awk '/COUNTERS arcs/ { getline; sub(/^.*[0-9]+: /, ""); print; exit }'
}

@test "sum_max above 32 bits: counters, runs and sum_max are divided alike" {
    # 3 * 2^31 runs of weight: the merged SUM_MAX passes 2^32.
    kpgo merge -q --weights 1000000 -o "$W/big1.kpgo" "$W/p.kpgo"
    kpgo merge -q --weights 1000000 -o "$W/big.kpgo" "$W/big1.kpgo"
    run kpgo stage --cc none --objtree "$W/opt" "$W/big.kpgo"
    assert_success
    assert_output --partial "counters divided by"
    run gcov-dump -l "$W/opt/main.gcda"
    sm=$(echo "$output" | sed -n 's/.*sum_max=\([0-9]*\).*/\1/p')
    big=$((SUM_MAX * 1000000000000))
    scale=$(((big - 1) / 4294967295 + 1))
    [ "$scale" -gt 1 ]
    assert_output --partial "runs=$(((1000000000000 + scale - 1) / scale)), sum_max=$(((big + scale - 1) / scale))"
    [ "$sm" -le 4294967295 ]
    # Every counter divided by the same factor, rounded up.
    first_counters "$W/build/main.gcda" >"$W/orig"
    first_counters "$W/opt/main.gcda" >"$W/staged"
    read -ra o <"$W/orig"
    read -ra s <"$W/staged"
    [ "${#o[@]}" -gt 0 ]
    for i in "${!o[@]}"; do
        [ "${s[$i]}" -eq $(((o[i] * 1000000000000 + scale - 1) / scale)) ]
    done
}

@test "flags: the optimized build's flags in one place" {
    run kpgo flags
    assert_success
    assert_output "-fprofile-use -fprofile-correction -Wno-error=coverage-mismatch -Wno-error=missing-profile -fprofile-partial-training"
    run kpgo flags --profile-dir /var/lib/kpgo/staged --make
    assert_output "KCFLAGS=-fprofile-use=/var/lib/kpgo/staged -fprofile-correction -Wno-error=coverage-mismatch -Wno-error=missing-profile -fprofile-partial-training"
    run kpgo flags --partial-training
    assert_output --partial " -fprofile-partial-training"
    # untrained code optimised for size made the packaged kernel slower on
    # workloads its training missed (docs/BENCHMARKS.md): off only on request
    run kpgo flags --no-partial-training
    assert_success
    assert_output "-fprofile-use -fprofile-correction -Wno-error=coverage-mismatch -Wno-error=missing-profile"
    run kpgo flags --profile-dir "a b"
    assert_failure 2
    run kpgo flags --ld
    assert_success
    assert_output ""
}

@test "flags --compiler clang: the sample profile's flags, for the compiler and the linker" {
    run kpgo flags --compiler clang --sample-profile /b/kpgo.afdo
    assert_success
    assert_output "-fprofile-sample-use=/b/kpgo.afdo -gline-tables-only -mllvm -sample-profile-check-record-coverage=101 -mllvm -sample-profile-check-sample-coverage=101"
    run kpgo flags --compiler clang --sample-profile /b/kpgo.afdo --make
    assert_output "KCFLAGS=-fprofile-sample-use=/b/kpgo.afdo -gline-tables-only -mllvm -sample-profile-check-record-coverage=101 -mllvm -sample-profile-check-sample-coverage=101"
    run kpgo flags --compiler clang --sample-profile /b/kpgo.afdo --ld
    assert_output "--lto-sample-profile=/b/kpgo.afdo"
    run kpgo flags --compiler clang --sample-profile /b/kpgo.afdo --json
    assert_success
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["compiler"] == "clang", d
assert d["cflags"].split()[:2] == ["-fprofile-sample-use=/b/kpgo.afdo", "-gline-tables-only"], d
assert d["ldflags"] == "--lto-sample-profile=/b/kpgo.afdo", d
' "$output"
    run kpgo flags --json
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d == {"compiler": "gcc", "cflags": sys.argv[2], "ldflags": ""}, d
' "$output" "$(kpgo flags)"
    # What each toolchain cannot take, and paths that are not one make word.
    for args in "--compiler clang" "--compiler clang --sample-profile /p --profile-dir /d" \
        "--compiler clang --sample-profile /p --partial-training" "--sample-profile /p" \
        "--compiler icc" "--compiler clang --sample-profile /p --ld --make" "--ld --json"; do
        read -ra words <<<"$args"
        run kpgo flags "${words[@]}"
        assert_failure 2
    done
    for p in "a b" "a'b" 'a"b' 'a\b' "a\$b" "" $'a\tb'; do
        run kpgo flags --compiler clang --sample-profile "$p"
        assert_failure 2
        assert_line --index 0 --partial "the sample profile must not be empty nor contain"
    done
}

@test "stage: 15,000 objects (a distro kernel's count) under ulimit -n 1024" {
    "$KPGO_TESTS_BIN/gen-profile" -q -n 15000 -f 1 -c 2 --no-gcno -o "$W/big"
    kpgo collect -q --gcov-dir "$W/big" --build-root /build/linux-6.1 -o "$W/big.kpgo"
    mkdir "$W/bigtree"
    run bash -c 'ulimit -n 1024 && exec "$0" stage --cc none --objtree "$1" "$2"' \
        "$KPGO" "$W/bigtree" "$W/big.kpgo"
    assert_success
    assert_line --partial "staged 15000 objects from '$W/big.kpgo'"
    # every object staged, and nothing else (no temporary file) left behind
    [ "$(find "$W/bigtree" -type f -name '*.gcda' | wc -l)" -eq 15000 ]
    [ "$(find "$W/bigtree" -type f | wc -l)" -eq 15000 ]
}

@test "SUM_MAX=2^64-1 in a manifest is refused, not wrapped into counters of 1" {
    with_manifest "$W/p.kpgo" "$W/huge.kpgo" SUM_MAX=18446744073709551615
    run kpgo stage --cc none --objtree "$W/opt" "$W/huge.kpgo"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial "manifest's SUM_MAX=18446744073709551615 is above the sum of all counters"
    [ -z "$(find "$W/opt" -name '*.gcda')" ]
}
