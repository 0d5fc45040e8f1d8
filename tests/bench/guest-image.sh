#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest-image.sh: the disk image of the kernel benchmark's guest, shared by
# tests/bench/bench-kernel.sh and tests/kernel/train-default.sh (the default
# profile's training). An ext4 image (1 GiB, mkfs.ext4 -d: no loop mount) of
# the end-to-end test's Debian 12 root (tests/e2e/rootfs.sh) with the
# packages of tests/bench/guest/bench.packages, and in
# /usr/local/lib/kpgo-bench the guest's init (tests/bench/guest/init, PID
# 1), the static workload programs, a static busybox and kpgo. Cached in
# OUT under a hash of its inputs. Prints the image's path. Root only (the
# root is unpacked with its owners).
#
#   guest-image.sh --out DIR --kpgo PATH --bench DIR [--cache DIR] [--log FILE]
#
# --bench: the built workload programs (make workloads: build/bench);
# --cache: the Debian image archives (default build/e2e-cache, shared
# with make e2e).

set -euo pipefail
prog=guest-image.sh
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

out='' kpgo='' bench='' cache=$top/build/e2e-cache log=/dev/null
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--kpgo) kpgo=${2:?}; shift 2 ;;
	--bench) bench=${2:?}; shift 2 ;;
	--cache) cache=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	*) die "usage: $prog --out DIR --kpgo PATH --bench DIR [--cache DIR] [--log FILE]" ;;
	esac
done
{ [ -n "$out" ] && [ -n "$kpgo" ] && [ -n "$bench" ]; } || die "--out, --kpgo and --bench are required"
[ "$(id -u)" -eq 0 ] || die "must run as root (the image is unpacked with its owners)"
for t in mkfs.ext4 busybox file tar; do
	command -v "$t" >/dev/null || die "'$t' not found (tests/install-deps.sh installs it)"
done
busybox=$(command -v busybox)
file -L "$busybox" | grep -q 'statically linked' || die "'$busybox' is not static (install busybox-static)"
[ -x "$kpgo" ] || die "no kpgo at '$kpgo' (make)"
for w in wl-micro wl-syscall wl-pipe wl-fork wl-file wl-socket wl-thread; do
	[ -x "$bench/$w" ] || die "no workload program '$bench/$w' (make workloads)"
done
mkdir -p "$out"
out=$(readlink -f "$out")

rootfs_tar=$("$top/tests/e2e/rootfs.sh" --cache "$cache" --extra "$here/guest/bench.packages" 2>>"$log") ||
	die "tests/e2e/rootfs.sh failed; see $log"
wl_progs=("$bench"/wl-*)
key=$({
	printf 'rootfs %s\n' "$(basename "$rootfs_tar")"
	sha256sum "$here/guest/init" "$busybox" "$kpgo" "${wl_progs[@]}" | cut -d' ' -f1
} | sha256sum | cut -c1-16)
disk=$out/disk-$key.img
exec 9>"$out/disk.lock"
flock 9
if [ -s "$disk" ]; then
	printf '%s: image %s (cached)\n' "$prog" "$disk" >&2
else
	printf '%s: making the image %s from %s\n' "$prog" "$disk" "$(basename "$rootfs_tar")" >&2
	rm -rf "$out/root" "$out"/disk-*.img "$out"/disk-*.img.tmp
	mkdir -p "$out/root"
	tar -xpf "$rootfs_tar" -C "$out/root" --numeric-owner || die "cannot unpack $rootfs_tar"
	install -d "$out/root/usr/local/lib/kpgo-bench"
	install -m 0755 "$here/guest/init" "$busybox" "$kpgo" "${wl_progs[@]}" \
		"$out/root/usr/local/lib/kpgo-bench/"
	mkfs.ext4 -q -F -L kpgo-bench -d "$out/root" "$disk.tmp" 1G >>"$log" 2>&1 ||
		die "mkfs.ext4 -d failed; see $log"
	mv "$disk.tmp" "$disk"
	rm -rf "$out/root"
fi
echo "$disk"
