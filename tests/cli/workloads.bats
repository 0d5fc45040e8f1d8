#!/usr/bin/env bats
# The guest's workload programs (tests/bench/wl-*.c), run on the host as
# the guest runs them: each does its operations, prints its one result
# line and exits 0; a bad count is refused. (A deadlock in one of them
# would hang a training or benchmark boot until its timeout.)

load helpers

setup() {
    BIN=${KPGO_BUILD:?}/bench
}

# result NAME: the result line of a wl program
assert_result() {
    assert_success
    assert_output --regexp "^$1 ops=$2 seconds=[0-9]+\.[0-9]{6} ops_per_sec=[0-9.]+ what=\"[^\"]+\"\$"
}

@test "wl-thread: futex rounds of its threads and child process, one result line" {
    run timeout 60 "$BIN/wl-thread" -n 200
    assert_result wl-thread 200
}

@test "the training mix's programs each run a few operations" {
    for p in wl-syscall wl-pipe wl-fork; do
        run timeout 60 "$BIN/$p" -n 20
        assert_result "$p" 20
    done
}

@test "a bad count is refused with one line and exit 1" {
    for n in 0 -3 x 1x 99999999999999999999999; do
        run "$BIN/wl-thread" -n "$n"
        assert_failure 1
        assert_output "wl-thread: bad count '$n'"
    done
}

@test "wl-thread: a child process that dies ends the run with one line, not a hang" {
    "$BIN/wl-thread" -n 100000000 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
    parent=$!
    child=''
    for _ in $(seq 100); do
        child=$(pgrep -P "$parent" | head -1) && [ -n "$child" ] && break
        sleep 0.05
    done
    [ -n "$child" ] || fail "no child process of wl-thread"
    sleep 0.2
    kill -KILL "$child"
    rc=0
    timeout 20 tail --pid="$parent" -f /dev/null || rc=$?
    [ "$rc" = 0 ] || fail "wl-thread still runs after its child died"
    wait "$parent" || rc=$?
    [ "$rc" = 1 ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "wl-thread: the child process ended before its 100000000 rounds"
}
