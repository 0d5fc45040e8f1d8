#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rootfs.sh: the Debian 12 root filesystem of the end-to-end test, as a tar
# archive made by mmdebstrap from Debian's packages (minbase, plus
# tests/e2e/rootfs.packages), set up to boot under QEMU with systemd on a
# serial console. Cached in CACHEDIR under a name keyed by a hash of its
# inputs (this script, the package list, suite, mirror, architecture):
# made again only when one of them changes. Prints the archive's path.
#
#   rootfs.sh --cache DIR [--suite SUITE] [--mirror URL] [--extra FILE]
#
# --extra FILE: more packages, one per line like rootfs.packages, for an
# image of another use (the kernel benchmark's, tests/bench/guest/packages);
# its archive is named after FILE and cached beside the plain one.
#
# Root only (mmdebstrap's root mode; the archive keeps owners and modes).
# The image has no network: its sources.list is empty, packages come from
# local repositories that tests/e2e/e2e.sh sets up.

set -euo pipefail
prog=rootfs.sh
here=$(dirname "$(readlink -f "$0")")

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

# Units that only cost boot time in a test guest: logins on the consoles,
# and the periodic maintenance timers.
masked_units=(
	serial-getty@ttyS0.service getty@tty1.service
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer
	e2scrub_all.timer e2scrub_reap.service fstrim.timer
)

# Run by mmdebstrap as a customize hook: $1 is the new root.
customize() {
	local root=$1 u
	echo kpgo-e2e >"$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tkpgo-e2e\n' >"$root/etc/hosts"
	# the kernel mounts the root read-write (root=/dev/vda rw): no fsck
	printf '/dev/vda\t/\text4\tdefaults\t0\t0\n' >"$root/etc/fstab"
	printf '# no network in the end-to-end test guest: local repositories only\n' \
		>"$root/etc/apt/sources.list"
	rm -f "$root"/etc/apt/sources.list.d/*
	ln -sfn /lib/systemd/system/multi-user.target "$root/etc/systemd/system/default.target"
	for u in "${masked_units[@]}"; do
		ln -sfn /dev/null "$root/etc/systemd/system/$u"
	done
	# A fixed machine id: an empty or "uninitialized" one would make the
	# first boot run systemd's first-boot presets, which enable every
	# installed unit (kpgo's among them, which its kernel hook must do).
	tr -d '-' </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
}

if [ "${1:-}" = --customize ]; then
	customize "${2:?}"
	exit 0
fi

cache='' suite=bookworm mirror=http://deb.debian.org/debian extra=''
while [ $# -gt 0 ]; do
	case $1 in
	--cache) cache=${2:?}; shift 2 ;;
	--suite) suite=${2:?}; shift 2 ;;
	--mirror) mirror=${2:?}; shift 2 ;;
	--extra) extra=${2:?}; shift 2 ;;
	*) die "usage: $prog --cache DIR [--suite SUITE] [--mirror URL] [--extra FILE]" ;;
	esac
done
[ -n "$cache" ] || die "--cache is required"
[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap's root mode, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (tests/install-deps.sh installs it)"

arch=$(dpkg --print-architecture)
lists=("$here/rootfs.packages")
tag=''
if [ -n "$extra" ]; then
	[ -r "$extra" ] || die "cannot read '$extra'"
	lists+=("$extra")
	tag=$(basename "$extra" .packages)
	[[ $tag =~ ^[A-Za-z0-9_]+$ ]] || tag=extra
	tag=-$tag
fi
packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${lists[@]}" | sort -u | paste -sd,)
[[ $packages =~ ^[a-z0-9][-a-z0-9.+,]*$ ]] || die "bad package name in ${lists[*]}"
key=$({
	sha256sum <"$0"
	printf 'packages %s\nsuite %s\nmirror %s\narch %s\n' "$packages" "$suite" "$mirror" "$arch"
} | sha256sum | cut -c1-16)
out=$cache/rootfs-$suite$tag-$key.tar

mkdir -p "$cache"
exec 9>"$cache/rootfs.lock"
flock 9
if [ -s "$out" ]; then
	printf '%s: cached %s\n' "$prog" "$out" >&2
	echo "$out"
	exit 0
fi
# Archives of older inputs are of no further use (those of other package
# lists are another image's).
rm -f "$cache/rootfs-$suite$tag"-????????????????.tar "$cache/rootfs-$suite$tag"-????????????????.tar.tmp
printf '%s: making %s (%s, %s)\n' "$prog" "$out" "$suite" "$packages" >&2
mmdebstrap --mode=root --variant=minbase --architectures="$arch" \
	--include="$packages" \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--customize-hook="\"$here/rootfs.sh\" --customize \"\$1\"" \
	--format=tar "$suite" "$out.tmp" "$mirror" >&2 ||
	die "mmdebstrap failed"
mv "$out.tmp" "$out"
echo "$out"
