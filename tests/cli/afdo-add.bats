#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kpgo afdo --add: the functions gcov cannot see (the kernel's noinstr code,
# GCC's no_profile_instrument_function) taken from another sample profile,
# such as llvm-profgen's of an uninstrumented kernel under
# tests/bench/blockprof.c; gcov's counts kept for every name it knows.

load helpers
bats_require_minimum_version 1.5.0

# entry() is built without instrumentation, as the kernel's noinstr
# functions are (__no_profile): gcov has no function of that name.
setup() {
    afdo_workdir
    cat >"$B/main.c" <<'C'
__attribute__((noinline, no_profile_instrument_function)) int entry(int v)
{
	if (v & 3)
		return v + 1;
	return v - 1;
}
__attribute__((noinline)) int work(int v)
{
	return v * 2;
}
int main(int argc, char **argv)
{
	int n = argc * 1000, s = 0;
	for (int i = 0; i < n; i++)
		s += entry(i) + work(i);
	return s == 42 && argv;
}
C
    afdo_collect_main
    # What llvm-profgen writes for such a run: entry (with a function
    # inlined into it), and work, which gcov knows.
    cat >"$W/blocks.txt" <<'T'
# comments and empty lines are not copied
entry:4000:1000
 1: 1000
 2: 750

 3: 250
  # not this one either
 4: 1000 helper:3
 5: inl:1000
  1: 1000
work:2000:1000
 1: 1000
 2: 1000
T
    printf '# kpgo afdo defs 1\n%s\t%s\t%s\t%s\n' entry profile main.c 1 work profile main.c 7 \
        >"$W/places"
}

# The conversion failed with one line matching $1, and wrote nothing.
failed_with() {
    assert_failure 1
    assert_output --regexp "^kpgo: .*$1"
    [ "${#lines[@]}" -eq 1 ] || { echo "more than one line"; false; }
    [ ! -e "$W/out.txt" ] || { echo "out.txt written"; false; }
    [ ! -e "$W/defs" ] || { echo "defs written"; false; }
}

@test "--add writes the functions gcov has no function of, as they are, and keeps gcov's" {
    kpgo afdo -q -o "$W/gcov-only.txt" "$W/p.kpgo"
    run kpgo afdo -o "$W/out.txt" --add "$W/blocks.txt" "$W/p.kpgo"
    assert_success
    assert_line --partial "added 1 functions (6 lines) of '$W/blocks.txt', whose names gcov has no function of; kept gcov's counts for 1 of its functions, left out 0 without a place"
    # gcov's profile first, unchanged; then entry's record whole, its
    # inlined callsite included; work is gcov's, once.
    {
        cat "$W/gcov-only.txt"
        sed -n '2,10p' "$W/blocks.txt" | grep -v -e '^$' -e '#'
    } >"$W/want.txt"
    diff -u "$W/want.txt" "$W/out.txt"
    run grep -c '^work:' "$W/out.txt"
    assert_output 1
    run kpgo afdo -q --json -o "$W/out.txt" --add "$W/blocks.txt" "$W/p.kpgo"
    assert_output --partial "\"added_from\": \"$W/blocks.txt\""
    assert_output --partial '"added_functions": 1'
    assert_output --partial '"added_samples": 4000'
    assert_output --partial '"added_known": 1'
}

@test "--add-places gives the added functions their definition lines, in byte order of the names" {
    run kpgo afdo -q -o "$W/out.txt" --defs "$W/defs" --add "$W/blocks.txt" --add-places "$W/places" "$W/p.kpgo"
    assert_success
    run cat "$W/defs"
    assert_output "$(printf '# kpgo afdo defs 1\nentry\tprofile\tmain.c\t1\nmain\tprofile\tmain.c\t11\nwork\tprofile\tmain.c\t7')"
    # every profile function has its line, and only they
    [ "$(awk -F '\t' '$2 == "profile" { print $1 }' "$W/defs")" = "$(sed -n 's/^\([^ ][^:]*\):.*/\1/p' "$W/out.txt" | sort)" ]
    # a function without a place is left out
    printf '# kpgo afdo defs 1\n%s\t%s\t%s\t%s\n' work profile main.c 7 >"$W/places"
    run kpgo afdo -o "$W/out.txt" --defs "$W/defs" --add "$W/blocks.txt" --add-places "$W/places" "$W/p.kpgo"
    assert_success
    assert_line --partial "added 0 functions (0 lines)"
    assert_line --partial "left out 1 without a place"
    run grep -c '^entry:' "$W/out.txt"
    assert_output 0
}

@test "llvm-profdata-16 reads the profile with the added functions" {
    command -v llvm-profdata-16 >/dev/null || skip "llvm-profdata-16 is not installed"
    kpgo afdo -q -o "$W/out.txt" --add "$W/blocks.txt" "$W/p.kpgo"
    run llvm-profdata-16 show --sample --function entry "$W/out.txt"
    assert_success
    assert_output --partial "Function: entry: 4000, 1000, 4 sampled lines"
    assert_output --partial "5: inlined callee: inl: 1000"
}

@test "a profile that is not a sample profile is refused with one line; nothing is written" {
    printf ' 1: 10\nentry:10:1\n' >"$W/bad.txt"
    run kpgo afdo -o "$W/out.txt" --defs "$W/defs" --add "$W/bad.txt" --add-places "$W/places" "$W/p.kpgo"
    failed_with "'$W/bad.txt' is not a sample profile kpgo can add: line 1: "
    printf 'entry:10:1\n 1: 10\nentry:10:1\n' >"$W/bad.txt"
    run kpgo afdo -o "$W/out.txt" --add "$W/bad.txt" "$W/p.kpgo"
    failed_with "line 3: function 'entry' again"
    printf 'entry:10:1\n 1: x\n' >"$W/bad.txt"
    run kpgo afdo -o "$W/out.txt" --add "$W/bad.txt" "$W/p.kpgo"
    failed_with "line 2: "
    printf 'ent\001ry:10:1\n' >"$W/bad.txt"
    run kpgo afdo -o "$W/out.txt" --add "$W/bad.txt" "$W/p.kpgo"
    failed_with "line 1: "
    run kpgo afdo -o "$W/out.txt" --add "$W/missing.txt" "$W/p.kpgo"
    failed_with "cannot read '$W/missing.txt'"
    printf 'entry\tprofile\tmain.c\t1\n' >"$W/places"
    run kpgo afdo -o "$W/out.txt" --defs "$W/defs" --add "$W/blocks.txt" --add-places "$W/places" "$W/p.kpgo"
    failed_with "cannot read the places of '$W/blocks.txt' \\('$W/places'\\)"
}

@test "afdo --add usage errors" {
    run kpgo afdo -o "$W/out.txt" --add-places "$W/places" "$W/p.kpgo"
    assert_failure 2
    assert_output --partial "--add-places is for --add"
    run kpgo afdo -o "$W/out.txt" --defs "$W/defs" --add "$W/blocks.txt" "$W/p.kpgo"
    assert_failure 2
    assert_output --partial "--add with --defs needs --add-places"
    run kpgo afdo -o "$W/out.txt" --add '' "$W/p.kpgo"
    assert_failure 2
    run kpgo afdo --list-objects --objtree "$B" --add "$W/blocks.txt"
    assert_failure 2
}

@test "--add-places: added rows merge into the table in byte order, names that prefix others included" {
    printf 'ma:10:1\n 1: 1\nmain_x:10:1\n 1: 1\nmain2:10:1\n 1: 1\nA:10:1\n 1: 1\n' >"$W/more.txt"
    printf '# kpgo afdo defs 1\n%s\t%s\t%s\t%s\n' ma profile a.c 1 main_x profile a.c 2 main2 profile a.c 3 A profile a.c 4 \
        >"$W/more.places"
    run kpgo afdo -q -o "$W/out.txt" --defs "$W/defs" --add "$W/more.txt" --add-places "$W/more.places" "$W/p.kpgo"
    assert_success
    run cut -f1 "$W/defs"
    assert_output "$(printf '# kpgo afdo defs 1\nA\nma\nmain\nmain2\nmain_x\nwork')"
    [ "$(LC_ALL=C sort <(tail -n +2 "$W/defs" | cut -f1))" = "$(tail -n +2 "$W/defs" | cut -f1)" ]
}
