#!/usr/bin/env bats
# Each test runs in its own subshell: KPGO_STORE set in one is meant for it alone.
# shellcheck disable=SC2030,SC2031
# kpgo store's freshness policy: the policy file, and what select does with
# it (age, warning age, distance in releases, crossing series, override),
# with Debian's real release strings.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# shellcheck disable=SC2030,SC2031 # each test sets KPGO_STORE for itself

load helpers
load store-lib

bats_require_minimum_version 1.5.0

setup_file() {
    program_gcov_tree
}

setup() {
    W=$BATS_TEST_TMPDIR
    export KPGO_STORE=$W/store
}

# stored RELEASE WINDOW_END [WORKLOAD]: a real profile of that kernel release,
# collected at WINDOW_END, added to the store; its object path on stdout.
stored() {
    local f=$W/$1.$2.kpgo
    profile "$W/raw.kpgo" "$1" 00 "${3:-test}"
    with_manifest "$W/raw.kpgo" "$f" "WINDOW_END=$2"
    kpgo store add -q "$f" >/dev/null
    sha=$(sha256sum "$f" | cut -d' ' -f1)
    echo "$(cd "$KPGO_STORE" && pwd -P)/objects/${sha:0:2}/$sha.kpgo"
}

policy() {
    mkdir -p "$KPGO_STORE"
    printf '%s\n' "$@" >"$KPGO_STORE/policy"
}

NOW=2026-12-01T00:00:00Z

@test "policy: the defaults without a file, the file's values, and bad files refused" {
    stored 6.1.0-57-cloud-amd64 2026-11-01T00:00:00Z >/dev/null
    run kpgo store policy
    assert_success
    # kpgo's defaults, chosen from the measured decay (docs/FORMAT.md)
    assert_output "MAX_AGE_DAYS=210
WARN_AGE_DAYS=60
MAX_DISTANCE=none
CROSS_SERIES=no
MIN_APPLIED=50"
    policy '# the farm' 'MAX_AGE_DAYS=42' 'WARN_AGE_DAYS=14' '' 'CROSS_SERIES=yes'
    run kpgo store policy --json
    assert_success
    python3 -c '
import json, sys
assert json.load(sys.stdin) == {"max_age_days": 42, "warn_age_days": 14, "max_distance": None,
                                "cross_series": True, "min_applied": 50}' <<<"$output"
    # an age limit under kpgo's default warning age: the default warning goes
    policy 'MAX_AGE_DAYS=42'
    run kpgo store policy
    assert_success
    assert_line 'MAX_AGE_DAYS=42'
    assert_line 'WARN_AGE_DAYS=none'
    # (a warning the file gives over the default limit is an error, below)
    for bad in 'MAX_AGE=3' 'MAX_AGE_DAYS=-1' 'MAX_AGE_DAYS=1e3' 'MAX_AGE_DAYS=99999999' \
        'CROSS_SERIES=maybe' 'MIN_APPLIED=101' 'no equals sign' \
        $'MAX_DISTANCE=3\nMAX_DISTANCE=4' $'MAX_AGE_DAYS=10\nWARN_AGE_DAYS=20' \
        'WARN_AGE_DAYS=300'; do
        printf '%s\n' "$bad" >"$KPGO_STORE/policy"
        run kpgo store policy
        assert_failure 1
        [ "${#lines[@]}" -eq 1 ]
        assert_output --regexp "^kpgo: .*/policy: "
        # select refuses to choose under a policy it cannot read
        run --separate-stderr kpgo store select --release 6.1.0-57-cloud-amd64
        assert_failure 1
        assert_output ""
    done
    # a symlink or a directory is not read
    rm "$KPGO_STORE/policy"
    echo 'MAX_AGE_DAYS=1' >"$W/elsewhere"
    ln -s "$W/elsewhere" "$KPGO_STORE/policy"
    run kpgo store policy
    assert_failure 1
    assert_output --partial "symlink"
    rm "$KPGO_STORE/policy"
    mkdir "$KPGO_STORE/policy"
    run kpgo store policy
    assert_failure 1
    assert_output --partial "not a regular file"
}

@test "policy: age — refused past MAX_AGE_DAYS, warned past WARN_AGE_DAYS, the fresher one chosen" {
    old=$(stored 6.1.192-3-pgo-instr 2026-09-01T00:00:00Z)
    policy MAX_AGE_DAYS=42 WARN_AGE_DAYS=14
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_failure 1
    assert_output ""
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" == *"the store's policy refused 1"*"91 days old, limit 42 days"* ]]
    # --override-policy takes it and says so
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW" \
        --override-policy --json
    assert_success
    [[ "$output" == *'"policy": {"verdict": "overridden", "why": "91 days old, limit 42 days", "expected_applied": 99.8}'* ]]
    [[ "$stderr" == *"policy refuses"*"--override-policy"* ]]
    # a profile 20 days old: chosen, with a warning
    warm=$(stored 6.1.192-3-pgo-instr 2026-11-11T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_success
    assert_output "$warm"
    [[ "$stderr" == *"warning: profile"*"20 days old, past the warning age of 14 days"* ]]
    # 10 days old: no warning; the old one still never chosen (select
    # prefers what the store added last: a second later)
    sleep 1
    fresh=$(stored 6.1.192-3-pgo-instr 2026-11-21T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW" --explain
    assert_success
    assert_output "$fresh"
    [[ "$stderr" != *"kpgo: warning"* ]]
    [[ "$stderr" == *"rank 2, fits, with a warning (20 days old, past the warning age of 14 days)"* ]]
    b=$(basename "$old")
    [[ "$stderr" == *"kpgo: considered ${b:0:12} release 6.1.192-3-pgo-instr window end 2026-09-01T00:00:00Z: rank 2, refused by the policy (91 days old, limit 42 days)"* ]]
    b=$(basename "$fresh")
    [[ "$stderr" == *"kpgo: considered ${b:0:12} release 6.1.192-3-pgo-instr window end 2026-11-21T00:00:00Z: rank 2, fits (10 days old, 0 releases behind, expected to apply about 99.8%)"* ]]
    # without a policy file, kpgo's defaults: a warning past 60 days, none
    # taken past 210
    rm "$KPGO_STORE/policy"
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now 2027-02-01T00:00:00Z
    assert_success
    assert_output "$fresh"
    [[ "$stderr" == *"warning: profile"*"72 days old, past the warning age of 60 days"* ]]
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now 2027-07-01T00:00:00Z
    assert_failure 1
    [[ "$stderr" == *"222 days old, limit 210 days"* ]]
    # a farm that wants no limits says so
    policy MAX_AGE_DAYS=none WARN_AGE_DAYS=none MAX_DISTANCE=none
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now 2030-01-01T00:00:00Z
    assert_success
    assert_output "$fresh"
    # a bad --now is a usage error
    run kpgo store select --release 6.1.192-3-pgo-instr --now yesterday
    assert_failure 2
    run kpgo store select --release 6.1.192-3-pgo-instr --now 2026-02-30T00:00:00Z
    assert_failure 2
}

@test "policy: a profile without a collection window has no age: refused under an age limit" {
    stored 6.1.192-3-pgo-instr "" >/dev/null
    policy MAX_AGE_DAYS=42
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"its age is unknown"* ]]
}

@test "policy: distance in releases, Debian's ABI names and upstream sublevels" {
    stored 6.1.0-50-cloud-amd64 2026-11-20T00:00:00Z >/dev/null
    a55=$(stored 6.1.0-55-cloud-amd64 2026-11-20T00:00:00Z)
    policy MAX_DISTANCE=3
    # 6.1.0-57 is 2 ABIs after 6.1.0-55: fits
    run --separate-stderr kpgo store select --release 6.1.0-57-cloud-amd64 --now "$NOW"
    assert_success
    assert_output "$a55"
    # 6.1.0-60 is 5 after 55 and 10 after 50: both refused
    run --separate-stderr kpgo store select --release 6.1.0-60-cloud-amd64 --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"refused 2, the best of them:"*"release 6.1.0-55-cloud-amd64) is 5 releases behind 6.1.0-60-cloud-amd64, limit 3"* ]]
    # upstream sublevels as kpgo's own and Debian 13's releases are named
    s187=$(stored 6.1.187-1-pgo-instr 2026-11-20T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.1.190-1-pgo-instr --now "$NOW"
    assert_success
    assert_output "$s187"
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"5 releases behind 6.1.192-3-pgo-instr, limit 3"* ]]
    t115=$(stored 6.12.115+deb12-cloud-amd64 2026-11-20T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW"
    assert_success
    assert_output "$t115"
    # an ABI name cannot be measured against a sublevel: refused under a limit
    export KPGO_STORE=$W/abi
    a55=$(stored 6.1.0-55-cloud-amd64 2026-11-20T00:00:00Z)
    policy MAX_DISTANCE=1000
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"cannot be measured against 6.1.192-3-pgo-instr"* ]]
    rm "$KPGO_STORE/policy"
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_success
    assert_output "$a55"
}

@test "policy: MIN_APPLIED against the share the measured decay expects to apply" {
    s187=$(stored 6.1.187-1-pgo-instr 2026-11-20T00:00:00Z)
    # 5 releases behind: 98.4% expected, above MIN_APPLIED 98
    policy MIN_APPLIED=98
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW" --explain
    assert_success
    assert_output "$s187"
    [[ "$stderr" == *"fits (11 days old, 5 releases behind, expected to apply about 98.4%)"* ]]
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW" --json
    assert_success
    [[ "$output" == *'"expected_applied": 98.4'* ]]
    # MIN_APPLIED 99: refused before anything is built, with the estimate
    policy MIN_APPLIED=99
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"release 6.1.187-1-pgo-instr) is expected to apply about 98.4% of its functions (5 releases behind: the measured decay), MIN_APPLIED 99%"* ]]
    # one release behind (99.3% expected) fits the same policy, and wins
    s191=$(stored 6.1.191-1-pgo-instr 2026-11-20T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.1.192-3-pgo-instr --now "$NOW"
    assert_success
    assert_output "$s191"
    # Debian's ABI names: the decay is measured in upstream releases, so no
    # estimate, and MIN_APPLIED is left to the report after the build
    export KPGO_STORE=$W/abi
    a55=$(stored 6.1.0-55-cloud-amd64 2026-11-20T00:00:00Z)
    policy MIN_APPLIED=100
    run --separate-stderr kpgo store select --release 6.1.0-57-cloud-amd64 --now "$NOW" --json
    assert_success
    [[ "$output" == *"\"path\": \"$a55\""* ]]
    [[ "$output" == *'"expected_applied": null'* ]]
}

@test "policy: crossing series only when CROSS_SERIES=yes, and never to a newer series" {
    s61=$(stored 6.1.192-3-pgo-instr 2026-11-20T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW"
    assert_failure 1
    policy CROSS_SERIES=yes
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW" --json
    assert_success
    [[ "$output" == *"\"path\": \"$s61\""* ]]
    [[ "$output" == *'"rank": 4'* ]]
    [[ "$output" == *"newest release 6.1.192-3-pgo-instr of an older series"* ]]
    [[ "$output" == *'"expected_applied": 69.8'* ]]
    # the measured 6.1 to 6.12 jump applied 69.8%: under MIN_APPLIED 70 refused
    policy CROSS_SERIES=yes MIN_APPLIED=70
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"is expected to apply about 69.8% of its functions (another series: the measured 6.1 to 6.12 jump), MIN_APPLIED 70%"* ]]
    policy CROSS_SERIES=yes
    # a profile of the series itself still wins
    s612=$(stored 6.12.110+deb12-cloud-amd64 2026-10-20T00:00:00Z)
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW"
    assert_success
    assert_output "$s612"
    # a 6.12 profile never builds 6.1
    run --separate-stderr kpgo store select --release 6.1.170-1-pgo-instr --now "$NOW"
    assert_failure 1
    # the distance limit applies across series: it cannot be measured
    export KPGO_STORE=$W/cross
    stored 6.1.192-3-pgo-instr 2026-11-20T00:00:00Z >/dev/null
    policy CROSS_SERIES=yes MAX_DISTANCE=50
    run --separate-stderr kpgo store select --release 6.12.118+deb12-cloud-amd64 --now "$NOW"
    assert_failure 1
    [[ "$stderr" == *"cannot be measured"* ]]
}
