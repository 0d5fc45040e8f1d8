#!/usr/bin/env bats
# kpgo store: content-addressed and all-or-none adds, safe under concurrent
# writers and interrupted ones; select's rules; verify, repair and gc.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr

load helpers
load store-lib

bats_require_minimum_version 1.5.0

# One instrumented program, run once; each test collects it under the
# kernel release and build id it needs.
setup_file() {
    program_gcov_tree
}

setup() {
    W=$BATS_TEST_TMPDIR
    export KPGO_STORE=$W/store
}

gcov_version() {
    tar --zstd -xOf "$1" MANIFEST | sed -n 's/^GCOV_VERSION=//p'
}

# jget KEY...: a value from the JSON on stdin, one key at a time.
jget() {
    python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v[k]
print(v)' "$@"
}

# The sha256 of each profile 'store list --json' shows, sorted.
list_shas() {
    kpgo store list --json | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    print(e["sha256"])' | sort
}

obj() {
    echo "$(cd "$KPGO_STORE" && pwd -P)/objects/${1:0:2}/$1.kpgo"
}

# Everything in the store, with sizes and times, and the index.
snapshot() {
    (cd "$KPGO_STORE" && find . -printf '%p %y %s %m %T@\n' | sort && cat index)
}

index_lines() {
    grep -vc '^#' "$KPGO_STORE/index"
}

@test "add verifies, stores by sha256 and prints it; the same archive twice is stored once" {
    profile "$W/a.kpgo" 6.1.0-test
    profile "$W/b.kpgo" 6.1.0-test 00 other
    run --separate-stderr kpgo store add "$W/a.kpgo"
    assert_success
    assert_output "$(sha "$W/a.kpgo")"
    cmp "$W/a.kpgo" "$(obj "$(sha "$W/a.kpgo")")"
    [ -d "$W/store/tmp" ] && [ -e "$W/store/lock" ]

    run --separate-stderr kpgo store add "$W/a.kpgo" "$W/b.kpgo" "$W/a.kpgo"
    assert_success
    [ "$output" = "$(sha "$W/a.kpgo")
$(sha "$W/b.kpgo")
$(sha "$W/a.kpgo")" ]
    [[ "$stderr" == *"'$W/a.kpgo' is already in the store"* ]]
    [[ "$stderr" == *"added '$W/b.kpgo'"* ]]
    [ "$(find "$W/store/objects" -type f | wc -l)" -eq 2 ]
    [ "$(index_lines)" -eq 2 ]
    run kpgo store list
    assert_success
    [ "${#lines[@]}" -eq 2 ]
    assert_line --regexp "^$(sha "$W/a.kpgo" | cut -c1-12)  6\.1\.0-test  .{4}  test  +1  [0-9T:Z-]+$"
    run find "$W/store/tmp" -type f
    assert_output ""
}

@test "concurrent adds of overlapping files store each profile once" {
    for i in 1 2 3 4 5 6; do
        profile "$W/p$i.kpgo" 6.1.0-test 00 "w$i"
    done
    pids=()
    for i in $(seq 0 15); do
        kpgo store add "$W/p$((i % 6 + 1)).kpgo" "$W/p$(((i + 1) % 6 + 1)).kpgo" \
            "$W/p$(((i + 3) % 6 + 1)).kpgo" >"$W/out$i" 2>"$W/err$i" &
        pids+=("$!")
    done
    for p in "${pids[@]}"; do
        wait "$p"
    done
    for i in $(seq 0 15); do
        [ "$(wc -l <"$W/out$i")" -eq 3 ]
        [ "$(head -1 "$W/out$i")" = "$(sha "$W/p$((i % 6 + 1)).kpgo")" ]
    done
    run kpgo store verify
    assert_success
    diff <(sha256sum "$W"/p?.kpgo | cut -d' ' -f1 | sort) <(list_shas)
    [ "$(kpgo store list | wc -l)" -eq 6 ]
    [ "$(index_lines)" -eq 6 ]
    [ "$(find "$W/store/objects" -type f | wc -l)" -eq 6 ]
    run find "$W/store/tmp" -type f
    assert_output ""
}

# wait_for CMD...: polls for up to ten seconds until CMD succeeds.
wait_for() {
    local i
    for i in $(seq 100); do
        "$@" && return 0
        sleep 0.1
    done
    false
}

tmp_busy() {
    [ -n "$(ls "$KPGO_STORE/tmp")" ]
}

@test "an add waits for the store lock and publishes nothing before it has it" {
    profile "$W/a.kpgo" 6.1.0-test
    profile "$W/b.kpgo" 6.1.0-test 00 b
    kpgo store add -q "$W/a.kpgo" >/dev/null
    b=$(sha "$W/b.kpgo")
    # Another writer holds the lock until told to let go.
    (
        exec 9>"$W/store/lock"
        flock 9
        touch "$W/locked"
        wait_for test -e "$W/release"
    ) 3>&- &
    holder=$!
    wait_for test -e "$W/locked"
    kpgo store add -q "$W/b.kpgo" >"$W/out" 3>&- &
    adder=$!
    # The verified copy reaches tmp/, but not objects/ or the index.
    wait_for tmp_busy
    sleep 0.5
    kill -0 "$adder"
    [ ! -e "$(obj "$b")" ]
    # Readers do not wait.
    run kpgo store list
    assert_success
    [ "${#lines[@]}" -eq 1 ]
    touch "$W/release"
    wait "$holder"
    wait "$adder"
    [ "$(cat "$W/out")" = "$b" ]
    [ -e "$(obj "$b")" ]
    [ "$(kpgo store list | wc -l)" -eq 2 ]
    run ls "$W/store/tmp"
    assert_output ""
}

@test "a truncated or altered archive is refused with one line and the store is unchanged" {
    profile "$W/good.kpgo" 6.1.0-test
    profile "$W/new.kpgo" 6.1.0-test 00 new
    kpgo store add -q "$W/good.kpgo" >/dev/null
    head -c 300 "$W/new.kpgo" >"$W/trunc.kpgo"
    flip_payload "$W/new.kpgo" "$W/flip.kpgo"
    printf 'not a profile\n' >"$W/junk.kpgo"
    : >"$W/empty.kpgo"
    before=$(snapshot)
    for bad in trunc flip junk empty; do
        run kpgo store add "$W/$bad.kpgo"
        assert_failure 1
        [ "${#lines[@]}" -eq 1 ]
        assert_output --regexp "^kpgo: cannot add '$W/$bad.kpgo': "
        [ "$(snapshot)" = "$before" ]
    done
    run kpgo store add "$W/flip.kpgo"
    assert_output --partial "PAYLOAD_SHA256"
    # All or none: the good archive next to a bad one is not added either.
    run kpgo store add "$W/new.kpgo" "$W/trunc.kpgo"
    assert_failure 1
    [ "$(snapshot)" = "$before" ]
    run kpgo store add "$W/missing.kpgo"
    assert_failure 1
    assert_output --partial "No such file"
    # Refused input does not even create a store.
    run kpgo store --store "$W/none" add "$W/trunc.kpgo"
    assert_failure 1
    [ ! -e "$W/none" ]
    # The control: the same archive, whole, goes in.
    run kpgo store add "$W/new.kpgo"
    assert_success
}

@test "select: same build id, then same release, then the nearest older release of the series" {
    profile "$W/r13.kpgo" 6.1.0-13 aa13
    profile "$W/r17.kpgo" 6.1.0-17 aa17
    profile "$W/r55.kpgo" 6.1.55-1 aa55
    profile "$W/r510.kpgo" 5.10.0-20 bb20
    profile "$W/r62.kpgo" 6.2.0-1 cc01
    kpgo store add -q "$W"/r*.kpgo >/dev/null

    expect() {
        local want=$1
        shift
        run --separate-stderr kpgo store select "$@"
        assert_success
        assert_output "$(obj "$(sha "$W/$want.kpgo")")"
    }
    expect r17 --release 6.1.0-17
    [[ "$stderr" == *"same release 6.1.0-17"* ]]
    expect r13 --release 6.1.0-17 --build-id aa13
    [[ "$stderr" == *"same build id aa13"* ]]
    expect r13 --release 6.1.0-15
    [[ "$stderr" == *"nearest older release 6.1.0-13 of series 6.1"* ]]
    expect r17 --release 6.1.0-20
    expect r55 --release 6.1.60-1
    expect r55 --release 6.1.55-2
    expect r62 --release 6.2.0-4-amd64
    expect r510 --release 5.10.0-21
    # Nothing older in the series: never the newer 6.1 ones, never 5.10.
    run --separate-stderr kpgo store select --release 6.1.0-9
    assert_failure 1
    assert_output ""
    [[ "$stderr" == "kpgo: no profile for 6.1.0-9 or series 6.1 older than 6.1.0-9 (left out: 3 of a newer release"* ]]
    # Another series is never used, however close.
    run --separate-stderr kpgo store select --release 6.3.0-1
    assert_failure 1
    assert_output ""
    run kpgo store select --release 6.1.0-17 --arch "$(uname -m)"
    assert_success
    run kpgo store select --release 6.1.0-17 --arch no-such-arch
    assert_failure 1
    assert_output --partial "for arch no-such-arch"
    run kpgo store select --release 6.1.0-17 --json
    assert_success
    [ "$(jget path <<<"$output")" = "$(obj "$(sha "$W/r17.kpgo")")" ]
    [ "$(jget rank <<<"$output")" = 2 ]
    [ "$(jget profile release <<<"$output")" = 6.1.0-17 ]
}

@test "select: the gcov version must match exactly" {
    profile "$W/p.kpgo" 6.1.0-17 aa17
    kpgo store add -q "$W/p.kpgo" >/dev/null
    have=$(gcov_version "$W/p.kpgo")
    if [ "$have" = 'B33*' ]; then other='B22*'; else other='B33*'; fi
    run --separate-stderr kpgo store select --release 6.1.0-17 --gcov-version "$have"
    assert_success
    assert_output "$(obj "$(sha "$W/p.kpgo")")"
    run --separate-stderr kpgo store select --release 6.1.0-17 --cc gcc
    assert_success
    assert_output "$(obj "$(sha "$W/p.kpgo")")"
    run --separate-stderr kpgo store select --release 6.1.0-20 --gcov-version "$other"
    assert_failure 1
    assert_output ""
    [ "$stderr" = "kpgo: no profile for 6.1.0-20 or series 6.1 older than 6.1.0-20 with gcov version '$other' (left out: 0 of a newer release, 1 with another gcov version, 0 for another arch)" ]
    run kpgo store select --release 6.1.0-17 --gcov-version "$have" --cc gcc
    assert_failure 2
    run kpgo store select --gcov-version "$have"
    assert_failure 2
    run kpgo store select --release 6.1.0-17 --gcov-version toolong
    assert_failure 2
}

@test "select: a profile of another GCC is never chosen, even for the same release" {
    command -v gcc-11 || skip "gcc-11 is not installed (tests/install-deps.sh installs it)"
    # The same program built and trained with GCC 11, as the kernel lays it out.
    mkdir -p "$W/b11"
    cp "$BATS_FILE_TMPDIR/build/main.c" "$BATS_FILE_TMPDIR/build/lib/a.c" \
        "$BATS_FILE_TMPDIR/build/lib/b.c" "$W/b11/"
    (cd "$W/b11" && for f in main a b; do
        gcc-11 -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o" || exit 1
    done && gcc-11 -fprofile-arcs main.o a.o b.o -o prog && ./prog 4) || true
    gcov_tree "$W/b11" "$W/g11"
    kpgo collect -q --gcov-dir "$W/g11" --kernel-release 6.1.0-17 --build-id aa17 \
        -o "$W/gcc11.kpgo"
    profile "$W/older.kpgo" 6.1.0-13 aa13
    [ "$(gcov_version "$W/gcc11.kpgo")" != "$(gcov_version "$W/older.kpgo")" ] ||
        skip "gcc is GCC 11"
    kpgo store add -q "$W/gcc11.kpgo" "$W/older.kpgo" >/dev/null
    run --separate-stderr kpgo store select --release 6.1.0-17 --build-id aa17 --cc gcc-11
    assert_success
    assert_output "$(obj "$(sha "$W/gcc11.kpgo")")"
    # For the default compiler the GCC 11 profile is no use: the older one is.
    run --separate-stderr kpgo store select --release 6.1.0-17 --build-id aa17 --cc gcc
    assert_success
    assert_output "$(obj "$(sha "$W/older.kpgo")")"
    [[ "$stderr" == *"nearest older release 6.1.0-13"* ]]
}

@test "select: ranks by profiles merged, then the time added, then the sha; never by RUNS" {
    # windows from 2023 to 2099: no age limits here (kpgo's default refuses
    # profiles over 210 days old)
    mkdir -p "$KPGO_STORE"
    printf 'MAX_AGE_DAYS=none\nWARN_AGE_DAYS=none\n' >"$KPGO_STORE/policy"
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    # What an uploader says of itself: all the runs there are, the newest window.
    with_manifest "$W/a.kpgo" "$W/liar.kpgo" RUNS=18446744073709551615 \
        WINDOW_END=2099-01-01T00:00:00Z
    kpgo store add -q "$W/liar.kpgo" >/dev/null
    touch -h -d 2020-01-01T00:00:00Z "$(obj "$(sha "$W/liar.kpgo")")"
    kpgo store add -q "$W/b.kpgo" >/dev/null
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_success
    assert_output "$(obj "$(sha "$W/b.kpgo")")"
    [[ "$stderr" == *"best of 2 by merged profiles"*"MERGED_PROFILES=1"* ]]
    # Two profiles merged beat both, whatever their RUNS and windows.
    kpgo merge -q -o "$W/m.kpgo" "$W/a.kpgo" "$W/b.kpgo"
    with_manifest "$W/m.kpgo" "$W/two.kpgo" WINDOW_END=2023-01-01T00:00:00Z
    kpgo store add -q "$W/two.kpgo" >/dev/null
    touch -h -d 2021-01-01T00:00:00Z "$(obj "$(sha "$W/two.kpgo")")"
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_output "$(obj "$(sha "$W/two.kpgo")")"
    [[ "$stderr" == *"best of 3"*"MERGED_PROFILES=2"* ]]
    # All equal: the smallest sha, whatever the order they were added in.
    with_manifest "$W/a.kpgo" "$W/t1.kpgo" WINDOW_END=2025-01-01T00:00:00Z WORKLOAD=t1
    with_manifest "$W/b.kpgo" "$W/t2.kpgo" WINDOW_END=2025-01-01T00:00:00Z WORKLOAD=t2
    export KPGO_STORE=$W/ties
    mkdir -p "$KPGO_STORE"
    printf 'MAX_AGE_DAYS=none\nWARN_AGE_DAYS=none\n' >"$KPGO_STORE/policy"
    kpgo store add -q "$W/t2.kpgo" "$W/t1.kpgo" >/dev/null
    touch -h -d 2025-01-01T00:00:00Z "$(obj "$(sha "$W/t1.kpgo")")" "$(obj "$(sha "$W/t2.kpgo")")"
    first=$(printf '%s\n' "$(sha "$W/t1.kpgo")" "$(sha "$W/t2.kpgo")" | sort | head -1)
    run --separate-stderr kpgo store select --release 6.1.0-17
    assert_output "$(obj "$first")"
}

@test "show finds a profile by a unique prefix; unknown and ambiguous prefixes fail" {
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    kpgo store add -q "$W/a.kpgo" "$W/b.kpgo" >/dev/null
    a=$(sha "$W/a.kpgo")
    b=$(sha "$W/b.kpgo")
    n=1
    while [ "${a:0:n}" = "${b:0:n}" ]; do n=$((n + 1)); done
    run kpgo store show "${a:0:n}"
    assert_success
    assert_line "sha256: $a"
    assert_line "file: $(obj "$a")"
    assert_line "  KERNEL_RELEASE=6.1.0-17"
    assert_line "  WORKLOAD=a"
    run kpgo store show --json "$b"
    assert_success
    [ "$(jget manifest WORKLOAD <<<"$output")" = b ]
    if [ "$n" -gt 1 ]; then
        run kpgo store show "${a:0:$((n - 1))}"
        assert_failure 1
        assert_output --partial "is ambiguous"
    fi
    run kpgo store show 0000000000000000000000000000000000000000000000000000000000000000
    assert_failure 1
    assert_output --partial "no profile"
    run kpgo store show not-hex
    assert_failure 1
}

@test "verify finds a tampered object and a missing index line; --repair fixes both" {
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    profile "$W/c.kpgo" 6.1.0-17 aa17 c
    kpgo store add -q "$W/a.kpgo" "$W/b.kpgo" "$W/c.kpgo" >/dev/null
    a=$(sha "$W/a.kpgo") b=$(sha "$W/b.kpgo") c=$(sha "$W/c.kpgo")
    run kpgo store verify
    assert_success
    # One byte of a's object changed, b's index line gone.
    chmod u+w "$(obj "$a")"
    printf '\x01' | dd of="$(obj "$a")" bs=1 seek=100 conv=notrunc status=none
    sed -i "/^$b/d" "$W/store/index"
    run --separate-stderr kpgo store verify
    assert_failure 1
    assert_line "object $b is not in the index"
    assert_line --regexp "^object $a is corrupt: its bytes hash to [0-9a-f]{64}$"
    [ "${#lines[@]}" -eq 2 ]
    [[ "$stderr" == "kpgo: 2 problems in the store"* ]]
    # Readers still work meanwhile, on what the index lists.
    run kpgo store select --release 6.1.0-17
    assert_success

    run kpgo store verify --repair
    assert_success
    assert_line "repaired: moved 'objects/${a:0:2}/$a.kpgo' to 'corrupt/$a.kpgo'"
    [ -e "$W/store/corrupt/$a.kpgo" ]
    [ ! -e "$(obj "$a")" ]
    run kpgo store verify
    assert_success
    diff <(printf '%s\n' "$b" "$c" | sort) <(list_shas)
    # The archive itself can go back in.
    kpgo store add -q "$W/a.kpgo" >/dev/null
    [ "$(kpgo store list | wc -l)" -eq 3 ]
}

@test "verify finds index lines without objects, malformed lines and stray files" {
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    kpgo store add -q "$W/a.kpgo" "$W/b.kpgo" >/dev/null
    a=$(sha "$W/a.kpgo") b=$(sha "$W/b.kpgo")
    rm -f "$(obj "$b")"
    echo "garbage" >>"$W/store/index"
    echo x >"$W/store/objects/${a:0:2}/stray"
    run kpgo store verify
    assert_failure 1
    assert_line "the index lists $b but there is no such object"
    assert_line "index line 5 is malformed"
    assert_line "unexpected file 'objects/${a:0:2}/stray'"
    # The index is derived data: readers rebuild it from the objects.
    run kpgo store list
    assert_success
    assert_output --regexp "^${a:0:12} "
    [ "${#lines[@]}" -eq 1 ]
    run kpgo store verify
    assert_failure 1
    assert_line "unexpected file 'objects/${a:0:2}/stray'"
    refute_output --partial "malformed"
    run kpgo store verify --repair
    assert_success
    run kpgo store verify
    assert_success
    run kpgo store list
    assert_success
    assert_output --regexp "^${a:0:12} "
    [ "${#lines[@]}" -eq 1 ]
}

@test "an interrupted add leaves a consistent store that the next add heals" {
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    profile "$W/c.kpgo" 6.1.0-18 aa18 c
    kpgo store add -q "$W/a.kpgo" >/dev/null
    b=$(sha "$W/b.kpgo")
    # As an add killed after its rename, before the index update...
    mkdir -p "$W/store/objects/${b:0:2}"
    cp "$W/b.kpgo" "$(obj "$b")"
    # ... and one killed while copying.
    head -c 100 "$W/c.kpgo" >"$W/store/tmp/add-$(sha "$W/c.kpgo" | cut -c1-12).4242.0.tmp"
    run kpgo store verify
    assert_failure 1
    assert_output --partial "object $b is not in the index"
    refute_output --partial "tmp/add-"
    # Readers list it: the index is rebuilt from the objects.
    run kpgo store list
    assert_success
    [ "${#lines[@]}" -eq 2 ]
    run --separate-stderr kpgo store add "$W/c.kpgo"
    assert_success
    run kpgo store verify
    assert_success
    [ "$(kpgo store list | wc -l)" -eq 3 ]
    run --separate-stderr kpgo store select --release 6.1.0-17 --build-id nope
    assert_success
    # A fresh tmp file may be an add in flight: gc leaves it.
    run kpgo store gc --keep 5
    assert_success
    assert_output ""
    [ "$(find "$W/store/tmp" -type f | wc -l)" -eq 1 ]
}

@test "verify --repair also indexes an object an interrupted add left" {
    profile "$W/a.kpgo" 6.1.0-17 aa17 a
    kpgo store add -q "$W/a.kpgo" >/dev/null
    profile "$W/b.kpgo" 6.1.0-17 aa17 b
    b=$(sha "$W/b.kpgo")
    mkdir -p "$W/store/objects/${b:0:2}"
    cp "$W/b.kpgo" "$(obj "$b")"
    run kpgo store verify --repair
    assert_success
    assert_line "object $b is not in the index"
    run kpgo store verify
    assert_success
    [ "$(kpgo store list | wc -l)" -eq 2 ]
}

@test "gc keeps the newest N of each release and removes old tmp files" {
    profile "$W/x.kpgo" 6.1.0-17 aa17 x
    profile "$W/y.kpgo" 6.1.0-18 aa18 y
    for m in 1 2 3; do
        with_manifest "$W/x.kpgo" "$W/a$m.kpgo" "WINDOW_END=2024-0$m-01T00:00:00Z" "WORKLOAD=a$m"
    done
    for m in 1 2; do
        with_manifest "$W/y.kpgo" "$W/b$m.kpgo" "WINDOW_END=2024-0$m-01T00:00:00Z" "WORKLOAD=b$m"
    done
    # Added newest first: the window end decides, not the order of adding.
    kpgo store add -q "$W/a3.kpgo" "$W/a2.kpgo" "$W/a1.kpgo" "$W/b2.kpgo" "$W/b1.kpgo" >/dev/null
    touch "$W/store/tmp/fresh.tmp"
    touch -d '2 hours ago' "$W/store/tmp/old.tmp"

    before=$(snapshot)
    run kpgo store gc --keep 2 --dry-run
    assert_success
    assert_output "would remove $(sha "$W/a1.kpgo")  6.1.0-17  a1  2024-01-01T00:00:00Z
would remove tmp/old.tmp"
    [ "$(snapshot)" = "$before" ]

    run kpgo store gc --keep 2
    assert_success
    assert_line "removed $(sha "$W/a1.kpgo")  6.1.0-17  a1  2024-01-01T00:00:00Z"
    assert_line "removed tmp/old.tmp"
    [ "${#lines[@]}" -eq 2 ]
    [ ! -e "$(obj "$(sha "$W/a1.kpgo")")" ]
    [ -e "$W/store/tmp/fresh.tmp" ]
    run kpgo store verify
    assert_success
    [ "$(kpgo store list | wc -l)" -eq 4 ]

    run kpgo store gc --keep 1
    assert_success
    [ "${#lines[@]}" -eq 2 ]
    diff <(printf '%s\n' "$(sha "$W/a3.kpgo")" "$(sha "$W/b2.kpgo")" | sort) <(list_shas)
    [ "$(find "$W/store/objects" -type f | wc -l)" -eq 2 ]
    run kpgo store verify
    assert_success
}

@test "list is sorted by release as dpkg compares, then by window end" {
    profile "$W/x.kpgo" 6.1.0-x
    for r in 6.1.55-1 6.1.0-9 6.1.0-17 6.1.0-13; do
        profile "$W/$r.kpgo" "$r"
    done
    with_manifest "$W/6.1.0-13.kpgo" "$W/late13.kpgo" WINDOW_END=2099-01-01T00:00:00Z
    with_manifest "$W/6.1.0-13.kpgo" "$W/early13.kpgo" WINDOW_END=2000-01-01T00:00:00Z
    kpgo store add -q "$W"/6.1.*.kpgo "$W/late13.kpgo" "$W/early13.kpgo" >/dev/null
    run kpgo store list
    assert_success
    [ "$(awk '{ print $2 }' <<<"$output" | tr '\n' ' ')" = "6.1.0-9 6.1.0-13 6.1.0-13 6.1.0-13 6.1.0-17 6.1.55-1 " ]
    assert_line --index 1 --regexp "2000-01-01T00:00:00Z$"
    assert_line --index 3 --regexp "2099-01-01T00:00:00Z$"
    [ "$(list_shas | wc -l)" -eq 6 ]
}

@test "store directory: --store, then \$KPGO_STORE; a missing store is an error for readers" {
    profile "$W/a.kpgo" 6.1.0-17
    kpgo store --store "$W/s1" add -q "$W/a.kpgo" >/dev/null
    [ -e "$W/s1/objects/$(sha "$W/a.kpgo" | cut -c1-2)" ]
    [ ! -e "$W/store" ]
    run kpgo store list --store "$W/s1"
    assert_success
    [ "${#lines[@]}" -eq 1 ]
    KPGO_STORE=$W/s1 run kpgo store list
    assert_success
    [ "${#lines[@]}" -eq 1 ]
    run kpgo store list
    assert_failure 1
    assert_output --partial "cannot open store '$W/store'"
    mkdir "$W/empty"
    run kpgo store --store "$W/empty" select --release 6.1.0-17
    assert_failure 1
    assert_output --partial "is not a kpgo store"
}

@test "usage: help on every command, exit 2 for usage errors" {
    for c in add list show select verify gc; do
        run kpgo store "$c" --help
        assert_success
        assert_output --partial "usage: kpgo store $c"
    done
    run kpgo store --help
    assert_success
    run kpgo store
    assert_failure 2
    run kpgo store frob
    assert_failure 2
    run kpgo store add
    assert_failure 2
    run kpgo store list --bogus
    assert_failure 2
    run kpgo store gc
    assert_failure 2
    run kpgo store gc --keep 0
    assert_failure 2
    run kpgo store show
    assert_failure 2
}
