#!/usr/bin/env bats
# The machine's hooks (hooks/): kernel postinst.d hook and kernel-install
# plugin, the systemd units and their generator, as installed by
# 'make install-hooks'.
# shellcheck disable=SC2154 # $stderr is set by bats' run --separate-stderr

load helpers

bats_require_minimum_version 1.5.0

TOP=$BATS_TEST_DIRNAME/../..
REL=6.1.0-99-pgo-instr

setup() {
    W=$BATS_TEST_TMPDIR
    SPOOL=$W/spool
    export KPGO_SETTINGS=$W/kpgo.conf
    printf 'KPGO_SPOOL_DIR=%s\n' "$SPOOL" >"$KPGO_SETTINGS"
    # kpgo from this build, and a systemctl that only records what it was asked.
    mkdir -p "$W/bin" "$W/boot"
    ln -s "$KPGO" "$W/bin/kpgo"
    cat >"$W/bin/systemctl" <<EOF
#!/bin/sh
echo "\$*" >>"$W/systemctl.log"
EOF
    chmod +x "$W/bin/systemctl"
    HOOKPATH=$W/bin:/usr/bin:/bin
}

# kernel REL y|n: an installed kernel image with its config beside it.
kernel() {
    : >"$W/boot/vmlinuz-$1"
    if [ "$2" = y ]; then
        printf 'CONFIG_X86=y\nCONFIG_GCOV_KERNEL=y\nCONFIG_GCOV_PROFILE_ALL=y\n' >"$W/boot/config-$1"
    else
        printf 'CONFIG_X86=y\n# CONFIG_GCOV_KERNEL is not set\n' >"$W/boot/config-$1"
    fi
}

@test "postinst.d hook: an instrumented kernel gets its spool and the units enabled" {
    kernel "$REL" y
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/postinst.d/kpgo" "$REL" "$W/boot/vmlinuz-$REL"
    assert_success
    assert_output "kernel $REL is instrumented: its profiles will be collected into '$SPOOL'"
    run cat "$W/systemctl.log"
    assert_output "enable kpgo-collect.service kpgo-collect.timer kpgo-upload.timer"
    [ -d "$SPOOL/tmp" ] && [ -d "$SPOOL/sent" ]
    [ "$(stat -c %a "$SPOOL")" = 750 ]
}

@test "postinst.d hook: a kernel without gcov, or without a config, is left alone" {
    kernel 6.1.0-99-amd64 n
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/postinst.d/kpgo" 6.1.0-99-amd64 "$W/boot/vmlinuz-6.1.0-99-amd64"
    assert_success
    assert_output ""
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/postinst.d/kpgo" 6.1.0-98-unknown "$W/nowhere/vmlinuz"
    assert_success
    assert_output "no config found for kernel 6.1.0-98-unknown: taken as not instrumented"
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/postinst.d/kpgo"
    assert_success
    [ ! -e "$W/systemctl.log" ]
    [ ! -e "$SPOOL" ]
}

@test "postinst.d hook: a kpgo problem is reported but never fails the kernel's installation" {
    kernel "$REL" y
    # shellcheck disable=SC2016 # for kpgo to refuse, not to run
    echo 'KPGO_WORKLOAD=$(reboot)' >>"$KPGO_SETTINGS"
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/postinst.d/kpgo" "$REL" "$W/boot/vmlinuz-$REL"
    assert_success
    assert_line --partial "kpgo: $KPGO_SETTINGS:2:"
    assert_line "kpgo: profile collection for kernel $REL is not prepared"
    [ ! -e "$W/systemctl.log" ]
    # Without kpgo at all (the package removed, its hook left): nothing.
    PATH=/usr/bin:/bin run "$TOP/hooks/machine/kernel/postinst.d/kpgo" "$REL" "$W/boot/vmlinuz-$REL"
    assert_success
}

@test "kernel-install plugin: 'add' of an instrumented kernel prepares collection, anything else does nothing" {
    kernel "$REL" y
    kernel 6.1.0-99-amd64 n
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/install.d/50-kpgo.install" remove "$REL" "$W/entry"
    assert_success
    [ ! -e "$W/systemctl.log" ]
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/install.d/50-kpgo.install" add 6.1.0-99-amd64 "$W/entry" "$W/boot/vmlinuz-6.1.0-99-amd64"
    assert_success
    [ ! -e "$W/systemctl.log" ]
    PATH=$HOOKPATH run "$TOP/hooks/machine/kernel/install.d/50-kpgo.install" add "$REL" "$W/entry" "$W/boot/vmlinuz-$REL" "$W/initrd"
    assert_success
    run cat "$W/systemctl.log"
    assert_output "enable kpgo-collect.service kpgo-collect.timer kpgo-upload.timer"
    [ -d "$SPOOL/tmp" ]
}

@test "prepare: the decision, and releases that could walk a path are refused" {
    kernel "$REL" y
    run kpgo spool prepare --release "$REL" --kernel-config "$W/boot/config-$REL"
    assert_success
    assert_line instrumented
    printf 'CONFIG_GCOV_KERNEL=m\n#CONFIG_GCOV_KERNEL=y\n CONFIG_GCOV_KERNEL=y\n' >"$W/odd.config"
    run --separate-stderr kpgo spool prepare --release "$REL" --kernel-config "$W/odd.config"
    assert_success
    assert_output not-instrumented
    run kpgo spool prepare --release "$REL" --kernel-config "$W/missing.config"
    assert_success
    assert_line not-instrumented
    for bad in ../../etc 'a/b' '.hidden' '' "$(printf 'a\nb')"; do
        run kpgo spool prepare --release "$bad"
        assert_failure 2
    done
    mkdir "$W/dir.config"
    run kpgo spool prepare --release "$REL" --kernel-config "$W/dir.config"
    assert_failure 1
}

@test "the hooks are shellcheck-clean" {
    command -v shellcheck || skip "shellcheck is not installed"
    shellcheck "$TOP/hooks/machine/kernel/postinst.d/kpgo" "$TOP/hooks/machine/kernel/install.d/50-kpgo.install" \
        "$TOP/hooks/machine/systemd/kpgo-generator"
}

# install_hooks: 'make install-hooks' into $W/root, the units naming this build's kpgo.
install_hooks() {
    make -s -C "$TOP" install-hooks DESTDIR="$W/root" PREFIX=/usr \
        BINDIR="$(dirname "$KPGO")" >/dev/null
}

@test "make install-hooks lays out what the packages ship" {
    install_hooks
    run find "$W/root" -type f -printf '%P %m\n'
    assert_line "etc/default/kpgo 644"
    assert_line "etc/kernel/postinst.d/kpgo 755"
    assert_line "usr/lib/kernel/install.d/50-kpgo.install 755"
    assert_line "usr/lib/systemd/system-generators/kpgo-generator 755"
    for u in kpgo-collect.service kpgo-collect.timer kpgo-snapshot.service kpgo-upload.service kpgo-upload.timer; do
        assert_line "usr/lib/systemd/system/$u 644"
    done
    [ "$(stat -c %a "$W/root/var/lib/kpgo/profiles")" = 750 ]
    grep -q "^ExecStop=$KPGO spool collect$" "$W/root/usr/lib/systemd/system/kpgo-collect.service"
    run make -s -C "$TOP" install-hooks DESTDIR="$W/rpm" PREFIX=/usr KPGO_SETTINGS_DIR=/etc/sysconfig
    assert_success
    [ -f "$W/rpm/etc/sysconfig/kpgo" ]
}

@test "the generator turns the settings into drop-ins; bad settings write nothing" {
    install_hooks
    printf 'KPGO_SPOOL_DIR=/srv/kpgo/spool\nKPGO_SNAPSHOT_INTERVAL=2h\nKPGO_COLLECT_TIMEOUT=2m\n' >"$KPGO_SETTINGS"
    run "$W/root/usr/lib/systemd/system-generators/kpgo-generator" "$W/gen" "$W/early" "$W/late"
    assert_success
    run cat "$W/gen/kpgo-collect.timer.d/50-kpgo-settings.conf"
    assert_line "OnBootSec=7200s"
    assert_line "OnUnitActiveSec=7200s"
    run cat "$W/gen/kpgo-collect.service.d/50-kpgo-settings.conf"
    assert_line "RequiresMountsFor=/srv/kpgo/spool"
    assert_line "ReadWritePaths=-/srv/kpgo/spool"
    assert_line "TimeoutStopSec=150s"
    run cat "$W/gen/kpgo-snapshot.service.d/50-kpgo-settings.conf"
    assert_line "TimeoutStartSec=150s"
    assert_line "ReadWritePaths=-/srv/kpgo/spool"
    grep -qx "RequiresMountsFor=/srv/kpgo/spool" "$W/gen/kpgo-upload.service.d/50-kpgo-settings.conf"
    grep -qx "ReadWritePaths=-/srv/kpgo/spool" "$W/gen/kpgo-upload.service.d/50-kpgo-settings.conf"
    # Snapshots off: the timer keeps its unit's interval; the service does nothing.
    printf 'KPGO_SNAPSHOT_INTERVAL=0\n' >"$KPGO_SETTINGS"
    run "$W/root/usr/lib/systemd/system-generators/kpgo-generator" "$W/gen2"
    assert_success
    [ ! -e "$W/gen2/kpgo-collect.timer.d" ]
    printf 'KPGO_SNAPSHOT_INTERVAL=often\n' >"$KPGO_SETTINGS"
    run "$W/root/usr/lib/systemd/system-generators/kpgo-generator" "$W/gen3"
    assert_failure 1
    assert_output --partial "bad KPGO_SNAPSHOT_INTERVAL 'often'"
    [ -z "$(ls -A "$W/gen3")" ]
}

@test "systemd-analyze verify accepts the units with the generator's drop-ins" {
    command -v systemd-analyze || skip "systemd-analyze is not installed"
    install_hooks
    printf 'KPGO_SPOOL_DIR=%s\nKPGO_SNAPSHOT_INTERVAL=30m\n' "$SPOOL" >"$KPGO_SETTINGS"
    "$W/root/usr/lib/systemd/system-generators/kpgo-generator" "$W/gen"
    export SYSTEMD_UNIT_PATH=$W/root/usr/lib/systemd/system:$W/gen:
    run systemd-analyze verify --man=no kpgo-collect.service kpgo-collect.timer \
        kpgo-snapshot.service kpgo-upload.service kpgo-upload.timer
    [[ $output != *"Failed to connect"* && $output != *"not been booted"* ]] ||
        skip "systemd-analyze cannot run here: $output"
    assert_success
    assert_output ""
    # The check can fail: a bad drop-in is reported.
    echo 'OnUnitActiveSec=soon' >>"$W/gen/kpgo-collect.timer.d/50-kpgo-settings.conf"
    run systemd-analyze verify --man=no kpgo-collect.timer
    assert_output --partial "Failed to parse"
}

@test "every service's exposure (systemd-analyze security --offline) is at most 2.5" {
    command -v systemd-analyze || skip "systemd-analyze is not installed"
    install_hooks
    for u in kpgo-collect.service kpgo-snapshot.service kpgo-upload.service; do
        run systemd-analyze security --offline=true --threshold=25 \
            "$W/root/usr/lib/systemd/system/$u"
        assert_success
        assert_output --regexp "Overall exposure level for $u: (0\.[0-9]|1\.[0-9]|2\.[0-5]) "
        # The check can fail: the same unit without its sandbox is far above.
        sed '/^NoNewPrivileges=/,$d' "$W/root/usr/lib/systemd/system/$u" >"$W/$u"
        run systemd-analyze security --offline=true --threshold=25 "$W/$u"
        assert_failure
    done
    # The upload's command runs as the unit's dynamic user: kpgo (root by
    # '!') hands it over, named as the unit names it.
    grep -qx "DynamicUser=yes" "$W/root/usr/lib/systemd/system/kpgo-upload.service"
    grep -qx "User=kpgo-upload" "$W/root/usr/lib/systemd/system/kpgo-upload.service"
    grep -qx "ExecStart=!$KPGO spool upload --user kpgo-upload" \
        "$W/root/usr/lib/systemd/system/kpgo-upload.service"
    # The upload keeps only what handing the command to its user needs;
    # collection only what mounting and reading debugfs need.
    grep -qx "CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_CHOWN" \
        "$W/root/usr/lib/systemd/system/kpgo-upload.service"
    run grep -c "^ProtectKernelTunables=" "$W/root/usr/lib/systemd/system/kpgo-collect.service"
    assert_output 0
}

@test "kpgo-kbuild: toolchain usage errors exit 2 before anything is configured" {
    src=$W/ksrc
    mkdir -p "$src"
    : >"$src/Makefile"
    : >"$src/Kconfig"
    kb() {
        run --separate-stderr "$TOP/hooks/build/kpgo-kbuild" --src "$src" --out "$W/out" "$@"
    }
    kb --flavour pgo-instr --toolchain clang
    [ "$status" -eq 2 ]
    assert_equal "$stderr" "kpgo-kbuild: the pgo-instr flavour is built with GCC (gcov); not with --toolchain clang
Try 'kpgo-kbuild --help'."
    kb --flavour baseline --toolchain icc
    [ "$status" -eq 2 ]
    [[ $stderr == *"unknown toolchain 'icc' (gcc or clang)"* ]]
    kb --flavour baseline --toolchain clang --cc gcc-12
    [ "$status" -eq 2 ]
    [[ $stderr == *"--toolchain clang needs --cc clang or clang-N, not 'gcc-12'"* ]]
    kb --flavour baseline --toolchain clang --cc clang-x
    [ "$status" -eq 2 ]
    kb --flavour baseline --toolchain clang --gcno "$W"
    [ "$status" -eq 2 ]
    [[ $stderr == *"--gcno is for the pgo flavour"* ]]
    kb --flavour baseline --toolchain clang --lto fat
    [ "$status" -eq 2 ]
    [[ $stderr == *"unknown --lto 'fat' (thin or full)"* ]]
    kb --flavour baseline --lto full
    [ "$status" -eq 2 ]
    [[ $stderr == *"--lto is for --toolchain clang"* ]]
    kb --flavour pgo --profile "$W/p.kpgo" --afdo-inlined
    [ "$status" -eq 2 ]
    [[ $stderr == *"--afdo-inlined is for the pgo flavour with --toolchain clang"* ]]
    kb --flavour baseline --toolchain clang --afdo-inlined
    [ "$status" -eq 2 ]
    [[ $stderr == *"--afdo-inlined is for the pgo flavour with --toolchain clang"* ]]
    kb --flavour pgo --profile "$W/p.kpgo" --afdo-add "$W/a.txt" --afdo-add-places "$W/d"
    [ "$status" -eq 2 ]
    [[ $stderr == *"--afdo-add is for the pgo flavour with --toolchain clang"* ]]
    kb --flavour pgo --toolchain clang --profile "$W/p.kpgo" --afdo-add "$W/a.txt"
    [ "$status" -eq 2 ]
    [[ $stderr == *"--afdo-add and --afdo-add-places go together"* ]]
    kb --flavour baseline --localversion '-a b'
    [ "$status" -eq 2 ]
    [[ $stderr == *"bad --localversion '-a b'"* ]]
    kb --flavour pgo-instr --instr-tree "$W"
    [ "$status" -eq 2 ]
    [[ $stderr == *"--instr-tree and --instr-release are for the pgo flavour"* ]]
    kb --flavour pgo --profile "$W/p" --instr-release '6.1 x'
    [ "$status" -eq 2 ]
    [[ $stderr == *"bad --instr-release '6.1 x'"* ]]
    [ ! -e "$W/out" ]
}

@test "kpgo-kbuild: every flavour needs a kpgo that runs (it checks the config), before anything is configured" {
    src=$W/ksrc
    mkdir -p "$src"
    : >"$src/Makefile"
    : >"$src/Kconfig"
    for f in pgo-instr baseline; do
        run --separate-stderr "$TOP/hooks/build/kpgo-kbuild" --src "$src" --out "$W/out" \
            --flavour "$f" --kpgo "$W/no-kpgo" --configure-only
        [ "$status" -eq 1 ]
        assert_equal "$stderr" "kpgo-kbuild: '$W/no-kpgo' does not run"
    done
    [ ! -e "$W/out" ]
}

# maint SCRIPT ARGS...: the kernel image package's maintainer script
# (debian/templates) for $REL, run with DPKG_ROOT=$W/root as dpkg runs it
# with --force-script-chrootless; depmod, linux-update-symlinks and
# linux-check-removal are stand-ins that record their arguments in
# $W/maint.log (LINUX_CHECK_REMOVAL_FAILS=1: it refuses, as linux-base's
# does for the running kernel).
maint() {
    local s=$1
    shift
    mkdir -p "$W/maint-bin" "$W/root/etc/kernel/$s.d"
    # (the stand-ins' own $*, expanded when they run)
    # shellcheck disable=SC2016
    for t in depmod linux-update-symlinks linux-check-removal; do
        printf '#!/bin/sh\necho "%s $*" >>"%s"\n[ "%s${LINUX_CHECK_REMOVAL_FAILS:-}" != linux-check-removal1 ]\n' \
            "$t" "$W/maint.log" "$t" >"$W/maint-bin/$t"
        chmod +x "$W/maint-bin/$t"
    done
    # shellcheck disable=SC2016 # the hook's own $* and DEB_MAINT_PARAMS
    printf '#!/bin/sh\necho "%s.d $* ($DEB_MAINT_PARAMS)" >>"%s"\n' "$s" "$W/maint.log" \
        >"$W/root/etc/kernel/$s.d/record"
    chmod +x "$W/root/etc/kernel/$s.d/record"
    sed "s/@KREL@/$REL/g; s/#DEBHELPER#//" "$TOP/debian/templates/image.$s.in" >"$W/$s"
    DPKG_ROOT=$W/root PATH=$W/maint-bin:/usr/sbin:/usr/bin:/sbin:/bin sh -e "$W/$s" "$@"
}

@test "kernel maintainer scripts: Debian's sequence (fresh install, depmod, linux-update-symlinks, hooks)" {
    run maint preinst install
    assert_success
    [ -f "$W/root/lib/modules/$REL/.fresh-install" ]
    run maint postinst configure
    assert_success
    [ ! -e "$W/root/lib/modules/$REL/.fresh-install" ]
    run cat "$W/maint.log"
    assert_line --index 0 "preinst.d $REL /boot/vmlinuz-$REL (install)"
    assert_line --index 1 --regexp "^depmod -a -b $W/root -F $W/root/boot/System.map-$REL $REL\$"
    assert_line --index 2 "linux-update-symlinks install $REL /boot/vmlinuz-$REL"
    assert_line --index 3 "postinst.d $REL /boot/vmlinuz-$REL (configure)"
    # an upgrade (no fresh-install flag) says so; other postinst calls do nothing
    : >"$W/maint.log"
    run maint postinst configure 6.1.0-old
    assert_success
    run maint postinst abort-remove
    assert_success
    run cat "$W/maint.log"
    assert_line --index 1 "linux-update-symlinks upgrade $REL /boot/vmlinuz-$REL"
    assert_equal "${#lines[@]}" 3
}

@test "kernel maintainer scripts: linux-check-removal stops removing the running kernel; purge cleans up" {
    mkdir -p "$W/root/lib/modules/$REL" "$W/root/boot"
    : >"$W/root/lib/modules/$REL/modules.dep"
    : >"$W/root/boot/initrd.img-$REL"
    LINUX_CHECK_REMOVAL_FAILS=1 run maint prerm remove
    assert_failure
    run cat "$W/maint.log"
    assert_output "linux-check-removal $REL"
    : >"$W/maint.log"
    run maint prerm remove
    assert_success
    run maint prerm upgrade 6.1.0-new
    assert_success
    run maint postrm remove
    assert_success
    run maint postrm upgrade 6.1.0-new
    assert_success
    [ -e "$W/root/lib/modules/$REL/modules.dep" ]
    run maint postrm purge
    assert_success
    [ ! -e "$W/root/lib/modules/$REL" ]
    [ ! -e "$W/root/boot/initrd.img-$REL" ]
    run cat "$W/maint.log"
    assert_line --index 0 "linux-check-removal $REL"
    assert_line --index 1 "prerm.d $REL /boot/vmlinuz-$REL (remove)"
    assert_line --index 2 "linux-update-symlinks remove $REL /boot/vmlinuz-$REL"
    assert_line --index 3 "postrm.d $REL /boot/vmlinuz-$REL (remove)"
    # an upgrade's postrm leaves the symlinks to the new package's postinst
    assert_line --index 4 "postrm.d $REL /boot/vmlinuz-$REL (upgrade 6.1.0-new)"
    assert_line --index 5 "linux-update-symlinks remove $REL /boot/vmlinuz-$REL"
    assert_equal "${#lines[@]}" 7
}

@test "kpgo postrm: purge removes the spool and the machine's state, not a profile store" {
    r=$W/root
    mkdir -p "$r/var/lib/kpgo/profiles/outbox" "$r/var/lib/kpgo/store"
    : >"$r/var/lib/kpgo/profiles/outbox/m.kpgo"
    : >"$r/var/lib/kpgo/last-reset"
    : >"$r/var/lib/kpgo/store/index"
    sed 's/#DEBHELPER#//' "$TOP/debian/kpgo.postrm" >"$W/postrm"
    DPKG_ROOT=$r run sh -e "$W/postrm" remove
    assert_success
    [ -f "$r/var/lib/kpgo/profiles/outbox/m.kpgo" ]
    DPKG_ROOT=$r run sh -e "$W/postrm" purge
    assert_success
    [ ! -e "$r/var/lib/kpgo/profiles" ]
    [ ! -e "$r/var/lib/kpgo/last-reset" ]
    [ -f "$r/var/lib/kpgo/store/index" ]
    rm -r "$r/var/lib/kpgo/store"
    DPKG_ROOT=$r run sh -e "$W/postrm" purge
    assert_success
    [ ! -e "$r/var/lib/kpgo" ]
}

@test "debian/kernel-copyright: the kernel's own notices, as a DEP-5 file; a tree without them is refused" {
    k=$W/linux
    mkdir -p "$k/LICENSES/exceptions"
    printf 'The Linux Kernel is provided under:\n\n\tSPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note\n' \
        >"$k/COPYING"
    printf 'SPDX-Exception-Identifier: Linux-syscall-note\nLicense-Text:\n\n   NOTE! This copyright does *not* cover user programs\n\n\t\t\tLinus Torvalds\n\n' \
        >"$k/LICENSES/exceptions/Linux-syscall-note"
    run "$TOP/debian/kernel-copyright" "$k" "linux-source-6.1 6.1.192-3"
    assert_success
    printf '%s\n' "$output" >"$W/copyright"
    assert_line "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    assert_line --partial "built from linux-source-6.1 6.1.192-3"
    assert_line "License: GPL-2 with Linux-syscall-note exception"
    assert_line " 	SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note"
    assert_line "    NOTE! This copyright does *not* cover user programs"
    assert_line " 			Linus Torvalds"
    refute_line --partial "SPDX-Exception-Identifier"
    # every paragraph's continuation lines are indented; no empty ones inside
    python3 - "$W/copyright" <<'PY'
import sys
paras = open(sys.argv[1]).read().rstrip("\n").split("\n\n")
assert len(paras) == 3, len(paras)
for p in paras:
    for l in p.split("\n"):
        assert l and (l[0] in " \t" or ":" in l), repr(l)
PY
    rm "$k/LICENSES/exceptions/Linux-syscall-note"
    run "$TOP/debian/kernel-copyright" "$k" "linux-source-6.1 6.1.192-3"
    assert_failure 1
    assert_output "debian/kernel-copyright: no '$k/LICENSES/exceptions/Linux-syscall-note'"
}

@test "headers postinst: runs the header_postinst.d hooks (DKMS) on configure only" {
    r=$W/root
    mkdir -p "$r/etc/kernel/header_postinst.d"
    printf '#!/bin/sh\necho "header_postinst.d $*" >>"%s"\n' "$W/maint.log" >"$r/etc/kernel/header_postinst.d/dkms"
    chmod +x "$r/etc/kernel/header_postinst.d/dkms"
    sed "s/@KREL@/$REL/g; s/#DEBHELPER#//" "$TOP/debian/templates/headers.postinst.in" >"$W/postinst"
    DPKG_ROOT=$r run sh -e "$W/postinst" configure
    assert_success
    DPKG_ROOT=$r run sh -e "$W/postinst" abort-upgrade 1.0
    assert_success
    run cat "$W/maint.log"
    assert_output "header_postinst.d $REL"
    # a failing hook fails the configuration, as in Debian's
    printf '#!/bin/sh\nexit 1\n' >"$r/etc/kernel/header_postinst.d/dkms"
    DPKG_ROOT=$r run sh -e "$W/postinst" configure
    assert_failure
}
