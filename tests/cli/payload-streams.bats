#!/usr/bin/env bats
# tests/tools/payload-streams and tests/bench/bench-archive-size.sh: the
# archive-size measurement splits every payload byte into one stream and
# gets the payload back from them.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
}

# value KEY: KEY's value in the tool's output ($output).
value() {
    awk -v k="$1" '$1 == k { print $2 }' <<<"$output"
}

@test "payload-streams accounts for every payload byte of a real profile and rebuilds it" {
    fixture_profile "$W/p.kpgo"
    run "$KPGO_TESTS_BIN/payload-streams" "$W/p.kpgo" "$W/s"
    assert_success
    assert_line "rebuilt payload_sha256"
    assert_line "objects 3"
    raw=$(tar --zstd -tvf "$W/p.kpgo" | awk '$6 ~ /^gcda\// { s += $3 } END { print s }')
    [ "$(value raw)" = "$raw" ]
    [ $(($(value raw.structure) + $(value raw.identity) + $(value raw.counters))) = "$raw" ]
    fns=$(value functions)
    [ "$(value raw.identity)" = $((12 * fns)) ]
    [ "$(stat -c %s "$W/s/identity")" = $((12 * fns)) ]
    [ "$(stat -c %s "$W/s/identity.cfg")" = $((4 * fns)) ]
    [ "$(value raw.counters)" = $((8 * $(value counters))) ]
    [ "$(value triple.distinct)" = "$fns" ]
    run cat "$W/s/names"
    assert_output "lib/a.gcda
lib/b.gcda
main.gcda"
}

@test "payload-streams counts functions that never ran" {
    # Training run with argument 0: the loop in main never calls a_work or b_work.
    fixture_profile "$W/p.kpgo" 0
    run "$KPGO_TESTS_BIN/payload-streams" "$W/p.kpgo" "$W/s"
    assert_success
    [ "$(value never_ran.functions)" = 2 ]
    [ "$(value never_ran.identity_bytes)" = 24 ]
}

@test "payload-streams refuses an archive that does not verify" {
    fixture_profile "$W/p.kpgo"
    head -c 100 "$W/p.kpgo" >"$W/cut.kpgo"
    run "$KPGO_TESTS_BIN/payload-streams" "$W/cut.kpgo" "$W/s"
    assert_failure 1
    assert_output --partial "payload-streams: cannot read"
    run "$KPGO_TESTS_BIN/payload-streams" "$W/p.kpgo"
    assert_failure 2
}

@test "bench-archive-size.sh reports a small synthetic and a real profile" {
    fixture_profile "$W/p.kpgo"
    KPGO=$KPGO KPGO_TESTS_BIN=$KPGO_TESTS_BIN OBJECTS=20 LEVELS=0 TMPDIR=$W \
        run "$BATS_TEST_DIRNAME/../bench/bench-archive-size.sh" "$W/p.kpgo"
    assert_success
    assert_line --partial "== synthetic:"
    assert_line --partial "== profile1: $W/p.kpgo"
    assert_line --regexp '^  streams, columns \+ zero bitmap, xz -9e +[0-9]+  1/[0-9.]+$'
    assert_line --regexp '^  identity floor: distinct hashes once, full width +[0-9]+  1/[0-9.]+$'
}
