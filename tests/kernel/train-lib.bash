# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the training scripts (train-default.sh, train-profile.sh) share,
# sourced after they set prog (their name) and before their options are
# read: die, the check of the instrumented tree and its build id, and the
# scratch directory (copied to $keep at exit when set, then removed).

# die MESSAGE...: "$prog: MESSAGE" on stderr, exit 1.
# shellcheck disable=SC2154 # prog is the sourcing script's
die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

# train_objtree OBJ: obj (OBJ's absolute path) and kernel (its bzImage);
# dies unless OBJ is an instrumented (pgo-instr) tree.
train_objtree() {
	obj=$(readlink -f "$1")
	kernel=$obj/arch/x86/boot/bzImage
	[ -f "$kernel" ] || die "'$obj' has no arch/x86/boot/bzImage"
	grep -qx 'CONFIG_GCOV_KERNEL=y' "$obj/.config" || die "'$obj' is not an instrumented (pgo-instr) tree"
}

# train_build_id: build_id, the GNU build id of $obj/vmlinux.
train_build_id() {
	build_id=$(readelf -n "$obj/vmlinux" | sed -n 's/^ *Build ID: //p' | head -1)
	[ -n "$build_id" ] || die "vmlinux has no GNU build id"
}

# train_workdir: w, a scratch directory, copied to $keep (when set) and
# removed at exit.
train_workdir() {
	w=$(mktemp -d "${TMPDIR:-/tmp}/kpgo-train.XXXXXX")
	trap train_cleanup EXIT
}
train_cleanup() {
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp -a "$w/." "$keep/"
	fi
	rm -rf "$w"
}
