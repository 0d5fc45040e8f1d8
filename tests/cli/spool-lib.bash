# What the kpgo spool tests (spool*.bats) share, loaded after helpers.
# shellcheck shell=bash

# spool_setup: each test's W; SPOOL, the spool (not made yet); the settings
# file naming it, with the workload redis; the state in W; and a copy of
# setup_file's gcov tree in $W/gcov, with a reset file as debugfs has.
spool_setup() {
    W=$BATS_TEST_TMPDIR
    SPOOL=$W/spool
    export KPGO_SETTINGS=$W/kpgo.conf KPGO_STATE_DIR=$W
    printf 'KPGO_SPOOL_DIR=%s\nKPGO_WORKLOAD=redis\n' "$SPOOL" >"$KPGO_SETTINGS"
    cp -a "$BATS_FILE_TMPDIR/gcov" "$W/gcov"
    : >"$W/gcov/reset"
}
