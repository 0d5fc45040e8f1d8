#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ksrc-unpack.sh: Debian's kernel source of one series (linux-source-SERIES),
# unpacked into DEST/linux-source-SERIES, for the Makefile's kernel targets
# (KPGO_KSRC's default) and the decay benchmark (tests/bench/bench-decay.sh),
# which needs several releases side by side. Glue around apt-get, dpkg-deb
# and tar.
#
#   ksrc-unpack.sh --series SERIES --dest DEST [--version VERSION] [--debs DIR]
#
# Without --version (or with the installed package's version): the
# installed package's /usr/src/linux-source-SERIES.tar.xz. With another
# version: linux-source-SERIES=VERSION fetched from the archive with
# `apt-get download` into --debs (default DEST), its tarball read out of the
# .deb. Beside the tree's Makefile it writes .kpgo-source-version (the
# package version, as debian/rules and kpgo plan read it) and
# .kpgo-source-changelog (the package's changelog.Debian, uncompressed: its
# date is when the release was made). A tree already unpacked from the same
# version is kept; one of another version is an error (remove it first).
# Prints the tree's path.

set -euo pipefail
prog=ksrc-unpack.sh

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

series='' dest='' version='' debs=''
while [ $# -gt 0 ]; do
	case $1 in
	--series) series=${2:?}; shift 2 ;;
	--dest) dest=${2:?}; shift 2 ;;
	--version) version=${2:?}; shift 2 ;;
	--debs) debs=${2:?}; shift 2 ;;
	*) die "usage: $prog --series SERIES --dest DEST [--version VERSION] [--debs DIR]" ;;
	esac
done
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "bad --series '$series' (6.1, 6.12)"
[ -n "$dest" ] || die "--dest is required"
[ -z "$version" ] || [[ $version =~ ^[0-9][-0-9A-Za-z.+~]*$ ]] || die "bad --version '$version'"
pkg=linux-source-$series
installed=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
version=${version:-$installed}
[ -n "$version" ] || die "$pkg is not installed: name a --version (apt-cache madison $pkg)"
dest=$(readlink -m "$dest")
tree=$dest/$pkg

if [ -f "$tree/Makefile" ]; then
	have=$(cat "$tree/.kpgo-source-version" 2>/dev/null || echo unknown)
	[ "$have" = "$version" ] ||
		die "'$tree' holds $pkg $have, not $version: remove it first"
	printf '%s\n' "$tree"
	exit 0
fi

mkdir -p "$dest"
tmp=$(mktemp -d "$dest/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$version" = "$installed" ]; then
	tarball=/usr/src/$pkg.tar.xz
	changelog=/usr/share/doc/$pkg/changelog.Debian.gz
else
	debs=$(readlink -m "${debs:-$dest}")
	mkdir -p "$debs"
	# apt-get download names the file with the version's ':' as %3a
	deb=$debs/${pkg}_${version//:/%3a}_all.deb
	if [ ! -s "$deb" ]; then
		(cd "$debs" && apt-get download "$pkg=$version") >&2 ||
			die "cannot download $pkg=$version (apt-cache madison $pkg lists the versions)"
	fi
	[ -s "$deb" ] || die "apt-get download did not write '$deb'"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" "./usr/src/$pkg.tar.xz" "./usr/share/doc/$pkg/changelog.Debian.gz" ||
		die "'$deb' has no /usr/src/$pkg.tar.xz or changelog.Debian.gz"
	tarball=$tmp/usr/src/$pkg.tar.xz
	changelog=$tmp/usr/share/doc/$pkg/changelog.Debian.gz
fi
tar -xJf "$tarball" -C "$tmp"
[ -f "$tmp/$pkg/Makefile" ] || die "'$tarball' has no $pkg/Makefile"
printf '%s\n' "$version" >"$tmp/$pkg/.kpgo-source-version"
gzip -dc "$changelog" >"$tmp/$pkg/.kpgo-source-changelog"
top=$(dpkg-parsechangelog -l "$tmp/$pkg/.kpgo-source-changelog" -SVersion)
[ "$top" = "$version" ] || die "the changelog of $pkg $version begins with $top"
rm -rf "$tree"
mv "$tmp/$pkg" "$tree"
printf '%s\n' "$tree"
