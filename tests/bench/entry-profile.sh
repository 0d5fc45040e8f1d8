#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# entry-profile.sh: the block profile of an uninstrumented kernel
# (tests/bench/blockprof.c, one boot under QEMU) as a sample profile for
# kpgo afdo --add, with its places table for --add-places. Glue around
# llvm-profgen, nm and addr2line.
#
#   entry-profile.sh --vmlinux VMLINUX --objtree DIR --blocks FILE --out DIR
#                    [--llvm-bin DIR]
#
# VMLINUX must have debug information (kpgo-kbuild --debug-info) and be the
# kernel the blocks were counted on; DIR its object tree (the source names
# in the places table are made relative to it, as kbuild gives them to the
# compiler). Writes OUT/entry.afdo.txt (llvm-profgen's text profile: every
# function that ran, by its DWARF name, with inlined callsites) and
# OUT/entry.places (a kpgo afdo definitions table: for each of those
# names defined once in VMLINUX's symbol table, the source file and line
# of its first instruction). A name defined more than once (static
# functions of one name) gets no place: kpgo afdo --add leaves it out.

set -euo pipefail
prog=entry-profile.sh
export LC_ALL=C

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

vmlinux='' objtree='' blocks='' out='' llvm_bin=/usr/lib/llvm-16/bin
while [ $# -gt 0 ]; do
	case $1 in
	--vmlinux) vmlinux=${2:?}; shift 2 ;;
	--objtree) objtree=${2:?}; shift 2 ;;
	--blocks) blocks=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--llvm-bin) llvm_bin=${2:?}; shift 2 ;;
	*) die "usage: $prog --vmlinux VMLINUX --objtree DIR --blocks FILE --out DIR [--llvm-bin DIR]" ;;
	esac
done
{ [ -n "$vmlinux" ] && [ -n "$objtree" ] && [ -n "$blocks" ] && [ -n "$out" ]; } ||
	die "usage: $prog --vmlinux VMLINUX --objtree DIR --blocks FILE --out DIR [--llvm-bin DIR]"
for t in nm addr2line readelf; do
	command -v "$t" >/dev/null || die "'$t' not found (binutils)"
done
profgen=$llvm_bin/llvm-profgen
[ -x "$profgen" ] || die "no llvm-profgen in '$llvm_bin' (tests/install-deps.sh installs llvm-16)"
[ -s "$blocks" ] || die "no block profile at '$blocks'"
readelf -S "$vmlinux" | grep -q '\.debug_info' || die "'$vmlinux' has no debug information (kpgo-kbuild --debug-info)"
objtree=$(readlink -f "$objtree")
mkdir -p "$out"

# the sample profile: llvm-profgen symbolizes each block's addresses with
# the line tables and inlining information of VMLINUX's DWARF
"$profgen" --binary "$vmlinux" --unsymbolized-profile "$blocks" --use-offset=0 --format=text \
	-o "$out/entry.afdo.txt.new" 2>"$out/llvm-profgen.log" ||
	die "llvm-profgen failed: $(tail -1 "$out/llvm-profgen.log")"

# the places: the function names of the profile, their address when the
# symbol table has exactly one function of that name, and addr2line's
# FILE:LINE for that address
sed -n 's/^\([^ #][^:]*\):[0-9]*:[0-9]*$/\1/p' "$out/entry.afdo.txt.new" | sort -u >"$out/names"
nm --defined-only "$vmlinux" | awk '$2 ~ /^[tTwW]$/ { n[$3]++; a[$3] = $1 } END { for (s in n) if (n[s] == 1) print s, a[s] }' |
	sort >"$out/syms"
join "$out/names" "$out/syms" >"$out/named"
cut -d' ' -f2 "$out/named" | addr2line -e "$vmlinux" >"$out/lines"
{
	echo '# kpgo afdo defs 1'
	paste -d' ' "$out/named" "$out/lines" | awk -v top="$objtree/" '
		{
			n = split($3, p, ":"); line = p[n]; sub(/ \(discriminator [0-9]+\)$/, "", line)
			file = substr($3, 1, length($3) - length(p[n]) - 1)
			if (file == "??" || line !~ /^[1-9][0-9]*$/) next
			if (index(file, top) == 1) file = substr(file, length(top) + 1)
			printf "%s\tprofile\t%s\t%s\n", $1, file, line
		}' | sort
} >"$out/entry.places.new"
mv "$out/entry.afdo.txt.new" "$out/entry.afdo.txt"
mv "$out/entry.places.new" "$out/entry.places"
printf '%s: %s functions, %s with a place\n' "$prog" "$(wc -l <"$out/names")" \
	"$(($(wc -l <"$out/entry.places") - 1))" >&2
rm -f "$out/names" "$out/syms" "$out/named" "$out/lines"
