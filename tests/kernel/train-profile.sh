#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# train-profile.sh: make a profile with the project's own pipeline. Boots an
# instrumented kernel (a pgo-instr tree built by hooks/build/kpgo-kbuild) in QEMU
# with a busybox initramfs that runs the training workload (init-train),
# takes the kernel's .gcda files out over a 9p share and turns them into a
# .kpgo archive with `kpgo collect`. Glue around cpio, mkfs.ext4, qemu and
# kpgo. This is how profiles-store/6.1/small.kpgo was made (see
# profiles-store/README.md).
#
#   train-profile.sh --objtree OBJ -o OUT.kpgo [--kpgo PATH] [--workload LABEL]
#                    [--init FILE] [--timeout SECONDS] [--keep DIR]
#
# --init: the guest's init (default init-train; init-heldout runs another
# workload, for comparing profiles with kpgo diff).
#
# Environment: KPGO_ACCEL=kvm|tcg skips the KVM probe; KPGO_ROUNDS sets
# the workload's loop count (default 300).

set -euo pipefail
prog=train-profile.sh
here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=qemu.bash
. "$here/qemu.bash"
# shellcheck source-path=SCRIPTDIR source=train-lib.bash
. "$here/train-lib.bash"

obj='' out='' kpgo=${KPGO:-$here/../../build/kpgo} workload=small-train secs=600 keep=''
init=$here/init-train
while [ $# -gt 0 ]; do
	case $1 in
	--objtree) obj=${2:?}; shift 2 ;;
	-o) out=${2:?}; shift 2 ;;
	--kpgo) kpgo=${2:?}; shift 2 ;;
	--workload) workload=${2:?}; shift 2 ;;
	--init) init=${2:?}; shift 2 ;;
	--timeout) secs=${2:?}; shift 2 ;;
	--keep) keep=${2:?}; shift 2 ;;
	*) die "usage: $prog --objtree OBJ -o OUT.kpgo [--kpgo PATH] [--workload LABEL] [--init FILE] [--timeout S] [--keep DIR]" ;;
	esac
done
if [ -z "$obj" ] || [ -z "$out" ]; then
	die "--objtree and -o are required"
fi
train_objtree "$obj"
for t in qemu-system-x86_64 cpio mkfs.ext4 busybox; do
	command -v "$t" >/dev/null || die "'$t' not found (tests/install-deps.sh installs it)"
done
busybox=$(command -v busybox)
file -L "$busybox" | grep -q 'statically linked' || die "'$busybox' is not static (install busybox-static)"

train_workdir

# The initramfs: busybox, the init, the flavour's modules.
mkdir -p "$w/root"/{bin,proc,sys,dev,tmp,mnt,disk,mod} "$w/share"
cp "$busybox" "$w/root/bin/busybox"
[ -f "$init" ] || die "no init '$init'"
sed "s/\${KPGO_ROUNDS:-300}/${KPGO_ROUNDS:-300}/" "$init" >"$w/root/init"
chmod 0755 "$w/root/init"
find "$obj" -name '*.ko' -type f -exec cp {} "$w/root/mod/" \;
(cd "$w/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$w/initrd.gz"
truncate -s 64M "$w/disk.img"
mkfs.ext4 -q -F "$w/disk.img"

accel=$(kpgo_qemu_accel "$here/../../build/kernel" "$kernel" "$w/initrd.gz")
printf '%s: booting %s under QEMU (%s)\n' "$prog" "$kernel" "$accel" >&2
start=$SECONDS
rc=0
kpgo_qemu_run "$accel" "$secs" "$w/console.log" "$kernel" "$w/initrd.gz" \
	-drive "file=$w/disk.img,if=virtio,format=raw" \
	-virtfs "local,path=$w/share,mount_tag=out,security_model=none" || rc=$?
if ! why=$(kpgo_qemu_outcome "$w/console.log" KPGO: 'done.*' "$rc" "$secs"); then
	tail -20 "$w/console.log" >&2
	die "the training run failed: $why (console: $w/console.log, use --keep)"
fi
grep '^KPGO: ' "$w/console.log" >&2 || true
printf '%s: guest ran %ss\n' "$prog" $((SECONDS - start)) >&2

mkdir "$w/gcov"
tar -xf "$w/share/gcov.tar" -C "$w" --no-same-owner
release=$(sed -n 's/^KPGO: release //p' "$w/console.log" | tr -d '\r')
train_build_id
"$kpgo" collect --gcov-dir "$w/gcov" --kernel-release "$release" --build-id "$build_id" \
	--workload "$workload" -o "$out"
"$kpgo" info "$out" | head -20
