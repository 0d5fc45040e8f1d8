#!/usr/bin/env bats
# kpgo spool: the settings file, collection into the spool (no gcov, no
# debugfs, a full disk, killed halfway, timed out) and upload (target down
# and back, crashes, concurrent runs, bad spool files), and retention.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr
# shellcheck disable=SC2030,SC2031 # each test runs in its own subshell; setup() sets SPOOL anew

load helpers
load spool-lib

bats_require_minimum_version 1.5.0

setup_file() {
    program_gcov_tree
}

setup() {
    spool_setup
}

teardown() {
    local m
    for m in "$W/full" "$W/dbg"; do
        if mountpoint -q "$m" 2>/dev/null; then umount -l "$m"; fi
    done
}

# settings LINE...: the settings file holds these lines (and the spool).
settings() {
    printf 'KPGO_SPOOL_DIR=%s\n' "$SPOOL" >"$KPGO_SETTINGS"
    printf '%s\n' "$@" >>"$KPGO_SETTINGS"
}

# files DIR: the names of the files in DIR, sorted.
files() {
    find "$1" -maxdepth 1 -type f -printf '%f\n' | sort
}

# profiles: the finished profiles waiting in the spool, one per line.
profiles() {
    find "$SPOOL" -maxdepth 1 -name '*.kpgo' -printf '%f\n' | sort
}

# gcov_dir N: a small kernel-style gcov directory whose counters depend on N.
gcov_dir() {
    "$KPGO_TESTS_BIN/gen-profile" -q -n 20 -r "$1" -o "$W/g$1"
    : >"$W/g$1/reset"
}

# sender: an upload command that copies into $W/farm unless $W/down exists,
# counting its calls in $W/calls and logging what arrived in $W/farm.log.
make_sender() {
    mkdir -p "$W/farm"
    cat >"$W/send" <<EOF
#!/bin/sh
echo "\$1" >>"$W/calls"
[ -e "$W/down" ] && { echo "farm unreachable" >&2; exit 1; }
${1:-}
cp "\$1" "$W/farm/" && basename "\$1" >>"$W/farm.log"
EOF
    chmod +x "$W/send"
}

@test "settings: the shipped file's values are the built-in defaults" {
    grep -v '^#KPGO_UPLOAD_COMMAND=' "$BATS_TEST_DIRNAME/../../hooks/machine/default/kpgo" |
        sed 's/^#\(KPGO_[A-Z_]*=\)/\1/' >"$W/shipped"
    run kpgo spool --config "$W/shipped" config
    assert_success
    refute_output --partial warning
    tail -n +2 <<<"$output" >"$W/a"
    printf '' >"$W/empty"
    kpgo spool --config "$W/empty" config | tail -n +2 >"$W/b"
    diff -u "$W/b" "$W/a"
    grep -qx "KPGO_SPOOL_DIR='/var/lib/kpgo/profiles'" "$W/a"
    grep -qx "KPGO_SNAPSHOT_INTERVAL='6h'" "$W/a"
}

@test "settings: quotes, comments and export are read as sh reads them, never run" {
    # shellcheck disable=SC2016 # the $ is the point
    cat >"$KPGO_SETTINGS" <<EOF
# a comment
export KPGO_SPOOL_DIR='$SPOOL'   # trailing comment
KPGO_WORKLOAD="db.primary-1"
  KPGO_SNAPSHOT_INTERVAL=90m
KPGO_UPLOAD_COMMAND="scp -i '/root/my key' {} 'farm:/drop dir/'"
KPGO_KEEP_AGE=0
EOF
    run kpgo spool config
    assert_success
    assert_line "KPGO_SPOOL_DIR='$SPOOL'"
    assert_line "KPGO_WORKLOAD='db.primary-1'"
    assert_line "KPGO_SNAPSHOT_INTERVAL='90m'"
    assert_line "KPGO_KEEP_AGE='0'"
    assert_line "KPGO_UPLOAD_COMMAND='scp -i '\\''/root/my key'\\'' {} '\\''farm:/drop dir/'\\'''"
    # What sh makes of the same file is what kpgo made of it.
    run sh -c ". '$KPGO_SETTINGS'; printf '%s|' \"\$KPGO_WORKLOAD\" \"\$KPGO_UPLOAD_COMMAND\""
    assert_output "db.primary-1|scp -i '/root/my key' {} 'farm:/drop dir/'|"
}

@test "settings: KPGO_SETTINGS names the file; make's KPGO_CONFIG (a kernel config's name) is not read" {
    settings KPGO_WORKLOAD=web
    KPGO_CONFIG=debian-cloud run kpgo spool config
    assert_success
    assert_line "KPGO_WORKLOAD='web'"
    KPGO_SETTINGS=$W/absent run kpgo spool config
    assert_failure
    assert_output --partial "$W/absent"
}

@test "settings: every bad line is one error naming the file and line, exit 1" {
    # shellcheck disable=SC2016,SC1003 # the lines are what sh would misread
    local bad=(
        'KPGO_WORKLOAD=$(touch /tmp/kpgo-pwned)'
        'KPGO_WORKLOAD=`id`'
        'KPGO_WORKLOAD="a b"'
        'KPGO_WORKLOAD=x y'
        'KPGO_WORKLOAD = x'
        'KPGO_SNAPSHOT_INTERVAL=6y'
        'KPGO_SNAPSHOT_INTERVAL=10s'
        'KPGO_COLLECT_TIMEOUT=0'
        'KPGO_COLLECT_TIMEOUT=99999999999999999999999s'
        'KPGO_SPOOL_DIR=relative/dir'
        'KPGO_SPOOL_DIR=/var/../etc'
        'KPGO_SPOOL_DIR=~/spool'
        'KPGO_SPOOL_DIR=/'
        'KPGO_KEEP_COUNT=-1'
        'KPGO_SPOOL_MAX=1e3'
        'KPGO_UPLOAD_COMMAND="cp {} /x; rm -rf /"'
        'KPGO_UPLOAD_COMMAND="cp {} /x | sh"'
        "KPGO_UPLOAD_COMMAND='unterminated"
        'KPGO_UPLOAD_COMMAND="bin/relative {}"'
        'KPGO_UPLOAD_TIMEOUT=0'
        'KPGO_WORKLOAD=a\'
        'just some words'
    )
    local line
    for line in "${bad[@]}"; do
        printf '# first\n\n%s\n' "$line" >"$KPGO_SETTINGS"
        run kpgo spool config
        [ "$status" -eq 1 ] || { echo "accepted: $line"; return 1; }
        [ "${#lines[@]}" -eq 1 ] || { echo "more than one line for: $line"; echo "$output"; return 1; }
        [[ $output == "kpgo: $KPGO_SETTINGS:3: "* ]] || { echo "$line -> $output"; return 1; }
    done
    [ ! -e /tmp/kpgo-pwned ]
    settings 'KPGO_KEEP_COUNT=1' 'KPGO_KEEP_COUNT=2'
    run kpgo spool config
    assert_failure 1
    assert_output "kpgo: $KPGO_SETTINGS:3: KPGO_KEEP_COUNT is already set on line 2"
    printf 'KPGO_WORKLOAD=a\0b\n' >"$KPGO_SETTINGS"
    run kpgo spool config
    assert_failure 1
    assert_output --partial "not a text file"
}

@test "settings: an unknown key is a warning; a file others can write is refused" {
    settings 'KPGO_UPLOAD_COMAND=cp'
    run --separate-stderr kpgo spool config
    assert_success
    [ "$stderr" = "kpgo: warning: $KPGO_SETTINGS:2: unknown key 'KPGO_UPLOAD_COMAND' ignored" ]
    chmod 0666 "$KPGO_SETTINGS"
    run kpgo spool config
    assert_failure 1
    assert_output --partial "refusing '$KPGO_SETTINGS'"
    chmod 0644 "$KPGO_SETTINGS"
    mkdir "$W/dir"
    run kpgo spool --config "$W/dir" config
    assert_failure 1
    assert_output --partial "not a regular file"
    run kpgo spool --config "$W/missing" config
    assert_failure 1
    assert_output --partial "cannot read '$W/missing'"
}

@test "collect: the profile appears in the spool under its name, complete, and the counters are reset" {
    run kpgo spool collect --gcov-dir "$W/gcov" --kernel-release 6.1.0-test
    assert_success
    assert_output --regexp "^spooled '$SPOOL/[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9._-]+-[0-9a-f]{16}\.kpgo' \(3 objects, workload redis\)$"
    name=$(profiles)
    [ "$(echo "$name" | wc -l)" -eq 1 ]
    sha=$(sha256sum "$SPOOL/$name" | cut -c1-16)
    [[ $name == *"-$sha.kpgo" ]]
    run kpgo info "$SPOOL/$name"
    assert_success
    assert_line "  WORKLOAD=redis"
    [ "$(cat "$W/gcov/reset")" = 1 ]
    [ -z "$(ls -A "$SPOOL/tmp")" ]
    run kpgo spool list
    assert_output --regexp "^waiting  $name  [0-9]+ bytes$"
}

@test "collect: a kernel without gcov data does nothing, says so in one line, exit 0" {
    kpgo spool init -q
    run kpgo spool collect --gcov-dir "$W/no-such-dir"
    assert_success
    assert_output "no gcov data: '$W/no-such-dir': No such file or directory; nothing collected"
    [ -z "$(profiles)" ]
    mkdir "$W/empty"
    run kpgo spool collect --gcov-dir "$W/empty"
    assert_success
    assert_output "no .gcda files found in '$W/empty'; nothing collected"
    [ -z "$(profiles)" ]
}

@test "collect: debugfs not mounted is mounted, and unmounted again when there is no gcov" {
    [ -d /sys/kernel/debug/gcov ] && skip "this machine's kernel is instrumented"
    mkdir "$W/dbg"
    run kpgo spool collect --debugfs "$W/dbg"
    assert_success
    [ "${#lines[@]}" -eq 1 ]
    if [ "$(id -u)" = 0 ] && [[ $output != *"cannot be"* ]]; then
        assert_output --partial "no '$W/dbg/gcov': the kernel is not instrumented"
    else
        assert_output --partial "debugfs is not mounted at '$W/dbg' and cannot be"
    fi
    run mountpoint -q "$W/dbg"
    assert_failure
    [ ! -e "$SPOOL" ] || [ -z "$(profiles)" ]
    run kpgo spool init --probe --debugfs "$W/dbg"
    assert_success
    assert_output --partial "nothing will be collected"
    run mountpoint -q "$W/dbg"
    assert_failure
}

@test "collect: a full disk fails with one clear line and leaves nothing behind" {
    [ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
    mkdir "$W/full"
    mount -t tmpfs -o size=256k tmpfs "$W/full" || skip "cannot mount tmpfs here"
    SPOOL=$W/full/spool
    settings
    kpgo spool init -q
    dd if=/dev/zero of="$W/full/filler" bs=4k 2>/dev/null || true
    run kpgo spool collect --gcov-dir "$W/gcov"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --regexp "^kpgo: cannot .*No space left on device; nothing was spooled$"
    run kpgo collect --gcov-dir "$W/gcov" -o "$W/full/p.kpgo"
    assert_failure 1
    assert_output --partial "No space left on device"
    [ ! -e "$W/full/p.kpgo" ]
    [ -z "$(profiles)" ]
    [ -z "$(ls -A "$SPOOL/tmp")" ]
    # Not reset: the counts are still there for the next try.
    [ ! -s "$W/gcov/reset" ]
    rm "$W/full/filler"
    run kpgo spool collect --gcov-dir "$W/gcov"
    assert_success
    [ "$(profiles | wc -l)" -eq 1 ]
}

@test "collect: killed at any point, it leaves no file that looks like a profile" {
    "$KPGO_TESTS_BIN/gen-profile" -q -n 1500 -o "$W/big"
    kpgo spool init -q
    for delay in 0.05 0.1 0.2 0.3 0.4 0.6 0.9; do
        kpgo spool collect -q --no-reset --gcov-dir "$W/big" &
        pid=$!
        sleep "$delay"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" || true
        # Whatever is in the spool is a complete, valid profile.
        for f in "$SPOOL"/*.kpgo; do
            [ -e "$f" ] || continue
            kpgo info "$f" >/dev/null
        done
    done
    # The next collection sweeps tmp/ and succeeds.
    run kpgo spool collect --no-reset --gcov-dir "$W/big"
    assert_success
    [ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "collect: --timeout bounds the whole run; a collection held up past it spools nothing" {
    kpgo spool init -q
    # Another collection holds the lock (this shell does, on its own fd).
    exec {fd}>>"$SPOOL/collect.lock"
    flock "$fd"
    SECONDS=0
    run kpgo spool collect --timeout 1 --gcov-dir "$W/gcov"
    exec {fd}>&-
    assert_failure 1
    assert_output "kpgo: collection timed out after 1 s; nothing was spooled"
    [ "$SECONDS" -lt 5 ]
    [ -z "$(profiles)" ]
    [ ! -s "$W/gcov/reset" ]
    run kpgo spool collect --timeout 0 --gcov-dir "$W/gcov"
    assert_failure 2
}

@test "collect: a time limit unmounts the debugfs the collection mounted" {
    [ "$(id -u)" = 0 ] || skip "needs root to mount"
    command -v cc >/dev/null || skip "needs a C compiler"
    # This kernel's debugfs has no gcov folder, and none can be made in it:
    # a stand-in mount(2) mounts a tmpfs with an empty gcov/ where kpgo
    # mounts debugfs (kpgo's umount2 unmounts it as it would debugfs).
    cc -shared -fPIC -o "$W/fake-debugfs.so" -x c - -ldl <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
typedef int (*mount_fn)(const char *, const char *, const char *, unsigned long, const void *);
int mount(const char *src, const char *dst, const char *type, unsigned long flags, const void *data)
{
	mount_fn real = (mount_fn)dlsym(RTLD_NEXT, "mount");
	char gcov[4096];

	if (!type || strcmp(type, "debugfs"))
		return real(src, dst, type, flags, data);
	if (real("kpgo-test", dst, "tmpfs", flags, "size=64k"))
		return -1;
	snprintf(gcov, sizeof(gcov), "%s/gcov", dst);
	return mkdir(gcov, 0755);
}
EOF
    mkdir "$W/dbg"
    kpgo spool init -q
    # Another collection holds the lock: this one waits past its time limit.
    exec {fd}>>"$SPOOL/collect.lock"
    flock "$fd"
    SECONDS=0
    run env LD_PRELOAD="$W/fake-debugfs.so" ASAN_OPTIONS=verify_asan_link_order=0 \
        "$KPGO" spool collect --timeout 1 --debugfs "$W/dbg"
    exec {fd}>&-
    assert_failure 1
    assert_output "kpgo: collection timed out after 1 s; nothing was spooled"
    [ "$SECONDS" -lt 5 ]
    run mountpoint -q "$W/dbg"
    assert_failure
    [ -z "$(profiles)" ]
    # The stand-in does mount: without the lock the collection finds gcov/ (empty).
    run env LD_PRELOAD="$W/fake-debugfs.so" ASAN_OPTIONS=verify_asan_link_order=0 \
        "$KPGO" spool collect --timeout 5 --debugfs "$W/dbg"
    assert_success
    assert_output --partial "no .gcda files found in '$W/dbg/gcov'"
    run mountpoint -q "$W/dbg"
    assert_failure
}

@test "collect --snapshot does nothing when snapshots are off" {
    settings 'KPGO_SNAPSHOT_INTERVAL=0'
    run kpgo spool collect --snapshot --gcov-dir "$W/gcov"
    assert_success
    assert_output --partial "periodic snapshots are off"
    [ ! -e "$SPOOL" ] || [ -z "$(profiles)" ]
    settings 'KPGO_SNAPSHOT_INTERVAL=1h'
    run kpgo spool collect --snapshot --gcov-dir "$W/gcov"
    assert_success
    [ "$(profiles | wc -l)" -eq 1 ]
}

@test "upload: target down, then back: every profile arrives exactly once" {
    make_sender
    settings "KPGO_UPLOAD_COMMAND=$W/send"
    for i in 1 2 3; do
        gcov_dir "$i"
        kpgo spool collect -q --gcov-dir "$W/g$i"
    done
    [ "$(profiles | wc -l)" -eq 3 ]
    touch "$W/down"
    run --separate-stderr kpgo spool upload
    assert_failure 1
    assert_output --regexp "^failed .*\.kpgo: '$W/send' exited with status 1 \(attempt 1; next try .*\)$"
    [[ $stderr == *"farm unreachable"* ]]
    [ "$(wc -l <"$W/calls")" -eq 1 ]
    # Within the backoff nothing is tried: one line says so.
    run kpgo spool upload
    assert_success
    assert_output --regexp "^3 profiles wait for the next try at .* \(after 1 failed uploads: '$W/send' exited with status 1\)$"
    run kpgo spool upload -v
    [ "$(grep -c '^waiting .*: next try ' <<<"$output")" -eq 3 ]
    [ "$(wc -l <"$W/calls")" -eq 1 ]
    # Still down: --force tries another profile (fewest failures first); the backoff doubles.
    run kpgo spool upload --force
    assert_failure 1
    [ "$(wc -l <"$W/calls")" -eq 2 ]
    [ "$(sort -u "$W/calls" | wc -l)" -eq 2 ]
    kpgo spool list --json | python3 -c '
import json, sys, datetime
d = json.load(sys.stdin)
up = d["upload"]
assert up["failed_runs"] == 2, d
nxt = datetime.datetime.strptime(up["next_try"], "%Y-%m-%dT%H:%M:%SZ")
wait = (nxt - datetime.datetime.utcnow()).total_seconds()
assert 100 < wait <= 121, wait
assert "exited with status 1" in up["last_error"]
assert sorted(p["failed_attempts"] for p in d["profiles"]) == [0, 1, 1], d
'
    rm "$W/down"
    run kpgo spool upload --force
    assert_success
    [ "$(echo "$output" | grep -c '^sent ')" -eq 3 ]
    run kpgo spool upload
    assert_success
    refute_output --partial sent
    # Exactly once each, byte for byte, and the spool agrees.
    [ "$(sort "$W/farm.log" | uniq -d)" = "" ]
    [ "$(wc -l <"$W/farm.log")" -eq 3 ]
    [ -z "$(profiles)" ]
    for f in "$W"/farm/*.kpgo; do
        cmp "$f" "$SPOOL/sent/${f##*/}"
    done
    [ -z "$(ls -A "$SPOOL/retry")" ]
}

@test "upload: a crash after the command succeeded sends again, and the store keeps one copy" {
    make_sender
    # Delivers, then kpgo dies before it can record that.
    cat >"$W/send-then-crash" <<EOF
#!/bin/sh
cp "\$1" "$W/farm/" && basename "\$1" >>"$W/farm.log"
kill -9 \$PPID
EOF
    chmod +x "$W/send-then-crash"
    settings "KPGO_UPLOAD_COMMAND=$W/send-then-crash"
    kpgo spool collect -q --gcov-dir "$W/gcov"
    run kpgo spool upload
    assert_failure 137
    name=$(profiles)
    [ -n "$name" ]
    [ -e "$W/farm/$name" ]
    settings "KPGO_UPLOAD_COMMAND=$W/send"
    run kpgo spool upload
    assert_success
    assert_output "sent $name"
    [ "$(grep -c . "$W/farm.log")" -eq 2 ]
    run kpgo store --store "$W/store" ingest "$W/farm"
    assert_success
    run kpgo store --store "$W/store" list
    [ "${#lines[@]}" -eq 1 ]
}

@test "upload: concurrent runs never hand a profile over twice" {
    make_sender 'sleep 0.5'
    settings "KPGO_UPLOAD_COMMAND=$W/send"
    for i in 1 2 3; do
        gcov_dir "$i"
        kpgo spool collect -q --gcov-dir "$W/g$i"
    done
    for i in 1 2 3 4; do
        kpgo spool upload >"$W/out$i" 2>&1 &
    done
    wait
    [ "$(wc -l <"$W/farm.log")" -eq 3 ]
    [ "$(sort "$W/farm.log" | uniq -d)" = "" ]
    [ "$(wc -l <"$W/calls")" -eq 3 ]
    grep -l "another upload is running" "$W"/out* >/dev/null
    [ -z "$(profiles)" ]
}

@test "upload: spool files that are not valid profiles are rejected with a reason, never sent" {
    make_sender
    settings "KPGO_UPLOAD_COMMAND=$W/send"
    kpgo spool collect -q --gcov-dir "$W/gcov"
    good=$(profiles)
    junk=20240101T000000Z-host-0123456789abcdef.kpgo
    echo garbage >"$SPOOL/$junk"
    cut=20240101T000001Z-host-${good: -21}
    head -c 100 "$SPOOL/$good" >"$SPOOL/$cut"
    ln -s /etc/passwd "$SPOOL/20240101T000002Z-host-0123456789abcdef.kpgo"
    echo stray >"$SPOOL/notes.txt"
    run kpgo spool upload
    assert_failure 1
    assert_line --regexp "^rejected $junk: .+"
    assert_line --regexp "^rejected $cut: .+"
    assert_line "sent $good"
    [ "$(cat "$W/calls")" = "$SPOOL/upload/$good" ]
    [ -s "$SPOOL/rejected/$junk.reason" ]
    [ -s "$SPOOL/rejected/$cut.reason" ]
    # Links and other names are not profiles: left alone, not followed.
    [ -L "$SPOOL/20240101T000002Z-host-0123456789abcdef.kpgo" ]
    [ -e "$SPOOL/notes.txt" ]
}

@test "upload: '{}' places the path, quoted words stay whole, the profile is in the environment" {
    cat >"$W/args" <<EOF
#!/bin/sh
for a; do echo "arg:\$a"; done >"$W/args.out"
echo "env:\$KPGO_PROFILE_NAME:\$KPGO_PROFILE_SHA256" >>"$W/args.out"
EOF
    chmod +x "$W/args"
    settings "KPGO_UPLOAD_COMMAND=\"$W/args --to 'a b' {} last\""
    kpgo spool collect -q --gcov-dir "$W/gcov"
    name=$(profiles)
    run kpgo spool upload
    assert_success
    run cat "$W/args.out"
    assert_output "arg:--to
arg:a b
arg:$SPOOL/upload/$name
arg:last
env:$name:$(sha256sum "$SPOOL/sent/$name" | cut -d' ' -f1)"
}

@test "upload: a command that hangs is killed after KPGO_UPLOAD_TIMEOUT, its children too" {
    cat >"$W/hang" <<EOF
#!/bin/sh
sleep 60 &
echo \$! >"$W/child"
wait
EOF
    chmod +x "$W/hang"
    settings "KPGO_UPLOAD_COMMAND=$W/hang" 'KPGO_UPLOAD_TIMEOUT=1s'
    kpgo spool collect -q --gcov-dir "$W/gcov"
    SECONDS=0
    run kpgo spool upload
    assert_failure 1
    assert_line --regexp "did not finish within 1 s and was killed"
    [ "$SECONDS" -lt 10 ]
    # Gone, or a zombie waiting for a reaper this container may not have.
    state=$(ps -o stat= -p "$(cat "$W/child")" || true)
    [ -z "$state" ] || [[ $state == Z* ]]
    [ "$(profiles | wc -l)" -eq 1 ]
}

@test "upload: without an upload command the profiles stay, exit 0" {
    kpgo spool collect -q --gcov-dir "$W/gcov"
    run kpgo spool upload
    assert_success
    assert_output --partial "no upload command is set"
    [ "$(profiles | wc -l)" -eq 1 ]
    settings 'KPGO_UPLOAD_COMMAND=/nonexistent/uploader'
    run kpgo spool upload
    assert_failure 1
    assert_line --partial "could not be run (exit status 127)"
    [ "$(profiles | wc -l)" -eq 1 ]
}

@test "retention: sent/ keeps the newest KPGO_KEEP_COUNT within KPGO_KEEP_AGE; KPGO_SPOOL_MAX drops the oldest unsent" {
    make_sender
    settings "KPGO_UPLOAD_COMMAND=$W/send" 'KPGO_KEEP_COUNT=2'
    for i in 1 2 3; do
        gcov_dir "$i"
        kpgo spool collect -q --gcov-dir "$W/g$i"
    done
    kpgo spool upload >/dev/null
    [ "$(files "$SPOOL/sent" | wc -l)" -eq 2 ]
    oldest=$(files "$SPOOL/sent" | head -1)
    touch -d '2 days ago' "$SPOOL/sent/$oldest"
    settings "KPGO_UPLOAD_COMMAND=$W/send" 'KPGO_KEEP_COUNT=2' 'KPGO_KEEP_AGE=1d'
    run kpgo spool prune
    assert_success
    assert_output "removed 'sent/$oldest' (KPGO_KEEP_COUNT=2, KPGO_KEEP_AGE)"
    [ "$(files "$SPOOL/sent" | wc -l)" -eq 1 ]
    settings 'KPGO_SPOOL_MAX=1'
    for i in 4 5; do
        gcov_dir "$i"
        kpgo spool collect -q --gcov-dir "$W/g$i"
    done
    run kpgo spool collect --gcov-dir "$W/gcov"
    assert_success
    [ "$(profiles | wc -l)" -eq 1 ]
    assert_line --regexp "^kpgo: warning: dropped the unsent profile '.*': more than KPGO_SPOOL_MAX=1 are waiting$"
}

@test "the whole machine side: collect, upload into a drop directory, ingest, select" {
    settings "KPGO_UPLOAD_COMMAND=\"cp -t $W/drop\""
    mkdir "$W/drop"
    for i in 1 2; do
        gcov_dir "$i"
        kpgo spool collect -q --gcov-dir "$W/g$i" --kernel-release 6.1.0-30-pgo-instr --build-id 00ab
    done
    kpgo spool upload >/dev/null
    run kpgo store --store "$W/store" ingest "$W/drop"
    assert_success
    [ "$(grep -c '^added ' <<<"$output")" -eq 2 ]
    assert_line --regexp "^merged 6\.1\.0-30-pgo-instr \(build 00ab, .*\): 2 profiles into [0-9a-f]{64}$"
    merged=$(sed -n 's/^merged .* into //p' <<<"$output")
    run kpgo store --store "$W/store" select --release 6.1.0-30-pgo-instr --build-id 00ab
    assert_success
    assert_output --partial "$merged"
}
