#!/usr/bin/env bats
# kpgo info: function names from the .gcno files (--objtree), subsystems,
# coverage and shares, on the profile of a real program.

# shellcheck disable=SC2154 # bats' run --separate-stderr sets $stderr, $stderr_lines
load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    make_program "$W/build"
    run_program "$W/build" 3
    gcov_tree "$W/build" "$W/gcov"
    kpgo collect -q --gcov-dir "$W/gcov" --workload mix --kernel-release 6.1.0-test \
        --build-id 0123abcd -o "$W/p.kpgo"
}

# gcov_dump_name GCNO IDENT: the function name gcov-dump (GCC's own reader) gives IDENT.
gcov_dump_name() {
    gcov-dump -l "$1" | sed -n "s/.*FUNCTION ident=$2, .*\`\\([^']*\\)'.*/\\1/p"
}

@test "info --objtree names the hottest functions, as gcov-dump reads the .gcno" {
    command -v gcov-dump || skip "gcov-dump is not installed (it comes with gcc)"
    run kpgo info --objtree "$W/build" "$W/p.kpgo"
    assert_success
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  lib/a\.c:a_work$'
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  lib/b\.c:b_work$'
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  main\.c:main$'
    assert_output --partial "names: .gcno of 3 of 3 objects read; 3 of 3 functions named (3 exact, 0 changed since), 0 not; the named hold 100.0% of the counts"
    # a_work loops: the hottest function.
    [ "$(sed -n '/^hottest functions/{n;n;p}' <<<"$output" | awk '{print $3}')" = lib/a.c:a_work ]

    run kpgo info --json --top 100 --objtree "$W/build" "$W/p.kpgo"
    assert_success
    echo "$output" >"$W/info.json"
    python3 - "$W/info.json" <<'PY' >"$W/names"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1
assert d["names"]["functions_exact"] == 3 and d["names"]["functions_unnamed"] == 0
for f in d["hottest_functions"]:
    assert f["named"] == "exact" and f["line"] > 0
    print(f["object"][:-5] + ".gcno", f["ident"], f["name"], f["file"])
PY
    [ "$(wc -l <"$W/names")" -eq 3 ]
    while read -r gcno ident name file; do
        [ "$(gcov_dump_name "$W/build/$gcno" "$ident")" = "$name" ]
        [ "$file" = "${gcno%.gcno}.c" ]
    done <"$W/names"
}

@test "shares are counts over the profile's sum; coverage and subsystems add up" {
    run kpgo info --json --top 10000 --depth 1 "$W/p.kpgo"
    assert_success
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
s = d["totals"]["sum_all"]
fns = d["hottest_functions"]
assert s > 0 and sum(f["count"] for f in fns) == s, "the functions hold every count"
for f in fns:
    assert abs(f["share"] - f["count"] / s) < 1e-6
    assert f["name"] is None and f["named"] == "none"
assert d["names"] is None
c = d["coverage"]
assert (c["objects"], c["objects_run"], c["functions"], c["functions_run"]) == (3, 3, 3, 3), c
g = {x["directory"]: x for x in d["hottest_subsystems"]}
assert set(g) == {"lib", "."}, g
objs = {o["object"]: o["count"] for o in d["hottest_objects"]}
assert g["lib"]["count"] == objs["lib/a.gcda"] + objs["lib/b.gcda"]
assert g["."]["count"] == objs["main.gcda"]
assert abs(g["lib"]["share"] + g["."]["share"] - 1) < 1e-5
assert d["subsystem_depth"] == 1
' <<<"$output"
    run kpgo info "$W/p.kpgo"
    assert_line "coverage: 3 of 3 objects (100.0%) and 3 of 3 functions (100.0%) have counts"
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  +2/2  +2/2  +lib$'
}

@test "names from a copy of the .gcno files, from debugfs' links, from a rebuilt tree" {
    (cd "$W/build" && find . -name '*.gcno' | cpio -pd --quiet "$W/copy")
    [ ! -e "$W/copy/main.c" ]
    kpgo info --objtree "$W/build" "$W/p.kpgo" | sed 1d >"$W/want"
    kpgo info --objtree "$W/copy" "$W/p.kpgo" | sed 1d >"$W/got"
    diff -u "$W/want" "$W/got"
    kpgo info --objtree "$W/gcov$W/build" "$W/p.kpgo" | sed 1d >"$W/got"
    diff -u "$W/want" "$W/got"

    # The same sources built elsewhere: other stamps, same idents and checksums.
    make_program "$W/again"
    run kpgo info --json --objtree "$W/again" "$W/p.kpgo"
    assert_success
    python3 -c '
import json, sys
n = json.loads(sys.stdin.read())["names"]
assert n["objects_gcno"] == 3 and n["objects_other_build"] == 3 and n["functions_exact"] == 3, n
' <<<"$output"
    run kpgo info --objtree "$W/again" "$W/p.kpgo"
    assert_output --partial "names: .gcno of 3 of 3 objects read (3 of another compilation: matched by checksums); 3 of 3 functions named"
}

@test "a function whose control flow changed keeps its name, marked; no .gcno: unnamed" {
    make_program "$W/v2" 2
    run kpgo info --objtree "$W/v2" "$W/p.kpgo"
    assert_success
    assert_line --regexp 'lib/b\.c:b_work \(changed\)$'
    assert_output --partial "(2 exact, 1 changed since), 0 not"
    rm "$W/v2/lib/b.gcno"
    run kpgo info --json --objtree "$W/v2" "$W/p.kpgo"
    assert_success
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
n = d["names"]
assert n["objects_no_gcno"] == 1 and n["functions_unnamed"] == 1 and n["functions_exact"] == 2, n
b = [f for f in d["hottest_functions"] if f["object"] == "lib/b.gcda"][0]
assert b["name"] is None and b["named"] == "none", b
' <<<"$output"
    run kpgo info --objtree "$W/v2" "$W/p.kpgo"
    assert_line --regexp '  lib/b\.gcda ident [0-9]+$'
}

@test "a hostile .gcno: one error line naming it, exit 1, nothing printed" {
    cp -a "$W/build" "$W/bad"
    size=$(stat -c %s "$W/bad/lib/a.gcno")
    truncate -s $((size - 30)) "$W/bad/lib/a.gcno"
    run --separate-stderr kpgo info --objtree "$W/bad" "$W/p.kpgo"
    assert_failure 1
    [ -z "$output" ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ $stderr =~ ^kpgo:\ cannot\ read\ \'$W/bad/lib/a\.gcno\':\ .*\ at\ offset\ [0-9]+$ ]]

    rm "$W/bad/lib/a.gcno" && mkfifo "$W/bad/lib/a.gcno"
    run --separate-stderr timeout 10 "$KPGO" info --objtree "$W/bad" "$W/p.kpgo"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/bad/lib/a.gcno': not a regular file"

    run --separate-stderr kpgo info --objtree "$W/nowhere" "$W/p.kpgo"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot open '$W/nowhere': No such file or directory"

    printf 'oncg' >"$W/bad/main.gcno"
    rm "$W/bad/lib/a.gcno"
    run --separate-stderr kpgo info --objtree "$W/bad" "$W/p.kpgo"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/bad/main.gcno': truncated header at offset 4"
}

@test "names are shown safely: control bytes escaped in text, JSON escapes them" {
    cp -a "$W/build" "$W/evil"
    # a_work -> a<ESC>[&k: same length, so the record stays well-formed.
    python3 - "$W/evil/lib/a.gcno" <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
assert b.count(b"a_work\0") == 1
open(p, "wb").write(b.replace(b"a_work\0", b"a\x1b[&\xffk\0"))
PY
    run kpgo info --objtree "$W/evil" "$W/p.kpgo"
    assert_success
    assert_line --regexp 'lib/a\.c:a\\x1b\[&\\xffk$'
    [[ $output != *$'\x1b'* ]]
    run kpgo info --json --objtree "$W/evil" "$W/p.kpgo"
    assert_success
    # Valid JSON: the control byte escaped, the byte that is no UTF-8 as text.
    python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
names = [f["name"] for f in d["hottest_functions"]]
assert "a\x1b[&\\xffk" in names, names
' <<<"$output"
}

@test "info usage errors exit 2" {
    run kpgo info --depth 0 "$W/p.kpgo"
    assert_failure 2
    run kpgo info --depth 17 "$W/p.kpgo"
    assert_failure 2
    run kpgo info --top x "$W/p.kpgo"
    assert_failure 2
    run kpgo info --pgo-report x "$W/p.kpgo"
    assert_failure 2
    run kpgo info --json --html "$W/o.html" "$W/p.kpgo"
    assert_failure 2
    [ ! -e "$W/o.html" ]
    run kpgo info
    assert_failure 2
}

@test "a header's function is labelled with the object it was compiled into; an O= tree's ../ goes" {
    # The kernel's layout: the object tree inside the source tree, GCC given ../ names.
    mkdir -p "$W/src/include" "$W/src/fs" "$W/src/lib" "$W/src/obj/fs" "$W/src/obj/lib"
    cat >"$W/src/include/sq.h" <<'C'
static inline int sq(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += x;
    return s;
}
C
    cat >"$W/src/fs/calc.c" <<'C'
#include "../include/sq.h"
int one(void);
int main(int argc, char **argv)
{
    (void)argv;
    return sq(argc + 40) == one();
}
C
    printf 'int one(void)\n{\n    return 1;\n}\n' >"$W/src/lib/one.c"
    # -O0: GCC instruments before inlining only when it does not inline early.
    (cd "$W/src/obj" && gcc -O0 -fprofile-arcs -ftest-coverage -c ../fs/calc.c -o fs/calc.o &&
        gcc -O0 -fprofile-arcs -ftest-coverage -c ../lib/one.c -o lib/one.o &&
        gcc -fprofile-arcs fs/calc.o lib/one.o -o calc && ./calc) || true
    gcov_tree "$W/src/obj" "$W/gcov2"
    kpgo collect -q --gcov-dir "$W/gcov2" --kernel-release 6.1.0-test --build-id 0123abcd \
        -o "$W/calc.kpgo"
    run kpgo info --objtree "$W/src/obj" "$W/calc.kpgo"
    assert_success
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  include/sq\.h:sq \(in fs/calc\.o\)$'
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  fs/calc\.c:main$'
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  lib/one\.c:one$'
    run kpgo info --json --objtree "$W/src/obj" "$W/calc.kpgo"
    python3 -c '
import json, sys
f = {x["name"]: x for x in json.loads(sys.stdin.read())["hottest_functions"]}
assert f["sq"]["file"] == "include/sq.h" and f["sq"]["line"] == 1, f["sq"]
assert f["main"]["file"] == "fs/calc.c" and f["main"]["line"] == 3, f["main"]
' <<<"$output"
}
