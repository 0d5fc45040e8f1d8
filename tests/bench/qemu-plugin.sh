#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# qemu-plugin.sh: builds one of the kernel benchmark's TCG plugins (the
# cache model tests/bench/cachesim.c, or blockprof.c, the block and branch
# counts of an uninstrumented kernel) for the QEMU installed here and
# prints its path.
# Debian 12's qemu-system-x86 runs TCG plugins but ships no qemu-plugin.h:
# the header comes from Debian's source package of the same QEMU version
# (apt-get source, checked by apt against the archive's signed index),
# never from elsewhere. Glue around dpkg-query, apt-get, tar and gcc.
#
#   qemu-plugin.sh --out DIR [--plugin cachesim|blockprof]
#
# DIR (the benchmark's build/qemu-plugin) keeps the source package's files
# and the plugin, named by a hash of its inputs (the source file, the
# header, the compiler): nothing is downloaded or built again while they
# stay the same. Adds a deb-src entry for Debian's archive
# (/etc/apt/sources.list.d/kpgo-deb-src.sources) when apt has none that
# holds the version. Root only when that entry or the download is needed.

set -euo pipefail
prog=qemu-plugin.sh
here=$(dirname "$(readlink -f "$0")")

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

out='' name=cachesim
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--plugin) name=${2:?}; shift 2 ;;
	*) die "usage: $prog --out DIR [--plugin cachesim|blockprof]" ;;
	esac
done
[ -n "$out" ] || die "--out is required"
case $name in
cachesim | blockprof) ;;
*) die "unknown plugin '$name' (cachesim or blockprof)" ;;
esac
mkdir -p "$out"
out=$(readlink -f "$out")

for t in dpkg-query gcc tar; do
	command -v "$t" >/dev/null || die "'$t' not found"
done
# The source version of the installed QEMU (a binNMU's +bN is not in it):
# plugins are checked against the API version of the binary that loads them.
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (tests/install-deps.sh installs it)"
[[ $ver =~ ^[0-9]+:[0-9A-Za-z.+~-]+$ || $ver =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || die "odd QEMU version '$ver'"
src=$out/src-${ver//:/_}
hdr=$src/qemu-plugin.h

if [ ! -s "$hdr" ]; then
	if [ ! -d "$src" ] || [ -z "$(find "$src" -maxdepth 1 -name 'qemu_*.dsc')" ]; then
		command -v apt-get >/dev/null || die "apt-get not found"
		if ! apt-cache showsrc qemu 2>/dev/null | grep -x "Version: $ver" >/dev/null; then
			[ "$(id -u)" -eq 0 ] || die "no deb-src entry holds qemu $ver; run as root to add one"
			printf '%s: adding a deb-src entry for Debian 12 (kpgo-deb-src.sources)\n' "$prog" >&2
			cat >/etc/apt/sources.list.d/kpgo-deb-src.sources <<'EOF'
# Added by kpgo's tests/bench/qemu-plugin.sh: the source of Debian's QEMU,
# for the qemu-plugin.h that the binary packages do not ship.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
			apt-get update -q >&2 || die "apt-get update failed"
			apt-cache showsrc qemu 2>/dev/null | grep -x "Version: $ver" >/dev/null ||
				die "Debian's archive has no source of qemu $ver"
		fi
		rm -rf "$src.tmp"
		mkdir -p "$src.tmp"
		(cd "$src.tmp" && apt-get source --download-only -q "qemu=$ver") >&2 ||
			die "apt-get source qemu=$ver failed"
		rm -rf "$src"
		mv "$src.tmp" "$src"
		[ -n "$(find "$src" -maxdepth 1 -name 'qemu_*.dsc')" ] || die "apt-get source left no .dsc in $src"
	fi
	orig=$(find "$src" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -1)
	debian=$(find "$src" -maxdepth 1 -name 'qemu_*.debian.tar.*' | head -1)
	{ [ -n "$orig" ] && [ -n "$debian" ]; } || die "no orig and debian tarballs in $src"
	member=$(tar -tf "$orig" | grep -E '^[^/]+/include/qemu/qemu-plugin\.h$' || true)
	[[ $member =~ ^[^/$'\n']+/include/qemu/qemu-plugin\.h$ ]] ||
		die "$orig has no single include/qemu/qemu-plugin.h"
	# Debian's patches must leave the plugin API as upstream wrote it
	if [ "$(tar -xOf "$debian" --wildcards 'debian/patches/*' | grep -c 'qemu-plugin\.h' || true)" != 0 ]; then
		die "a Debian patch of qemu $ver changes qemu-plugin.h: not handled"
	fi
	tar -xOf "$orig" "$member" >"$hdr.tmp" || die "cannot extract $member"
	grep -q 'QEMU_PLUGIN_VERSION' "$hdr.tmp" || die "$member has no QEMU_PLUGIN_VERSION"
	mv "$hdr.tmp" "$hdr"
fi

key=$({
	sha256sum <"$here/$name.c"
	sha256sum <"$hdr"
	gcc --version | head -1
} | sha256sum | cut -c1-16)
so=$out/$name-$key.so
if [ ! -s "$so" ]; then
	gcc -std=gnu11 -O2 -g -shared -fPIC -Wall -Wextra -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -Wvla -Werror -I"$src" "$here/$name.c" -o "$so.tmp" ||
		die "building the plugin failed"
	rm -f "$out/$name"-*.so
	mv "$so.tmp" "$so"
fi
echo "$so"
