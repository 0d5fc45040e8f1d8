#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# entry-profile.sh: the block profile of an uninstrumented kernel
# (tests/bench/blockprof.c, one boot under QEMU) as a sample profile for
# kpgo afdo --add, with its places table for --add-places. Glue around
# llvm-profgen, llvm-symbolizer and nm.
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
# names, the source file and the line of its name, DWARF's decl file and
# line as llvm-symbolizer reads them at each of the name's symbols, GCC's
# clones of it included: where Clang reports the function). A name whose
# symbols have several places (static functions of one name in different
# files) or none (assembly) gets no place: kpgo afdo --add leaves it out.

set -euo pipefail
prog=entry-profile.sh
export LC_ALL=C

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

usage="usage: $prog --vmlinux VMLINUX --objtree DIR --blocks FILE --out DIR [--llvm-bin DIR]"
vmlinux='' objtree='' blocks='' out='' llvm_bin=/usr/lib/llvm-16/bin
while [ $# -gt 0 ]; do
	case $1 in
	--vmlinux) vmlinux=${2:?}; shift 2 ;;
	--objtree) objtree=${2:?}; shift 2 ;;
	--blocks) blocks=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--llvm-bin) llvm_bin=${2:?}; shift 2 ;;
	*) die "$usage" ;;
	esac
done
{ [ -n "$vmlinux" ] && [ -n "$objtree" ] && [ -n "$blocks" ] && [ -n "$out" ]; } || die "$usage"
for t in nm readelf; do
	command -v "$t" >/dev/null || die "'$t' not found (binutils)"
done
profgen=$llvm_bin/llvm-profgen symbolizer=$llvm_bin/llvm-symbolizer
{ [ -x "$profgen" ] && [ -x "$symbolizer" ]; } ||
	die "no llvm-profgen and llvm-symbolizer in '$llvm_bin' (tests/install-deps.sh installs llvm-16)"
[ -s "$blocks" ] || die "no block profile at '$blocks'"
[ "$(readelf -S "$vmlinux" 2>/dev/null | grep -c '\.debug_info')" != 0 ] || die "'$vmlinux' has no debug information (kpgo-kbuild --debug-info)"
objtree=$(readlink -f "$objtree")
mkdir -p "$out"

# the sample profile: llvm-profgen symbolizes each block's addresses with
# the line tables and inlining information of VMLINUX's DWARF
"$profgen" --binary "$vmlinux" --unsymbolized-profile "$blocks" --use-offset=0 --format=text \
	-o "$out/entry.afdo.txt.new" 2>"$out/llvm-profgen.log" ||
	die "llvm-profgen failed: $(tail -1 "$out/llvm-profgen.log")"

# the places: the function names of the profile, the addresses of their
# symbols, and each function's own file and line there (llvm-symbolizer)
sed -n 's/^\([^ #][^:]*\):[0-9]*:[0-9]*$/\1/p' "$out/entry.afdo.txt.new" | sort -u >"$out/names"
# every function symbol of a profile name, GCC's clones of it too
# (NAME.constprop.0, NAME.isra.0, NAME.part.0: DWARF names them NAME), not
# the cold parts (NAME.cold: not the function's entry), as "NAME ADDRESS"
nm --defined-only "$vmlinux" | awk '$2 ~ /^[tTwW]$/ && $3 !~ /\.cold(\.|$)/ { n = $3; sub(/\..*/, "", n); if (n != "") print n, $1 }' |
	sort -u | join "$out/names" - >"$out/named"
cut -d' ' -f2 "$out/named" | sed 's/^/0x/' |
	"$symbolizer" --verbose --obj="$vmlinux" >"$out/symbolized" ||
	die "llvm-symbolizer failed on '$vmlinux'"
# one "FILE<TAB>LINE" (or "-") per address, in order: of the frames of an
# address (the functions inlined there, innermost first, then the
# function itself), the last one's "Function start filename", or its
# "Filename" when that is empty, and its "Function start line"
awk '
	function flush(f) {
		if (!seen) return
		f = start != "" ? start : file
		print f != "" && line ~ /^[1-9][0-9]*$/ ? f "\t" line : "-"
		seen = 0
	}
	/^$/ { flush(); next }
	/^[^ ]/ { seen = 1; file = ""; start = ""; line = ""; next }
	/^  Filename: / { file = substr($0, 13) }
	/^  Function start filename: / { start = substr($0, 28); if (start == "<invalid>") start = "" }
	/^  Function start line: / { line = substr($0, 24) }
	END { flush() }
' "$out/symbolized" >"$out/lines"
[ "$(wc -l <"$out/lines")" = "$(wc -l <"$out/named")" ] || die "llvm-symbolizer gave $(wc -l <"$out/lines") places for $(wc -l <"$out/named") addresses"
# a name whose symbols all have one place gets it; one with none (code
# without DWARF functions: assembly) or several (static functions of one
# name in different files) gets none
{
	echo '# kpgo afdo defs 1'
	paste "$out/named" "$out/lines" | awk -F '\t' -v top="$objtree/" '
		{
			split($1, nf, " ")
			name = nf[1]
			if ($2 == "-") next
			file = $2
			if (index(file, top) == 1) file = substr(file, length(top) + 1)
			place = file "\t" $3
			if (name in at && at[name] != place) bad[name] = 1
			at[name] = place
		}
		END { for (name in at) if (!(name in bad)) printf "%s\tprofile\t%s\n", name, at[name] }' | sort
} >"$out/entry.places.new"
mv "$out/entry.afdo.txt.new" "$out/entry.afdo.txt"
mv "$out/entry.places.new" "$out/entry.places"
printf '%s: %s functions, %s with a place\n' "$prog" "$(wc -l <"$out/names")" \
	"$(($(wc -l <"$out/entry.places") - 1))" >&2
rm -f "$out/names" "$out/named" "$out/symbolized" "$out/lines"
