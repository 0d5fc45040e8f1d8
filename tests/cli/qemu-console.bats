#!/usr/bin/env bats
# tests/kernel/qemu.bash's kpgo_qemu_outcome: how e2e, the kernel benchmark
# and the training scripts judge a guest's run from its serial console.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

bats_require_minimum_version 1.5.0

TOP=$BATS_TEST_DIRNAME/../..

setup() {
    W=$BATS_TEST_TMPDIR
    # shellcheck source-path=SCRIPTDIR source=../kernel/qemu.bash
    . "$TOP/tests/kernel/qemu.bash"
}

@test "a run that printed its done line is good, carriage returns go from the console" {
    printf 'Linux version 6.1\r\n[  1.0] kpgo-e2e[300]: KPGO-E2E: step train on 6.1\r\n[  2.0] kpgo-e2e[300]: KPGO-E2E: done train\r\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO-E2E: 'done train' 0 60
    assert_success
    assert_output ""
    run grep -c $'\r' "$W/c"
    assert_output 0
    # the done line of another step is not this one's
    run kpgo_qemu_outcome "$W/c" KPGO-E2E: 'done install' 0 60
    assert_failure
    assert_output "the guest stopped before the end (qemu exit 0): [  2.0] kpgo-e2e[300]: KPGO-E2E: done train"
}

@test "the guest's FAIL line comes first, then a timeout, then a missing done line" {
    printf 'KPGO-BENCH: FAIL no disk\nKPGO-BENCH: done\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO-BENCH: 'done' 124 600
    assert_failure
    assert_output "the guest failed: no disk"
    printf 'KPGO-BENCH: mix train\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO-BENCH: 'done' 124 600
    assert_failure
    assert_output "the guest did not power off within 600s"
    printf 'KPGO-BENCH: mix train\nKernel panic - not syncing: VFS\n\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO-BENCH: 'done' 0 600
    assert_failure
    assert_output "the guest stopped before the end (qemu exit 0): Kernel panic - not syncing: VFS"
}

@test "DONE is a pattern to the end of the line: the training init's 'done, N gcda files'" {
    printf 'KPGO: release 6.1\nKPGO: done, 812 gcda files\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO: 'done.*' 0 60
    assert_success
    printf 'KPGO: release 6.1\nKPGO: workload done in 3s\n' >"$W/c"
    run kpgo_qemu_outcome "$W/c" KPGO: 'done.*' 0 60
    assert_failure
}
