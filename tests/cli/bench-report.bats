#!/usr/bin/env bats
# bench-report: the kernel benchmark's tables and plot (tests/tools/
# bench-report.c), from a small hand-made results file whose medians,
# ranges and ratios are worked out below.

# shellcheck disable=SC2016 # backquotes in the expected markdown, not commands
load helpers
bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    BR=$KPGO_TESTS_BIN/bench-report
    [ -x "$BR" ] || fail "bench-report not built: '$BR' (run make tools)"
    # wall, train, w1: baseline 1000/500/2000 ops/s (median 1000),
    #   pgo 1250/1111.1/1000 (median 1111.1): ratio 1.111
    # wall, heldout, w2: baseline 1000 and 2000 ops/s (even: median 1500),
    #   pgo 3000 and 3000: ratio 2
    # icount, train, w1: baseline 1000/1100/900 instructions per operation
    #   (median 1000), pgo 800 each: ratio 1000/800 = 1.25, -20% instructions
    # icount, calib: 200400 and 200600 ns per operation (median 200500)
    {
        printf 'mode\tround\tkernel\tmix\tworkload\tops\tseconds\taccel\n'
        printf 'wall\t1\tbaseline\ttrain\tw1\t1000\t1.0\ttcg\n'
        printf 'wall\t1\tpgo\ttrain\tw1\t1000\t0.8\ttcg\n'
        printf 'wall\t2\tbaseline\ttrain\tw1\t1000\t2.0\ttcg\n'
        printf 'wall\t2\tpgo\ttrain\tw1\t1000\t0.9\ttcg\n'
        printf 'wall\t3\tbaseline\ttrain\tw1\t1000\t0.5\ttcg\n'
        printf 'wall\t3\tpgo\ttrain\tw1\t1000\t1.0\ttcg\n'
        printf 'wall\t1\tbaseline\theldout\tw2\t1000\t1.0\ttcg\n'
        printf 'wall\t1\tpgo\theldout\tw2\t3000\t1.0\ttcg\n'
        printf 'wall\t2\tbaseline\theldout\tw2\t1000\t0.5\ttcg\n'
        printf 'wall\t2\tpgo\theldout\tw2\t3000\t1.0\ttcg\n'
        printf 'icount\t1\tbaseline\tcalib\twl-micro-calib\t100\t0.02004\ttcg-icount\n'
        printf 'icount\t1\tpgo\tcalib\twl-micro-calib\t100\t0.02006\ttcg-icount\n'
        printf 'icount\t1\tbaseline\ttrain\tw1\t1000\t0.001\ttcg-icount\n'
        printf 'icount\t1\tpgo\ttrain\tw1\t1000\t0.0008\ttcg-icount\n'
        printf 'icount\t2\tbaseline\ttrain\tw1\t1000\t0.0011\ttcg-icount\n'
        printf 'icount\t2\tpgo\ttrain\tw1\t1000\t0.0008\ttcg-icount\n'
        printf 'icount\t3\tbaseline\ttrain\tw1\t1000\t0.0009\ttcg-icount\n'
        printf 'icount\t3\tpgo\ttrain\tw1\t1000\t0.0008\ttcg-icount\n'
    } >"$W/r.tsv"
}

# The table row of workload $2 in the section whose heading contains $1.
row() {
    awk -v h="$1" -v w="| $2 |" '/^### / { on = index($0, h) > 0 } on && index($0, w) == 1' "$W/r.md"
}

@test "wall: median, min-max and the ratio of medians (kernel / baseline)" {
    run "$BR" -o "$W/r.md" "$W/r.tsv"
    assert_success
    run row 'wall), train mix' w1
    assert_output '| w1 | 1000 [500–2000] | 1111 [1000–1250] | 1.111 (+11.1%) |'
    run row 'wall), train mix' '**geometric mean**'
    assert_output '| **geometric mean** | | | **1.111 (+11.1%)** |'
}

@test "an even number of rounds: the median is the mean of the middle two" {
    run "$BR" -o "$W/r.md" "$W/r.tsv"
    assert_success
    # (n=2): fewer boots than the mode's 3 rounds
    run row 'wall), heldout mix' w2
    assert_output '| w2 | 1500 [1000–2000] (n=2) | 3000 [3000–3000] (n=2) | 2.000 (+100.0%) |'
}

@test "icount: instructions per operation, ratio baseline / kernel" {
    run "$BR" -o "$W/r.md" "$W/r.tsv"
    assert_success
    run row 'icount), train mix' w1
    assert_output '| w1 | 1000 [900–1100] | 800 [800–800] | 1.250 (-20.0% instr.) |'
    run grep -c 'lower is better' "$W/r.md"
    assert_output 1
    run grep -c 'under TCG (emulated CPU; not hardware speed)' "$W/r.md"
    assert_output 2
}

@test "the calibration against the loop's known instruction count" {
    run "$BR" --calib-insns 200000 -o "$W/r.md" "$W/r.tsv"
    assert_success
    run grep '^`wl-micro-calib`' "$W/r.md"
    assert_output --partial '200500 guest ns per operation, median [200400–200600], for a loop of 200000 instructions per operation: +0.25%'
}

@test "headers and the builds table go into the report" {
    printf 'kernel\trelease\tprofile\nbaseline\t6.1-baseline\tnone\npgo\t6.1-pgo\tok: 99.8%% applied\n' >"$W/b.tsv"
    run "$BR" --builds "$W/b.tsv" --header 'command: `make bench-kernel`' -o "$W/r.md" "$W/r.tsv"
    assert_success
    run grep -F -x -e '- command: `make bench-kernel`' -e '| pgo | 6.1-pgo | ok: 99.8% applied |' "$W/r.md"
    assert_line --index 0 '- command: `make bench-kernel`'
    assert_line --index 1 '| pgo | 6.1-pgo | ok: 99.8% applied |'
}

@test "the plot is well-formed SVG with one bar per workload, mix and mode" {
    run "$BR" -o "$W/r.md" --svg "$W/r.svg" "$W/r.tsv"
    assert_success
    run xmllint --noout "$W/r.svg"
    assert_success
    run head -2 "$W/r.svg"
    assert_line --index 1 --partial '<svg xmlns="http://www.w3.org/2000/svg"'
    run tail -1 "$W/r.svg"
    assert_output '</svg>'
    # bars carry a <title>: 3 panels with one workload and one kernel each
    run grep -c '<title>pgo ' "$W/r.svg"
    assert_output 3
    run grep -F '<title>pgo w1: 1.250 (range 1.250–1.250)</title>' "$W/r.svg"
    assert_success
}

@test "--medians: every cell's median, min and max as data (icount in instructions per operation)" {
    run "$BR" -o "$W/r.md" --medians "$W/m.tsv" "$W/r.tsv"
    assert_success
    run head -1 "$W/m.tsv"
    assert_output "$(printf 'mode\tmix\tworkload\tkernel\tn\tmedian\tmin\tmax')"
    run grep -P '^icount\ttrain\tw1\t' "$W/m.tsv"
    assert_line --index 0 "$(printf 'icount\ttrain\tw1\tbaseline\t3\t1000\t900\t1100')"
    assert_line --index 1 "$(printf 'icount\ttrain\tw1\tpgo\t3\t800\t800\t800')"
    run grep -P '^wall\theldout\tw2\tbaseline\t' "$W/m.tsv"
    assert_output "$(printf 'wall\theldout\tw2\tbaseline\t2\t1500\t1000\t2000')"
    # calib too: 200400 and 200600 instructions per operation
    run grep -c -P '^icount\tcalib\t' "$W/m.tsv"
    assert_output 2
}

@test "the report goes to stdout without -o" {
    run "$BR" "$W/r.tsv"
    assert_success
    assert_line '## Kernel benchmark results'
}

@test "bad or missing input: one line that says why, exit 1" {
    run "$BR" "$W/missing.tsv"
    assert_failure 1
    assert_output "bench-report: cannot read '$W/missing.tsv': No such file or directory"

    : >"$W/empty.tsv"
    run "$BR" "$W/empty.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/empty.tsv' is empty"

    printf 'mode\tround\n' >"$W/h.tsv"
    run "$BR" "$W/h.tsv"
    assert_failure 1
    assert_output --partial "bench-report: '$W/h.tsv': the first line is not the header"

    head -1 "$W/r.tsv" >"$W/n.tsv"
    run "$BR" "$W/n.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/n.tsv' has no results"

    { head -1 "$W/r.tsv"; printf 'wall\t1\tbaseline\ttrain\tw1\t1000\n'; } >"$W/f.tsv"
    run "$BR" "$W/f.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/f.tsv' line 2: not 8 tab-separated fields"

    sed '2s/\t1\.0\t/\t-1\t/' "$W/r.tsv" >"$W/s.tsv"
    run "$BR" "$W/s.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/s.tsv' line 2: bad seconds '-1'"

    sed '2s/^wall/walls/' "$W/r.tsv" >"$W/m.tsv"
    run "$BR" "$W/m.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/m.tsv' line 2: unknown mode 'walls' (wall, icount or cache-*)"

    grep -v baseline "$W/r.tsv" >"$W/b.tsv"
    run "$BR" "$W/b.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/b.tsv' has no results of the baseline kernel 'baseline'"

    printf 'x' >>"$W/r.tsv"
    run "$BR" "$W/r.tsv"
    assert_failure 1
    assert_output "bench-report: '$W/r.tsv' line 20: no newline at the end"
}

@test "usage errors exit 2" {
    run "$BR"
    assert_failure 2
    run "$BR" --calib-insns x "$W/r.tsv"
    assert_failure 2
    assert_output "bench-report: bad --calib-insns 'x'"
}

@test "a calibration further off than --calib-max-error fails, after writing the report" {
    run "$BR" --calib-insns 200000 --calib-max-error 1 -o "$W/r.md" "$W/r.tsv"
    assert_success
    run "$BR" --calib-insns 190000 --calib-max-error 5 -o "$W/r.md" "$W/r.tsv"
    assert_failure 1
    assert_output "bench-report: the calibration loop measured +5.53% against its 190000 instructions (more than 5%): icount's ns are not instructions here"
    run grep -c 'for a loop of 190000 instructions' "$W/r.md"
    assert_output 1
}

@test "bench-report: the cache modes are counts per operation, lower is better" {
    {
        printf 'mode\tround\tkernel\tmix\tworkload\tops\tseconds\taccel\n'
        # L1i misses: baseline 2000/1000 = 2 per op, pgo 1000/1000 = 1: ratio 2
        printf 'cache-l1i\t1\tbaseline\tforeign\tw1\t1000\t2000\ttcg-icount-cachesim\n'
        printf 'cache-l1i\t1\tpgo\tforeign\tw1\t1000\t1000\ttcg-icount-cachesim\n'
        # L2 misses: zero for pgo, no ratio
        printf 'cache-l2\t1\tbaseline\tforeign\tw1\t1000\t10\ttcg-icount-cachesim\n'
        printf 'cache-l2\t1\tpgo\tforeign\tw1\t1000\t0\ttcg-icount-cachesim\n'
        printf 'cache-cycles\t1\tbaseline\tforeign\tw1\t1000\t5000000\ttcg-icount-cachesim\n'
        printf 'cache-cycles\t1\tpgo\tforeign\tw1\t1000\t4000000\ttcg-icount-cachesim\n'
        # context switches: 2 per operation on both, not in the plot
        printf 'ctxsw\t1\tbaseline\tforeign\tw1\t1000\t2000\ttcg-icount\n'
        printf 'ctxsw\t1\tpgo\tforeign\tw1\t1000\t2000\ttcg-icount\n'
    } >"$W/cache.tsv"
    run "$BR" -o "$W/cache.md" --svg "$W/cache.svg" "$W/cache.tsv"
    assert_success
    run cat "$W/cache.md"
    assert_output --partial "### L1 instruction cache misses per operation (cache model), foreign mix"
    assert_output --partial "| w1 | 2.00 [2.00–2.00] | 1.00 [1.00–1.00] | 2.000 (-50.0% L1i misses) |"
    assert_output --partial "| w1 | 0.01 [0.01–0.01] | 0.00 [0.00–0.00] | — |"
    assert_output --partial "| w1 | 5000 [5000–5000] | 4000 [4000–4000] | 1.250 (-20.0% modelled cycles) |"
    # the plot has the modelled cycles, not every cache count
    run grep -c 'Modelled cycles per operation' "$W/cache.svg"
    assert_output 1
    run grep -c 'L1 instruction cache misses' "$W/cache.svg"
    assert_output 0
    run grep -c 'Context switches' "$W/cache.svg"
    assert_output 0
    run cat "$W/cache.md"
    assert_output --partial "### Context switches per operation (the whole guest's, /proc/stat), foreign mix"
    assert_output --partial "| w1 | 2.00 [2.00–2.00] | 2.00 [2.00–2.00] | 1.000 (+0.0% context switches) |"
    # a zero count is no count in the other modes
    printf 'mode\tround\tkernel\tmix\tworkload\tops\tseconds\taccel\nicount\t1\tbaseline\tx\tw\t1\t0\ttcg\n' >"$W/zero.tsv"
    run "$BR" "$W/zero.tsv"
    assert_failure 1
    assert_output --partial "bad seconds '0'"
}
