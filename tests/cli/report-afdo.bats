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
load report-lib
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

# The definitions table of p.txt: f0 to f9 at ../kernel/f.c:1 to 10, a
# weak f1 at ../kernel/weak.c:3, a left-out static s.
fake_defs() {
    printf '# kpgo afdo defs 1\n'
    for i in 0 1 2 3 4 5 6 7 8 9; do printf 'f%s\tprofile\t../kernel/f.c\t%s\n' $i $((i + 1)); done
    printf '%s\t%s\t%s\t%s\n' f1 weak ../kernel/weak.c 3 s left-out ../kernel/s.c 4 \
        s left-out ../drivers/s.c 4
}

@test "--defs tells reports apart: a profile definition, a weak one, one outside the profile" {
    fake_defs >"$W/defs"
    {
        echo "  CC      kernel/f.o"
        warn ../kernel/f.c:1 1 3 10 60
        warn ../kernel/./f.c:3 3 3 60 60
        echo "  CC      kernel/weak.o"
        warn ../kernel/weak.c:3 2 3 30 60
        echo "  CC [M]  drivers/s.o"
        warn ../drivers/s.c:4 3 3 60 60
        warn ../drivers/x.c:12 3 3 60 60
    } >"$W/build.log"
    run --separate-stderr kpgo report --afdo "$W/p.txt" --defs "$W/defs" -t "$OBJ" \
        -l "$W/build.log" --min-applied 20 -o "$W/report"
    assert_success
    [ "$stderr" = "$(printf '%s\n' \
        "compiler lines in the build log (objects compiled): 3" \
        "profile functions: 10 (records: 30, samples: 600)" \
        "profile functions with TOTAL 0, which clang skips: 1" \
        "definitions table: 10 profile, 1 weak, 2 left out" \
        "coverage warnings in the log: 5 on records, 5 on samples; 0 repeated the FILE:LINE of another object (merged)" \
        "functions applied: 2 (20.0%): clang reported coverage at their definition (a profile line of the definitions table)" \
        "weak definitions compiled with the strong one's profile (dropped by the linker): 1" \
        "definitions outside the profile that took a profile by name: 2: each shares its name with a profile function but is another function (a static function of a file or module the profile does not cover), and clang compiled it with that function's counts: two functions of one name mixed" \
        "  ../drivers/s.c:4" \
        "  ../drivers/x.c:12" \
        "records applied: 4 of the 6 records of the applied functions (66.7%); 13.3% of all profile records" \
        "samples applied: 70 of the 120 samples of the applied functions (58.3%); 11.7% of all profile samples" \
        "functions not applied: 8: in the profile, but clang reported no coverage for them (not compiled in this configuration, renamed, no line information, or TOTAL 0)" \
        "coverage lines skipped as malformed: 0" \
        "min applied: 20%" \
        "verdict: ok: 20.0% of the profile's functions applied, at least 20% required")" ] ||
        { echo "$stderr"; false; }
    grep -qx "definitions table: $W/defs" "$W/report"
    grep -q "^Clang matches a profile by name alone" "$W/report"
    # Without the table the same log counts 5 functions applied.
    run kpgo report -q --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    grep -qx "functions applied: 5 (50.0%): .*" "$W/report"
    run ! grep -q "definitions table" "$W/report"
    # --json: the table's counts, and every site outside the profile.
    run --separate-stderr kpgo report --json --afdo "$W/p.txt" --defs "$W/defs" -t "$OBJ" \
        -l "$W/build.log" --min-applied 20
    assert_success
    python3 - "$output" "$W/defs" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
want = {"defs": sys.argv[2], "defs_profile": 10, "defs_weak": 1, "defs_left_out": 2,
        "sites": 5, "functions_applied": 2, "functions_applied_capped": False, "sites_weak": 1,
        "sites_outside": 2, "records_applied": 4, "records_of_applied": 6,
        "outside": [{"file": "../drivers/s.c", "line": 4, "ordinal": 1},
                    {"file": "../drivers/x.c", "line": 12, "ordinal": 1}]}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
assert not bad, bad
PY
}

@test "a malformed definitions table, or one of another profile, is refused with its line" {
    fake_log >"$W/build.log"
    fake_defs >"$W/defs"
    refused "cannot read '$W/none': No such file or directory\$" \
        --afdo "$W/p.txt" --defs "$W/none" -t "$OBJ" -l "$W/build.log"
    sed '1s/1$/2/' "$W/defs" >"$W/v2"
    refused "cannot read '$W/v2': line 1: a definitions table of format version 2; kpgo reads '# kpgo afdo defs 1'\$" \
        --afdo "$W/p.txt" --defs "$W/v2" -t "$OBJ" -l "$W/build.log"
    sed '4s/\t3$/\tthree/' "$W/defs" >"$W/bad"
    refused "cannot read '$W/bad': line 4: a line number that is not 1 to 4294967295\$" \
        --afdo "$W/p.txt" --defs "$W/bad" -t "$OBJ" -l "$W/build.log"
    sed '5s/profile/strong/' "$W/defs" >"$W/bad"
    refused "cannot read '$W/bad': line 5: a role that is not profile, weak or left-out\$" \
        --afdo "$W/p.txt" --defs "$W/bad" -t "$OBJ" -l "$W/build.log"
    { cat "$W/defs"; printf 'f3\tprofile\t../kernel/g.c\t1\n'; } >"$W/bad"
    refused "cannot read '$W/bad': line 15: a second 'profile' line for 'f3' \\(first on line 5\\)\$" \
        --afdo "$W/p.txt" --defs "$W/bad" -t "$OBJ" -l "$W/build.log"
    printf '# kpgo afdo defs 1\nf0\tprofile\ta.c\t1\n\0' >"$W/bin"
    refused "cannot read '$W/bin': NUL byte on line 3: not a text file\$" \
        --afdo "$W/p.txt" --defs "$W/bin" -t "$OBJ" -l "$W/build.log"
    refused "cannot read '$W/p.txt': line 1: not a definitions table of kpgo afdo \\(expected '# kpgo afdo defs 1'\\)\$" \
        --afdo "$W/p.txt" --defs "$W/p.txt" -t "$OBJ" -l "$W/build.log"
    # Tables of another profile: a name it lacks, or one it has left out, or too few lines.
    { cat "$W/defs"; printf 'gone\tprofile\ta.c\t1\n'; } >"$W/other"
    refused "'$W/other' is not the definitions table of '$W/p.txt': line 15: 'gone' is not in the profile\$" \
        --afdo "$W/p.txt" --defs "$W/other" -t "$OBJ" -l "$W/build.log"
    { cat "$W/defs"; printf 'f4\tleft-out\ta.c\t1\n'; } >"$W/other"
    refused "'$W/other' is not the definitions table of '$W/p.txt': line 15: 'f4' is left out, but the profile has it\$" \
        --afdo "$W/p.txt" --defs "$W/other" -t "$OBJ" -l "$W/build.log"
    grep -v '^f7' "$W/defs" >"$W/other"
    refused "'$W/other' is not the definitions table of '$W/p.txt': it has no 'profile' line for the profile's function 'f7'\$" \
        --afdo "$W/p.txt" --defs "$W/other" -t "$OBJ" -l "$W/build.log"
}

@test "usage errors exit 2: both modes at once, --stage-summary with --afdo, missing options" {
    fake_log >"$W/build.log"
    run kpgo report --afdo "$W/p.txt" -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log"
    assert_failure 2
    assert_line --index 0 "kpgo report: --profile (GCC) and --afdo (Clang) exclude each other"
    run kpgo report --afdo "$W/p.txt" -t "$OBJ" -l "$W/build.log" --stage-summary "$W/s.json"
    assert_failure 2
    assert_line --index 0 "kpgo report: --stage-summary is for GCC builds, not with --afdo"
    run kpgo report --afdo "$W/p.txt" -t "$OBJ"
    assert_failure 2
    assert_line --index 0 "kpgo report: --profile (or --afdo), --objtree and --build-log are required"
    run kpgo report --profile "$W/p.kpgo" --defs "$W/defs" -t "$OBJ" -l "$W/build.log"
    assert_failure 2
    assert_line --index 0 "kpgo report: --defs is for Clang builds, with --afdo"
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

@test "clang-16 gives a profile to another static function of its name: --defs says so" {
    need_tools clang-16 gcc-12 gcov-12
    # Physical paths: gcov reports the directory GCC ran in.
    P=$(cd "$W" && pwd -P)
    B=$P/src
    mkdir -p "$B/lib"
    # main.c and lib/other.c each have a static helper(); only main.c is
    # instrumented, so the profile's helper is main.c's, and lib/other.c's
    # is one it does not cover. pick() is strong in main.c and weak in
    # lib/weak.c (instrumented too); clamp() of lib/h.h is in all three.
    cat >"$B/lib/h.h" <<'C'
static inline __attribute__((noinline)) int clamp(int v, int hi)
{
	if (v > hi)
		return hi;
	return v;
}
int other(int x);
int pick(int x);
C
    cat >"$B/main.c" <<'C'
#include "lib/h.h"
static __attribute__((noinline)) int helper(int x)
{
	if (x & 1)
		return x * 3;
	return x / 2;
}
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 1000 + argc; i++)
		s += helper(i) + clamp(i, 50) + other(i) + pick(i);
	return s == 42;
}
int pick(int x)
{
	return x > 500;
}
C
    cat >"$B/lib/weak.c" <<'C'
#include "h.h"
__attribute__((weak)) int pick(int x)
{
	return x & 1;
}
C
    cat >"$B/lib/other.c" <<'C'
#include "h.h"
static __attribute__((noinline)) int helper(int x)
{
	return x > 10 ? x + 1 : x - 1;
}
int other(int x)
{
	return helper(x) + clamp(x, 9);
}
C
    cd "$B"
    for f in main lib/weak; do
        gcc-12 -O2 -fprofile-arcs -ftest-coverage -Wno-attributes -c "$f.c" -o "$f.o"
    done
    gcc-12 -O2 -Wno-attributes -c lib/other.c -o lib/other.o
    gcc-12 -fprofile-arcs main.o lib/weak.o lib/other.o -o prog
    ./prog
    gcov_tree "$B" "$P/gcov"
    kpgo collect -q --gcov-dir "$P/gcov" --kernel-release 6.1.0-clang --build-id 0123abcd \
        -o "$P/p.kpgo"
    kpgo afdo -q -o "$P/p.txt" --defs "$P/defs" "$P/p.kpgo"
    [ "$(cat "$P/defs")" = "$(printf '# kpgo afdo defs 1\n'
        printf '%s\t%s\t%s\t%s\n' clamp profile lib/h.h 1 helper profile main.c 2 \
            main profile main.c 8 pick profile main.c 15 pick weak lib/weak.c 2)" ] ||
        { cat "$P/defs"; false; }
    # Clang compiles all three with the converted profile, as kbuild prints it.
    for f in main lib/weak lib/other; do
        echo "  CC      $f.o"
        clang-16 -O2 -gline-tables-only -fprofile-sample-use="$P/p.txt" \
            -mllvm -sample-profile-check-record-coverage=101 \
            -mllvm -sample-profile-check-sample-coverage=101 -c "$f.c" -o "$P/x.o" 2>&1 || exit 1
    done >"$P/build.log"
    # What clang said: lib/other.c's helper took main.c's profile, and clamp
    # is named ./lib/h.h from main.c, lib/h.h from lib/other.c.
    grep -c '^warning: lib/other\.c:2: .* available profile records' "$P/build.log" | grep -qx 1 ||
        { cat "$P/build.log"; false; }
    grep -c '^warning: main\.c:2: .* available profile records' "$P/build.log" | grep -qx 1
    grep -c '^warning: lib/weak\.c:2: .* available profile records' "$P/build.log" | grep -qx 1
    grep -c '^warning: \(\./\)\?lib/h\.h:1: .* available profile records' "$P/build.log" | grep -qx 2
    run --separate-stderr kpgo report --afdo "$P/p.txt" --defs "$P/defs" -t "$B" \
        -l "$P/build.log" -r 6.1.0-clang -o "$P/report"
    assert_success
    echo "$stderr" >"$P/counts"
    grep -qx "definitions table: 4 profile, 1 weak, 0 left out" "$P/counts"
    grep -qx "coverage warnings in the log: 7 on records, 7 on samples; 1 repeated the FILE:LINE of another object (merged)" "$P/counts"
    grep -qx "functions applied: 4 (100.0%): clang reported coverage at their definition (a profile line of the definitions table)" "$P/counts"
    grep -qx "weak definitions compiled with the strong one's profile (dropped by the linker): 1" "$P/counts"
    grep -qx "definitions outside the profile that took a profile by name: 1: .*: two functions of one name mixed" "$P/counts"
    [ "$(grep -A1 '^definitions outside' "$P/counts" | tail -1)" = "  lib/other.c:2" ]
    grep -qx "functions not applied: 0: .*" "$P/counts"
    # The report holds the same count lines.
    [ "$(sed -n '/^compiler lines in the build log/,$p' "$P/report")" = "$stderr" ]
    # Without the table: six distinct FILE:LINE for four functions, capped.
    run kpgo report -q --afdo "$P/p.txt" -t "$B" -l "$P/build.log" -r 6.1.0-clang -o "$P/report"
    assert_success
    grep -qx "  (clang reported 6 distinct FILE:LINE, more than the profile has functions: counted as all of them)" "$P/report"
}
