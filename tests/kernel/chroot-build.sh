#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# chroot-build.sh: build a Debian source package as a build farm's sbuild
# does — in a fresh Debian 12 chroot that has only the package's
# Build-Depends (and build-essential) installed, as an unprivileged user,
# with no network — and copy the binary packages out. Glue around
# mmdebstrap, apt-get build-dep, unshare and dpkg-buildpackage.
#
#   chroot-build.sh --dsc FILE.dsc --out DIR [--cache DIR] [--profiles P,...]
#                   [--jobs N] [--signing-key FILE] [--keep]
#
# The chroot with the build dependencies is cached in CACHEDIR (a tar
# archive keyed by this script, the Build-Depends field, the build
# profiles, suite and mirror); each build unpacks a fresh copy. Root only.
# DEB_BUILD_OPTIONS gets nocheck and parallel=N; --signing-key is copied in
# and passed as KPGO_SIGNING_KEY.

set -euo pipefail
prog=chroot-build.sh

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

dsc='' out='' cache='' profiles='' jobs=$(nproc) key='' keep=false
suite=bookworm mirror=${KPGO_MIRROR:-http://deb.debian.org/debian}
security=${KPGO_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
while [ $# -gt 0 ]; do
	case $1 in
	--dsc) dsc=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--cache) cache=${2:?}; shift 2 ;;
	--profiles) profiles=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--signing-key) key=${2:?}; shift 2 ;;
	--keep) keep=true; shift ;;
	*) die "usage: $prog --dsc FILE.dsc --out DIR [--cache DIR] [--profiles P] [--jobs N] [--signing-key F] [--keep]" ;;
	esac
done
if [ -z "$dsc" ] || [ -z "$out" ]; then
	die "--dsc and --out are required"
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (tests/install-deps.sh installs it)"
[ -r "$dsc" ] || die "cannot read '$dsc'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "bad --jobs '$jobs'"
dsc=$(readlink -f "$dsc")
out=$(readlink -m "$out")
cache=$(readlink -m "${cache:-$(dirname "$out")/chroot-cache}")
# the tests are not run in the chroot (DEB_BUILD_OPTIONS=nocheck): their
# Build-Depends (<!nocheck>) are not installed either
profiles=${profiles:+$profiles,}nocheck

# The package's Build-Depends, as the .dsc states them
bdeps=$(sed -n '/^Build-Depends:/,/^[^ ]/{/^Build-Depends:/{s/^Build-Depends: *//;p;d};/^ /p}' "$dsc")
src=$(sed -n 's/^Source: //p' "$dsc")
ver=$(sed -n 's/^Version: //p' "$dsc")
if [ -z "$src" ] || [ -z "$ver" ] || [ -z "$bdeps" ]; then
	die "'$dsc' has no Source, Version or Build-Depends"
fi

key_id=$({
	sha256sum <"$0"
	printf 'bdeps %s\nprofiles %s\nsuite %s %s %s\n' "$bdeps" "$profiles" "$suite" "$mirror" "$security"
} | sha256sum | cut -c1-16)
base=$cache/chroot-$suite-$key_id.tar

mkdir -p "$cache" "$out"
exec 9>"$cache/chroot.lock"
flock 9
if [ ! -s "$base" ]; then
	rm -f "$cache"/chroot-*.tar "$cache"/chroot-*.tar.tmp
	printf '%s: making the build chroot %s\n' "$prog" "$base" >&2
	# apt-get build-dep reads the .dsc itself: only what it asks for is installed
	# shellcheck disable=SC2016 # mmdebstrap's hooks expand $1 (the root)
	mmdebstrap --mode=root --variant=buildd --format=tar --architectures="$(dpkg --print-architecture)" \
		--setup-hook='mkdir -p "$1/srv/dsc"' \
		--setup-hook="copy-in $dsc /srv/dsc" \
		--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends -o 'APT::Build-Profiles=${profiles//,/ }' build-dep /srv/dsc/$(basename "$dsc")" \
		--customize-hook='rm -rf "$1/srv/dsc"; chroot "$1" apt-get clean' \
		"$suite" "$base.tmp" "deb $mirror $suite main" "deb $security $suite-security main" >&2 ||
		die "mmdebstrap failed"
	mv "$base.tmp" "$base"
fi
flock -u 9

root=$(mktemp -d "$cache/root.XXXXXX")
cleanup() {
	$keep || rm -rf "$root"
}
trap cleanup EXIT
tar -xpf "$base" -C "$root" --numeric-owner || die "cannot unpack $base"
mkdir -p "$root/build"
dcmd=$(sed -n '/^Files:/,/^[^ ]/{/^ /{s/.* //;p}}' "$dsc")
cp "$dsc" "$root/build/"
for f in $dcmd; do cp "$(dirname "$dsc")/$f" "$root/build/"; done
chroot "$root" useradd -m -u 1500 builder 2>/dev/null || true
envkey=''
if [ -n "$key" ]; then
	install -m 0600 -o 1500 "$key" "$root/build/signing-key.pem"
	envkey=KPGO_SIGNING_KEY=/build/signing-key.pem
fi
chown -R 1500 "$root/build"
opts="nocheck parallel=$jobs"
printf '%s: building %s %s in a fresh chroot, no network (DEB_BUILD_OPTIONS=%s%s)\n' \
	"$prog" "$src" "$ver" "$opts" ", profiles $profiles" >&2
# a private mount and network namespace: /proc and /dev for the build, no
# network interface but loopback (down)
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --net --propagation private /bin/sh -ec '
	root=$1; shift
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	exec chroot --userspec=1500:1500 "$root" env -i HOME=/home/builder PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C.UTF-8 "$@"
' sh "$root" /bin/sh -ec "cd /build && dpkg-source -x ./$(basename "$dsc") src >/dev/null &&
	cd src && $envkey DEB_BUILD_OPTIONS='$opts' dpkg-buildpackage -b -us -uc -P$profiles" ||
	die "the build of $src $ver failed in the chroot (see above)"
find "$root/build" -maxdepth 1 \( -name '*.deb' -o -name '*.buildinfo' -o -name '*.changes' \) \
	-exec cp -t "$out" {} +
printf '%s: %s\n' "$prog" "$(find "$out" -maxdepth 1 -name '*.deb' | wc -l) packages in $out" >&2
