#!/usr/bin/env bats
# Every kernel input is wired, without building a kernel: both series
# (linux-source-6.1, linux-source-6.12) with the small config and with
# Debian's cloud config (linux-config-SERIES), each flavour configured by
# hooks/build/kpgo-kbuild --configure-only from what `kpgo plan` decides:
# gcov on every object in pgo-instr and none in pgo, the release of the
# plan, -O2, and of Debian's config only what the flavours need changed
# (debug info, BTF and module signing as Debian has them). The full
# builds of these inputs are recorded in docs/BENCHMARKS.md.
# shellcheck disable=SC2154 # bats sets status, output, lines

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
KPGO=${KPGO:-$ROOT/build/kpgo}
PROFILE=$ROOT/profiles-store/6.1/small.kpgo

setup_file() {
    # the two source trees, unpacked once for this file
    for s in 6.1 6.12; do
        [ -r "/usr/src/linux-source-$s.tar.xz" ] ||
            skip "no /usr/src/linux-source-$s.tar.xz (tests/install-deps.sh installs it)"
        tar -xJf "/usr/src/linux-source-$s.tar.xz" -C "$BATS_FILE_TMPDIR"
    done
}

# configure SERIES CONFIG FLAVOUR [OPTION...]: kpgo plan for them, then
# kpgo-kbuild --configure-only (with OPTIONs); the .config in $cfg, the
# plan's values by plan KEY.
configure() {
    local series=$1 config=$2 flavour=$3 src=$BATS_FILE_TMPDIR/linux-source-$1 rel tree
    "$KPGO" plan --series "$series" --config "$config" --kconfig-dir "$ROOT/hooks/build/kconfig" \
        --profile "$PROFILE" >"$BATS_TEST_TMPDIR/plan"
    if [ "$flavour" = pgo ]; then
        rel=$(plan REL_PGO) tree=$(plan TREE_PGO)
    else
        rel=$(plan REL_INSTR) tree=$(plan TREE_INSTR)
    fi
    opts=(--src "$src" --flavour "$flavour" --out "$src/$tree" --release "$rel" --configure-only
        --config "$(plan CONFIG_FILE)" --kpgo "$KPGO")
    [ "$(plan CONFIG_KIND)" = fragment ] || opts+=(--full-config)
    [ "$flavour" != pgo ] || opts+=(--profile "$PROFILE")
    run "$ROOT/hooks/build/kpgo-kbuild" "${opts[@]}" "${@:4}"
    assert_success
    cfg=$src/$tree/.config
    release=$rel
}

plan() {
    sed -n "s/^KPGO_$1=//p" "$BATS_TEST_TMPDIR/plan"
}

# has LINE...: each line is in the .config
has() {
    local l
    for l in "$@"; do
        grep -qxF -- "$l" "$cfg" || fail "$cfg lacks '$l' ($(grep -F -- "${l%%=*}" "$cfg" | head -1))"
    done
}

lacks() {
    local l
    for l in "$@"; do
        ! grep -qxF -- "$l" "$cfg" || fail "$cfg has '$l'"
    done
}

# the flavour's own settings, and what every flavour of every config has
check_flavour() {
    has "CONFIG_LOCALVERSION=\"${release#"$(plan KVER)"}\"" CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y \
        CONFIG_MODULES=y
    if [ "$1" = pgo-instr ]; then
        has CONFIG_GCOV_KERNEL=y CONFIG_GCOV_PROFILE_ALL=y CONFIG_DEBUG_FS=y
    else
        has '# CONFIG_GCOV_KERNEL is not set'
        lacks CONFIG_GCOV_PROFILE_ALL=y
    fi
}

@test "6.1, small config: both flavours configure" {
    for f in pgo-instr pgo; do
        configure 6.1 small "$f"
        check_flavour "$f"
        has CONFIG_VIRTIO_BLK=y CONFIG_EXT4_FS=y CONFIG_BLK_DEV_INITRD=y
    done
}

@test "6.12, small config: both flavours configure (a 6.1-only option is left out, and said)" {
    for f in pgo-instr pgo; do
        configure 6.12 small "$f"
        assert_output --partial "CONFIG_BASE_FULL is not an option of this kernel: left out"
        check_flavour "$f"
        has CONFIG_VIRTIO_BLK=y CONFIG_EXT4_FS=y '# CONFIG_SLUB_TINY is not set'
        lacks CONFIG_BASE_SMALL=y
        [[ $release == 6.12.* ]]
    done
}

@test "Debian's cloud config of 6.1 and of 6.12: only what the flavours need is changed" {
    for s in 6.1 6.12; do
        for f in pgo-instr pgo; do
            configure "$s" debian-cloud "$f"
            check_flavour "$f"
            [[ $release == *-cloud-amd64-pgo* ]]
            # Debian's modules, debug info, BTF and module signing stay
            has CONFIG_VIRTIO_BLK=m CONFIG_EXT4_FS=y CONFIG_DEBUG_INFO=y CONFIG_DEBUG_INFO_BTF=y \
                CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_ALL=y
            # everything else as Debian's: no option Debian sets differs
            # but for the flavour's and what olddefconfig adds
            xz -dc "/usr/src/linux-config-$s/config.amd64_none_cloud-amd64.xz" |
                grep -E '^CONFIG_[A-Z0-9_]+=' | grep -v -E \
                '^CONFIG_(LOCALVERSION|GCOV_|DEBUG_FS|CC_VERSION_TEXT|GCC_VERSION|AS_VERSION|LD_VERSION|PAHOLE_VERSION|CONSTRUCTORS|RUSTC|CC_HAS|CC_CAN|CC_IMPLICIT|AS_HAS|LD_CAN|TOOLS_SUPPORT)' |
                while IFS= read -r l; do
                    grep -qxF -- "$l" "$cfg" || echo "$l"
                done >"$BATS_TEST_TMPDIR/changed"
            [ ! -s "$BATS_TEST_TMPDIR/changed" ] ||
                fail "$s $f: Debian's settings changed: $(head -5 "$BATS_TEST_TMPDIR/changed" | paste -sd' ')"
        done
    done
}

@test "a distro config naming a key file of its own build is refused before building" {
    src=$BATS_FILE_TMPDIR/linux-source-6.1
    xz -dc /usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz >"$BATS_TEST_TMPDIR/c"
    echo 'CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"' >>"$BATS_TEST_TMPDIR/c"
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$src" --flavour pgo-instr --out "$src/keytest" \
        --config "$BATS_TEST_TMPDIR/c" --full-config --configure-only
    assert_failure 1
    assert_output --partial "CONFIG_SYSTEM_TRUSTED_KEYS names 'debian/certs/debian-uefi-certs.pem'"
}

@test "a farm's signing key goes into the config; a file that is no key is refused" {
    src=$BATS_FILE_TMPDIR/linux-source-6.1
    key=$BATS_TEST_TMPDIR/key.pem
    openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 -subj "/CN=t" \
        -newkey rsa:2048 -keyout "$key" -out "$key" 2>/dev/null
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$src" --flavour pgo-instr --out "$src/sigtest" \
        --signing-key "$key" --configure-only
    assert_success
    cfg=$src/sigtest/.config
    has CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_ALL=y CONFIG_MODULE_SIG_SHA256=y \
        "CONFIG_MODULE_SIG_KEY=\"$key\""
    echo "not a key" >"$BATS_TEST_TMPDIR/nokey.pem"
    run "$ROOT/hooks/build/kpgo-kbuild" --src "$src" --flavour pgo-instr --out "$src/sigtest2" \
        --signing-key "$BATS_TEST_TMPDIR/nokey.pem" --configure-only
    assert_failure 1
    assert_output --partial "is not a PEM file with a private key and its certificate"
}

@test "the small config with --debug-info (KPGO_DEBUG_INFO, the -dbg packages) has DWARF debug information" {
    for f in pgo-instr pgo; do
        configure 6.1 small "$f" --debug-info
        check_flavour "$f"
        has CONFIG_DEBUG_INFO=y CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y
        configure 6.1 small "$f"
        lacks CONFIG_DEBUG_INFO=y
    done
}
