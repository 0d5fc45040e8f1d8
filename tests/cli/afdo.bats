#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kpgo afdo: a gcov profile as an LLVM sample profile, and proof that Clang
# uses it.
#
# A small program stands in for the kernel: built with GCC's gcov options,
# run once, its .gcda files served as the kernel's debugfs serves them and
# collected with `kpgo collect`. `kpgo afdo` converts that profile; the
# text must hold GCC's line counts at the right offsets. Then
# `llvm-profdata-N merge --sample` reads it, and clang-N compiling the same
# sources with -fprofile-sample-use puts the counts on the program's branch
# (branch weights, remarks), where without the profile there is nothing
# (N: 16 and 19, Debian 12's two Clangs); and a ThinLTO link with
# --lto-sample-profile applies it at link time (Clang 16).
# The LLVM checks skip, saying so, where clang-N/llvm-profdata-N/lld-16
# are not installed (tests/install-deps.sh installs them).

# The fake gcov programs' bodies below are script text, expanded when they run.
# shellcheck disable=SC2016

load helpers
bats_require_minimum_version 1.5.0

# The program. main.c and lib/work.c each have a static helper() with
# another body (one name, two definitions); lib/util.h has a static inline
# clamp() that both objects give a body (one definition, two copies); pick()
# is weak in lib/work.c and strong in main.c (the linker keeps main.c's).
# Line numbers matter: the expected offsets below are counted from them.
make_afdo_program() {
    local dir=$1
    mkdir -p "$dir/lib"
    cat >"$dir/lib/util.h" <<'C'
static inline __attribute__((noinline)) int clamp(int v, int hi)
{
	if (v > hi)
		return hi;
	return v;
}
int pick(int x);
C
    cat >"$dir/main.c" <<'C'
#include <stdlib.h>
#include "lib/util.h"
int work(int x);
int rare(int x);
static __attribute__((noinline)) int helper(int x)
{
	if (x & 1)
		return x * 3;
	return x / 2;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, s = 0;
	for (int i = 0; i < n; i++) {
		if (i % 16 == 0)
			s += rare(i);
		else
			s += work(i);
		s += helper(i) + clamp(i, 100);
	}
	return s == 42;
}
int pick(int x)
{
	return x > 500;
}
C
    cat >"$dir/lib/work.c" <<'C'
#include "util.h"
static __attribute__((noinline)) int helper(int x)
{
	if (x > 10)
		return x + 1;
	return x - 1;
}
int
work(int x)
{
	int s = 0;
	for (int i = 0; i < (x & 7); i++)
		s += helper(i);
	return clamp(s, 20);
}
__attribute__((noinline)) int rare(int x)
{
	return pick(x) ? x - 1 : x + 1;
}
__attribute__((weak)) int pick(int x)
{
	return x & 1;
}
C
    (cd "$dir" && for f in main lib/work; do
        gcc-12 -O2 -fprofile-arcs -ftest-coverage -Wno-attributes -c "$f.c" -o "$f.o" || exit 1
    done && gcc-12 -fprofile-arcs main.o lib/work.o -o prog)
}

setup() {
    afdo_workdir
    make_afdo_program "$B"
    (cd "$B" && ./prog 1600)
    afdo_collect "$W/p.kpgo"
}

# fake_gcov NAME BODY: a gcov stand-in in $W/bin/NAME, whose --version says
# GCC 12.2.0 unless BODY handles it first; the real gcov-12 is "$REAL".
fake_gcov() {
    mkdir -p "$W/bin"
    {
        echo '#!/bin/bash'
        echo "REAL=$(command -v gcov-12)"
        echo "$2"
        echo '[ "$1" = --version ] && { echo "gcov (Debian 12.2.0-14) 12.2.0"; exit 0; }'
        echo "$3"
    } >"$W/bin/$1"
    chmod +x "$W/bin/$1"
}

# The conversion failed with one line matching $1, and wrote nothing.
failed_with() {
    assert_failure 1
    assert_output --regexp "^kpgo: .*$1"
    [ "${#lines[@]}" -eq 1 ] || { echo "more than one line"; false; }
    [ ! -e "$W/out.txt" ] || { echo "out.txt written"; false; }
    run find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'kpgo-afdo.*' -newer "$W/p.kpgo"
    assert_output ""
}

@test "afdo writes each function's line counts by offset from its first line" {
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "kpgo afdo: wrote 5 functions (17 lines)"
    run cat "$W/out.txt"
    # main starts on line 11: the loop (line 14) ran 1601 times, the
    # branch (15) 1600, rare() (16) every 16th time, work() (18) the rest.
    assert_line --index 0 "clamp:3100:3100"
    assert_line "main:6404:1"
    assert_line " 3: 1601"
    assert_line " 4: 1600"
    assert_line " 5: 100"
    assert_line " 7: 1500"
    # work's first line is its name's (line 9), as in Clang's debug info.
    assert_line "work:15700:1500"
    assert_line " 0: 1500"
    assert_line "rare:200:100"
    # The functions in byte order of their names, nothing else.
    run grep -v '^ ' "$W/out.txt"
    assert_output "$(printf '%s\n' clamp:3100:3100 main:6404:1 pick:200:100 rare:200:100 work:15700:1500)"
}

@test "two static functions of one name are left out, copies of one header function merged" {
    run kpgo afdo -v -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "1 names with several definitions (2 functions, 45.8% of the line counts)"
    assert_output --partial "1 copies of 1 functions merged"
    assert_line "  helper ($B/lib/work.c:2, $B/main.c:5)"
    run grep -c '^helper:' "$W/out.txt"
    assert_output 0
    # clamp: 1600 calls from main, 1500 from work, one definition in lib/util.h.
    run grep '^clamp:' "$W/out.txt"
    assert_output "clamp:3100:3100"
}

@test "a strong definition over a weak one of its name is written, told by the objects' symbols" {
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "1 weak definitions of 1 names overridden by a strong one"
    # main.c's pick (line 23), called by rare() 100 times; not lib/work.c's.
    run grep -A2 '^pick:' "$W/out.txt"
    assert_output "$(printf '%s\n' pick:200:100 ' 0: 100' ' 2: 100')"
    # Without the .o files, weak cannot be told from strong: left out.
    mkdir -p "$W/notes/lib"
    cp "$B/main.gcno" "$W/notes/"
    cp "$B/lib/work.gcno" "$W/notes/lib/"
    run kpgo afdo -v --objtree "$W/notes" -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "2 names with several definitions (4 functions"
    assert_line "  pick ($B/lib/work.c:20, $B/main.c:23)"
}

# The definitions table of the program: $B's sources as GCC was given them.
defs_table() {
    printf '# kpgo afdo defs 1\n'
    printf '%s\t%s\t%s\t%s\n' clamp profile lib/util.h 1
    if [ "${1:-}" = unbound ]; then
        printf '%s\t%s\t%s\t%s\n' helper left-out lib/work.c 2 helper left-out main.c 5 \
            main profile main.c 11 pick left-out lib/work.c 20 pick left-out main.c 23
    else
        printf '%s\t%s\t%s\t%s\n' helper left-out lib/work.c 2 helper left-out main.c 5 \
            main profile main.c 11 pick profile main.c 23 pick weak lib/work.c 20
    fi
    printf '%s\t%s\t%s\t%s\n' rare profile lib/work.c 16 work profile lib/work.c 9
}

@test "--defs writes the definitions behind the profile: written, weak, left out" {
    run kpgo afdo -q -o "$W/out.txt" --defs "$W/defs" "$W/p.kpgo"
    assert_success
    assert_output ""
    # clamp: one definition of a header, given by lib/work.c as util.h;
    # helper: two static ones (left out, in the order met); pick: main.c's
    # strong one written, lib/work.c's weak one beside it.
    [ "$(cat "$W/defs")" = "$(defs_table)" ] || { cat -A "$W/defs"; false; }
    [ "$(stat -c %a "$W/defs")" = 644 ]
    # A line per profile function, by name as in the profile.
    [ "$(awk -F '\t' '$2 == "profile" { print $1 }' "$W/defs")" = "$(sed -n 's/^\([^ ][^:]*\):.*/\1/p' "$W/out.txt")" ]
    # Without the .o files weak cannot be told from strong: both picks left out.
    mkdir -p "$W/notes/lib"
    cp "$B/main.gcno" "$W/notes/"
    cp "$B/lib/work.gcno" "$W/notes/lib/"
    kpgo afdo -q --objtree "$W/notes" -o "$W/out.txt" --defs "$W/defs" "$W/p.kpgo"
    [ "$(cat "$W/defs")" = "$(defs_table unbound)" ] || { cat -A "$W/defs"; false; }
}

@test "--defs: GCC's absolute source names are kept absolute, '.' and 'dir/..' removed" {
    # Compiled from elsewhere, by absolute names with ./ and ../ in them.
    (cd / && gcc-12 -O2 -fprofile-arcs -ftest-coverage -Wno-attributes -c "$B/./lib/../main.c" -o "$B/main.o" &&
        gcc-12 -fprofile-arcs "$B/main.o" "$B/lib/work.o" -o "$B/prog")
    rm -f "$B"/*.gcda "$B"/lib/*.gcda
    (cd "$B" && ./prog 1600)
    afdo_collect "$W/abs.kpgo"
    kpgo afdo -q -o "$W/out.txt" --defs "$W/defs" "$W/abs.kpgo"
    run grep -P '^(main|pick)\tprofile\t' "$W/defs"
    assert_output "$(printf 'main\tprofile\t%s\t11\npick\tprofile\t%s\t23' "$B/main.c" "$B/main.c")"
    # clamp, of both objects, keeps the name of its first copy (lib/work.o's,
    # compiled by relative names); kbuild gives every object's names alike.
    run grep -P '^clamp\t' "$W/defs"
    assert_output "$(printf 'clamp\tprofile\tlib/util.h\t1')"
}

@test "--defs is written only when the conversion succeeds, and not over -o" {
    echo old >"$W/defs"
    fake_gcov cut '' '"$REAL" "$@" | head -c 300'
    run kpgo afdo --gcov "$W/bin/cut" -o "$W/out.txt" --defs "$W/defs" "$W/p.kpgo"
    assert_failure 1
    [ "$(cat "$W/defs")" = old ]
    run kpgo afdo -o "$W/out.txt" --defs "$W/nodir/defs" "$W/p.kpgo"
    assert_failure 1
    assert_output "kpgo: cannot write '$W/nodir/defs': No such file or directory"
    run kpgo afdo -o "$W/out.txt" --defs "$W/out.txt" "$W/p.kpgo"
    assert_failure 2
    assert_line --index 0 "kpgo afdo: --defs and -o name the same file"
    run kpgo afdo -o "$W/out.txt" --defs "" "$W/p.kpgo"
    assert_failure 2
}

@test "afdo --json sums up what was written and left out" {
    run kpgo afdo -q --json -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["functions"], d["lines"], d["objects"], d["profile_objects"], d["ambiguous_names"],
      d["ambiguous_definitions"], d["merged_copies"], d["weak_names"], d["without_gcno"],
      d["ambiguous"][0].split()[0], d["defs"])
' /dev/stdin <<<"$output"
    assert_output "5 17 2 2 1 2 1 1 [] helper None"
    run kpgo afdo -q --json -o "$W/out.txt" --defs "$W/defs" "$W/p.kpgo"
    assert_success
    python3 -c 'import json, sys; assert json.loads(sys.argv[1])["defs"] == sys.argv[2]' "$output" "$W/defs"
}

# llvm-profdata-$1 reads the text profile
profdata_reads() {
    need_tools "llvm-profdata-$1"
    kpgo afdo -q -o "$W/out.txt" "$W/p.kpgo"
    run "llvm-profdata-$1" merge --sample "$W/out.txt" -o "$W/prof.afdo"
    assert_success
    run "llvm-profdata-$1" show --sample "$W/prof.afdo"
    assert_success
    assert_line "Function: main: 6404, 1, 8 sampled lines"
    assert_line "Function: work: 15700, 1500, 4 sampled lines"
    refute_output --partial "helper"
}

@test "llvm-profdata-16 reads the text profile" {
    profdata_reads 16
}

@test "llvm-profdata-19 reads the text profile" {
    profdata_reads 19
}

# The !prof metadata id on the definition of function $2 in LLVM IR file $1,
# and that metadata's text.
prof_of() {
    local id
    id=$(sed -n "s/^define .*@$2(.*!prof !\([0-9]*\) .*/\1/p" "$1")
    [ -n "$id" ] && sed -n "s/^!$id = //p" "$1"
}

# clang-$1 puts the converted counts on the program's branches, and nothing
# without them
counts_on_branches() {
    local clang=clang-$1
    need_tools "llvm-profdata-$1" "$clang"
    kpgo afdo -q -o "$W/out.txt" "$W/p.kpgo"
    "llvm-profdata-$1" merge --sample "$W/out.txt" -o "$W/prof.afdo"
    cd "$B" || return 1
    run "$clang" -O2 -gline-tables-only -fprofile-sample-use="$W/prof.afdo" \
        -Rpass=sample-profile -S -emit-llvm main.c -o "$W/main.ll"
    assert_success
    # The branch on line 15: rare() (line 16) 100 times, work() (line 18) 1500.
    assert_output --partial "main.c:18:9: remark: most popular destination for conditional branches at main.c:15:7"
    run grep -c 'branch_weights", i32 101, i32 1501}' "$W/main.ll"
    assert_output 1
    run prof_of "$W/main.ll" main
    assert_output '!{!"function_entry_count", i64 2}'
    # helper is not in the profile: Clang knows no count for it (-1).
    run prof_of "$W/main.ll" helper
    assert_output '!{!"function_entry_count", i64 -1}'
    "$clang" -O2 -gline-tables-only -fprofile-sample-use="$W/prof.afdo" -S -emit-llvm \
        lib/work.c -o "$W/work.ll"
    run prof_of "$W/work.ll" work
    assert_output '!{!"function_entry_count", i64 1501}'
    run prof_of "$W/work.ll" helper
    assert_output '!{!"function_entry_count", i64 -1}'

    # Without the profile: no counts, no remarks.
    run "$clang" -O2 -gline-tables-only -Rpass=sample-profile -S -emit-llvm main.c \
        -o "$W/plain.ll"
    assert_success
    assert_output ""
    run grep -c -e branch_weights -e function_entry_count "$W/plain.ll"
    assert_output 0
}

@test "clang-16 puts the converted counts on the program's branches, and nothing without them" {
    counts_on_branches 16
}

@test "clang-19 puts the converted counts on the program's branches, and nothing without them" {
    counts_on_branches 19
}

@test "a ThinLTO link with --lto-sample-profile applies the profile at link time" {
    need_tools llvm-profdata-16 clang-16 ld.lld-16 llvm-dis-16
    kpgo afdo -q -o "$W/out.txt" "$W/p.kpgo"
    llvm-profdata-16 merge --sample "$W/out.txt" -o "$W/prof.afdo"
    # Compiled with a profile that knows none of the program's functions:
    # the sample loader runs only on functions compiled with
    # -fprofile-sample-use (attribute "use-sample-profile"), but nothing is
    # annotated before the link.
    printf 'nothing_here:1:1\n 0: 1\n' >"$W/other.txt"
    llvm-profdata-16 merge --sample "$W/other.txt" -o "$W/other.afdo"
    mkdir "$W/lto"
    cd "$W/lto"
    clang-16 -O2 -gline-tables-only -flto=thin -fprofile-sample-use="$W/other.afdo" \
        -c "$B/main.c" -o main.o
    clang-16 -O2 -gline-tables-only -flto=thin -fprofile-sample-use="$W/other.afdo" \
        -c "$B/lib/work.c" -o work.o
    run sh -c 'llvm-dis-16 main.o -o - | grep -c branch_weights'
    assert_output 0
    run clang-16 -O2 -flto=thin -fuse-ld=lld-16 -Wl,--lto-sample-profile="$W/prof.afdo" \
        -Wl,-mllvm,-pass-remarks=sample-profile -Wl,--save-temps main.o work.o -o prog
    assert_success
    assert_output --regexp "main\.c:18:9: most popular destination for conditional branches at [^ ]*main\.c:15:7"
    # After the link's optimization, main's branch has the profile's weights.
    run sh -c 'llvm-dis-16 main.o.4.opt.bc -o - | grep -c "branch_weights\", i32 101, i32 1501}"'
    assert_output 1
    run ./prog 1600
    assert_success
}

@test "objects without a .gcno are left out and listed; none at all is an error" {
    rm "$B/lib/work.gcno"
    run kpgo afdo -v -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "from 1 of 2 objects"
    assert_output --partial "1 objects without .gcno"
    assert_line "  lib/work.gcda"
    run grep -c '^work:' "$W/out.txt"
    assert_output 0
    rm "$W/out.txt" "$B/main.gcno"
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "no object of '$W/p.kpgo' has its .gcno in '$B' \(2 without, 0 of another build\)"
}

@test "--objtree names where the .gcno files are; a copy of them alone will do" {
    mkdir -p "$W/notes/lib"
    cp "$B/main.gcno" "$W/notes/"
    cp "$B/lib/work.gcno" "$W/notes/lib/"
    rm -rf "$B"
    run kpgo afdo --objtree "$W/notes" -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "wrote 4 functions (15 lines)"
    assert_output --partial "2 names with several definitions"
    run kpgo afdo --objtree "$W/nowhere" -o "$W/out.txt" "$W/p.kpgo"
    assert_failure 1
    assert_output "kpgo: cannot use '$W/nowhere' as the .gcno directory: No such file or directory"
}

# compile_again [FILE...]: the program's objects compiled anew from the
# sources as they are now (GCC stamps each compilation: the .gcno is no
# longer the one of the build the profile came from).
compile_again() {
    (cd "$B" && for f in main lib/work; do
        gcc-12 -O2 -fprofile-arcs -ftest-coverage -Wno-attributes -c "$f.c" -o "$f.o" || exit 1
    done)
}

@test "the same code compiled again: its .gcno pairs by the functions' checksums, the same profile" {
    run kpgo afdo -o "$W/first.txt" "$W/p.kpgo"
    assert_success
    refute_output --partial "another compilation"
    compile_again
    run kpgo afdo -v --json -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "from 2 of 2 objects"
    assert_output --partial "0 objects without .gcno, 0 of another build"
    assert_output --partial "kpgo afdo: 2 objects' .gcno of another compilation, paired by their functions' idents and control flow checksums: 0 functions changed since (or gone) left out, 0 whose source lines moved kept with the .gcno's lines"
    assert_output --regexp '"rebuilt": \[[[:space:]]*"lib/work.gcda",[[:space:]]*"main.gcda"[[:space:]]*\]'
    cmp "$W/first.txt" "$W/out.txt"
}

@test "a changed function of another compilation is left out; one whose lines moved keeps its counts" {
    # Two lines in front of everything in lib/work.c (each function there
    # moves), and rare() with another control flow.
    { printf '/* moved */\n/* by two lines */\n'; cat "$B/lib/work.c"; } >"$W/work.c"
    sed -i 's/return pick(x) ? x - 1 : x + 1;/if (x > 99)\n\t\treturn 0;\n\treturn pick(x) ? x - 1 : x + 1;/' "$W/work.c"
    mv "$W/work.c" "$B/lib/work.c"
    grep -q 'x > 99' "$B/lib/work.c"
    compile_again
    run kpgo afdo -v -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "from 2 of 2 objects"
    # rare() changed; helper(), work() and pick() of lib/work.c moved.
    assert_output --partial "kpgo afdo: 2 objects' .gcno of another compilation, paired by their functions' idents and control flow checksums: 1 functions changed since (or gone) left out, 3 whose source lines moved kept with the .gcno's lines"
    run cat "$W/out.txt"
    # rare() changed: left out. work() moved: its counts, by offset from
    # its first line, as before; main.c's functions as before.
    refute_line --regexp '^rare:'
    assert_line "work:15700:1500"
    assert_line " 0: 1500"
    assert_line "main:6404:1"
    assert_line --index 0 "clamp:3100:3100"
}

@test "a .gcno of another build with none of the functions is left out; of another GCC, or not a .gcno, an error" {
    # lib/work.c replaced by other code: no function of the profile's is there.
    printf 'int other(int x)\n{\n\treturn x * 5;\n}\n' >"$B/lib/work.c"
    compile_again
    run kpgo afdo -v -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "0 objects without .gcno, 1 of another build"
    assert_line "  lib/work.gcda"
    rm "$W/out.txt"
    # Another compilation's .gcno is read through: cut short, an error.
    truncate -s 40 "$B/main.gcno"
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$B/main.gcno': .* at offset [0-9]+"
    # GCC 13's version stamp, 'B31*', in main.gcno.
    printf '*13B' | dd of="$B/main.gcno" bs=1 seek=4 conv=notrunc status=none
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$B/main.gcno' is of gcov version 'B31\*', but the profile of 'B22\*'"
    echo garbage >"$B/main.gcno"
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$B/main.gcno' is not a gcov notes file"
    # Not a regular file: refused without opening it for reading (a fifo
    # would otherwise wait for a writer forever).
    rm "$B/main.gcno"
    mkfifo "$B/main.gcno"
    run timeout 20 "$KPGO" afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "cannot read '$B/main.gcno': not a regular file"
    rm "$B/main.gcno"
    mkdir "$B/main.gcno"
    run kpgo afdo -o "$W/out.txt" "$W/p.kpgo"
    failed_with "cannot read '$B/main.gcno': not a regular file"
}

@test "a gcov of another GCC is refused before anything runs" {
    fake_gcov gcov-13 '[ "$1" = --version ] && { echo "gcov (Debian 13.1.0-1) 13.1.0"; exit 0; }' 'exit 9'
    run kpgo afdo --gcov "$W/bin/gcov-13" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$W/bin/gcov-13' is gcov of GCC 13.1.0, but the profile is of gcov version 'B22\*' \(GCC 12.2\): use that GCC's gcov"
    run kpgo afdo --gcov "$W/bin/none" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "cannot run '$W/bin/none': not found or not executable"
}

@test "gcov failing is an error with its message" {
    fake_gcov g '' 'echo "main.gcda:stamp mismatch with notes file" >&2; exit 5'
    run kpgo afdo --gcov "$W/bin/g" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$W/bin/g' failed with status 5: main.gcda:stamp mismatch with notes file"
    fake_gcov k '' 'kill -SEGV $$'
    run kpgo afdo --gcov "$W/bin/k" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$W/bin/k' was killed by signal 11"
}

@test "malformed output from gcov is an error that names the object" {
    fake_gcov cut '' '"$REAL" "$@" | head -c 300'
    run kpgo afdo --gcov "$W/bin/cut" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "malformed gcov output for 'lib/work.gcda': unexpected end of input at offset 300"
    fake_gcov notjson '' 'echo "Creating main.gcov"'
    run kpgo afdo --gcov "$W/bin/notjson" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "malformed gcov output for 'lib/work.gcda': unexpected character at offset 0"
    fake_gcov str '' '"$REAL" "$@" | sed "0,/\"count\": \([0-9]*\)/s//\"count\": \"\1\"/"'
    run kpgo afdo --gcov "$W/bin/str" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "malformed gcov output for 'lib/work.gcda': files\[0\]\.lines\[0\] 'count' is a string, not an integer"
    fake_gcov one '' '"$REAL" "$@" | head -1'
    run kpgo afdo --gcov "$W/bin/one" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "'$W/bin/one' printed nothing for 'main.gcda'"
    fake_gcov swap '' '"$REAL" "$@" | tac'
    run kpgo afdo --gcov "$W/bin/swap" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "malformed gcov output for 'lib/work.gcda': its data_file is 'main.gcda'"
    fake_gcov v13 '' '"$REAL" "$@" | sed "s/\"gcc_version\": \"12.2.0\"/\"gcc_version\": \"13.1.0\"/"'
    run kpgo afdo --gcov "$W/bin/v13" -o "$W/out.txt" "$W/p.kpgo"
    failed_with "gcov output for 'lib/work.gcda' is of GCC 13.1.0, the profile of gcov version 'B22\*'"
}

@test "a failed conversion leaves an existing output as it was" {
    echo old >"$W/keep.txt"
    fake_gcov cut '' '"$REAL" "$@" | head -c 300'
    run kpgo afdo --gcov "$W/bin/cut" -o "$W/keep.txt" "$W/p.kpgo"
    assert_failure 1
    run cat "$W/keep.txt"
    assert_output old
}

@test "gcov's messages on a successful run are a warning" {
    fake_gcov chatty '' 'echo "x.gcno:no lines for '"'"'f'"'"'" >&2; exec "$REAL" "$@"'
    run kpgo afdo --gcov "$W/bin/chatty" -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_line "kpgo: warning: gcov printed 1 message, the first: x.gcno:no lines for 'f'"
}

@test "--summary hands kpgo report the summary as data; the report's head says what afdo said" {
    fake_gcov chatty '' 'echo "x.gcno:no lines for '"'"'f'"'"'" >&2; exec "$REAL" "$@"'
    run --separate-stderr kpgo afdo --gcov "$W/bin/chatty" -o "$W/out.txt" --defs "$W/defs" \
        --summary "$W/sum.json" "$W/p.kpgo"
    assert_success
    # shellcheck disable=SC2154 # run --separate-stderr sets it
    said=$stderr
    # The --json document, and the sha256 of what it names.
    [ "$(kpgo afdo -q --gcov "$W/bin/chatty" --json -o "$W/out2.txt" --defs "$W/defs2" "$W/p.kpgo" |
        sed "s|$W/out2.txt|$W/out.txt|; s|$W/defs2|$W/defs|")" = "$(cat "$W/sum.json")" ]
    run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["output_sha256"], d["gcov_messages"], d["gcov_first_message"], d["functions"])
' "$W/sum.json"
    assert_output "$(sha256sum <"$W/out.txt" | cut -d' ' -f1) 1 x.gcno:no lines for 'f' 5"
    # Its lines in the report's head, after the --header lines, as kpgo afdo
    # printed them (without "kpgo: ").
    mkdir -p "$W/obj"
    printf '  CC      main.o\n' >"$W/build.log"
    run kpgo report -q --afdo "$W/out.txt" --afdo-summary "$W/sum.json" -t "$W/obj" \
        -l "$W/build.log" --min-applied 0 -H 'build seconds: 9'
    assert_success
    [ "$(sed -n '3,/^sample profile:/p' <<<"$output" | sed '$d')" = "build seconds: 9
${said//kpgo: warning: /warning: }" ] || { echo "$said"; echo "$output" | head; false; }
    # A summary of another sample profile is refused.
    echo 'other:1:1' >"$W/other.txt"
    echo ' 0: 1' >>"$W/other.txt"
    run kpgo report -q --afdo "$W/other.txt" --afdo-summary "$W/sum.json" -t "$W/obj" \
        -l "$W/build.log" --min-applied 0 -o "$W/r"
    assert_failure 1
    assert_output --regexp "^kpgo: '$W/sum.json': it is the summary of another sample profile \('$W/out.txt', sha256 [0-9a-f]{16}\.\.\.\), not of '$W/other.txt'$"
    [ ! -e "$W/r" ]
    # Not JSON, or JSON that is not a summary: one line, nothing written.
    run kpgo report -q --afdo "$W/out.txt" --afdo-summary "$W/defs" -t "$W/obj" -l "$W/build.log" -o "$W/r"
    assert_failure 1
    assert_output --partial "kpgo: cannot read '$W/defs': "
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["gcov_first_message"] = "a\x1b[2Jb"
json.dump(d, open(sys.argv[2], "w"))
d["gcov_first_message"] = ""
del d["functions"]
json.dump(d, open(sys.argv[3], "w"))
' "$W/sum.json" "$W/esc.json" "$W/short.json"
    run kpgo report -q --afdo "$W/out.txt" --afdo-summary "$W/esc.json" -t "$W/obj" -l "$W/build.log" -o "$W/r"
    assert_failure 1
    assert_output "kpgo: cannot read '$W/esc.json': not a summary of kpgo afdo: 'gcov_first_message' has control characters or is not UTF-8"
    run kpgo report -q --afdo "$W/out.txt" --afdo-summary "$W/short.json" -t "$W/obj" -l "$W/build.log" -o "$W/r"
    assert_failure 1
    assert_output "kpgo: cannot read '$W/short.json': not a summary of kpgo afdo: 'functions' is missing"
    [ ! -e "$W/r" ]
    run kpgo report --profile "$W/p.kpgo" --afdo-summary "$W/sum.json" -t "$W/obj" -l "$W/build.log"
    assert_failure 2
}

@test "--summary is written only when the conversion succeeds, and not over another output" {
    echo old >"$W/sum.json"
    fake_gcov cut '' '"$REAL" "$@" | head -c 300'
    run kpgo afdo --gcov "$W/bin/cut" -o "$W/out.txt" --summary "$W/sum.json" "$W/p.kpgo"
    assert_failure 1
    [ "$(cat "$W/sum.json")" = old ]
    run kpgo afdo -o "$W/out.txt" --summary "$W/out.txt" "$W/p.kpgo"
    assert_failure 2
    assert_line --index 0 "kpgo afdo: --summary and -o name the same file"
    run kpgo afdo -o "$W/out.txt" --defs "$W/d" --summary "$W/d" "$W/p.kpgo"
    assert_failure 2
    assert_line --index 0 "kpgo afdo: --summary and --defs name the same file"
}

@test "--list-objects: the objects afdo reads besides the .gcno files, from their symbols" {
    # extra.o defines only strong functions: not needed; scripts/ is the host's.
    printf 'int extra(int x)\n{\n\treturn x + 2;\n}\n' >"$B/extra.c"
    mkdir -p "$B/scripts"
    printf '__attribute__((weak)) int pick(int x)\n{\n\treturn x;\n}\n' >"$B/scripts/host.c"
    (cd "$B" && for f in extra scripts/host; do
        gcc-12 -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o" || exit 1
    done)
    # An object with a strong pick but no .gcno is not looked at.
    printf 'int pick(int x)\n{\n\treturn -x;\n}\n' >"$B/plain.c"
    (cd "$B" && gcc-12 -O2 -c plain.c -o plain.o)
    run kpgo afdo --list-objects --objtree "$B"
    assert_success
    # lib/work.c's weak pick and main.c's strong one.
    assert_output "$(printf '%s\n' lib/work.o main.o)"
    run kpgo afdo --list-objects --objtree "$B" -z
    assert_success
    [ "$(kpgo afdo --list-objects --objtree "$B" -z | tr '\0' '\n')" = "$(printf '%s\n' lib/work.o main.o)" ]
    # The .gcno files and those objects convert as the whole tree does.
    kpgo afdo -q -o "$W/tree.txt" --defs "$W/tree.defs" "$W/p.kpgo"
    (cd "$B" && { find . -path ./scripts -prune -o -name '*.gcno' -print; kpgo afdo --list-objects --objtree .; } |
        cpio -pd --quiet "$W/copy")
    kpgo afdo -q --objtree "$W/copy" -o "$W/copy.txt" --defs "$W/copy.defs" "$W/p.kpgo"
    cmp "$W/tree.txt" "$W/copy.txt"
    cmp "$W/tree.defs" "$W/copy.defs"
    # An object that is no ELF, or a link, is no definition.
    echo garbage >"$B/extra.o"
    ln -sf main.o "$B/lib/work.o"
    run kpgo afdo --list-objects --objtree "$B"
    assert_success
    assert_output ""
    # A tree with no object at all: nothing to list (no symbols to sort).
    mkdir "$W/empty"
    run kpgo afdo --list-objects --objtree "$W/empty"
    assert_success
    assert_output ""
    run kpgo afdo --list-objects --objtree "$W/nowhere"
    assert_failure 1
    assert_output "kpgo: cannot open '$W/nowhere': No such file or directory"
    run kpgo afdo --list-objects
    assert_failure 2
    run kpgo afdo --list-objects --objtree "$B" "$W/p.kpgo"
    assert_failure 2
    run kpgo afdo --list-objects --objtree "$B" -o "$W/out.txt"
    assert_failure 2
    run kpgo afdo -z -o "$W/out.txt" "$W/p.kpgo"
    assert_failure 2
}

@test "afdo usage errors" {
    run kpgo afdo "$W/p.kpgo"
    assert_failure 2
    assert_output --partial "-o OUT is required"
    run kpgo afdo -o "$W/out.txt"
    assert_failure 2
    run kpgo afdo --bogus -o "$W/out.txt" "$W/p.kpgo"
    assert_failure 2
    run kpgo afdo --help
    assert_success
    assert_output --partial "usage: kpgo afdo"
}

@test "a profile that is not an archive is refused with one line" {
    echo nonsense >"$W/bad.kpgo"
    run kpgo afdo -o "$W/out.txt" "$W/bad.kpgo"
    failed_with "cannot read '$W/bad.kpgo'"
}
