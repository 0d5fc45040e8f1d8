#!/usr/bin/env bats
# kpgo kconfig check: a kernel tree's final .config against the fragments
# merged into it, the key files it names and what the flavour needs; each
# problem on a line of its own, exit 1; usage errors exit 2. A hand-made
# source tree (Kconfig files only) and .config: what kpgo-kbuild checks
# after olddefconfig.
# shellcheck disable=SC2154 # bats sets status, output, lines, stderr

load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    mkdir -p "$W/src/arch/x86" "$W/src/pgo" "$W/src/certs"
    printf 'config MODULES\n\tbool\nmenuconfig GCOV_KERNEL\n' >"$W/src/Kconfig"
    printf 'config GCOV_PROFILE_ALL\nconfig LTO_CLANG_THIN\nconfig LTO_CLANG_FULL\nconfig MODULE_SIG_ALL\nconfig SLUB_TINY\n' \
        >"$W/src/arch/x86/Kconfig.debug"
    printf 'config SYSTEM_TRUSTED_KEYS\nconfig LOCALVERSION\n' >"$W/src/certs/Kconfig"
    # an O= build tree in the source tree: its files are no source
    : >"$W/src/pgo/.config"
    printf 'config BASE_FULL\n' >"$W/src/pgo/Kconfig"
    mkdir -p "$W/src/pgo-instr"
    cat >"$W/src/pgo-instr/.config" <<'EOF'
#
# Automatically generated file; DO NOT EDIT.
#
CONFIG_MODULES=y
CONFIG_LOCALVERSION="-pgo-instr"
CONFIG_GCOV_KERNEL=y
CONFIG_GCOV_PROFILE_ALL=y
# CONFIG_SLUB_TINY is not set
CONFIG_SYSTEM_TRUSTED_KEYS=""
EOF
    CFG=$W/src/pgo-instr/.config
    printf 'CONFIG_MODULES=y\nCONFIG_BASE_FULL=y\n# CONFIG_SLUB_TINY is not set\nCONFIG_LOCALVERSION="-x"\n' \
        >"$W/small.config"
    printf 'CONFIG_GCOV_KERNEL=y\nCONFIG_GCOV_PROFILE_ALL=y\n# CONFIG_LTO_CLANG_THIN is not set\n' \
        >"$W/pgo-instr.config"
    printf 'CONFIG_LOCALVERSION="-pgo-instr"\n' >"$W/gen.config"
}

check() {
    run --separate-stderr kpgo kconfig check --config "$CFG" --src "$W/src" "$@"
}

@test "kconfig check: a config that took passes; a symbol this kernel lacks is said and left out" {
    check --flavour pgo-instr "$W/small.config" "$W/pgo-instr.config" "$W/gen.config"
    assert_success
    assert_output ''
    assert_equal "$stderr" "$W/small.config: CONFIG_BASE_FULL is not an option of this kernel: left out"
    # -q: the note goes
    check -q --flavour pgo-instr "$W/small.config" "$W/pgo-instr.config" "$W/gen.config"
    assert_success
    assert_equal "$stderr" ''
}

@test "kconfig check: each line that did not take is one error line" {
    printf 'CONFIG_MODULES=m\nCONFIG_SLUB_TINY=y\n# CONFIG_GCOV_KERNEL is not set\n' >"$W/bad.config"
    check "$W/bad.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: $W/bad.config: requested \"CONFIG_MODULES=m\", got \"CONFIG_MODULES=y\"
kpgo: $W/bad.config: requested \"CONFIG_SLUB_TINY=y\", got \"# CONFIG_SLUB_TINY is not set\"
kpgo: $W/bad.config: requested \"# CONFIG_GCOV_KERNEL is not set\", got \"CONFIG_GCOV_KERNEL=y\""
    # a symbol the kernel has but the .config lacks
    printf 'CONFIG_MODULE_SIG_ALL=y\n' >"$W/sig.config"
    check "$W/sig.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: $W/sig.config: requested \"CONFIG_MODULE_SIG_ALL=y\", got \"(absent)\""
    # a later fragment's symbol is not the earlier one's to check
    check "$W/sig.config" "$W/sig.config"
    assert_failure 1
    [ "${#stderr_lines[@]}" -eq 1 ]
}

@test "kconfig check: the flavour's options" {
    check --flavour pgo
    assert_failure 1
    assert_equal "$stderr" "kpgo: the pgo config has CONFIG_GCOV_KERNEL=y"
    check --flavour pgo-instr --compiler clang --module-sig
    assert_failure 1
    assert_equal "$stderr" "kpgo: the pgo-instr config lacks CONFIG_LTO_CLANG_THIN=y
kpgo: the pgo-instr config lacks CONFIG_MODULE_SIG_ALL=y"
    check --flavour pgo-instr --compiler clang --lto full
    assert_failure 1
    assert_equal "$stderr" "kpgo: the pgo-instr config lacks CONFIG_LTO_CLANG_FULL=y"
    sed -i 's/^CONFIG_GCOV_PROFILE_ALL=y$/# CONFIG_GCOV_PROFILE_ALL is not set/' "$CFG"
    check --flavour pgo-instr
    assert_failure 1
    assert_equal "$stderr" "kpgo: the pgo-instr config lacks CONFIG_GCOV_PROFILE_ALL=y (it has \"# CONFIG_GCOV_PROFILE_ALL is not set\")"
}

@test "kconfig check: a key file the build cannot read is refused; the build's own and a readable one are not" {
    sed -i 's|^CONFIG_SYSTEM_TRUSTED_KEYS=.*|CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"|' "$CFG"
    check
    assert_failure 1
    assert_equal "$stderr" "kpgo: the config's CONFIG_SYSTEM_TRUSTED_KEYS names 'debian/certs/debian-uefi-certs.pem', which this build cannot read (a distro's own key?): set it to \"\" in a fragment, or give the build a key of its own (kpgo-kbuild --signing-key)"
    mkdir -p "$W/src/debian/certs"
    : >"$W/src/debian/certs/debian-uefi-certs.pem"
    check
    assert_success
    printf 'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"\nCONFIG_SYSTEM_EXTRA_CERTIFICATE_FILE="x.pem"\n' >>"$CFG"
    : >"$W/src/pgo-instr/x.pem"
    check
    assert_success
}

@test "kconfig check: hostile and missing input is one error line" {
    run --separate-stderr kpgo kconfig check --config "$W/none/.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/none/.config': No such file or directory"
    printf 'CONFIG_A=y\n\0CONFIG_B=y\n' >"$W/nul.config"
    check "$W/nul.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/nul.config': NUL byte on line 2: not a text file"
    { printf 'CONFIG_S="'; head -c 70000 /dev/zero | tr '\0' x; printf '"\n'; } >"$W/long.config"
    check "$W/long.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/long.config': 1 line longer than 65536 bytes"
    printf 'config X\n\0' >"$W/src/Kconfig.bad"
    check "$W/small.config"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/src/Kconfig.bad': NUL byte on line 2: not a text file"
}

@test "kconfig check: usage errors exit 2" {
    run --separate-stderr kpgo kconfig check
    assert_failure 2
    [[ $stderr == *"--config FILE is required"* ]]
    run --separate-stderr kpgo kconfig check --config "$CFG" "$W/small.config"
    assert_failure 2
    [[ $stderr == *"fragments need --src"* ]]
    check --flavour pgo-debug
    assert_failure 2
    [[ $stderr == *"unknown flavour 'pgo-debug'"* ]]
    check --flavour pgo --compiler icc
    assert_failure 2
    check --compiler clang
    assert_failure 2
    [[ $stderr == *"need --flavour"* ]]
    check --flavour pgo --lto full
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "kpgo kconfig check: --lto is for --compiler clang"
    check --flavour pgo --compiler clang --lto fat
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "kpgo kconfig check: unknown --lto 'fat' (thin or full)"
    run --separate-stderr kpgo kconfig
    assert_failure 2
    [[ $stderr == *"which command? (check, fragments)"* ]]
    run --separate-stderr kpgo kconfig lint
    assert_failure 2
    run kpgo kconfig check --help
    assert_success
    assert_line --partial "usage: kpgo kconfig check --config FILE"
}

@test "kconfig fragments: the release, a farm's signing key, debug info; a file that is no key is refused" {
    key=$W/key.pem
    openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 -subj "/CN=t" \
        -newkey rsa:2048 -keyout "$key" -out "$key" 2>/dev/null
    mkdir "$W/o"
    : >"$W/o/kpgo-gen-stale.config"
    run kpgo kconfig fragments --dir "$W/o" --localversion -kpgo-pgo --signing-key "$W/./key.pem" --debug-info
    assert_success
    assert_output "$W/o/kpgo-gen-release.config
$W/o/kpgo-gen-signing.config
$W/o/kpgo-gen-debug.config"
    [ "$(cat "$W/o/kpgo-gen-release.config")" = '# kpgo-kbuild --release
CONFIG_LOCALVERSION="-kpgo-pgo"' ]
    [ "$(cat "$W/o/kpgo-gen-signing.config")" = "# kpgo-kbuild --signing-key
CONFIG_MODULE_SIG=y
CONFIG_MODULE_SIG_ALL=y
CONFIG_MODULE_SIG_SHA256=y
CONFIG_MODULE_SIG_KEY=\"$key\"" ]
    [ "$(cat "$W/o/kpgo-gen-debug.config")" = '# kpgo-kbuild --debug-info
CONFIG_DEBUG_KERNEL=y
CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y' ]
    [ ! -e "$W/o/kpgo-gen-stale.config" ]
    run kpgo kconfig fragments --dir "$W/o"
    assert_success
    assert_output ""
    [ -z "$(find "$W/o" -name 'kpgo-gen-*')" ]
    echo "not a key" >"$W/nokey.pem"
    run --separate-stderr kpgo kconfig fragments --dir "$W/o" --signing-key "$W/nokey.pem"
    assert_failure 1
    assert_equal "$stderr" "kpgo: '$W/nokey.pem' is not a PEM file with a private key and its certificate"
    run --separate-stderr kpgo kconfig fragments --dir "$W/o" --signing-key "$W/none.pem"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read signing key '$W/none.pem'"
    run kpgo kconfig fragments --signing-key "$key"
    assert_failure 2
}
