# shellcheck shell=bash
# Shared by the tests/kernel scripts: boot a kernel in qemu-system-x86_64
# with a serial console, KVM when it really works here, TCG otherwise.

# kpgo_qemu_accel CACHEDIR KERNEL INITRD: prints kvm or tcg. /dev/kvm may
# exist while guests hang, so KVM is tried: the kernel must print its
# first console line within 15 s. The answer is cached in CACHEDIR.
kpgo_qemu_accel() {
	local cache=$1/accel log
	if [ -n "${KPGO_ACCEL:-}" ]; then
		echo "$KPGO_ACCEL"
		return
	fi
	if [ -f "$cache" ]; then
		cat "$cache"
		return
	fi
	mkdir -p "$1"
	log=$(mktemp)
	if [ -w /dev/kvm ] &&
		timeout 15 qemu-system-x86_64 -accel kvm -m 256 -display none -monitor none \
			-serial stdio -no-reboot -kernel "$2" -initrd "$3" \
			-append "console=ttyS0 panic=-1 rdinit=/bin/true" </dev/null >"$log" 2>&1 &&
		grep -q 'Linux version' "$log"; then
		echo kvm >"$cache"
	else
		echo tcg >"$cache"
	fi
	rm -f "$log"
	cat "$cache"
}

# kpgo_qemu_run ACCEL TIMEOUT LOG KERNEL INITRD [qemu args...]
kpgo_qemu_run() {
	local accel=$1 secs=$2 log=$3 kernel=$4 initrd=$5
	shift 5
	timeout "$secs" qemu-system-x86_64 -accel "$accel" -m 1024 -smp 2 \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4" "$@" </dev/null >"$log" 2>&1
}
