#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kpgo afdo and the lines of functions GCC inlined before instrumenting:
# gcov counts them in the header, named for no function. -v says why they
# were left out; --inlined writes them under the inlined function's name,
# and Clang puts those counts on the inlined function's branch.

load helpers
bats_require_minimum_version 1.5.0

# inl() has no body in main.o: GCC inlines it before instrumenting.
# Line numbers matter: inl starts on line 2 of inl.h.
setup() {
    afdo_workdir
    cat >"$B/inl.h" <<'C'
int rare(int v);
static inline __attribute__((always_inline)) int inl(int v)
{
	if (v % 10 == 0)
		return rare(v);
	return v + 1;
}
C
    cat >"$B/main.c" <<'C'
#include "inl.h"
__attribute__((noinline)) int rare(int v)
{
	return v - 3;
}
int main(int argc, char **argv)
{
	int n = argc * 1000, s = 0;
	for (int i = 0; i < n; i++)
		s += inl(i);
	return s == 42 && argv;
}
C
    afdo_collect_main
}

@test "-v and --summary break the lines in no function down by cause" {
    run kpgo afdo -v --summary "$W/s.json" -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "kpgo afdo: line counts in no function, by cause (of all line counts): inlined_body 0.0% (0 lines), inlined_source 47.6% (3 lines)"
    assert_output --partial "recoverable with --inlined: 0 lines, 47.6% of all line counts"
    assert_line "  inlined_source inl.h:4 inl 1000"
    run grep -c '^inl:' "$W/out.txt"
    assert_output 0
    run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["unplaced_causes"]["inlined_source"]
print(c["lines"], c["samples"], c["header_samples"], d["inlined"], d["recovered_lines"], d["unplaced_examples"][0])
' "$W/s.json"
    assert_output "3 2000 2000 False 0 inlined_source inl.h:4 inl 1000"
}

@test "--inlined writes the inlined function's lines under its name, without an entry count" {
    run kpgo afdo -v --inlined --summary "$W/s.json" -o "$W/out.txt" "$W/p.kpgo"
    assert_success
    assert_output --partial "recovered (--inlined): 3 lines, 47.6% of all line counts"
    assert_output --partial "0.0% of the line counts in no function"
    run sed -n '/^inl:/,/^[^ ]/p' "$W/out.txt"
    assert_line --index 0 "inl:2000:0"
    assert_line --index 1 " 2: 1000"
    assert_line --index 2 " 3: 100"
    assert_line --index 3 " 4: 900"
}

@test "llvm-profdata 16 and 19 read the recovered records" {
    kpgo afdo -q --inlined -o "$W/out.txt" "$W/p.kpgo"
    local v n=0
    for v in 16 19; do
        command -v "llvm-profdata-$v" >/dev/null || continue
        n=$((n + 1))
        run "llvm-profdata-$v" merge --sample "$W/out.txt" -o "$W/p$v.afdo"
        assert_success
        run "llvm-profdata-$v" show --sample "$W/p$v.afdo"
        assert_success
        assert_line "Function: inl: 2000, 0, 3 sampled lines"
    done
    [ "$n" -gt 0 ] || skip "neither llvm-profdata-16 nor -19 is installed"
}

@test "clang puts the inlined function's counts on its branch in main, and not without --inlined" {
    need_tools llvm-profdata-16 clang-16
    kpgo afdo -q --inlined -o "$W/in.txt" "$W/p.kpgo"
    kpgo afdo -q -o "$W/flat.txt" "$W/p.kpgo"
    local v
    for v in 16 19; do
        command -v "clang-$v" >/dev/null || continue
        "llvm-profdata-$v" merge --sample "$W/in.txt" -o "$W/in.afdo"
        "llvm-profdata-$v" merge --sample "$W/flat.txt" -o "$W/flat.afdo"
        cd "$B"
        run "clang-$v" -O2 -gline-tables-only -fprofile-sample-use="$W/in.afdo" \
            -Rpass=sample-profile -S -emit-llvm main.c -o "$W/in.ll"
        assert_success
        # inl's branch (inl.h:4): rare() 100 times (line 5), v + 1 900 (line 6).
        assert_output --partial "./inl.h:6:11: remark: most popular destination for conditional branches at ./inl.h:4:6"
        run grep -c 'branch_weights", i32 101, i32 901}' "$W/in.ll"
        assert_output 1
        run "clang-$v" -O2 -gline-tables-only -fprofile-sample-use="$W/flat.afdo" \
            -Rpass=sample-profile -S -emit-llvm main.c -o "$W/flat.ll"
        assert_success
        refute_output --partial "inl.h"
        run grep -c 'branch_weights", i32 101, i32 901}' "$W/flat.ll"
        assert_output 0
        cd "$W"
    done
}
