#!/usr/bin/env bats
# kpgo spool: the spool directory is opened without following symbolic
# links, must be its owner's (root's) alone, and the upload command gets a
# private copy of the bytes that were verified.
# shellcheck disable=SC2030,SC2031 # each test runs in its own subshell

load helpers
load spool-lib

bats_require_minimum_version 1.5.0

setup_file() {
    program_gcov_tree
}

setup() {
    spool_setup
}

settings() {
    printf 'KPGO_SPOOL_DIR=%s\nKPGO_WORKLOAD=redis\n' "$SPOOL" >"$KPGO_SETTINGS"
    printf '%s\n' "$@" >>"$KPGO_SETTINGS"
}

@test "a spool that is a symbolic link, or has one on its path, is refused and nothing is written there" {
    mkdir -m 0750 "$W/real"
    ln -s "$W/real" "$SPOOL"
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_failure 1
    assert_output --partial "refusing the spool '$SPOOL': a symbolic link"
    [ -z "$(ls -A "$W/real")" ]
    # A link higher up the path.
    mkdir "$W/realparent"
    ln -s "$W/realparent" "$W/linkparent"
    SPOOL=$W/linkparent/spool
    settings KPGO_UPLOAD_COMMAND=/bin/true
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_failure 1
    assert_output --partial "a symbolic link or not a directory on its path"
    [ -z "$(ls -A "$W/realparent")" ]
    run kpgo spool upload
    assert_failure 1
    # A plain path works, and makes the spool 0750.
    SPOOL=$W/plain/spool
    settings
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_success
    [ "$(stat -c %a "$SPOOL")" = 750 ]
}

@test "a spool or spool folder that others can write, or another user owns, is refused" {
    settings KPGO_UPLOAD_COMMAND=/bin/true
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_success
    for mode in 0770 0757 0777; do
        chmod "$mode" "$SPOOL"
        run kpgo spool collect -q --gcov-dir "$W/gcov"
        assert_failure 1
        assert_output --partial "refusing the spool '$SPOOL': it must be owned by root and writable by its owner only"
        run kpgo spool upload
        assert_failure 1
    done
    chmod 0750 "$SPOOL"
    chmod 0777 "$SPOOL/sent"
    run kpgo spool upload
    assert_failure 1
    assert_output --partial "refusing the spool '$SPOOL/sent'"
    chmod 0750 "$SPOOL/sent"
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_success
    if [ "$(id -u)" -eq 0 ]; then
        chown nobody "$SPOOL"
        run kpgo spool collect -q --gcov-dir "$W/gcov"
        assert_failure 1
        assert_output --partial "refusing the spool '$SPOOL'"
        chown 0 "$SPOOL"
        chown nobody "$SPOOL/tmp"
        run kpgo spool collect -q --gcov-dir "$W/gcov"
        assert_failure 1
        assert_output --partial "refusing the spool '$SPOOL/tmp'"
    fi
}

@test "upload gives the command a private copy: a file swapped after the check is not what is sent" {
    mkdir "$W/farm"
    printf 'not the profile that was checked\n' >"$W/evil"
    # The command swaps the spool file before it reads its argument, as
    # another user could between kpgo's check and the command's read.
    cat >"$W/send" <<EOF
#!/bin/sh
for f in "$SPOOL"/*.kpgo; do cat "$W/evil" >"\$f"; done
echo "\$1" >"$W/arg"
cp "\$1" "$W/farm/"
EOF
    chmod +x "$W/send"
    settings "KPGO_UPLOAD_COMMAND=$W/send"
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_success
    name=$(find "$SPOOL" -maxdepth 1 -name '*.kpgo' -printf '%f\n')
    cp "$SPOOL/$name" "$W/checked"
    run kpgo spool upload
    assert_success
    [ "$(cat "$W/arg")" = "$SPOOL/upload/$name" ]
    cmp "$W/checked" "$W/farm/$name"
    # The copy is gone, and only its owner could ever enter its folder.
    [ ! -e "$SPOOL/upload/$name" ]
    [ "$(stat -c %a "$SPOOL/upload")" = 700 ]
}

@test "KPGO_UPLOAD_USER: the command runs as that user, with a copy only it can read" {
    [ "$(id -u)" -eq 0 ] || skip "needs root"
    id nobody >/dev/null || skip "no user nobody"
    P=$(mktemp -d /tmp/kpgo-upload-test.XXXXXX)
    chmod 0755 "$P"
    mkdir -m 0777 "$P/farm"
    cat >"$P/send" <<EOF
#!/bin/sh
id -u >"$P/farm/uid"
id -G >"$P/farm/groups"
echo "\$1" >"$P/farm/arg"
stat -c '%a %U' "\$1" >"$P/farm/mode"
cp "\$1" "$P/farm/"
EOF
    chmod 0755 "$P/send"
    settings "KPGO_UPLOAD_COMMAND=$P/send" KPGO_UPLOAD_USER=nobody
    run kpgo spool collect -q --gcov-dir "$W/gcov"
    assert_success
    name=$(find "$SPOOL" -maxdepth 1 -name '*.kpgo' -printf '%f\n')
    cp "$SPOOL/$name" "$W/checked"
    TMPDIR=$P run kpgo spool upload
    assert_success
    [ "$(cat "$P/farm/uid")" = "$(id -u nobody)" ]
    [ "$(cat "$P/farm/groups")" = "$(id -g nobody)" ]
    [ "$(cat "$P/farm/mode")" = "400 nobody" ]
    cmp "$W/checked" "$P/farm/$name"
    arg=$(cat "$P/farm/arg")
    [[ $arg == "$P"/kpgo-upload.*/"$name" ]]
    [ ! -e "$(dirname "$arg")" ]
    [ -e "$SPOOL/sent/$name" ]
    rm -rf "$P"
    # A user that does not exist, or root, is an error; a bad name a settings error.
    kpgo spool collect -q --gcov-dir "$W/gcov"
    for u in kpgo-no-such-user root; do
        settings "KPGO_UPLOAD_COMMAND=/bin/true" "KPGO_UPLOAD_USER=$u"
        run kpgo spool upload
        assert_failure 1
        assert_output --partial "the upload command's user: "
    done
    settings "KPGO_UPLOAD_COMMAND=/bin/true" "KPGO_UPLOAD_USER=Bad/Name"
    run kpgo spool upload
    assert_failure 1
    assert_output --partial "KPGO_UPLOAD_USER"
}

@test "upload --user (kpgo-upload.service's DynamicUser=): the command runs as that user, unless KPGO_UPLOAD_USER names another" {
    [ "$(id -u)" -eq 0 ] || skip "needs root"
    id nobody >/dev/null && id daemon >/dev/null || skip "no users nobody and daemon"
    P=$(mktemp -d /tmp/kpgo-upload-test.XXXXXX)
    chmod 0755 "$P"
    mkdir -m 0777 "$P/farm"
    cat >"$P/send" <<EOF
#!/bin/sh
id -un >>"$P/farm/users"
stat -c '%a %U' "\$1" >>"$P/farm/modes"
cp "\$1" "$P/farm/"
EOF
    chmod 0755 "$P/send"
    : >"$P/farm/users"
    : >"$P/farm/modes"
    chmod 0666 "$P/farm/users" "$P/farm/modes"
    settings "KPGO_UPLOAD_COMMAND=$P/send"
    kpgo spool collect -q --gcov-dir "$W/gcov"
    TMPDIR=$P run kpgo spool upload --user nobody
    assert_success
    [ "$(cat "$P/farm/users")" = nobody ]
    [ "$(cat "$P/farm/modes")" = "400 nobody" ]
    # The operator's setting wins over the unit's user.
    settings "KPGO_UPLOAD_COMMAND=$P/send" KPGO_UPLOAD_USER=daemon
    # a profile's name is its second and its data: a second collection in
    # the same second would be the first one's name (nobody's file in farm/)
    sleep 1
    kpgo spool collect -q --gcov-dir "$W/gcov"
    TMPDIR=$P run kpgo spool upload --user nobody
    assert_success
    [ "$(tail -n 1 "$P/farm/users")" = daemon ]
    [ "$(find "$SPOOL/sent" -name '*.kpgo' | wc -l)" -eq 2 ]
    rm -rf "$P"
    run kpgo spool upload --user Bad/Name
    assert_failure 2
    assert_output --partial "bad --user 'Bad/Name'"
    settings "KPGO_UPLOAD_COMMAND=/bin/true"
    kpgo spool collect -q --gcov-dir "$W/gcov"
    run kpgo spool upload --user kpgo-no-such-user
    assert_failure 1
    assert_output --partial "the upload command's user: no user 'kpgo-no-such-user'"
}
