#!/usr/bin/env bats
# decay-report: the decay benchmark's table, numbers and plot (tests/tools/
# decay-report.c), from hand-made medians (bench-report --medians), pairs
# and kpgo report --json counts whose gains are worked out below.

# shellcheck disable=SC2016 # backquotes in the expected markdown, not commands
load helpers
bats_require_minimum_version 1.5.0

# tab-separated lines from arguments joined by '|'
tsv() {
    local l
    for l in "$@"; do
        printf '%s\n' "${l//|/$'\t'}"
    done
}

setup() {
    W=$BATS_TEST_TMPDIR
    DR=$KPGO_TESTS_BIN/decay-report
    [ -x "$DR" ] || fail "decay-report not built: '$DR' (run make tools)"
    # 6.1.192-3 built with its own profile (pgo) and 6.1.170-3's:
    #   train, geometric means over w1 and w3: baseline sqrt(1000 x 4000)
    #   = 2000, pgo sqrt(900 x 3600) = 1800, pgo-6.1.170-3 sqrt(950 x 3800)
    #   = 1900: gain kept (2000 - 1900) / (2000 - 1800) = 50%
    #   heldout w2: baseline 2000, pgo 1800, pgo-6.1.170-3 2000: 0%
    #   (the wall and calib rows are not read)
    tsv 'mode|mix|workload|kernel|n|median|min|max' \
        'icount|calib|wl-micro-calib|baseline|3|200500|200400|200600' \
        'icount|train|w1|baseline|3|1000|990|1010' \
        'icount|train|w1|pgo|3|900|890|910' \
        'icount|train|w1|pgo-6.1.170-3|3|950|940|960' \
        'icount|train|w3|baseline|3|4000|3990|4010' \
        'icount|train|w3|pgo|3|3600|3590|3610' \
        'icount|train|w3|pgo-6.1.170-3|3|3800|3790|3810' \
        'icount|heldout|w2|baseline|3|2000|1990|2010' \
        'icount|heldout|w2|pgo|3|1800|1790|1810' \
        'icount|heldout|w2|pgo-6.1.170-3|3|2000|1990|2010' \
        'wall|train|w1|baseline|3|5|4|6' >"$W/m192.tsv"
    # 6.12.118 with its own profile and 6.1.192-3's: train 1000, 800, 900
    # (50%); heldout 2000, 2000, 1900: the fresh profile gained nothing
    tsv 'mode|mix|workload|kernel|n|median|min|max' \
        'icount|train|w1|baseline|3|1000|990|1010' \
        'icount|train|w1|pgo|3|800|790|810' \
        'icount|train|w1|pgo-6.1.192-3|3|900|890|910' \
        'icount|heldout|w2|baseline|3|2000|1990|2010' \
        'icount|heldout|w2|pgo|3|2000|1990|2010' \
        'icount|heldout|w2|pgo-6.1.192-3|3|1900|1890|1910' >"$W/m612.tsv"
    report_json 1000 800 30 150 50 20 >"$W/r170.json"
    report_json 1000 990 0 0 10 0 >"$W/r192.json"
    # 6.1.170-3 on 2026-05-08, 6.1.192-3 100 days later, 6.12.118 20 after that
    d170=1778270389 d192=$((1778270389 + 100 * 86400)) d612=$((1778270389 + 120 * 86400))
    tsv 'profile|profile_date|built|built_date|kernel|medians|report' \
        "6.1.170-3|$d170|6.1.192-3|$d192|pgo-6.1.170-3|$W/m192.tsv|$W/r170.json" \
        "6.1.192-3|$d192|6.1.192-3|$d192|pgo|$W/m192.tsv|$W/r192.json" \
        "6.1.192-3|$d192|6.12.118-1~deb12u1|$d612|pgo-6.1.192-3|$W/m612.tsv|-" >"$W/pairs.tsv"
}

# report_json FUNCTIONS APPLIED STALE DROPPED NOT_FOUND NOT_COMPILED
report_json() {
    printf '{"mode": "gcc", "kernel_release": "6.1.192-pgo", "functions": %s, ' "$1"
    printf '"functions_applied": %s, "functions_stale": %s, "functions_dropped": %s, ' "$2" "$3" "$4"
    printf '"functions_without_profile": %s, "functions_in_objects_not_compiled": %s, "ok": true}\n' "$5" "$6"
}

# The table row of the pair whose first two cells are $1 and $2.
row() {
    grep -F "| $1 | $2 |" "$W/d.md"
}

@test "gain kept against the built release's baseline and fresh profile, per mix" {
    run "$DR" -o "$W/d.md" "$W/pairs.tsv"
    assert_success
    run row 6.1.170-3 6.1.192-3
    assert_output '| 6.1.170-3 | 6.1.192-3 | 22 | 100 | 800 of 1000 (80.0%) | 30 | 150 | 50 | 20 | -5.00% (-10.00%) | 50% | +0.00% (-10.00%) | 0% |'
    run row '6.1.192-3 (fresh)' 6.1.192-3
    assert_output '| 6.1.192-3 (fresh) | 6.1.192-3 | 0 | 0 | 990 of 1000 (99.0%) | 0 | 0 | 10 | 0 | -10.00% (-10.00%) | 100% | -10.00% (-10.00%) | 100% |'
}

@test "across series: no releases apart, days only; no fresh gain: no gain kept" {
    run "$DR" -o "$W/d.md" "$W/pairs.tsv"
    assert_success
    run row 6.1.192-3 '6.12.118-1~deb12u1'
    assert_output '| 6.1.192-3 | 6.12.118-1~deb12u1 | 6.1 → 6.12 | 20 | – | – | – | – | – | -10.00% (-20.00%) | 50% | -5.00% (+0.00%) | none (no fresh gain) |'
}

@test "--tsv: one line per pair and mix" {
    run "$DR" -o "$W/d.md" --tsv "$W/d.tsv" "$W/pairs.tsv"
    assert_success
    run head -1 "$W/d.tsv"
    assert_output "$(tsv 'profile|built|kernel|mix|releases_apart|days_apart|workloads|baseline|fresh|profile_insns|gain_kept|functions|functions_applied|functions_stale|functions_dropped|functions_without_profile|functions_in_objects_not_compiled')"
    run grep -c . "$W/d.tsv"
    assert_output 7
    run grep -F "$(tsv '6.1.170-3|6.1.192-3|pgo-6.1.170-3|train|22|100.0|2|2000|1800|1900|0.5000|1000|800|30|150|50|20')" "$W/d.tsv"
    assert_success
    run grep -F "$(tsv '6.1.192-3|6.12.118-1~deb12u1|pgo-6.1.192-3|heldout|-|20.0|1|2000|2000|1900|-|-|-|-|-|-|-')" "$W/d.tsv"
    assert_success
}

@test "the plot: well-formed SVG, one point per pair and mix with a gain kept, per panel" {
    run "$DR" -o "$W/d.md" --svg "$W/d.svg" --header 'command: `make bench-decay`' "$W/pairs.tsv"
    assert_success
    run xmllint --noout "$W/d.svg"
    assert_success
    # releases apart: 4 points of 6.1 (two pairs, two mixes); days apart:
    # those and the 6.12 pair's train mix (a square: across series)
    run grep -c '<circle cx=[^>]*><title>' "$W/d.svg"
    assert_output 8
    run grep -c '<rect [^>]*><title>' "$W/d.svg"
    assert_output 1
    run grep -F '<title>6.1.170-3 profile on 6.1.192-3, train mix: 50%</title>' "$W/d.svg"
    assert_output --partial 'circle'
    run grep -F -x -- '- command: `make bench-decay`' "$W/d.md"
    assert_success
}

@test "bad input: one line that says why, exit 1; usage errors exit 2" {
    run "$DR" "$W/missing.tsv"
    assert_failure 1
    assert_output "decay-report: cannot read '$W/missing.tsv': No such file or directory"

    grep -v 'pgo-6.1.170-3' "$W/m192.tsv" >"$W/m.tsv"
    sed "s|$W/m192.tsv|$W/m.tsv|" "$W/pairs.tsv" >"$W/p.tsv"
    run "$DR" "$W/p.tsv"
    assert_failure 1
    assert_output "decay-report: '$W/m.tsv': no workload of the train mix has icount medians of baseline, pgo and pgo-6.1.170-3"

    printf '{"functions": 1}\n' >"$W/r170.json"
    run "$DR" "$W/pairs.tsv"
    assert_failure 1
    assert_output "decay-report: '$W/r170.json': 'functions_applied' is missing"

    sed '2s/^6\.1\.170-3/six/' "$W/pairs.tsv" >"$W/p.tsv"
    run "$DR" "$W/p.tsv"
    assert_failure 1
    assert_output "decay-report: '$W/p.tsv' line 2: bad release 'six' or '6.1.192-3'"

    { cat "$W/m192.tsv"; sed -n 3p "$W/m192.tsv"; } >"$W/m.tsv"
    sed "s|$W/m192.tsv|$W/m.tsv|" "$W/pairs.tsv" >"$W/p.tsv"
    run "$DR" "$W/p.tsv"
    assert_failure 1
    assert_output "decay-report: '$W/m.tsv' line 13: a second median of icount, train, w1, baseline"

    run "$DR"
    assert_failure 2
    run "$DR" --bogus "$W/pairs.tsv"
    assert_failure 2
}
