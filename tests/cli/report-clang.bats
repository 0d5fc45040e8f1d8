#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kpgo report --afdo: how much of a sample profile a Clang build applied,
# from the profile's text and the coverage warnings clang gives with
# -mllvm -sample-profile-check-{record,sample}-coverage=101. Generated
# profiles and logs test the counting and the hostile cases; one test
# compiles with clang-16, so the parser is held to the real compiler's lines.

# bats' run sets $output and $lines, which refused() reads.
# shellcheck disable=SC2030,SC2031

load helpers
bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    OBJ=$W/obj
    mkdir -p "$OBJ"
    # f0 to f9, each with TOTAL 60 and 3 records of 10, 20 and 30 samples;
    # f9 with TOTAL 0 (clang would skip it).
    for i in 0 1 2 3 4 5 6 7 8 9; do
        if [ "$i" = 9 ]; then echo "f$i:0:0"; else echo "f$i:60:10"; fi
        printf ' 0: 10\n 1: 20\n 2.1: 30 callee:30\n'
    done >"$W/p.txt"
}

# warn FILE:LINE N M NS MS: clang's two warnings for one function.
warn() {
    echo "warning: $1: $2 of $3 available profile records ($(($3 ? $2 * 100 / $3 : 100))%) were applied [-Wbackend-plugin]"
    echo "warning: $1: $4 of $5 available profile samples ($(($5 ? $4 * 100 / $5 : 100))%) were applied [-Wbackend-plugin]"
}

# Three objects, six reports of five functions: f.h:1 in two objects (the
# second with more records applied), two functions of one macro line
# (m.c:4) in one object; noise that is not counted.
fake_log() {
    echo "make[1]: Entering directory '$OBJ'"
    echo "  CC      kernel/m.o"
    warn ../include/f.h:1 1 3 10 60
    warn ../kernel/m.c:4 3 3 60 60
    echo "../kernel/m.c:9:5: warning: unused variable 'x' [-Wunused-variable]"
    warn ../kernel/m.c:4 2 3 30 60
    echo "2 warnings generated."
    echo "  HOSTCC  scripts/x.o"
    echo "  CC [M]  drivers/d.o"
    warn ../include/f.h:1 2 3 30 60
    warn ../drivers/d.c:20 0 3 0 60
    echo "  AR      built-in.a"
    echo "ld.lld: warning: ../kernel/m.c:4: 1 of 3 available profile records (33%) were applied"
}

# The count lines on stderr for the fake log and p.txt: $1 functions
# applied, $2 not applied, $3 min, $4 verdict.
counts() {
    printf '%s\n' \
        "compiler lines in the build log (objects compiled): 2" \
        "profile functions: 10 (records: 30, samples: 600)" \
        "profile functions with TOTAL 0, which clang skips: 1" \
        "coverage warnings in the log: 5 on records, 5 on samples; 1 repeated the FILE:LINE of another object (merged)" \
        "functions applied: $1: clang found their profile and reported its coverage (distinct FILE:LINE)" \
        "records applied: 7 of the 12 records of the applied functions (58.3%); 23.3% of all profile records" \
        "samples applied: 120 of the 240 samples of the applied functions (50.0%); 20.0% of all profile samples" \
        "functions not applied: $2: in the profile, but clang reported no coverage for them (not compiled in this configuration, renamed, no line information, or TOTAL 0)" \
        "coverage lines skipped as malformed: 0" \
        "min applied: $3%" \
        "verdict: $4"
}

@test "counts functions, records and samples from a profile and a log" {
    fake_log >"$W/build.log"
    run --separate-stderr kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" \
        --min-applied 40 -o "$W/report"
    assert_success
    assert_output ""
    # 4 sites: f.h:1 (its best: 2 of 3), m.c:4 twice, d.c:20. Records
    # applied 2+3+2+0 of 3+3+3+3, samples 30+60+30+0 of 4 x 60.
    [ "$stderr" = "$(counts '4 (40.0%)' 6 40 \
        "ok: 40.0% of the profile's functions applied, at least 40% required")" ] ||
        { echo "$stderr"; false; }
    # The report holds the same lines after its head and definitions.
    [ "$(sed -n '/^compiler lines in the build log/,$p' "$W/report")" = "$stderr" ]
    # Without -o the report goes to stdout.
    run --separate-stderr kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 40
    assert_success
    assert_line --index 0 "kpgo profile report (Clang sample profile)"
    [ "$output" = "$(cat "$W/report")" ]
    [ "$(tail -1 <<<"$stderr")" = "verdict: ok: 40.0% of the profile's functions applied, at least 40% required" ]
}

@test "the head: release, headers, the profile and its checksum, the definitions" {
    fake_log >"$W/build.log"
    mkdir -p "$OBJ/include/config"
    echo 6.1.0-99-pgo >"$OBJ/include/config/kernel.release"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 0 \
        --header 'compiler: clang-16' --header 'build seconds: 85'
    assert_success
    assert_line --index 0 "kpgo profile report (Clang sample profile)"
    assert_line --index 1 "kernel release: 6.1.0-99-pgo"
    assert_line --index 2 "compiler: clang-16"
    assert_line --index 3 "build seconds: 85"
    assert_line --index 4 "sample profile: $W/p.txt"
    assert_line --index 5 "sample profile sha256: $(sha256sum <"$W/p.txt" | cut -d' ' -f1)"
    assert_line --index 6 --regexp "^Definitions\. A profile function is one function of the sample profile"
    assert_line "--min-applied is checked against functions applied / profile functions."
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 0 -r 6.1.0-1
    assert_line --index 1 "kernel release: 6.1.0-1"
    rm "$OBJ/include/config/kernel.release"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 0
    assert_line --index 1 "kernel release: unknown"
}

@test "exit 0 at or above --min-applied, 1 below with one line, the report written either way" {
    fake_log >"$W/build.log"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 40 -o "$W/r40"
    assert_success
    assert_output ""
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 41 -o "$W/r41"
    assert_failure 1
    assert_output "kpgo: only 40.0% of the profile's functions applied (at least 41% required); see $W/r41"
    grep -qx "verdict: FAILED: only 40.0% of the profile's functions applied, at least 41% required" "$W/r41"
    # The default is 50%.
    run --separate-stderr kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log"
    assert_failure 1
    assert_line --index 0 "kpgo profile report (Clang sample profile)"
    [ "$(tail -1 <<<"$stderr")" = "kpgo: only 40.0% of the profile's functions applied (at least 50% required); see the report" ]
    [ "$(grep -c . <<<"$stderr")" -eq 12 ]
}

@test "more reports than profile functions are capped at the functions, and said" {
    {
        echo "  CC      a.o"
        for l in 1 2 3 4 5 6 7 8 9 10 11 12; do warn a.c:$l 3 3 60 60; done
    } >"$W/build.log"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    assert_success
    grep -qx "functions applied: 10 (100.0%): clang found their profile and reported its coverage (distinct FILE:LINE)" "$W/report"
    grep -qx "  (clang reported 12 distinct FILE:LINE, more than the profile has functions: counted as all of them)" "$W/report"
    grep -qx "functions not applied: 0: .*" "$W/report"
}

@test "--json prints the counts, and the report goes only to -o" {
    fake_log >"$W/build.log"
    run --separate-stderr kpgo report --json --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" \
        --min-applied 40 -o "$W/report"
    assert_success
    [ -z "$stderr" ]
    python3 - "$output" "$W/report" "$W/p.txt" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
want = {"mode": "clang", "kernel_release": "unknown", "profile": sys.argv[3], "report": sys.argv[2],
        "compiler_lines": 2, "functions": 10, "records": 30, "samples": 600,
        "functions_total_zero": 1, "coverage_records_warnings": 5, "coverage_samples_warnings": 5,
        "coverage_repeats": 1, "coverage_unpaired": 0, "coverage_malformed": 0, "log_long_lines": 0,
        "sites": 4, "functions_applied": 4, "functions_applied_pct": 40.0,
        "functions_applied_capped": False, "functions_not_applied": 6, "records_applied": 7,
        "records_of_applied": 12, "records_applied_pct": 58.3, "records_applied_of_all_pct": 23.3,
        "samples_applied": 120, "samples_of_applied": 240, "samples_applied_pct": 50.0,
        "samples_applied_of_all_pct": 20.0, "min_applied": 40, "ok": True}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
assert not bad, bad
assert len(d["profile_sha256"]) == 64
assert set(d) == set(want) | {"profile_sha256"}, set(d) ^ set(want)
PY
    grep -q '^verdict: ok' "$W/report"
    run --separate-stderr kpgo report --json --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log"
    assert_failure 1
    [ "$stderr" = "kpgo: only 40.0% of the profile's functions applied (at least 50% required)" ]
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["ok"] is False and d["report"] is None' "$output"
    # The GCC mode says its mode too.
    fixture_profile "$W/g.kpgo"
    echo "  CC      main.o" >"$W/gcc.log"
    run kpgo report --json -p "$W/g.kpgo" -t "$OBJ" -l "$W/gcc.log" --min-applied 0
    python3 -c 'import json, sys; assert json.loads(sys.argv[1])["mode"] == "gcc"' "$output"
}

@test "malformed coverage lines and over-long lines are skipped, counted and said" {
    {
        fake_log
        echo "warning: ../kernel/m.c:7: 4 of 3 available profile records (133%) were applied [-Wbackend-plugin]"
        echo "warning: ../kernel/m.c:0: 1 of 3 available profile records (33%) were applied [-Wbackend-plugin]"
        echo "warning: ../kernel/m.c:8: 1 of 99999999999999999999 available profile samples (0%) were applied"
        printf 'warning: x.c:1: 1 of 1 available profile records ('
        head -c 100000 /dev/zero | tr '\0' 9
        echo '%) were applied'
        printf 'warning: ../kernel/n.c:3: 1 of 3 available profile records (33%%) were applied\r\n'
        printf 'warning: ../kernel/n.c:3: 5 of 60 available profile samples (8%%) were applied'
    } >"$W/build.log"
    run --separate-stderr kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    assert_success
    [ "$(head -2 <<<"$stderr")" = "kpgo: warning: 1 lines of '$W/build.log' longer than 65536 bytes were skipped
kpgo: warning: 3 lines of '$W/build.log' that look like clang's coverage warnings are malformed and were skipped (the first: line 19)" ] ||
        { echo "$stderr"; false; }
    grep -qx "coverage lines skipped as malformed: 3 (the first on line 19 of the log)" "$W/report"
    grep -qx "log lines longer than 65536 bytes, skipped unread: 1" "$W/report"
    # n.c:3, with CR LF and without a newline at the end, is read: 5 of 10.
    grep -qx "functions applied: 5 (50.0%): .*" "$W/report"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    assert_success
    assert_output ""
}

# A run that must fail with exit 1, one line matching $1, and leave the old
# report (and nothing else) in $W/out.
refused() {
    local want=$1
    shift
    mkdir -p "$W/out"
    echo "the old report" >"$W/out/report"
    run kpgo report "$@" -o "$W/out/report"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
    assert_output --regexp "^kpgo: $want"
    [ "$(cat "$W/out/report")" = "the old report" ]
    [ "$(ls -A "$W/out")" = report ]
}

@test "a missing or malformed profile is refused with its line, nothing written" {
    fake_log >"$W/build.log"
    refused "cannot read '$W/none.txt': No such file or directory\$" \
        --afdo "$W/none.txt" -t "$OBJ" -l "$W/build.log"
    printf 'f:1:1\n 0: 1\nbroken\n' >"$W/bad.txt"
    refused "cannot read '$W/bad.txt': line 3: expected a function head 'NAME:TOTAL:HEAD'\$" \
        --afdo "$W/bad.txt" -t "$OBJ" -l "$W/build.log"
    printf 'f:1:1\n 0: 99999999999999999999\n' >"$W/big.txt"
    refused "cannot read '$W/big.txt': line 2: a count over 2\\^64-1\$" \
        --afdo "$W/big.txt" -t "$OBJ" -l "$W/build.log"
    printf 'f:1:1\ng:1:1\nf:2:2\n' >"$W/dup.txt"
    refused "cannot read '$W/dup.txt': line 3: function 'f' again \\(first on line 1\\)\$" \
        --afdo "$W/dup.txt" -t "$OBJ" -l "$W/build.log"
    : >"$W/empty.txt"
    refused "cannot read '$W/empty.txt': no function in it: not a sample profile\$" \
        --afdo "$W/empty.txt" -t "$OBJ" -l "$W/build.log"
    head -c 4096 /dev/urandom >"$W/random.txt"
    refused "cannot read '$W/random.txt': " --afdo "$W/random.txt" -t "$OBJ" -l "$W/build.log"
    refused "cannot read '$W': Is a directory\$" --afdo "$W" -t "$OBJ" -l "$W/build.log"
}

@test "a missing log, a binary file or a log without compiler lines is refused" {
    fake_log >"$W/build.log"
    refused "cannot read '$W/none.log': No such file or directory\$" \
        --afdo "$W/p.txt" -t "$OBJ" -l "$W/none.log"
    printf '  CC      a.o\n\0\1\2' >"$W/bin.log"
    refused "cannot read '$W/bin.log': NUL byte on line 2: not a text file\$" \
        --afdo "$W/p.txt" -t "$OBJ" -l "$W/bin.log"
    grep -v '^  CC' "$W/build.log" >"$W/v1.log"
    refused "'$W/v1.log' is no kernel build log: it has no compiler lines \\('  CC      x.o'; was it V=1\\?\\)\$" \
        --afdo "$W/p.txt" -t "$OBJ" -l "$W/v1.log"
    refused "cannot open object tree '$W/none': No such file or directory\$" \
        --afdo "$W/p.txt" -t "$W/none" -l "$W/build.log"
}

@test "usage errors exit 2: both modes at once, --stage-report with --afdo, missing options" {
    fake_log >"$W/build.log"
    run kpgo report --afdo "$W/p.txt" -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log"
    assert_failure 2
    assert_line --index 0 "kpgo report: --profile (GCC) and --afdo (Clang) exclude each other"
    run kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --stage-report "$W/s.txt"
    assert_failure 2
    assert_line --index 0 "kpgo report: --stage-report is for GCC builds, not with --afdo"
    run kpgo report --afdo "$W/p.txt" -t "$OBJ"
    assert_failure 2
    assert_line --index 0 "kpgo report: --profile (or --afdo), --objtree and --build-log are required"
    run kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 101
    assert_failure 2
    run kpgo report --afdo
    assert_failure 2
    run kpgo report --help
    assert_success
    assert_line --index 1 --partial "or: kpgo report --afdo PROFILE.txt"
    assert_output --partial "-sample-profile-check-record-coverage=101"
}

@test "-o is written atomically: a failed write leaves no file, an old report stays whole" {
    fake_log >"$W/build.log"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" -o "$W/nodir/report"
    assert_failure 1
    assert_output "kpgo: cannot write '$W/nodir/report': No such file or directory"
    [ ! -e "$W/nodir" ]
    mkdir "$W/out"
    echo old >"$W/out/report"
    ln -s report "$W/out/link"
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --min-applied 0 -o "$W/out/report"
    assert_success
    grep -q '^verdict: ok' "$W/out/report"
    [ "$(find "$W/out" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "link report " ]
    [ "$(stat -c %a "$W/out/report")" = 644 ]
}

@test "clang-16's own coverage warnings are counted: a header's function once, a macro's two" {
    command -v clang-16 >/dev/null || skip "clang-16 is not installed (tests/install-deps.sh)"
    mkdir -p "$W/src"
    cd "$W/src"
    # clamp: a static inline function of a header with a body in both
    # objects (one profile function, reported twice); twice and absplus:
    # two functions that one macro defines on line 3 of a.c; cold: TOTAL 0
    # in the profile, which clang skips; gone: not in the sources.
    cat >lib.h <<'C'
static inline __attribute__((noinline)) int clamp(int v, int hi)
{
	if (v > hi)
		return hi;
	return v;
}
C
    cat >a.c <<'C'
#include "lib.h"
#define TWO(a, b) int a(int x) { return x > 3 ? x * 2 : x; } int b(int x) { return x < 0 ? -x : x + clamp(x, 9); }
TWO(twice, absplus)
int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += clamp(i, 5) + twice(i);
	return s;
}
int cold(int x)
{
	return x - 1;
}
C
    cat >b.c <<'C'
#include "lib.h"
int other(int n)
{
	return clamp(n, 100);
}
C
    printf '%s\n' absplus:100:50 ' 0: 100' clamp:300:100 ' 0: 100' ' 1: 100' ' 2: 20' \
        ' 3: 80' cold:0:0 ' 0: 0' gone:50:5 ' 0: 50' other:20:10 ' 0: 10' ' 1: 10' \
        twice:200:100 ' 0: 200' work:1003:1 ' 0: 1' ' 2: 1' ' 3: 500' ' 4: 500' ' 5: 1' \
        >"$W/p.txt"
    # As kbuild prints it (with --output-sync): each object's line, then clang's messages.
    for f in a b; do
        echo "  CC      $f.o"
        clang-16 -O2 -gline-tables-only -fprofile-sample-use="$W/p.txt" \
            -mllvm -sample-profile-check-record-coverage=101 \
            -mllvm -sample-profile-check-sample-coverage=101 -c "$f.c" -o "$f.o" 2>&1 || exit 1
    done >"$W/build.log"
    # What clang said, as the counts below rely on it.
    grep -c 'available profile records' "$W/build.log" | grep -qx 6 || { cat "$W/build.log"; false; }
    grep -c '^warning: a\.c:3: .* available profile records' "$W/build.log" | grep -qx 2
    grep -c '^warning: \./lib\.h:1: .* available profile records' "$W/build.log" | grep -qx 2
    run ! grep -q 'a\.c:11:' "$W/build.log" # cold
    run --separate-stderr kpgo report --afdo "$W/p.txt" -t "$W/src" -l "$W/build.log" \
        -r 6.1.0-clang -o "$W/report"
    assert_success
    # 5 of 7 functions: clamp (once), twice, absplus, work, other. Records
    # and samples are clang's N and M: work 2 of 5 and 501 of 1003, twice
    # 1 of 1 and 200 of 200, clamp 1 of 4 and 20 of 300, absplus 1 of 1
    # and 100 of 100, other 0 of 2 and 0 of 20.
    [ "$stderr" = "$(printf '%s\n' \
        "compiler lines in the build log (objects compiled): 2" \
        "profile functions: 7 (records: 15, samples: 1673)" \
        "profile functions with TOTAL 0, which clang skips: 1" \
        "coverage warnings in the log: 6 on records, 6 on samples; 1 repeated the FILE:LINE of another object (merged)" \
        "functions applied: 5 (71.4%): clang found their profile and reported its coverage (distinct FILE:LINE)" \
        "records applied: 5 of the 13 records of the applied functions (38.5%); 33.3% of all profile records" \
        "samples applied: 821 of the 1623 samples of the applied functions (50.6%); 49.1% of all profile samples" \
        "functions not applied: 2: in the profile, but clang reported no coverage for them (not compiled in this configuration, renamed, no line information, or TOTAL 0)" \
        "coverage lines skipped as malformed: 0" \
        "min applied: 50%" \
        "verdict: ok: 71.4% of the profile's functions applied, at least 50% required")" ] ||
        { cat "$W/build.log"; echo "$stderr"; false; }
}
