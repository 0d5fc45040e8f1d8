#!/usr/bin/env bats
# The kernel packages as a packager checks them: names, versions,
# dependencies, file lists, lintian, installation into a scratch root with
# the maintainer scripts, no gcov in the optimized kernel, the profile
# report; and builds with a stale and with an absent profile.
#
# Run by `make kernel-check` after `make packages` (the optimized flavour
# built with the default profile), and by `make check` after `make e2e`
# (built with the profile the end-to-end run collected: KPGO_PROFILE).
# PKGDIR holds the packages; KPGO_BUILDDIR the shared source and build trees.
# shellcheck disable=SC2154 # bats sets status, output, lines

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
KPGO=${KPGO:-$ROOT/build/kpgo}
# with_manifest (a profile with other manifest values), as the CLI tests use it
load '../cli/helpers'
PKGDIR=${PKGDIR:-$ROOT/build/packages}
KPGO_BUILDDIR=${KPGO_BUILDDIR:-$ROOT/build/kernel}
# What the packages were built as: kpgo plan's answer for the same inputs
# (make kernel-tests writes it; by hand: kpgo plan --profiles-store
# profiles-store --kconfig-dir hooks/build/kconfig >FILE, KPGO_PLAN=FILE).
PLAN=${KPGO_PLAN:-$ROOT/build/kernel-tests.plan}
plan() {
    sed -n "s/^KPGO_$1=//p" "$PLAN"
}
KSRC=${KPGO_KSRC:-$KPGO_BUILDDIR/src/linux-source-$(plan SERIES)}
PROFILE=$(plan PROFILE)
TOOLVER=$(sed -n '1s/^kpgo (\([^)]*\)).*/\1/p' "$ROOT/debian/changelog")
KVER=$(plan KVER)
REL_I=$(plan REL_INSTR)
REL_P=$(plan REL_PGO)
VER_I=$(plan DEB_VERSION_INSTR)
VER_P=$(plan DEB_VERSION_PGO)
TREE_I=$(plan TREE_INSTR)
TREE_P=$(plan TREE_PGO)

deb() {
    echo "$PKGDIR/${1}_${2}_${3:-amd64}.deb"
}

# field PACKAGE.deb FIELD
field() {
    dpkg-deb -f "$1" "$2"
}

# first_file FILE...: the first of the files a glob names, or nothing when
# the glob matched none (it is then the pattern itself)
first_file() {
    [ ! -e "$1" ] || echo "$1"
}

# report_value FILE LABEL: the number after "LABEL: " in a profile report.
report_value() {
    sed -n "s/^$2: \([0-9]*\).*/\1/p" "$1"
}

@test "deb: every package of both flavours is built" {
    for p in "kpgo $TOOLVER" \
        "linux-image-$REL_I $VER_I" "linux-headers-$REL_I $VER_I" \
        "linux-image-$REL_P $VER_P" "linux-headers-$REL_P $VER_P" \
        "linux-image-pgo $VER_P" "linux-image-pgo-instr $VER_I" \
        "linux-headers-pgo $VER_P" "linux-headers-pgo-instr $VER_I"; do
        # shellcheck disable=SC2086 # name and version
        f=$(deb $p)
        [ -f "$f" ] || fail "missing $f"
    done
}

@test "deb: names, versions and dependencies" {
    img=$(deb "linux-image-$REL_P" "$VER_P")
    assert_equal "$(field "$img" Package)" "linux-image-$REL_P"
    assert_equal "$(field "$img" Version)" "$VER_P"
    assert_equal "$(field "$img" Architecture)" amd64
    assert_equal "$(field "$img" Section)" kernel
    # as Debian's linux-image-*: linux-base (linux-update-symlinks,
    # linux-check-removal) and the initramfs builder are Depends
    for i in "$img" "$(deb "linux-image-$REL_I" "$VER_I")"; do
        run field "$i" Depends
        assert_output --regexp '(^|, )kmod(,|$)'
        assert_output --partial "linux-base (>= 4.3~)"
        assert_output --partial "initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool"
    done
    # the metapackages name their kernel at exactly their own version
    run field "$(deb linux-image-pgo "$VER_P")" Depends
    assert_output --partial "linux-image-$REL_P (= $VER_P)"
    run field "$(deb linux-image-pgo-instr "$VER_I")" Depends
    assert_output --partial "linux-image-$REL_I (= $VER_I)"
    run field "$(deb linux-headers-pgo "$VER_P")" Depends
    assert_output --partial "linux-headers-$REL_P (= $VER_P)"
    run field "$(deb linux-headers-pgo-instr "$VER_I")" Depends
    assert_output --partial "linux-headers-$REL_I (= $VER_I)"
    # the headers' postinst runs DKMS's header_postinst.d hook, as Debian's
    for h in "$REL_P $VER_P" "$REL_I $VER_I"; do
        run dpkg-deb -I "$(deb "linux-headers-${h% *}" "${h#* }")" postinst
        assert_output --partial "/etc/kernel/header_postinst.d"
        assert_line "version=${h% *}"
    done
    # no compiler on every fleet machine with kpgo; nss-systemd, by which
    # the upload command's dynamic user is found, on every one
    run field "$(deb kpgo "$TOOLVER")" Recommends
    refute_output --partial gcc
    run field "$(deb kpgo "$TOOLVER")" Depends
    assert_output --partial libnss-systemd
    # the kernel's copyright and notices, not kpgo's
    for p in "linux-image-$REL_P $VER_P" "linux-headers-$REL_I $VER_I" "linux-image-pgo $VER_P"; do
        # shellcheck disable=SC2086 # name and version
        dpkg-deb --fsys-tarfile "$(deb $p)" | tar -xO "./usr/share/doc/${p%% *}/copyright" \
            >"$BATS_TEST_TMPDIR/copyright"
        run cat "$BATS_TEST_TMPDIR/copyright"
        assert_line "Upstream-Name: Linux kernel"
        assert_line "License: GPL-2 with Linux-syscall-note exception"
        assert_line --partial "SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note"
        assert_line --partial "NOTE! This copyright does *not* cover user programs"
        assert_line --partial "built from $(plan SOURCE_PACKAGE) $(plan SOURCE_VERSION)"
    done
    run field "$(deb "linux-headers-$REL_P" "$VER_P")" Depends
    assert_output --partial make
    # the versions: the kernel source's Debian version, then the profile's
    # stamp (pgo) or kpgo's version (instr): each new profile sorts higher
    assert_equal "$VER_P" "$(plan SOURCE_VERSION)+kpgo$(plan PROFILE_STAMP)"
    assert_equal "$VER_I" "$(plan SOURCE_VERSION)+kpgo$TOOLVER"
    dpkg --compare-versions "$VER_P" gt "$(plan SOURCE_VERSION)"
    run field "$img" Built-Using
    assert_output "$(plan BUILT_USING_SOURCE) (= $(plan BUILT_USING_VERSION))"
    # the changelog names the kernel source and the profile
    dpkg-deb --fsys-tarfile "$img" | tar -xO "./usr/share/doc/linux-image-$REL_P/changelog.Debian.gz" |
        gzip -dc >"$BATS_TEST_TMPDIR/changelog"
    run dpkg-parsechangelog -l "$BATS_TEST_TMPDIR/changelog" -SVersion
    assert_output "$VER_P"
    grep -q "$(plan PROFILE_SHA256)" "$BATS_TEST_TMPDIR/changelog"
    grep -q "$(plan SOURCE_PACKAGE) $(plan SOURCE_VERSION)" "$BATS_TEST_TMPDIR/changelog"
}

# shellcheck disable=SC2030 # bats runs a test in a subshell: its $output is its own
@test "deb: image and headers file lists" {
    for rel in "$REL_I" "$REL_P"; do
        v=$VER_P
        [ "$rel" != "$REL_I" ] || v=$VER_I
        run dpkg-deb -c "$(deb "linux-image-$rel" "$v")"
        assert_success
        assert_output --partial "./boot/vmlinuz-$rel"
        assert_output --partial "./boot/System.map-$rel"
        assert_output --partial "./boot/config-$rel"
        assert_output --regexp "\./lib/modules/$rel/kernel/.*\.ko"
        assert_output --partial "./lib/modules/$rel/modules.order"
        refute_line --regexp '/modules\.dep$'
        refute_line --regexp "lib/modules/$rel/(build|source)( |$)"
        run dpkg-deb -c "$(deb "linux-headers-$rel" "$v")"
        assert_success
        for f in Makefile .config Module.symvers include/generated/autoconf.h \
            include/linux/module.h scripts/mod/modpost arch/x86/Makefile; do
            assert_output --partial "./usr/src/linux-headers-$rel/$f"
        done
        assert_output --partial "./lib/modules/$rel/build -> /usr/src/linux-headers-$rel"
    done
    run dpkg-deb -c "$(deb "linux-image-$REL_P" "$VER_P")"
    assert_line --regexp " \./usr/share/doc/linux-image-$REL_P/pgo-report$"
    run dpkg-deb -c "$(deb kpgo "$TOOLVER")"
    assert_output --partial ./usr/bin/kpgo
    assert_output --partial ./usr/share/man/man1/kpgo.1.gz
    assert_output --partial ./usr/lib/kpgo/kpgo-kbuild
    assert_output --partial ./lib/systemd/system/kpgo-collect.service
    assert_output --partial ./lib/systemd/system/kpgo-collect.timer
    assert_output --partial ./lib/systemd/system-generators/kpgo-generator
    assert_output --partial ./etc/kernel/postinst.d/kpgo
    assert_output --partial ./etc/default/kpgo
    run dpkg-deb -I "$(deb kpgo "$TOOLVER")" conffiles
    assert_line /etc/default/kpgo
    assert_line /etc/kernel/postinst.d/kpgo
}

# build_module HEADERS REL: tests/kernel/hello-module built as a user
# builds an out-of-tree module, against the headers tree HEADERS (a
# package's /usr/src/linux-headers-REL, unpacked) alone: V=1 shows every
# command, and none may reach into the build trees.
build_module() {
    local hdr=$1 rel=$2 m
    m=$(mktemp -d "$BATS_TEST_TMPDIR/mod.XXXXXX")
    cp "$BATS_TEST_DIRNAME"/hello-module/* "$m/"
    run make -C "$hdr" M="$m" V=1 modules
    assert_success
    refute_output --partial "$KPGO_BUILDDIR"
    [ -f "$m/kpgo_hello.ko" ] || fail "no kpgo_hello.ko built against $hdr"
    run modinfo -F vermagic "$m/kpgo_hello.ko"
    assert_output --regexp "^$rel "
    # the headers' own vermagic, so the kernel of the package loads it
    run modinfo -F vermagic "$(find "$BATS_TEST_TMPDIR/img-$rel" -name '*.ko' | head -1)"
    # shellcheck disable=SC2031 # $output is the run's just above, not a test's
    assert_equal "$(modinfo -F vermagic "$m/kpgo_hello.ko")" "$output"
}

@test "deb and rpm: an out-of-tree module builds against the installed headers of both flavours" {
    for rel in "$REL_I" "$REL_P"; do
        v=$VER_P r=kernel-pgo
        [ "$rel" != "$REL_I" ] || v=$VER_I r=kernel-pgo-instr
        d=$BATS_TEST_TMPDIR/deb-$rel
        dpkg-deb -x "$(deb "linux-headers-$rel" "$v")" "$d"
        dpkg-deb -x "$(deb "linux-image-$rel" "$v")" "$BATS_TEST_TMPDIR/img-$rel"
        [ -f "$d/usr/src/linux-headers-$rel/scripts/module.lds" ] || fail "no scripts/module.lds in linux-headers-$rel"
        build_module "$d/usr/src/linux-headers-$rel" "$rel"
        d=$BATS_TEST_TMPDIR/rpm-$rel
        mkdir -p "$d"
        (cd "$d" && rpm2cpio "$(ls "$PKGDIR/$r-devel-$KVER"-*.rpm)" | cpio -idm --quiet)
        build_module "$d/usr/src/linux-headers-$rel" "$rel"
    done
}

# check_debug ROOT VMLINUX REL IMAGE_ROOT: the debug files of release REL
# unpacked in ROOT (the vmlinux at VMLINUX) against its image unpacked in
# IMAGE_ROOT: DWARF in the vmlinux, and every module of the image there
# unstripped, of the same build (build id); no modules.* index files
check_debug() {
    local d=$1 vmlinux=$2 rel=$3 img=$4 n=0 ko m
    run readelf -S "$d$vmlinux"
    assert_output --partial .debug_info
    while IFS= read -r -d '' ko; do
        m=$d/usr/lib/debug/lib/modules/$rel/${ko#"$img/lib/modules/$rel/"}
        [ -f "$m" ] || fail "no ${m#"$d"} in the debug package of $rel"
        readelf -S "$m" | grep -q .debug_info || fail "${m#"$d"} has no debug information"
        assert_equal "$(readelf -n "$m" | grep 'Build ID')" "$(readelf -n "$ko" | grep 'Build ID')"
        n=$((n + 1))
    done < <(find "$img/lib/modules/$rel" -name '*.ko' -print0)
    [ "$n" -gt 0 ]
    run find "$d/usr/lib/debug/lib/modules/$rel" -maxdepth 1 -name 'modules.*'
    assert_output ''
}

@test "deb and rpm: the -dbg and -debuginfo packages carry the vmlinux and the modules with their debug information" {
    local found=0
    for f in "$REL_I $VER_I kernel-pgo-instr $(plan RPM_RELEASE_INSTR)" \
        "$REL_P $VER_P kernel-pgo $(plan RPM_RELEASE_PGO)"; do
        read -r rel v n release <<<"$f"
        p=$(deb "linux-image-$rel-dbg" "$v")
        if [ -f "$p" ]; then
            found=$((found + 1))
            assert_equal "$(field "$p" Section)" debug
            d=$BATS_TEST_TMPDIR/dbg-$rel
            dpkg-deb -x "$p" "$d"
            dpkg-deb -x "$(deb "linux-image-$rel" "$v")" "$BATS_TEST_TMPDIR/img-$rel"
            check_debug "$d" "/usr/lib/debug/boot/vmlinux-$rel" "$rel" "$BATS_TEST_TMPDIR/img-$rel"
        fi
        # the RPM's, where Fedora's kernel-debuginfo puts them: the vmlinux
        # beside the modules; install-only, no build-id links
        p=$(first_file "$PKGDIR/$n-debuginfo-$KVER-$release".*rpm)
        if [ -n "$p" ]; then
            found=$((found + 1))
            d=$BATS_TEST_TMPDIR/rdbg-$rel i=$BATS_TEST_TMPDIR/rimg-$rel
            mkdir -p "$d" "$i"
            (cd "$d" && rpm2cpio "$p" | cpio -idm --quiet)
            (cd "$i" && rpm2cpio "$(first_file "$PKGDIR/$n-$KVER-$release".*rpm)" | cpio -idm --quiet)
            check_debug "$d" "/usr/lib/debug/lib/modules/$rel/vmlinux" "$rel" "$i"
            run rpm -qp --provides "$p"
            assert_line "installonlypkg(kernel)"
            run rpm -qpl "$p"
            refute_line --regexp '^/usr/lib/\.build-id'
            refute_line --regexp '^/usr/lib/debug/boot'
        fi
    done
    [ "$found" -gt 0 ] ||
        skip "built without debug packages (make deb rpm KPGO_DEBUG_INFO=1; Debian build profile pkg.kpgo.debuginfo)"
}

@test "deb and rpm: with a farm's key the modules are signed by it, and the key enters no package" {
    [ -n "${KPGO_SIGNING_KEY:-}" ] || skip "built without KPGO_SIGNING_KEY (make check builds with a throwaway key)"
    cn=$(openssl x509 -in "$KPGO_SIGNING_KEY" -noout -subject -nameopt multiline |
        sed -n 's/^ *commonName *= //p')
    [ -n "$cn" ]
    for rel in "$REL_I" "$REL_P"; do
        v=$VER_P
        [ "$rel" != "$REL_I" ] || v=$VER_I
        d=$BATS_TEST_TMPDIR/sig-$rel
        dpkg-deb -x "$(deb "linux-image-$rel" "$v")" "$d"
        grep -qx CONFIG_MODULE_SIG=y "$d/boot/config-$rel"
        n=0
        while IFS= read -r -d '' ko; do
            run modinfo -F signer "$ko"
            assert_output --partial "$cn"
            n=$((n + 1))
        done < <(find "$d/lib/modules/$rel" -name '*.ko' -print0)
        [ "$n" -gt 0 ]
    done
    # a line of the private key's body, in no package
    secret=$(sed -n '/BEGIN .*PRIVATE KEY/{n;p;q}' "$KPGO_SIGNING_KEY")
    [ -n "$secret" ]
    for f in "$PKGDIR"/*.deb; do
        ! dpkg-deb --fsys-tarfile "$f" | grep -aqF -- "$secret" || fail "$f carries the signing key"
    done
    for f in "$PKGDIR"/*.rpm; do
        ! rpm2cpio "$f" | grep -aqF -- "$secret" || fail "$f carries the signing key"
    done
}

@test "deb: lintian reports no errors" {
    for f in "$PKGDIR"/*.deb; do
        case $f in *-dbgsym_*) continue ;; esac
        run lintian --no-tag-display-limit "$f"
        if printf '%s\n' "$output" | grep -q '^E: '; then
            fail "lintian errors in $f: $(printf '%s\n' "$output" | grep '^E: ')"
        fi
    done
}

@test "deb: installs into a scratch root; maintainer scripts run the kernel hooks and depmod" {
    r=$BATS_TEST_TMPDIR/root
    mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/etc/kernel/postinst.d" \
        "$r/etc/kernel/postrm.d"
    : >"$r/var/lib/dpkg/status"
    # a hook as initramfs-tools installs one: records its arguments
    for h in postinst postrm; do
        # shellcheck disable=SC2016 # the hook's own $* and $DPKG_ROOT
        printf '#!/bin/sh\necho "%s $*" >>"$DPKG_ROOT/hooks.log"\n' "$h" \
            >"$r/etc/kernel/$h.d/record"
        chmod +x "$r/etc/kernel/$h.d/record"
    done
    # linux-base's tools act on the running system: stand-ins record them
    # (CHECK_REMOVAL_FAILS=1: linux-check-removal refuses, as it does for
    # the running kernel)
    mkdir "$BATS_TEST_TMPDIR/bin"
    for t in linux-update-symlinks linux-check-removal; do
        # shellcheck disable=SC2016 # the stand-in's own $* and $DPKG_ROOT
        printf '#!/bin/sh\necho "%s $*" >>"$DPKG_ROOT/linux-base.log"\n' "$t" >"$BATS_TEST_TMPDIR/bin/$t"
        chmod +x "$BATS_TEST_TMPDIR/bin/$t"
    done
    # shellcheck disable=SC2016 # the stand-in reads CHECK_REMOVAL_FAILS when it runs
    printf '[ -z "$CHECK_REMOVAL_FAILS" ]\n' >>"$BATS_TEST_TMPDIR/bin/linux-check-removal"
    PATH=$BATS_TEST_TMPDIR/bin:$PATH
    run dpkg --root="$r" --force-script-chrootless --force-depends -i \
        "$(deb "linux-image-$REL_P" "$VER_P")" "$(deb linux-image-pgo "$VER_P")"
    assert_success
    [ -f "$r/boot/vmlinuz-$REL_P" ]
    [ -s "$r/lib/modules/$REL_P/modules.dep" ] || fail "depmod did not run"
    grep -q "\.ko" "$r/lib/modules/$REL_P/modules.dep"
    run cat "$r/hooks.log"
    assert_output "postinst $REL_P /boot/vmlinuz-$REL_P"
    run cat "$r/linux-base.log"
    assert_output "linux-update-symlinks install $REL_P /boot/vmlinuz-$REL_P"
    [ ! -e "$r/lib/modules/$REL_P/.fresh-install" ]
    # the running kernel (linux-check-removal says no) is not removed
    CHECK_REMOVAL_FAILS=1 run dpkg --root="$r" --force-script-chrootless --force-depends \
        --remove "linux-image-$REL_P"
    assert_failure
    [ -f "$r/boot/vmlinuz-$REL_P" ]
    run dpkg --root="$r" --force-script-chrootless --force-depends --purge \
        linux-image-pgo "linux-image-$REL_P"
    assert_success
    run cat "$r/linux-base.log"
    assert_line --index 1 "linux-check-removal $REL_P"
    assert_line --index 2 "linux-check-removal $REL_P"
    assert_line --index 3 "linux-update-symlinks remove $REL_P /boot/vmlinuz-$REL_P"
    [ ! -e "$r/boot/vmlinuz-$REL_P" ]
    [ ! -e "$r/lib/modules/$REL_P" ]
    run tail -1 "$r/hooks.log"
    assert_output "postrm $REL_P /boot/vmlinuz-$REL_P"
}

@test "the optimized kernel has no gcov; the instrumented one has it" {
    d=$BATS_TEST_TMPDIR
    dpkg-deb -x "$(deb "linux-image-$REL_P" "$VER_P")" "$d/p"
    dpkg-deb -x "$(deb "linux-image-$REL_I" "$VER_I")" "$d/i"
    run grep -c '^CONFIG_GCOV_KERNEL=y' "$d/p/boot/config-$REL_P"
    assert_output 0
    run grep -c ' __gcov' "$d/p/boot/System.map-$REL_P"
    assert_output 0
    n=0
    while IFS= read -r -d '' ko; do
        n=$((n + 1))
        run bash -c "nm '$ko' | grep -c __gcov"
        assert_output 0
    done < <(find "$d/p/lib/modules" -name '*.ko' -print0)
    [ "$n" -gt 0 ]
    grep -q '^CONFIG_GCOV_KERNEL=y' "$d/i/boot/config-$REL_I"
    grep -q ' __gcov_init$' "$d/i/boot/System.map-$REL_I"
    ko=$(find "$d/i/lib/modules" -name '*.ko' | head -1)
    nm "$ko" | grep -q __gcov
}

@test "the optimized kernel's profile report shows the profile applied" {
    d=$BATS_TEST_TMPDIR
    dpkg-deb -x "$(deb "linux-image-$REL_P" "$VER_P")" "$d"
    rep=$d/usr/share/doc/linux-image-$REL_P/pgo-report
    [ -f "$rep" ]
    run grep -x "profile sha256: $(sha256sum <"$PROFILE" | cut -d' ' -f1)" "$rep"
    assert_success
    run grep '^verdict: ' "$rep"
    assert_output --regexp '^verdict: ok: '
    total=$(report_value "$rep" 'profile functions')
    applied=$(report_value "$rep" 'profile functions applied')
    [ "$total" -gt 1000 ]
    if "$KPGO" info "$PROFILE" | grep -qx "  KERNEL_RELEASE=$REL_I"; then
        # built from the source the profile was collected from: nearly all
        [ $((applied * 100)) -ge $((total * 95)) ] || fail "applied $applied of $total"
    else
        # a newer linux-source-6.1 than the profile's: a stale profile
        echo "# the profile is of another release than $REL_I: $applied of $total applied" >&3
        [ $((applied * 100)) -ge $((total * 50)) ] || fail "applied $applied of $total"
    fi
    grep -q 'KPGO_FORMAT=1' "$rep"
    grep -q 'KERNEL_RELEASE=' "$rep"
    grep -qx "kpgo profile report for kernel $REL_P" "$rep"
}

@test "the default profile in profiles-store is a valid profile of this kernel" {
    # make check builds the optimized packages from the profile make e2e
    # collected (KPGO_PROFILE); make packages uses this one
    def=$ROOT/profiles-store/6.1/small.kpgo
    run "$KPGO" info "$def"
    assert_success
    assert_line "  KPGO_FORMAT=1"
    rel=$(sed -n 's/^  KERNEL_RELEASE=//p' <<<"$output")
    [[ $rel == 6.1.*-pgo-instr ]] || fail "the default profile is of kernel '$rel'"
    if [ "$rel" != "$REL_I" ]; then
        echo "# the default profile is of $rel, the source is $KVER: make default-profile" >&3
    fi
}

@test "rpm: names, versions, requirements and file lists" {
    run rpm -qp --qf '%{NAME} %{VERSION} %{ARCH}\n' "$PKGDIR"/*.rpm
    assert_success
    assert_line "kernel-pgo $KVER x86_64"
    assert_line "kernel-pgo-instr $KVER x86_64"
    assert_line "kpgo-tools $TOOLVER x86_64"
    k=$(ls "$PKGDIR"/kernel-pgo-"$KVER"-*.rpm)
    run rpm -qp --provides "$k"
    assert_line --regexp "^kernel = $KVER"
    run rpm -qpl "$k"
    assert_line "/lib/modules/$REL_P/vmlinuz"
    assert_line "/lib/modules/$REL_P/System.map"
    assert_line "/lib/modules/$REL_P/config"
    assert_line --regexp "^/lib/modules/$REL_P/kernel/.*\.ko$"
    assert_line --regexp "/pgo-report$"
    run rpm -qp --scripts "$k"
    assert_output --partial "kernel-install add $REL_P /lib/modules/$REL_P/vmlinuz"
    assert_output --partial "kernel-install remove $REL_P"
    # what Fedora's kernel.spec gives every kernel, both flavours: the
    # kernel's version (not kpgo's) in Provides: kernel, install-only,
    # the release by name, kernel-install required (no silent unbootable
    # install), the /boot files owned as %ghost, the kernel's license
    # notices, and a devel package
    for f in "kernel-pgo $REL_P $(plan RPM_RELEASE_PGO)" "kernel-pgo-instr $REL_I $(plan RPM_RELEASE_INSTR)"; do
        read -r n rel release <<<"$f"
        p=$(first_file "$PKGDIR/$n-$KVER-$release".*rpm)
        [ -f "$p" ] || fail "no $n-$KVER-$release rpm in $PKGDIR"
        run rpm -qp --provides "$p"
        assert_line "kernel = $KVER-$release"
        refute_line --regexp "^kernel = $TOOLVER"
        assert_line "installonlypkg(kernel)"
        assert_line "kernel-uname-r($rel)"
        run rpm -qp --requires "$p"
        assert_line --regexp '^/usr/bin/kernel-install'
        run rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$p"
        for b in "vmlinuz-$rel" "System.map-$rel" "config-$rel" "initramfs-$rel.img"; do
            assert_line --regexp "^[a-z]*g[a-z]* /boot/$b\$"
        done
        assert_line --regexp "^[a-z]*l[a-z]* /usr/share/licenses/$n/COPYING\$"
        assert_line --regexp "^[a-z]*l[a-z]* /usr/share/licenses/$n/Linux-syscall-note\$"
        d=$(first_file "$PKGDIR/$n-devel-$KVER-$release".*rpm)
        run rpm -qp --provides "$d"
        assert_line "kernel-devel-uname-r($rel)"
        assert_line "installonlypkg(kernel)"
        run rpm -qpl "$d"
        assert_line "/usr/src/linux-headers-$rel/scripts/module.lds"
    done
    run rpm -qpl "$(ls "$PKGDIR"/kpgo-tools-"$TOOLVER"-*.rpm)"
    assert_line /usr/bin/kpgo
    assert_line /usr/lib/systemd/system/kpgo-collect.service
    assert_line /usr/lib/kernel/install.d/50-kpgo.install
    assert_line /etc/sysconfig/kpgo
    refute_line --regexp '^/etc/(default|kernel)'
}

@test "the instrumented headers (.deb) and devel (.rpm) packages carry the .gcno files kpgo afdo needs" {
    command -v gcov-12 >/dev/null || skip "no gcov-12"
    # (scripts/mod's two are compiled like kernel objects but are no part
    # of the kernel: kpgo-kinstall leaves scripts/ and tools/ out)
    ngcno=$(cd "$KSRC/$TREE_I" && find . \( -path ./scripts -o -path ./tools \) -prune -o \
        -name '*.gcno' -type f -print | wc -l)
    [ "$ngcno" -gt 500 ] || fail "$KSRC/$TREE_I has $ngcno .gcno files"
    d=$BATS_TEST_TMPDIR/deb
    dpkg-deb -x "$(deb "linux-headers-$REL_I" "$VER_I")" "$d"
    assert_equal "$(find "$d/usr/src/linux-headers-$REL_I" -name '*.gcno' -type f | wc -l)" "$ngcno"
    r=$BATS_TEST_TMPDIR/rpm
    mkdir -p "$r"
    (cd "$r" && rpm2cpio "$(ls "$PKGDIR"/kernel-pgo-instr-devel-"$KVER"-*.rpm)" | cpio -idm --quiet)
    assert_equal "$(find "$r/usr/src/linux-headers-$REL_I" -name '*.gcno' -type f | wc -l)" "$ngcno"
    run rpm -qp --qf '%{NAME}\n' "$(ls "$PKGDIR"/kernel-pgo-instr-devel-"$KVER"-*.rpm)"
    assert_output kernel-pgo-instr-devel
    # a profile of this instrumented build (make check: the one make e2e
    # collected) converts with the packaged copy as with the build tree
    [ -n "${KPGO_INSTR_PROFILE:-}" ] ||
        skip "no profile of this instrumented build (KPGO_INSTR_PROFILE; make check passes e2e's)"
    for tree in "$KSRC/$TREE_I" "$d/usr/src/linux-headers-$REL_I"; do
        run "$KPGO" afdo --objtree "$tree" -o "$BATS_TEST_TMPDIR/p.afdo.txt" "$KPGO_INSTR_PROFILE"
        assert_success
        assert_output --regexp ', 0 objects without \.gcno, 0 of another build;'
        sha256sum <"$BATS_TEST_TMPDIR/p.afdo.txt" >>"$BATS_TEST_TMPDIR/sums"
    done
    assert_equal "$(sort -u "$BATS_TEST_TMPDIR/sums" | wc -l)" 1
}

@test "rpm: installs into a scratch root; the scriptlets call kernel-install" {
    r=$BATS_TEST_TMPDIR/root
    # scriptlets run chrooted in the root: a static shell and a recording
    # kernel-install stand in for the distribution's
    mkdir -p "$r/bin" "$r/usr/bin"
    cp "$(command -v busybox)" "$r/bin/busybox"
    for t in sh echo; do ln -s busybox "$r/bin/$t"; done
    printf '#!/bin/sh\necho "kernel-install $*" >>/kernel-install.log\n' >"$r/usr/bin/kernel-install"
    chmod +x "$r/usr/bin/kernel-install"
    k=$(ls "$PKGDIR"/kernel-pgo-"$KVER"-*.rpm)
    run rpm --root "$r" --nodeps -i "$k"
    assert_success
    [ -f "$r/lib/modules/$REL_P/vmlinuz" ]
    run cat "$r/kernel-install.log"
    assert_output "kernel-install add $REL_P /lib/modules/$REL_P/vmlinuz"
    run rpm --root "$r" -q kernel-pgo
    assert_output --partial "kernel-pgo-$KVER"
    run rpm --root "$r" --nodeps -e kernel-pgo
    assert_success
    run tail -1 "$r/kernel-install.log"
    assert_output "kernel-install remove $REL_P"
    [ ! -e "$r/lib/modules/$REL_P/vmlinuz" ]
}

@test "a stale profile (changed source) still builds; the report says how much applied" {
    # the default profile against a source tree with two changed files:
    # a new branch in ksys_read (its profile is dropped) calling a new
    # function (no profile), and moved lines in fs/pipe.c (its functions'
    # profiles are stale but applied)
    s=$KPGO_BUILDDIR/stale/linux-source-$(plan SERIES)
    patch_id=$(sha256sum <"$BATS_TEST_DIRNAME/stale.patch")
    if [ "$(cat "$s/.kpgo-patched" 2>/dev/null)" != "$patch_id" ]; then
        rm -rf "$KPGO_BUILDDIR/stale"
        mkdir -p "$s"
        for e in "$KSRC"/* "$KSRC"/.[!.]*; do
            # not the build trees (each has its .config)
            [ ! -f "$e/.config" ] || continue
            cp -al "$e" "$s/"
        done
        # patch must not write through the hard links into the shared tree
        for f in fs/read_write.c fs/pipe.c; do
            cp --remove-destination "$KSRC/$f" "$s/$f"
        done
        patch -d "$s" -p1 --no-backup-if-mismatch <"$BATS_TEST_DIRNAME/stale.patch"
        echo "$patch_id" >"$s/.kpgo-patched"
    fi
    # as the packages were built (release, signing key): ccache has all
    # but the two changed files from that build
    kopt=(--release "$REL_P" --out "$s/$TREE_P")
    [ -z "${KPGO_SIGNING_KEY:-}" ] || kopt+=(--signing-key "$KPGO_SIGNING_KEY")
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$s" --flavour pgo --profile "$PROFILE" \
        --kpgo "$KPGO" --min-applied 50 "${kopt[@]}"
    assert_success
    assert_line "$REL_P"
    rep=$s/$TREE_P/pgo-report
    run grep '^verdict: ok' "$rep"
    assert_success
    [ "$(report_value "$rep" 'profile functions dropped (control flow or counters changed)')" -ge 1 ]
    [ "$(report_value "$rep" 'profile functions stale but applied (source lines moved)')" -ge 1 ]
    [ "$(report_value "$rep" 'functions compiled without a profile (-Wmissing-profile)')" -ge 1 ]
    run grep -P '^fs/read_write\.o\t.*\tksys_read$' "$rep"
    assert_success
    run grep -P '^fs/pipe\.o\t.*\tpipe_read$' "$rep"
    assert_success
    run grep -P '^fs/read_write\.o\t.*\tkpgo_stale_clamp$' "$rep"
    assert_success
    # the same build, asked for more than applied: fails and says why,
    # without building again
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$s" --flavour pgo --profile "$PROFILE" \
        --kpgo "$KPGO" --min-applied 100 "${kopt[@]}"
    assert_failure 1
    assert_output --partial "was built from the same inputs"
    assert_output --partial "of the profile's functions applied (at least 100% required)"
    run grep '^verdict: FAILED' "$s/$TREE_P/pgo-report"
    assert_success
}

@test "an absent profile stops the optimized build at once, with the reason" {
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$KSRC" --flavour pgo \
        --profile "$BATS_TEST_TMPDIR/none.kpgo" --kpgo "$KPGO" --out "$BATS_TEST_TMPDIR/obj"
    assert_failure 1
    assert_output --partial "cannot read profile"
    [ ! -e "$BATS_TEST_TMPDIR/obj/.config" ]
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$KSRC" --flavour pgo --kpgo "$KPGO"
    assert_failure 2
    assert_output --partial "--profile is required"
    # and the package build: before anything is built
    run make -C "$ROOT" --no-print-directory deb KPGO_PROFILE="$BATS_TEST_TMPDIR/none.kpgo" \
        DEB_PROFILES=pkg.kpgo.noinstr DEB_BUILD_OPTIONS=nocheck
    assert_failure
    assert_output --partial "cannot read profile"
    refute_output --partial "building bzImage"
}

# check_names TREE: kpgo info names the profile's functions from TREE's
# .gcno files; the 40 hottest as gcov-dump (GCC's own reader) names them;
# the pipe and read paths, which every workload here runs, by name.
check_names() {
    local tree=$1 j=$BATS_TEST_TMPDIR/info.json
    "$KPGO" info --json --top 0 --objtree "$tree" "$PROFILE" >"$j"
    # the build the tree is of (the headers package's too: one build)
    bid=$(readelf -n "$KSRC/$TREE_I/vmlinux" | sed -n 's/^ *Build ID: //p')
    python3 - "$j" "$tree" "$bid" <<'PY'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
tree, bid = sys.argv[2], sys.argv[3]
n, total = d["names"], d["totals"]
named = n["functions_exact"] + n["functions_changed"]
share = n["count_named"] / total["sum_all"]
print("# %s: %d of %d functions named (%d changed), %.1f%% of the counts"
      % (tree, named, total["functions"], n["functions_changed"], 100 * share), file=sys.stderr)
assert n["objects_no_gcno"] == 0, n
# Of the very build the profile was collected on, every function is named
# by its checksums; another build (a newer linux-source-6.1, or the same
# release built with another config: make check's signing key, which the
# default profile's build had not) leaves some changed or unnamed.
assert share >= 0.9, share
if d["manifest"]["KERNEL_BUILD_ID"] == bid:
    assert n["functions_exact"] == total["functions"], n
fns = d["hottest_functions"]
for f in fns[:40]:
    if f["named"] != "exact":
        continue
    out = subprocess.run(["gcov-dump", "-l", tree + "/" + f["object"][:-5] + ".gcno"],
                         capture_output=True, text=True, check=True).stdout
    want = "FUNCTION ident=%d, lineno_checksum=%s," % (f["ident"], f["lineno_checksum"])
    line = [l for l in out.splitlines() if want in l]
    assert len(line) == 1 and ("`%s'" % f["name"]) in line[0], (f, line)
    assert line[0].rstrip().split("' ")[-1].split(":")[0].endswith(f["file"]), (f, line)
def hottest(obj):
    return next(f for f in fns if f["object"] == obj)
assert hottest("fs/pipe.gcda")["name"] in ("pipe_read", "pipe_write"), hottest("fs/pipe.gcda")
rw = hottest("fs/read_write.gcda")
assert rw["name"] in ("vfs_read", "vfs_write", "ksys_read", "ksys_write", "rw_verify_area",
                      "fsnotify_file", "new_sync_read", "new_sync_write"), rw
print("# hottest of fs/pipe.o: %s; of fs/read_write.o: %s; overall: %s:%s"
      % (hottest("fs/pipe.gcda")["name"], rw["name"], fns[0]["file"], fns[0]["name"]),
      file=sys.stderr)
PY
}

@test "kpgo info names the profile's hottest kernel functions from the instrumented tree" {
    command -v gcov-dump >/dev/null || skip "no gcov-dump"
    run check_names "$KSRC/$TREE_I"
    assert_success
    echo "$output" | sed -n 's/^# /# /p' >&3
}

@test "kpgo info names them from the instrumented headers package too" {
    command -v gcov-dump >/dev/null || skip "no gcov-dump"
    d=$BATS_TEST_TMPDIR/deb
    dpkg-deb -x "$(deb "linux-headers-$REL_I" "$VER_I")" "$d"
    run check_names "$d/usr/src/linux-headers-$REL_I"
    assert_success
    # the same text as from the build tree, but for the file name
    "$KPGO" info --objtree "$KSRC/$TREE_I" "$PROFILE" | sed 1d >"$BATS_TEST_TMPDIR/tree"
    "$KPGO" info --objtree "$d/usr/src/linux-headers-$REL_I" "$PROFILE" | sed 1d >"$BATS_TEST_TMPDIR/pkg"
    diff "$BATS_TEST_TMPDIR/tree" "$BATS_TEST_TMPDIR/pkg"
}

@test "kpgo diff: the packages' profile against the default one and the held-out one" {
    def=$ROOT/profiles-store/6.1/small.kpgo
    held=$ROOT/tests/fixtures/kernel/small-heldout.kpgo
    for other in "$def" "$held"; do
        run "$KPGO" diff --json --objtree "$KSRC/$TREE_I" "$PROFILE" "$other"
        assert_success
        python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
s = d["similarity"]
print("# %s against %s: similarity %.4f, subsystems %.4f" % (d["a"]["workload"], d["b"]["workload"], s, d["subsystem_similarity"]), file=sys.stderr)
assert 0 < s <= 1 and 0 < d["subsystem_similarity"] <= 1
same = d["a"]["file"] == d["b"]["file"] or d["a"]["sum_all"] == d["b"]["sum_all"]
assert (s > 0.999999) == same, s
' <<<"$output" 2>&3
        back=$("$KPGO" diff --json "$other" "$PROFILE" | python3 -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["similarity"])')
        [ "$back" = "$(python3 -c 'import json, sys; print("%.6f" % json.loads(sys.argv[1])["similarity"])' "$output")" ]
    done
}

@test "the HTML report of the profile, with the package's pgo-report, renders in chromium" {
    command -v chromium >/dev/null || skip "chromium is not installed (tests/install-deps.sh installs it)"
    d=$BATS_TEST_TMPDIR
    dpkg-deb -x "$(deb "linux-image-$REL_P" "$VER_P")" "$d/img"
    rep=$d/img/usr/share/doc/linux-image-$REL_P/pgo-report
    run "$KPGO" info --objtree "$KSRC/$TREE_I" --html "$d/r.html" --pgo-report "$rep" "$PROFILE"
    assert_success
    xmllint --noout "$d/r.html"
    grep -q '<span class="ok" id="verdict">ok: ' "$d/r.html"
    grep -q '<span class="ok" id="same-profile">this profile</span>' "$d/r.html"
    hot=$("$KPGO" info --json --top 1 --objtree "$KSRC/$TREE_I" "$PROFILE" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["hottest_functions"][0]["name"])')
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$d/chrome" --dump-dom "file://$d/r.html" >"$d/dom.html" 2>/dev/null
    grep -q "<code class=\"fn\">$hot</code>" "$d/dom.html"
}

@test "a profile past the store's age limit stops the package build; the farm's override builds it, and the package's report says so" {
    # the packages' own profile in a store whose policy allows 30 days,
    # judged 60 days after its collection window ended (KPGO_NOW)
    st=$BATS_TEST_TMPDIR/store pkg=$BATS_TEST_TMPDIR/pkg
    # as collected on this instrumented release: the default profile may
    # name one without Debian's revision (6.1.192-pgo-instr), which the
    # store ranks above 6.1.192-3-pgo-instr and leaves out
    with_manifest "$PROFILE" "$BATS_TEST_TMPDIR/p.kpgo" "KERNEL_RELEASE=$REL_I"
    "$KPGO" store --store "$st" add -q "$BATS_TEST_TMPDIR/p.kpgo" >/dev/null
    printf 'MAX_AGE_DAYS=30\n' >"$st/policy"
    now=$("$KPGO" info --json "$PROFILE" | python3 -c '
import datetime, json, sys
end = json.load(sys.stdin)["manifest"]["WINDOW_END"]
t = datetime.datetime.strptime(end, "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(days=60)
print(t.strftime("%Y-%m-%dT%H:%M:%SZ"))')
    # as the packages were built (signing key): the same pgo tree
    vars=(KPGO_STORE="$st" KPGO_NOW="$now" PKGDIR="$pkg" DEB_PROFILES=pkg.kpgo.noinstr
        DEB_BUILD_OPTIONS=nocheck ${KPGO_SIGNING_KEY:+KPGO_SIGNING_KEY="$KPGO_SIGNING_KEY"})
    run make -C "$ROOT" --no-print-directory deb "${vars[@]}"
    assert_failure
    assert_output --partial "the store's policy refused 1"
    assert_output --partial "60 days old, limit 30 days"
    refute_output --partial "building bzImage"
    [ ! -e "$pkg" ]
    # the farm overrides it: built (the same payload as the packages'), and
    # the package's report and changelog-side plan say so
    run make -C "$ROOT" --no-print-directory deb "${vars[@]}" KPGO_POLICY_OVERRIDE=1
    assert_success
    assert_output --partial "built with it because of --override-policy"
    image=$(first_file "$pkg/linux-image-${REL_P}_"*.deb)
    [ -n "$image" ]
    dpkg-deb --fsys-tarfile "$image" | tar -xO "./usr/share/doc/linux-image-$REL_P/pgo-report" >"$BATS_TEST_TMPDIR/rep"
    run grep -c '^profile policy: overridden (60 days old, 0 releases behind' "$BATS_TEST_TMPDIR/rep"
    assert_output 1
    run grep '^verdict: ok' "$BATS_TEST_TMPDIR/rep"
    assert_success
}
