#!/usr/bin/env bats
# kpgo report: how much of a profile an optimized build applied, from the
# profile, the object tree and GCC's warnings in the build log.

# bats' run sets $output and $lines, which the tests read after it.
# shellcheck disable=SC2030,SC2031

load helpers
load report-lib
bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    fixture_profile "$W/p.kpgo"
    # The optimized build's tree (sources and objects together, as in a
    # kernel tree without O=): objects main.o, lib/a.o, lib/b.o.
    OBJ=$W/obj
    mkdir -p "$OBJ/lib"
    touch "$OBJ/main.o" "$OBJ/lib/a.o" "$OBJ/lib/b.o"
    OBJ_REAL=$(cd "$OBJ" && pwd -P)
}

# The count block the report prints on stderr, for a run of the profile's
# 3 objects and 3 functions: $1 objects applied, $2 functions in objects
# not compiled, $3 dropped, $4 stale, $5 at most, $6 applied, $7 objects
# and $8 functions without profile, $9 other, ${10} min, ${11} verdict.
counts() {
    printf '%s\n' \
        "profile objects: 3${STAGED:+ (staged $STAGED)}" \
        "profile objects applied: $1" \
        "profile objects applied, weighted by counts: $WEIGHTED%" \
        "profile functions: 3" \
        "profile functions in objects not compiled: $2" \
        "profile functions dropped (control flow or counters changed): $3" \
        "profile functions stale but applied (source lines moved): $4" \
        "profile functions applied, at most: $5" \
        "profile functions applied: $6" \
        "objects compiled without a profile (-Wmissing-profile): $7" \
        "functions compiled without a profile (-Wmissing-profile): $8" \
        "other profile warnings: $9" \
        "min applied: ${10}%" \
        "verdict: ${11}"
}

# The applied objects' share of the profile's counter sum, from kpgo info.
weighted() {
    kpgo info --json "$W/p.kpgo" | python3 -c '
import json, sys
d = json.load(sys.stdin); skip = sys.argv[1:]
objs = d["hottest_objects"]
a = sum(o["count"] for o in objs); b = sum(o["count"] for o in objs if o["object"] not in skip)
print("%.1f" % (100.0 * b / a))' "$@"
}

# A build log with every kind of profile warning, some twice, in GCC's
# UTF-8 quotes ($1 = utf8) or ASCII apostrophes ($1 = ascii).
synthetic_log() {
    local o="'" c="'"
    if [ "$1" = utf8 ]; then o=$'\xe2\x80\x98' c=$'\xe2\x80\x99'; fi
    cat <<EOF
make[1]: Entering directory '$OBJ_REAL'
  CC      main.o
main.c: In function ${o}main${c}:
main.c:3:5: warning: number of counters in profile data for function ${o}main${c} does not match its profile data (counter ${o}arcs${c}, expected 5 and have 4) [-Wcoverage-mismatch]
    3 | int main(int argc, char **argv)
      |     ^~~~
main.c:3:5: warning: source locations for function ${o}main${c} have changed, the profile data may be out of date [-Wcoverage-mismatch]
  CC      lib/a.o
lib/a.c:3:5: warning: source locations for function ${o}a_work${c} have changed, the profile data may be out of date [-Wcoverage-mismatch]
lib/a.c:3:5: warning: source locations for function ${o}a_work${c} have changed, the profile data may be out of date [-Wcoverage-mismatch]
lib/a.c:12:5: warning: profile for function ${o}a_new${c} not found in profile data [-Wmissing-profile]
lib/a.c:12:5: warning: profile for function ${o}a_new${c} not found in profile data [-Wmissing-profile]
lib/a.c:20:5: warning: profile for function ${o}a_newer${c} not found in profile data [-Wmissing-profile]
  CC      lib/b.o
  CC [M]  mod/m.o
mod/m.c: In function ${o}m_init${c}:
mod/m.c:1:1: warning: ${o}$OBJ_REAL/mod/m.gcda${c} profile count data file not found [-Wmissing-profile]
mod/m.c:9:1: warning: something GCC may say one day [-Wcoverage-mismatch]
  AR      built-in.a
EOF
}

@test "counts every kind of warning in a synthetic log, once per object and function" {
    synthetic_log utf8 >"$W/build.log"
    WEIGHTED=$(weighted)
    run --separate-stderr kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    assert_failure 1
    assert_output ""
    # main: dropped (and stale: counted as dropped only); a_work: stale, twice
    # in the log; a_new (twice) and a_newer: without profile; mod/m.o: no
    # .gcda; one other. At most 3 - 0 - 1 = 2, applied 2 - 2 = 0.
    [ "$stderr" = "$(counts '3 (100.0%)' 0 1 1 '2 (66.7%)' '0 (0.0%)' 1 2 1 50 \
        "FAILED: only 0.0% of the profile's functions applied, at least 50% required")
kpgo: only 0.0% of the profile's functions applied (at least 50% required); see $W/report" ] ||
        { echo "$stderr"; false; }
    [ "$WEIGHTED" = 100.0 ]
    run sed -n '/^== functions dropped/,/^== kpgo stage report/p' "$W/report"
    assert_output "$(printf '%s\n' \
        '== functions dropped (profile not used): object, where, function' \
        $'main.o\tmain.c:3:5\tmain' '' \
        '== functions stale but applied (source lines moved): object, where, function' \
        $'lib/a.o\tlib/a.c:3:5\ta_work' '' \
        '== profile objects not compiled in this build' '' \
        '== objects compiled without a profile' 'mod/m.o' '' \
        '== functions compiled without a profile: object, where, function' \
        $'lib/a.o\tlib/a.c:12:5\ta_new' $'lib/a.o\tlib/a.c:20:5\ta_newer' '' \
        '== other profile warnings: object, where, warning' \
        $'mod/m.o\tmod/m.c:9:1\tsomething GCC may say one day' '' \
        '== kpgo stage report')"
}

@test "UTF-8 quotes and ASCII apostrophes give the same report" {
    synthetic_log utf8 >"$W/utf8.log"
    synthetic_log ascii >"$W/ascii.log"
    run ! cmp -s "$W/utf8.log" "$W/ascii.log"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/utf8.log" -o "$W/r1" --min-applied 0
    assert_success
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/ascii.log" -o "$W/r2" --min-applied 0
    assert_success
    cmp "$W/r1" "$W/r2"
    grep -qx 'profile functions applied: 0 (0.0%)' "$W/r1"
}

@test "the warnings real GCC gives for a moved, changed and new function and a new object" {
    mkdir -p "$W/src2" "$OBJ/extra"
    make_program "$W/src2" 2
    BUILD=$(ls -d "$W"/fx.*/build)
    cp "$BUILD/main.c" "$OBJ/"
    printf 'int extra_fn(int x)\n{\n    return x + 1;\n}\n' >>"$OBJ/main.c"
    { printf '\n\n'; cat "$BUILD/lib/a.c"; } >"$OBJ/lib/a.c" # a_work moves down
    cp "$W/src2/lib/b.c" "$OBJ/lib/b.c"                     # b_work's control flow changes
    echo 'int new_fn(void) { return 1; }' >"$OBJ/extra/new.c"
    rm -f "$OBJ"/*.o "$OBJ"/lib/*.o
    run kpgo stage --cc gcc -q --objtree "$OBJ" --summary "$W/stage.json" "$W/p.kpgo"
    assert_success
    read -ra flags <<<"$(kpgo flags)"
    # As kbuild prints it with --output-sync, in GCC's UTF-8 quotes.
    (cd "$OBJ" && for f in main lib/a lib/b extra/new; do
        echo "  CC      $f.o"
        LC_ALL=C.UTF-8 gcc -O2 "${flags[@]}" -Wmissing-profile -c "$f.c" -o "$f.o" 2>&1 || exit 1
    done) >"$W/build.log"
    grep -q $'\xe2\x80\x98' "$W/build.log"
    STAGED=3 WEIGHTED=$(weighted)
    run --separate-stderr kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" \
        -s "$W/stage.json" --min-applied 33 -o "$W/report"
    assert_success
    [ "$stderr" = "$(counts '3 (100.0%)' 0 1 1 '2 (66.7%)' '1 (33.3%)' 1 1 0 33 \
        "ok: 33.3% of the profile's functions applied, at least 33% required")" ] ||
        { echo "$stderr"; cat "$W/build.log"; false; }
    grep -qx $'lib/b.o\tlib/b.c:1:5\tb_work' "$W/report"
    grep -qx $'lib/a.o\tlib/a.c:3:5\ta_work' "$W/report"
    grep -qx $'main.o\tmain.c:10:5\textra_fn' "$W/report"
    grep -qx 'extra/new.o' "$W/report"
}

@test "objects not compiled take their functions and counts out" {
    synthetic_log ascii >"$W/build.log"
    rm "$OBJ/lib/b.o"
    WEIGHTED=$(weighted lib/b.gcda)
    run --separate-stderr kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" \
        --min-applied 0 -o "$W/report"
    assert_success
    # 3 - 1 in lib/b - 1 dropped = 1 at most; 2 functions without profile.
    [ "$stderr" = "$(counts '2 (66.7%)' 1 1 1 '1 (33.3%)' '0 (0.0%)' 1 2 1 0 \
        "ok: 0.0% of the profile's functions applied, at least 0% required")" ] ||
        { echo "$stderr"; false; }
    run sed -n '/^== profile objects not compiled/,/^$/p' "$W/report"
    assert_output "$(printf '%s\n' '== profile objects not compiled in this build' lib/b.gcda '')"
    # The share is below 100% and above 0: lib/b ran.
    [ "$WEIGHTED" != 100.0 ] && [ "$WEIGHTED" != 0.0 ]
}

@test "exit 0 at or above --min-applied, 1 below with one line, the report written either way" {
    printf '  CC      main.o\nmain.c:3:5: warning: the control flow of function %s does not match its profile data [-Wcoverage-mismatch]\n' \
        "'main'" >"$W/build.log"
    # 2 of 3 functions applied: 66.7%.
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 66 -o "$W/r66"
    assert_success
    assert_output ""
    grep -qx "verdict: ok: 66.7% of the profile's functions applied, at least 66% required" "$W/r66"
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 67 -o "$W/r67"
    assert_failure 1
    assert_output "kpgo: only 66.7% of the profile's functions applied (at least 67% required); see $W/r67"
    grep -qx "verdict: FAILED: only 66.7% of the profile's functions applied, at least 67% required" "$W/r67"
    # The default is 50%.
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -o "$W/r"
    assert_success
    grep -qx "min applied: 50%" "$W/r"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 101
    assert_failure 2
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 5x
    assert_failure 2
}

@test "the head, the stage report and kpgo info's text are in the report" {
    synthetic_log ascii >"$W/build.log"
    mkdir -p "$OBJ/include/config"
    echo 6.1.0-99-pgo >"$OBJ/include/config/kernel.release"
    kpgo stage --cc none -q --objtree "$OBJ" --report "$W/stage.txt" --summary "$W/stage.json" \
        "$W/p.kpgo"
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/stage.json" \
        --header 'build seconds: 85' --header 'source file names: relative' --min-applied 0
    assert_success
    assert_line --index 0 "kpgo profile report for kernel 6.1.0-99-pgo"
    assert_line --index 1 "profile: $W/p.kpgo"
    assert_line --index 2 "profile sha256: $(sha256sum <"$W/p.kpgo" | cut -d' ' -f1)"
    assert_line --index 3 "build seconds: 85"
    assert_line --index 4 "source file names: relative"
    assert_line --index 5 "Definitions. A profile object is one .gcda in the profile; it applied if"
    assert_line "profile objects: 3 (staged 3)"
    [ "$(sed -n '/^== kpgo stage report$/,/^$/p' <<<"$output" | sed '1d;$d')" = "$(cat "$W/stage.txt")" ]
    [ "$(sed -n '/^== kpgo info$/,$p' <<<"$output" | sed 1d)" = "$(kpgo info "$W/p.kpgo")" ]
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -r 6.1.0-1 --min-applied 0
    assert_line --index 0 "kpgo profile report for kernel 6.1.0-1"
    assert_line "profile objects: 3"
    rm "$OBJ/include/config/kernel.release"
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 0
    assert_line --index 0 "kpgo profile report for kernel unknown"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --header 'no separator'
    assert_failure 2
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --header $'a: b\nc: d'
    assert_failure 2
}

@test "--policy: what the store's policy said, from kpgo plan's values, as a head line" {
    synthetic_log ascii >"$W/build.log"
    rep() {
        run --separate-stderr kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" \
            --min-applied 0 --policy "$1"
    }
    rep ok,3,1
    assert_success
    assert_line --index 3 "profile policy: ok (3 days old, 1 releases behind; the store's policy accepted it)"
    rep warn,20,
    assert_line --index 3 "profile policy: warn (20 days old, unknown releases behind; the store's policy accepted it)"
    rep overridden,,2
    assert_line --index 3 "profile policy: overridden (unknown days old, 2 releases behind; the store's policy refused it and the build overrode it with --override-policy)"
    rep none,,
    assert_success
    refute_line --partial "profile policy"
    for bad in '' ok ok,3 fine,1,1 'ok,3 days,1' ok,1,1,1 ok,-1,0 okay,1,1; do
        rep "$bad"
        assert_failure 2
        assert_equal "${stderr%%$'\n'*}" "kpgo report: bad --policy '$bad' (VERDICT,AGE,BEHIND: none, ok, warn or overridden, then days and releases or nothing)"
    done
}

@test "--stage-summary: kpgo stage's data, of this profile; the report says what stage said" {
    synthetic_log ascii >"$W/build.log"
    kpgo stage --cc none -q --objtree "$OBJ" --report "$W/stage.txt" --summary "$W/stage.json" \
        "$W/p.kpgo"
    # The data the report reads is what --json prints.
    [ "$(kpgo stage --cc none --json --objtree "$OBJ" "$W/p.kpgo")" = "$(cat "$W/stage.json")" ]
    run kpgo report --json -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/stage.json" \
        --min-applied 0
    assert_success
    python3 -c 'import json, sys; assert json.loads(sys.argv[1])["objects_staged"] == 3' "$output"
    run kpgo report --json -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 0
    python3 -c 'import json, sys; assert json.loads(sys.argv[1])["objects_staged"] is None' "$output"
    # The summary of another profile is refused, and nothing is written.
    kpgo merge -q -o "$W/q.kpgo" "$W/p.kpgo" "$W/p.kpgo"
    kpgo stage --cc none -q --objtree "$OBJ" --summary "$W/q.json" "$W/q.kpgo"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/q.json" -o "$W/r"
    assert_failure 1
    assert_output --regexp "^kpgo: '$W/q.json': it is the stage summary of another profile \('$W/q.kpgo', payload sha256 [0-9a-f]{16}\.\.\.\), not of '$W/p.kpgo'$"
    [ ! -e "$W/r" ]
    # The human report, or anything else that is not the summary, is refused.
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/stage.txt" -o "$W/r"
    assert_failure 1
    assert_output --partial "kpgo: cannot read '$W/stage.txt': "
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["staged"] = -1
json.dump(d, open(sys.argv[2], "w"))
d["staged"] = 3
d["missing_from_tree"] = ["a\nb"]
json.dump(d, open(sys.argv[3], "w"))
' "$W/stage.json" "$W/neg.json" "$W/ctl.json"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/neg.json"
    assert_failure 1
    assert_output "kpgo: cannot read '$W/neg.json': not a summary of kpgo stage: 'staged' is not a count (an integer, 0 or more)"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/ctl.json"
    assert_failure 1
    assert_output "kpgo: cannot read '$W/ctl.json': not a summary of kpgo stage: 'missing_from_tree' item 1 is not text"
    [ ! -e "$W/r" ]
}

@test "--json prints the counts, and the report goes only to -o" {
    synthetic_log ascii >"$W/build.log"
    run --separate-stderr kpgo report --json -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" \
        --min-applied 0 -o "$W/report"
    assert_success
    [ -z "$stderr" ]
    python3 - "$output" "$W/report" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
want = {"objects": 3, "objects_staged": None, "objects_applied": 3, "objects_applied_pct": 100.0,
        "functions": 3, "functions_in_objects_not_compiled": 0, "functions_dropped": 1,
        "functions_stale": 1, "functions_applied_at_most": 2, "functions_applied_at_most_pct": 66.7,
        "functions_applied": 0, "functions_applied_pct": 0.0, "objects_without_profile": 1,
        "functions_without_profile": 2, "other_warnings": 1, "min_applied": 0, "ok": True,
        "report": sys.argv[2]}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
assert not bad, bad
assert len(d["profile_sha256"]) == 64
PY
    run --separate-stderr kpgo report --json -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log"
    assert_failure 1
    [ "$stderr" = "kpgo: only 0.0% of the profile's functions applied (at least 50% required)" ]
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["ok"] is False and d["report"] is None' "$output"
}

@test "without -o the report goes to stdout and the counts to stderr" {
    synthetic_log ascii >"$W/build.log"
    run --separate-stderr kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 0
    assert_success
    assert_line --index 0 --regexp '^kpgo profile report for kernel '
    assert_line "profile functions dropped (control flow or counters changed): 1"
    [ "$(head -1 <<<"$stderr")" = "profile objects: 3" ]
    [ "$(tail -1 <<<"$stderr")" = "verdict: ok: 0.0% of the profile's functions applied, at least 0% required" ]
    run --separate-stderr kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log"
    assert_failure 1
    assert_line --index 0 --regexp '^kpgo profile report for kernel '
    [ "$stderr" = "kpgo: only 0.0% of the profile's functions applied (at least 50% required); see the report" ]
}

@test "a very long line in the log is skipped, said once, and breaks nothing" {
    {
        echo "  CC      main.o"
        head -c 3000000 /dev/zero | tr '\0' x
        echo " [-Wcoverage-mismatch]"
        echo "main.c:3:5: warning: the control flow of function 'main' does not match its profile data [-Wcoverage-mismatch]"
    } >"$W/build.log"
    run --separate-stderr kpgo report -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -o "$W/report"
    assert_success
    [ "$(grep -c . <<<"$stderr")" -eq 15 ]
    [ "$(head -1 <<<"$stderr")" = "kpgo: warning: 1 lines of '$W/build.log' longer than 65536 bytes were skipped" ]
    grep -qx 'profile functions dropped (control flow or counters changed): 1' "$W/report"
    grep -qx 'other profile warnings: 0' "$W/report"
    grep -qx $'main.o\tmain.c:3:5\tmain' "$W/report"
}

@test "a missing, truncated or garbage profile is refused with one line, nothing written" {
    synthetic_log ascii >"$W/build.log"
    refused "cannot read '$W/none.kpgo': No such file or directory\$" \
        -p "$W/none.kpgo" -t "$OBJ" -l "$W/build.log"
    head -c 300 "$W/p.kpgo" >"$W/t.kpgo"
    refused "cannot read '$W/t.kpgo': " -p "$W/t.kpgo" -t "$OBJ" -l "$W/build.log"
    head -c 4096 /dev/urandom >"$W/g.kpgo"
    refused "cannot read '$W/g.kpgo': " -p "$W/g.kpgo" -t "$OBJ" -l "$W/build.log"
    refused "cannot read '$W': " -p "$W" -t "$OBJ" -l "$W/build.log"
}

@test "a missing log, a directory, a binary file or a log without compiler lines is refused" {
    synthetic_log ascii >"$W/build.log"
    refused "cannot read '$W/none.log': No such file or directory\$" \
        -p "$W/p.kpgo" -t "$OBJ" -l "$W/none.log"
    refused "cannot read '$W': Is a directory\$" -p "$W/p.kpgo" -t "$OBJ" -l "$W"
    printf '  CC      main.o\n\0\1\2' >"$W/bin.log"
    refused "cannot read '$W/bin.log': NUL byte on line 2: not a text file\$" \
        -p "$W/p.kpgo" -t "$OBJ" -l "$W/bin.log"
    : >"$W/empty.log"
    refused "'$W/empty.log' is no kernel build log: it has no compiler lines" \
        -p "$W/p.kpgo" -t "$OBJ" -l "$W/empty.log"
    sed 's/^  CC.*/gcc -c x.c/' "$W/build.log" >"$W/v1.log"
    refused "'$W/v1.log' is no kernel build log" -p "$W/p.kpgo" -t "$OBJ" -l "$W/v1.log"
    refused "cannot open object tree '$W/none': No such file or directory\$" \
        -p "$W/p.kpgo" -t "$W/none" -l "$W/build.log"
    refused "cannot read '$W/none.txt': No such file or directory\$" \
        -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -s "$W/none.txt"
}

@test "usage errors exit 2" {
    run kpgo report -p "$W/p.kpgo" -t "$OBJ"
    assert_failure 2
    assert_line --index 0 "kpgo report: --profile (or --afdo), --objtree and --build-log are required"
    run kpgo report -p "$W/p.kpgo" -t "$OBJ" -l x extra
    assert_failure 2
    run kpgo report --bogus
    assert_failure 2
    run kpgo report --help
    assert_success
    assert_line --index 0 --partial "usage: kpgo report --profile FILE.kpgo"
}

@test "-o is written atomically: a failed write leaves no file, an old report stays whole" {
    synthetic_log ascii >"$W/build.log"
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" -o "$W/nodir/report"
    assert_failure 1
    assert_output "kpgo: cannot write '$W/nodir/report': No such file or directory"
    [ ! -e "$W/nodir" ]
    mkdir "$W/out"
    echo old >"$W/out/report"
    ln -s report "$W/out/link"
    run kpgo report -q -p "$W/p.kpgo" -t "$OBJ" -l "$W/build.log" --min-applied 0 -o "$W/out/report"
    assert_success
    grep -q '^verdict: ok' "$W/out/report"
    [ "$(find "$W/out" -mindepth 1 -printf '%f ' | tr ' ' '\n' | sort | tr '\n' ' ')" = "link report " ]
    [ "$(stat -c %a "$W/out/report")" = 644 ]
}
