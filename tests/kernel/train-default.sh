#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# train-default.sh: make the default profile with the project's own
# pipeline. Boots an instrumented kernel (a pgo-instr tree built by
# hooks/build/kpgo-kbuild) in QEMU on the kernel benchmark's Debian 12 guest
# (tests/bench/guest-image.sh), which runs the training mixes and collects
# the profile with `kpgo collect` as a machine of the fleet does, onto a 9p
# share. Glue around guest-image.sh, qemu and kpgo. This is how
# profiles-store/6.1/small.kpgo is made (`make default-profile`; see
# profiles-store/README.md). Root only (the image).
#
#   train-default.sh --objtree OBJ -o OUT.kpgo [--kpgo PATH] [--bench DIR]
#                    [--workload LABEL] [--mix MIXES] [--timeout SECONDS]
#                    [--keep DIR]
#
# --mix: the guest's mixes (tests/bench/guest/init), default train,system:
# the end-to-end test's workload, then the rest of what a machine's kernel
# does (files on ext4, exec-heavy shell, /proc, signals and timers, memory,
# TCP); never the benchmark's held-out or foreign programs. The counters
# are not reset after the guest's boot and setup: like a profile a machine
# of the fleet collects, it has the boot too (kpgo_gcov_reset=0).
# Environment: KPGO_ACCEL=kvm|tcg skips the KVM probe; KPGO_TRAIN_SCALE
# (default 1) scales the mixes' operation counts.

set -euo pipefail
prog=train-default.sh
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=qemu.bash
. "$here/qemu.bash"
# shellcheck source-path=SCRIPTDIR source=train-lib.bash
. "$here/train-lib.bash"

obj='' out='' kpgo=${KPGO:-$top/build/kpgo} bench=${KPGO_BENCH_BIN:-$top/build/bench}
workload=default-train mix=train,system secs=1800 keep=''
while [ $# -gt 0 ]; do
	case $1 in
	--objtree) obj=${2:?}; shift 2 ;;
	-o) out=${2:?}; shift 2 ;;
	--kpgo) kpgo=${2:?}; shift 2 ;;
	--bench) bench=${2:?}; shift 2 ;;
	--workload) workload=${2:?}; shift 2 ;;
	--mix) mix=${2:?}; shift 2 ;;
	--timeout) secs=${2:?}; shift 2 ;;
	--keep) keep=${2:?}; shift 2 ;;
	*) die "usage: $prog --objtree OBJ -o OUT.kpgo [--kpgo PATH] [--bench DIR] [--workload LABEL] [--mix MIXES] [--timeout S] [--keep DIR]" ;;
	esac
done
if [ -z "$obj" ] || [ -z "$out" ]; then
	die "--objtree and -o are required"
fi
[[ $workload =~ ^[-A-Za-z0-9_.]+$ ]] || die "bad --workload '$workload'"
[[ $mix =~ ^(train|system)(,(train|system))*$ ]] ||
	die "bad --mix '$mix' (train and system only: the benchmark's other mixes must stay unseen)"
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "bad --timeout '$secs'"
scale=1000
if [ -n "${KPGO_TRAIN_SCALE:-}" ]; then
	[[ $KPGO_TRAIN_SCALE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad KPGO_TRAIN_SCALE '$KPGO_TRAIN_SCALE'"
	scale=$(awk -v s="$KPGO_TRAIN_SCALE" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
	[ "$scale" -ge 1 ] || die "bad KPGO_TRAIN_SCALE '$KPGO_TRAIN_SCALE'"
fi
train_objtree "$obj"
command -v qemu-system-x86_64 >/dev/null || die "'qemu-system-x86_64' not found (tests/install-deps.sh installs it)"
[ -x "$kpgo" ] || die "no kpgo at '$kpgo' (make)"
train_build_id

train_workdir
mkdir -p "$w/share"

disk=$("$top/tests/bench/guest-image.sh" --out "$top/build/bench-kernel" --kpgo "$kpgo" \
	--bench "$bench" --log "$w/image.log") || die "making the guest's image failed: $(tail -3 "$w/image.log")"
initrd=$w/empty-initrd.gz
printf '' | cpio -o -H newc --quiet 2>/dev/null | gzip >"$initrd"
accel=$(kpgo_qemu_accel "$top/build/kernel" "$kernel" "$initrd")
printf '%s: booting %s under QEMU (%s), mixes %s\n' "$prog" "$kernel" "$accel" "$mix" >&2
start=$SECONDS
rc=0
timeout "$secs" qemu-system-x86_64 -accel "$accel" -m 1024 -smp 1 \
	-display none -monitor none -serial stdio -no-reboot -nic none -kernel "$kernel" \
	-append "console=ttyS0 root=/dev/vda ro init=/usr/local/lib/kpgo-bench/init panic=-1 loglevel=4 kpgo_mix=$mix kpgo_scale=$scale kpgo_gcov=1 kpgo_gcov_reset=0 kpgo_workload=$workload" \
	-drive "file=$disk,if=virtio,format=raw,snapshot=on" \
	-virtfs "local,path=$w/share,mount_tag=out,security_model=none" </dev/null >"$w/console.log" 2>&1 || rc=$?
if ! why=$(kpgo_qemu_outcome "$w/console.log" KPGO-BENCH: 'done' "$rc" "$secs"); then
	tail -20 "$w/console.log" >&2
	die "the training run failed: $why (console: use --keep)"
fi
grep '^KPGO-BENCH: ' "$w/console.log" >&2 || true
printf '%s: guest ran %ss\n' "$prog" $((SECONDS - start)) >&2
"$kpgo" info "$w/share/train.kpgo" >"$w/info.txt" 2>&1 || die "the guest's profile is not valid: $(tail -1 "$w/info.txt")"
grep -qx "  KERNEL_BUILD_ID=$build_id" "$w/info.txt" || die "the guest's profile is not of $obj/vmlinux (build id $build_id)"
cp "$w/share/train.kpgo" "$out.tmp"
mv "$out.tmp" "$out"
head -20 "$w/info.txt"
