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

# kpgo_qemu_outcome CONSOLE TAG DONE RC SECS: a guest's run, judged from its
# serial console (carriage returns removed from it, in place). The guest
# prints its lines after TAG ("KPGO-E2E:"; anywhere in a console line, as
# systemd puts "[time] unit[pid]: " before them), "TAG FAIL why" when it
# fails and "TAG DONE" (a regular expression, to the end of the line) when it
# is through. RC is qemu's exit status under `timeout SECS`. Prints why the
# run failed and returns 1, or returns 0.
kpgo_qemu_outcome() {
	local console=$1 tag=$2 done=$3 rc=$4 secs=$5 why
	sed -i 's/\r$//' "$console"
	why=$(sed -n "s/^.*$tag FAIL //p" "$console" | head -1)
	if [ -n "$why" ]; then
		printf 'the guest failed: %s\n' "$why"
	elif [ "$rc" -eq 124 ]; then
		printf 'the guest did not power off within %ss\n' "$secs"
	elif ! grep -q "$tag $done\$" "$console"; then
		printf 'the guest stopped before the end (qemu exit %s): %s\n' "$rc" \
			"$(grep -av '^\s*$' "$console" | tail -1 | cut -c1-200)"
	else
		return 0
	fi
	return 1
}
