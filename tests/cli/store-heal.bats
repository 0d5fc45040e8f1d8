#!/usr/bin/env bats
# kpgo store: the index is derived data, rebuilt from the objects when it is
# missing, malformed, a directory or a symbolic link; select checks the
# object it hands out; add replaces a corrupt copy with intact bytes.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr

load helpers
load store-lib

bats_require_minimum_version 1.5.0

setup_file() {
    program_gcov_tree
}

setup() {
    W=$BATS_TEST_TMPDIR
    export KPGO_STORE=$W/store
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    a=$(sha "$W/a.kpgo") b=$(sha "$W/b.kpgo")
    kpgo store add -q "$W/a.kpgo" "$W/b.kpgo" >/dev/null
}

obj() {
    echo "$(cd "$KPGO_STORE" && pwd -P)/objects/${1:0:2}/$1.kpgo"
}

# Both profiles listed, select answers with one of them, verify --repair
# leaves a clean store with a regular index.
store_works() {
    run kpgo store list
    assert_success
    assert_line --regexp "^${a:0:12} "
    assert_line --regexp "^${b:0:12} "
    [ "${#lines[@]}" -eq 2 ]
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_success
    [[ "$output" == "$(obj "$a")" || "$output" == "$(obj "$b")" ]]
    run kpgo store verify --repair
    assert_success
    run kpgo store verify
    assert_success
    [ -f "$W/store/index" ] && [ ! -L "$W/store/index" ]
}

@test "a missing index is rebuilt from the objects" {
    rm "$W/store/index"
    store_works
}

@test "a malformed index line blocks neither list nor select" {
    sed -i "s/^$a\t6.1.0-17\t/$a\t6.1.0-17\tx\t/" "$W/store/index"
    printf 'not\ta\tline\n\x01\n' >>"$W/store/index"
    store_works
}

@test "an index of another version (ten fields) is rebuilt" {
    cut -f1-10 "$W/store/index" | sed 's/^# kpgo store index 2$/# kpgo store index 1/' \
        >"$W/old" && mv "$W/old" "$W/store/index"
    store_works
    grep -q "^# kpgo store index 2$" "$W/store/index"
}

@test "an index that is a directory is set aside and rebuilt" {
    rm "$W/store/index"
    mkdir "$W/store/index"
    echo keep >"$W/store/index/file"
    store_works
    [ "$(cat "$W/store/corrupt/index/file")" = keep ]
}

@test "an index that is a symbolic link is replaced, its target untouched" {
    cp "$W/store/index" "$W/elsewhere"
    echo "# not the store's" >>"$W/elsewhere"
    cp "$W/elsewhere" "$W/elsewhere.orig"
    rm "$W/store/index"
    ln -s "$W/elsewhere" "$W/store/index"
    store_works
    cmp "$W/elsewhere" "$W/elsewhere.orig"
    # Also when the link dangles, and for verify --repair alone.
    rm "$W/store/index"
    ln -s "$W/nowhere" "$W/store/index"
    run kpgo store verify
    assert_failure 1
    assert_line "the index is a symbolic link"
    run kpgo store verify --repair
    assert_success
    [ ! -e "$W/nowhere" ]
    store_works
}

@test "verify --repair alone rebuilds an index that is a directory" {
    rm "$W/store/index"
    mkdir "$W/store/index"
    run kpgo store verify
    assert_failure 1
    assert_line "the index is not a regular file"
    run kpgo store verify --repair
    assert_success
    assert_line "repaired: rebuilt the index from 2 objects"
    [ -f "$W/store/index" ] && [ -d "$W/store/corrupt/index" ]
    [ "$(grep -c "^[0-9a-f]" "$W/store/index")" -eq 2 ]
}

@test "select never returns an object that is not there, whatever the index says" {
    fake=$(printf '%064d' 7)
    # A hand-edited line: a profile that does not exist, with every claim at its best.
    printf '%s\t6.1.0-17\taa17\t%s\t%s\tx\t18446744073709551615\t99999\t2099-01-01T00:00:00Z\t2099-01-01T00:00:00Z\t1\n' \
        "$fake" "$(uname -m)" "$(awk -F'\t' '/^[0-9a-f]/ {print $5; exit}' "$W/store/index")" \
        >>"$W/store/index"
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_success
    [ -e "$output" ]
    [[ "$output" != *"$fake"* ]]
    # A line of a real object that claims more merged profiles than it has.
    sed -i "s/^\($a\(\t[^\t]*\)\{6\}\)\t1\t/\1\t99999\t/" "$W/store/index"
    grep -q "	99999	" "$W/store/index"
    run --separate-stderr kpgo store select --release 6.1.0-17 --json
    assert_success
    [[ "$output" == *'"merged_profiles": 1,'* ]]
}

@test "select passes over a corrupt object and never returns it" {
    # the one select prefers first (a and b may have been added in one second)
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_success
    local first=$a second=$b
    if [ "$output" = "$(obj "$b")" ]; then
        first=$b second=$a
    fi
    assert_output "$(obj "$first")"
    for x in "$first" "$second"; do
        chmod u+w "$(obj "$x")"
        printf '\x01' | dd of="$(obj "$x")" bs=1 seek=100 conv=notrunc status=none
        run --separate-stderr kpgo store select --release 6.1.0-17
        if [ "$x" = "$first" ]; then
            assert_success
            assert_output "$(obj "$second")"
            [[ "$stderr" == *"passed over 1 missing or corrupt object"* ]]
        else
            assert_failure 1
            assert_output ""
            [[ "$stderr" == *"no profile for 6.1.0-17"* ]]
        fi
    done
    # Truncated, too.
    profile "$W/c.kpgo" 6.1.0-17 aa17 c
    kpgo store add -q "$W/c.kpgo" >/dev/null
    c=$(sha "$W/c.kpgo")
    chmod u+w "$(obj "$c")"
    truncate -s 50 "$(obj "$c")"
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_failure 1
}

@test "add of the intact original replaces a corrupt stored copy" {
    chmod u+w "$(obj "$a")"
    printf '\x01' | dd of="$(obj "$a")" bs=1 seek=100 conv=notrunc status=none
    run kpgo store verify
    assert_failure 1
    run --separate-stderr kpgo store add -v "$W/a.kpgo"
    assert_success
    [[ "$stderr" != *"already in the store"* ]]
    cmp "$W/a.kpgo" "$(obj "$a")"
    [ -e "$W/store/corrupt/$a.kpgo" ]
    run kpgo store verify
    assert_success
    # Truncated, then a directory in its place: the same.
    chmod u+w "$(obj "$b")"
    truncate -s 10 "$(obj "$b")"
    kpgo store add -q "$W/b.kpgo" >/dev/null
    cmp "$W/b.kpgo" "$(obj "$b")"
    rm -f "$(obj "$b")"
    mkdir "$(obj "$b")"
    kpgo store add -q "$W/b.kpgo" >/dev/null
    cmp "$W/b.kpgo" "$(obj "$b")"
    run kpgo store verify
    assert_success
    # An intact copy stays: the second add finds it.
    run --separate-stderr kpgo store add -v "$W/a.kpgo"
    assert_success
    [[ "$stderr" == *"already in the store"* ]]
}
