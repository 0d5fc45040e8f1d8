#!/bin/bash
# Installs what building, testing and the demo need, from Debian 12's
# packages. Uses sudo when not run as root. Safe to run again.
set -euo pipefail

pkgs=(
    build-essential pkg-config make git
    libarchive-dev libssl-dev libzstd-dev zstd
    bats bats-support bats-assert
    # libFuzzer's runtime for each clang the fuzz targets may be built with
    # (FUZZ_CC: clang, i.e. clang-14, by default; clang-16 below)
    clang libclang-rt-14-dev libclang-rt-16-dev
    # kpgo afdo's proof that Clang uses the converted profile (tests/cli/afdo.bats),
    # with each of Debian 12's Clangs; the benchmark's clang19-... kernels
    clang-16 llvm-16 lld-16 clang-19 llvm-19 lld-19
    # make lint: shellcheck, and clang-format-14 against .clang-format
    shellcheck clang-format-14 valgrind python3
    # bench-report.bats checks the plot is well-formed XML
    libxml2-utils
    # html.bats renders kpgo info --html in a headless browser
    chromium
    gcc-11
    # the kernel flavours as .deb and .rpm packages
    linux-source-6.1 bc bison flex libelf-dev cpio kmod rsync xz-utils
    debhelper dpkg-dev lintian rpm ccache file
    # the other series, Debian's own configs, BTF and module signing of
    # distro configs (KPGO_KSERIES=6.12, KPGO_CONFIG=debian-cloud)
    linux-source-6.12 linux-config-6.1 linux-config-6.12 dwarves openssl
    # booting kernels in QEMU (training runs, end-to-end tests)
    qemu-system-x86 busybox-static e2fsprogs
    # the benchmark's cache-model plugin: its test runs under QEMU's user mode
    qemu-user
    # the end-to-end test's Debian image (make e2e)
    mmdebstrap
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
    as_root=(sudo)
fi

missing=()
for p in "${pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-deps: all packages present"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
