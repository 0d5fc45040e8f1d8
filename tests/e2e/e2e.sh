#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# e2e.sh: the whole kpgo cycle, as a fleet operator and a build farm run it,
# on a Debian 12 guest under QEMU (`make e2e`). Glue around mmdebstrap,
# apt, mkfs.ext4/debugfs, qemu-system-x86_64, make and kpgo.
#
# Every kernel boots as a real machine boots it, but for the boot loader:
# the kernel and the initramfs that its own package's postinst made (in the
# image, read out of it), root=/dev/vda; the packages come from a local
# repository on a second, read-only disk. The kernel config is an input
# (KPGO_CONFIG: small, or Debian's debian-cloud, ...; KPGO_KSERIES).
#
#   instr-packages  the instrumented packages (kpgo, linux-image/headers-R-
#                   pgo-instr, the metapackages) in E2E_PKGDIR; built there
#                   (make deb DEB_PROFILES=pkg.kpgo.nopgo) when missing. If
#                   E2E_PKGDIR also has optimized packages (make packages:
#                   the default profile), they are the fleet's current
#                   kernel, "v1", and the run ends with an upgrade from it
#   rootfs          the Debian 12 image (tests/e2e/rootfs.sh; cached)
#   install-instr   the image unpacked; the DKMS test module registered
#                   (tests/kernel/hello-module) before `apt install kpgo
#                   linux-image-pgo-instr linux-headers-R-pgo-instr` in a
#                   chroot from the local repository: the real maintainer
#                   scripts, initramfs-tools, DKMS and the kpgo kernel hook
#                   run; an ext4 disk image made of it (mkfs.ext4 -d)
#   train           the guest on the instrumented kernel and its initramfs;
#                   a module of the package loaded and unloaded (its gcov
#                   data stays), the DKMS module loaded, the workload
#                   (tests/e2e/guest/workload); kpgo-collect.service
#                   collects into the spool at shutdown
#   profile         the spooled profile read out of the disk image (debugfs),
#                   `kpgo store ingest` into a new store; the profile holds
#                   the unloaded module's data
#   install-v1      (with v1) the guest: apt install linux-image-pgo
#                   linux-headers-pgo of v1; DKMS builds its module for it
#   boot-v1         (with v1) its kernel and initramfs: report ok
#   boot-rpm-v1     (with v1) the kernel of v1's .rpm
#   build           the next build, "v2", made from the profile collected
#                   above as a build farm makes it: `make source
#                   KPGO_STORE=<store>` and the source package built in a
#                   fresh chroot with its Build-Depends only, no network
#                   (tests/kernel/chroot-build.sh); `make srpm` and
#                   `rpmbuild --rebuild` of the source RPM (E2E_SRPM=0: not;
#                   E2E_SOURCE=0: `make deb rpm` in this tree instead)
#                   and the collected profile's HTML report (kpgo info
#                   --html, names from the instrumented headers package),
#                   E2E_OUT/profile.html
#   publish         v2's packages join the local repository
#   upgrade         the guest on v1: `apt upgrade` installs v2 beside it (no
#                   v1: the guest on the instrumented kernel installs v2)
#   boot-v2         v2's kernel and initramfs: release, no gcov, the report
#                   names this run's profile; with a signing key,
#                   module.sig_enforce=1: the package's signed modules load,
#                   the DKMS module (not signed by the build's key) does not
#   boot-rpm-v2     the kernel of v2's .rpm
#   build-clang     (E2E_CLANG=1) `make deb rpm KPGO_TOOLCHAIN=clang
#                   KPGO_STORE=<store>`: v2 again, by Clang with ThinLTO
#   install-clang   the guest on v2: `apt install --reinstall linux-image-R`
#   boot-clang      the Clang kernel: /proc/version names Clang, report ok
#
# With E2E_PROFILE=FILE, the build farm's half alone, from a profile the
# fleet collected before (a .kpgo archive: a spool's, a store's, or
# profiles-store/'s), for a config whose whole cycle is longer than one
# sitting (Debian's cloud config on 2 cores: docs/BENCHMARKS.md):
#
#   rootfs          as above
#   profile         FILE, `kpgo store ingest` into a new store, selected for
#                   the instrumented release its manifest names
#   build           v2 from it, as above (no HTML report: no instrumented
#                   headers package to name the objects)
#   publish         v2's packages in a local repository
#   install-v2      the image unpacked, the DKMS test module registered,
#                   `apt install kpgo linux-image-pgo linux-headers-pgo`
#                   in a chroot, as install-instr does
#   boot-v2         as above: report ok for FILE, modules, DKMS, workload
#   boot-rpm-v2     as above
#
# Every step appends "STEP STATUS SECONDS DETAIL" to E2E_OUT/summary.txt;
# the first failing step says why and the run exits 1. Logs and serial
# consoles are in E2E_OUT.
#
# Settings (environment; `make e2e` passes them on):
#   E2E_OUT=build/e2e           work directory: disk image, repositories,
#                               store, packages, logs. profile.path names the
#                               profile selected
#   E2E_CACHE=build/e2e-cache   the image archive, the build chroot and the
#                               KVM probe's answer
#   E2E_PKGDIR=build/packages   the instrumented packages (and v1)
#   E2E_SOURCE=1                0: v2 by `make deb rpm` in this tree
#   E2E_SRPM=1                  0: no source RPM build
#   E2E_CLANG=0                 1: the three Clang steps
#   E2E_PROFILE=                a profile FILE: the farm's half alone (above)
#   E2E_INSTR_ONLY=0            1: the fleet's half alone, ending after the
#                               profile step (the profile: the file that
#                               E2E_OUT/profile.path names)
#   E2E_TIMEOUT=1200            seconds one boot may take
#   E2E_SMP=2, E2E_MEM=1024     the guest's CPUs and MiB
#   E2E_DISK=4G                 the guest's disk (12G for other configs)
#   KPGO_CONFIG, KPGO_KSERIES   the kernel config and series (make's)
#   KPGO_SIGNING_KEY            the module signing key the packages were
#                               built with: v2 is built with it too, and
#                               boot-v2 enforces module signatures
#   KPGO_ACCEL=kvm|tcg          skip the KVM probe (tests/kernel/qemu.bash)
#   JOBS                        parallel jobs of the builds

set -euo pipefail
prog=e2e.sh
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../kernel/qemu.bash
. "$top/tests/kernel/qemu.bash"

out=$(readlink -m "${E2E_OUT:-$top/build/e2e}")
cache=$(readlink -m "${E2E_CACHE:-$top/build/e2e-cache}")
pkgdir=$(readlink -m "${E2E_PKGDIR:-${E2E_INSTR_PKGDIR:-$top/build/packages}}")
do_source=${E2E_SOURCE:-1}
do_srpm=${E2E_SRPM:-1}
do_clang=${E2E_CLANG:-0}
given_profile=${E2E_PROFILE:-}
instr_only=${E2E_INSTR_ONLY:-0}
[ -z "$given_profile" ] || given_profile=$(readlink -f "$given_profile")
boot_timeout=${E2E_TIMEOUT:-1200}
smp=${E2E_SMP:-2}
# room for three kernels and their headers; a distro config's are larger
disk_size=${E2E_DISK:-$([ "${KPGO_CONFIG:-small}" = small ] && echo 4G || echo 12G)}
mem=${E2E_MEM:-1024}
jobs=${JOBS:-$(nproc)}
kpgo=${KPGO:-$top/build/kpgo}
bench=${KPGO_BENCH_BIN:-$top/build/bench}
signing_key=${KPGO_SIGNING_KEY:-}
[ -z "$signing_key" ] || signing_key=$(readlink -f "$signing_key")
# what make passes on to the builds: the config and series of the run
make_vars=()
for v in KPGO_CONFIG KPGO_KSERIES KPGO_FULL_CONFIG KPGO_KSRC KPGO_SIGNING_KEY KPGO_CC KPGO_DEBUG_INFO; do
	[ -z "${!v:-}" ] || make_vars+=("$v=${!v}")
done

summary=$out/summary.txt
log=$out/e2e.log
root=$out/root
disk=$out/disk.img
store=$out/store
cur='' t0=$SECONDS t_all=$SECONDS failed_units=''
profile_sha='' rel_v1='' rel_v2='' v1=false

note() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

# record STATUS DETAIL: the current step's summary line.
record() {
	printf '%-15s %-7s %5ss  %s\n' "$cur" "$1" "$((SECONDS - t0))" "$2" | tee -a "$summary" >&2
	cur=''
}

step() {
	cur=$1
	t0=$SECONDS
	note "--- $cur: $2"
}

ok() {
	record ok "$*"
}

fail() {
	record FAILED "$*"
	exit 1
}

on_exit() {
	local rc=$?
	if [ -n "$cur" ]; then
		record FAILED "unexpected error (exit $rc); see $log"
		rc=1
	fi
	if [ -f "$summary" ]; then
		printf '%-15s %-7s %5ss\n' total "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)" \
			$((SECONDS - t_all)) | tee -a "$summary" >&2
	fi
	exit "$rc"
}

# run CMD...: a command of the current step, its output in the log.
run() {
	printf '+ %s\n' "$*" >>"$log"
	"$@" >>"$log" 2>&1
}

# The one file matching a glob, or nothing.
one() {
	[ $# -eq 1 ] && [ -e "$1" ] && echo "$1"
}

# --- the guest's disk, read from outside --------------------------------

# guest_ls DIR: "MODE NAME" of each entry of DIR in the disk image.
guest_ls() {
	debugfs -R "ls -p $1" "$disk" 2>/dev/null |
		awk -F/ 'NF >= 7 && $6 != "." && $6 != ".." { print $3, $6 }'
}

# guest_get PATH DEST: copy a file out of the disk image.
guest_get() {
	run debugfs -R "dump -p $1 $2" "$disk" && [ -s "$2" ]
}

# guest_kernel REL: the kernel and the initramfs of release REL out of the
# disk image, into $out/boot (what a boot loader would load).
guest_kernel() {
	mkdir -p "$out/boot"
	guest_get "/boot/vmlinuz-$1" "$out/boot/vmlinuz-$1" ||
		fail "cannot read /boot/vmlinuz-$1 out of the disk image"
	guest_get "/boot/initrd.img-$1" "$out/boot/initrd.img-$1" ||
		fail "no /boot/initrd.img-$1 in the disk image: the initramfs hook did not run"
}

# boot NAME REL STEP [-k KERNEL] [-a APPEND] [qemu args...]: the guest
# boots release REL's kernel (from $out/boot, or KERNEL) and initramfs,
# runs STEP (tests/e2e/guest/guest) and powers off; fails the current step
# unless the guest said "done STEP".
boot() {
	local name=$1 rel=$2 gstep=$3 rc=0 why kernel append=''
	local console=$out/console-$name.log
	shift 3
	kernel=$out/boot/vmlinuz-$rel
	while [ $# -gt 0 ]; do
		case $1 in
		-k) kernel=$2; shift 2 ;;
		-a) append=" $2"; shift 2 ;;
		*) break ;;
		esac
	done
	note "booting $kernel with initrd.img-$rel ($accel, $smp CPUs), guest step $gstep; console: $console"
	timeout "$boot_timeout" qemu-system-x86_64 -accel "$accel" -m "$mem" -smp "$smp" \
		-display none -monitor none -serial stdio -no-reboot -nic none \
		-kernel "$kernel" -initrd "$out/boot/initrd.img-$rel" \
		-append "console=ttyS0 root=/dev/vda rw panic=-1 loglevel=4 kpgo_e2e=$gstep$append" \
		-drive "file=$disk,if=virtio,format=raw" "$@" </dev/null >"$console" 2>&1 || rc=$?
	why=$(kpgo_qemu_outcome "$console" KPGO-E2E: "done $gstep" "$rc" "$boot_timeout") || :
	# systemd puts "[time] guest[pid]: " before each line on the console
	sed -n 's/^.*\(KPGO-E2E: \)/\1/p' "$console" >"$out/guest-$name.txt"
	[ -z "$why" ] || fail "step $gstep: $why (console: $console)"
	[ "$(guest_says 'step [a-z]* on ' "$name" | cut -d, -f1)" = "$rel" ] ||
		fail "the guest ran $(guest_says 'step [a-z]* on ' "$name" | cut -d, -f1), not $rel"
	grep -q '^KPGO-E2E: initramfs: booted through one$' "$out/guest-$name.txt" ||
		fail "the guest did not boot through the initramfs (console: $console)"
	failed_units=$(guest_says 'failed units: ' "$name")
}

# repo_disk DIR: a read-only ext4 image of repository DIR; its qemu
# arguments in the array rd.
repo_disk() {
	local mib
	mib=$(($(du -sm "$1" | cut -f1) * 13 / 10 + 64))
	rm -f "$1.img"
	run mkfs.ext4 -q -F -L kpgo-repo -d "$1" "$1.img" "${mib}M" || fail "mkfs.ext4 of $1 failed; see $log"
	rd=(-drive "file=$1.img,if=virtio,format=raw,readonly=on")
}

# For a boot step's summary: the units that failed in the guest, if any.
units_note() {
	[ -z "$failed_units" ] || printf '; failed units in the guest: %s' "$failed_units"
}

# upload_note NAME: what boot NAME's upload unit did, and the units'
# exposure as systemd-analyze scored them in the guest.
upload_note() {
	printf '; upload unit: %s; exposure: collect %s, upload %s' \
		"$(guest_says 'upload unit: ' "$1" | cut -c1-90)" \
		"$(guest_says 'exposure kpgo-collect.service: ' "$1" | cut -d' ' -f1)" \
		"$(guest_says 'exposure kpgo-upload.service: ' "$1" | cut -d' ' -f1)"
}

# guest_says PATTERN NAME: the rest of the guest's first line that starts
# with PATTERN (a sed regular expression without '|'), from boot NAME.
guest_says() {
	sed -n "\\|^KPGO-E2E: $1|{s|^KPGO-E2E: $1||p;q}" "$out/guest-$2.txt"
}

# The workload's results for the summary: "ops/s: syscall N, ..., redis N"
# (redis: the mean of redis-benchmark's tests).
workload_line() {
	sed -n 's/^KPGO-E2E: wl \([^ ]*\) .*ops_per_sec=\([0-9.]*\).*/\1 \2/p' "$out/guest-$1.txt" |
		awk '$1 ~ /^redis-/ { r += $2; nr++; next }
			{ sub(/^wl-/, "", $1); l = l sep $1 " " int($2); sep = ", " }
			END { if (nr) l = l sep "redis " int(r / nr); print "ops/s: " l }'
}

# check_boot NAME WANT_SHA: the optimized kernel's report as the guest
# read it (verdict ok, the profile WANT_SHA if given); its summary in
# $report_note. Fails the step.
check_boot() {
	local name=$1 want_sha=$2 verdict sha
	verdict=$(guest_says 'report verdict: ' "$name")
	sha=$(guest_says 'report profile sha256: ' "$name")
	[ -n "$verdict" ] || fail "the guest read no profile report"
	if [ -n "$want_sha" ] && [ "$sha" != "$want_sha" ]; then
		fail "the kernel was built with profile ${sha:0:16}, not ${want_sha:0:16}"
	fi
	report_note="report ${verdict%%,*}, profile ${sha:0:16}"
}

# --- steps ----------------------------------------------------------------

instr_packages() {
	local d=$pkgdir
	step instr-packages "the instrumented packages in $d"
	img=$(one "$d"/linux-image-*-pgo-instr_*.deb || true)
	if [ -z "$img" ]; then
		note "no instrumented packages in $d: building them (make deb DEB_PROFILES=pkg.kpgo.nopgo)"
		run make -C "$top" deb PKGDIR="$d" DEB_PROFILES=pkg.kpgo.nopgo JOBS="$jobs" "${make_vars[@]}" ||
			fail "make deb (instrumented flavour) failed; see $log"
		img=$(one "$d"/linux-image-*-pgo-instr_*.deb || true)
	fi
	[ -n "$img" ] || fail "no single linux-image-*-pgo-instr package in $d"
	meta=$(one "$d"/linux-image-pgo-instr_*.deb || true)
	tool=$(one "$d"/kpgo_*.deb || true)
	if [ -z "$meta" ] || [ -z "$tool" ]; then
		fail "$d lacks kpgo_*.deb or linux-image-pgo-instr_*.deb"
	fi
	rel_i=$(dpkg-deb -f "$img" Package | sed 's/^linux-image-//')
	hdr=$(one "$d/linux-headers-${rel_i}_"*.deb || true)
	[ -n "$hdr" ] || fail "no linux-headers-$rel_i package in $d"
	dpkg-deb -c "$img" | grep "lib/modules/$rel_i/kernel/.*\.ko" >/dev/null ||
		fail "$img has no modules"
	# v1: optimized packages already built (make packages), the fleet's kernel
	v1_img=$(find "$d" -maxdepth 1 -name 'linux-image-*-pgo_*.deb' | sort | tail -1)
	if [ -n "$v1_img" ] && [ -n "$(one "$d"/linux-image-pgo_*.deb || true)" ]; then
		v1=true
		rel_v1=$(dpkg-deb -f "$v1_img" Package | sed 's/^linux-image-//')
	fi
	ok "$rel_i: $(basename "$img"), $(basename "$hdr"), $(basename "$tool")$($v1 && echo "; v1 $rel_v1")"
}

make_rootfs() {
	step rootfs "the Debian 12 image (cache $cache)"
	local made=made
	rootfs_tar=$("$here/rootfs.sh" --cache "$cache" 2>"$out/rootfs.log") ||
		fail "rootfs.sh failed; see $out/rootfs.log"
	grep -q '^rootfs.sh: cached ' "$out/rootfs.log" && made=cached
	ok "$(basename "$rootfs_tar"), $(($(stat -c %s "$rootfs_tar") / 1048576)) MiB, $made"
}

# chroot_run REPO CMD...: CMD in the chroot, the repository REPO bound at
# /srv/kpgo-repo, /proc mounted (systemctl enable in a maintainer script
# needs it); the mounts vanish with the private mount namespace. The
# environment is a machine's, not this build's (make's KPGO_CONFIG once
# reached kpgo's postinst there).
chroot_run() {
	local repo=$1
	shift
	printf '+ chroot %s\n' "$*" >>"$log"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private /bin/sh -ec '
		root=$1 repo=$2; shift 2
		mount -t proc proc "$root/proc"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
		mount --bind "$repo" "$root/srv/kpgo-repo"
		chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$root" "$repo" "$@" </dev/null >>"$log" 2>&1
}

chroot_apt() {
	local repo=$1
	shift
	chroot_run "$repo" apt-get -q -o APT::Sandbox::User=root -o Acquire::Languages=none "$@"
}

# repo DIR DEB...: a flat apt repository ("deb [trusted=yes] file:DIR ./").
make_repo() {
	local d=$1
	shift
	rm -rf "$d"
	mkdir -p "$d"
	cp "$@" "$d/"
	(cd "$d" && dpkg-scanpackages -m . >Packages 2>>"$log" && gzip -9kn Packages)
}

# prepare_image REPO REL PKG...: the image unpacked into $root, the DKMS
# test module registered, `apt install PKG...` from repository REPO in a
# chroot (the packages' real maintainer scripts and kernel hooks), and
# what they must have done for kernel REL checked; $dkms_note says what
# DKMS did. Fails the current step.
prepare_image() {
	local repo=$1 rel=$2 hello=$top/tests/kernel/hello-module
	shift 2
	dkms_note=''
	[ -x "$bench/wl-syscall" ] || fail "no workload programs in $bench (make workloads)"
	rm -rf "$root"
	mkdir -p "$root"
	tar -xpf "$rootfs_tar" -C "$root" --numeric-owner || fail "cannot unpack $rootfs_tar"
	mkdir -p "$root/srv/kpgo-repo"
	printf 'deb [trusted=yes] file:/srv/kpgo-repo ./\n' \
		>"$root/etc/apt/sources.list.d/kpgo-e2e.list"
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	# the DKMS module, registered before any kernel of ours is installed
	if [ -f "$hello/dkms.conf" ] && [ -x "$root/usr/sbin/dkms" ]; then
		hv=$(sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*/\1/p' "$hello/dkms.conf")
		hn=$(sed -n 's/^PACKAGE_NAME="*\([^"]*\)"*/\1/p' "$hello/dkms.conf")
		mkdir -p "$root/usr/src/$hn-$hv"
		cp -r "$hello/." "$root/usr/src/$hn-$hv/"
		chroot_run "$repo" dkms add "$hn/$hv" || fail "dkms add $hn/$hv failed; see $log"
		dkms_note="; DKMS $hn/$hv registered before"
	fi
	chroot_apt "$repo" update || fail "apt-get update in the image failed; see $log"
	chroot_apt "$repo" install -y --no-install-recommends "$@" ||
		fail "apt-get install $* failed; see $log"

	# what the packages and the kernel hooks did
	[ -f "$root/boot/vmlinuz-$rel" ] || fail "no /boot/vmlinuz-$rel in the image"
	[ -s "$root/lib/modules/$rel/modules.dep" ] || fail "no modules.dep: depmod did not run"
	[ -s "$root/boot/initrd.img-$rel" ] || fail "no /boot/initrd.img-$rel: the initramfs hook did not run"
	if [ -n "$dkms_note" ]; then
		ls "$root/lib/modules/$rel/updates/dkms/"*.ko* >/dev/null 2>&1 ||
			fail "DKMS did not build $hn for $rel at installation (see $log)"
		dkms_note+=", built for $rel at installation"
	fi
}

# finish_image REL: the test's own parts (the guest step service, the
# workload, console output) into $root, kernel REL and its initramfs into
# $out/boot, and the guest's disk image made of $root.
finish_image() {
	local rel=$1
	install -d "$root/usr/local/lib/kpgo-e2e" "$root/etc/systemd/system/kpgo-collect.service.d"
	install -m 0755 "$here/guest/guest" "$here/guest/workload" "$bench"/wl-* \
		"$root/usr/local/lib/kpgo-e2e/"
	install -m 0644 "$here/guest/kpgo-e2e.service" "$root/etc/systemd/system/"
	ln -sfn /etc/systemd/system/kpgo-e2e.service \
		"$root/etc/systemd/system/multi-user.target.wants/kpgo-e2e.service"
	install -m 0644 "$here/guest/kpgo-collect-console.conf" \
		"$root/etc/systemd/system/kpgo-collect.service.d/e2e-console.conf"

	mkdir -p "$out/boot"
	cp "$root/boot/vmlinuz-$rel" "$root/boot/initrd.img-$rel" "$out/boot/"
	run mkfs.ext4 -q -F -L kpgo-e2e -d "$root" "$disk" "$disk_size" || fail "mkfs.ext4 -d failed; see $log"
	[ -n "${E2E_KEEP:-}" ] || rm -rf "$root"
}

install_instr() {
	local u
	step install-instr "apt install kpgo linux-image-pgo-instr linux-headers-$rel_i into the image"
	make_repo "$out/repo-instr" "$tool" "$img" "$hdr" "$meta"
	prepare_image "$out/repo-instr" "$rel_i" kpgo linux-image-pgo-instr "linux-headers-$rel_i"
	for u in multi-user.target.wants/kpgo-collect.service timers.target.wants/kpgo-collect.timer \
		timers.target.wants/kpgo-upload.timer; do
		[ -L "$root/etc/systemd/system/$u" ] ||
			fail "${u#*/} not enabled: the kpgo kernel hook did not prepare collection"
	done
	[ -d "$root/var/lib/kpgo/profiles" ] || fail "no spool /var/lib/kpgo/profiles"

	# as an operator would: the machine's workload label, in every profile
	printf '\n# tests/e2e\nKPGO_WORKLOAD=e2e-train\n' >>"$root/etc/default/kpgo"
	chroot "$root" kpgo spool config >>"$log" 2>&1 || fail "kpgo spool config: bad settings; see $log"
	finish_image "$rel_i"
	ok "$rel_i installed by apt with its initramfs, collection enabled by the kernel hook$dkms_note; $(du -m "$disk" | cut -f1) MiB used"
}

# (E2E_PROFILE) v2 installed by apt into a fresh image, as on a machine
# that had none of kpgo's kernels before.
install_v2() {
	step install-v2 "apt install kpgo linux-image-pgo linux-headers-pgo into the image"
	prepare_image "$out/repo" "$rel_v2" kpgo linux-image-pgo linux-headers-pgo
	finish_image "$rel_v2"
	probe_accel "$rel_v2"
	ok "$rel_v2 installed by apt with its initramfs$dkms_note; $(du -m "$disk" | cut -f1) MiB used"
}

# probe_accel REL: KVM if a guest really boots with it (kernel REL), else TCG.
probe_accel() {
	mkdir -p "$out/probe"
	printf '' | cpio -o -H newc --quiet 2>/dev/null | gzip >"$out/probe/initrd.gz"
	accel=$(kpgo_qemu_accel "$cache" "$out/boot/vmlinuz-$1" "$out/probe/initrd.gz")
}

train() {
	local n
	step train "the workload on the instrumented kernel, collected at shutdown"
	probe_accel "$rel_i"
	boot train "$rel_i" train
	[ "$(guest_says 'module gcov: ' train)" = "dummy.gcda kept after rmmod" ] ||
		fail "the unloaded module's gcov data did not stay: $(guest_says 'module gcov: ' train)"
	mapfile -t profiles < <(guest_ls /var/lib/kpgo/profiles | awk '$1 ~ /^100/ && $2 ~ /\.kpgo$/ { print $2 }')
	n=${#profiles[@]}
	[ "$n" -ge 1 ] || fail "no profile in the guest's spool /var/lib/kpgo/profiles after shutdown (console: $out/console-train.log)"
	ok "$accel; modules from the package: $(guest_says 'modules: ' train | wc -w), dummy loaded and unloaded; $n profile(s) spooled at shutdown; $(workload_line train)$(units_note)"
}

# ingest_select: the profiles of $out/drop into a new store ($store), as
# a farm ingests uploads, and the one a build of release $rel_i selects:
# $sel, its sha256 in $profile_sha, its path in $out/profile.path.
ingest_select() {
	run "$kpgo" store --store "$store" ingest "$out/drop" || fail "kpgo store ingest failed; see $log"
	if compgen -G "$out/drop/rejected/*.reason" >/dev/null; then
		fail "kpgo store ingest rejected: $(cat "$out/drop/rejected"/*.reason)"
	fi
	sel=$("$kpgo" store --store "$store" select --release "$rel_i" --cc gcc 2>>"$log") ||
		fail "kpgo store select --release $rel_i found no profile; see $log"
	profile_sha=$(sha256sum <"$sel" | cut -d' ' -f1)
	printf '%s\n' "$sel" >"$out/profile.path"
}

profile() {
	local p sel
	step profile "the spooled profile out of the image, into a store"
	rm -rf "$out/drop" "$store"
	mkdir -p "$out/drop"
	for p in "${profiles[@]}"; do
		guest_get "/var/lib/kpgo/profiles/$p" "$out/drop/$p" || fail "cannot read $p out of the disk image"
	done
	run "$kpgo" info "$out/drop/${profiles[0]}" || fail "kpgo info: not a valid profile; see $log"
	ingest_select
	"$kpgo" info "$sel" >"$out/profile-info.txt" 2>&1 || fail "kpgo info '$sel' failed"
	[ "$(info_value KERNEL_RELEASE)" = "$rel_i" ] ||
		fail "the profile is of kernel $(info_value KERNEL_RELEASE), not $rel_i"
	[ "$(info_value WORKLOAD)" = e2e-train ] ||
		fail "the profile's workload is '$(info_value WORKLOAD)', not the image's setting e2e-train"
	# the module loaded and unloaded before collection is in the profile
	# (the list first: grep -q would end tar with SIGPIPE, and pipefail)
	tar --zstd -tf "$sel" >"$out/profile-files.txt" || fail "cannot list $sel"
	grep -qx 'gcda/drivers/net/dummy\.gcda' "$out/profile-files.txt" ||
		fail "the profile has no gcda/drivers/net/dummy.gcda (the module unloaded before collection)"
	ok "$(basename "$sel"): $(info_value KERNEL_RELEASE), $(info_value OBJECTS) objects (the unloaded module's among them), $(info_value FUNCTIONS) functions, workload $(info_value WORKLOAD), $(info_value MERGED_PROFILES) profile(s), sha256 ${profile_sha:0:16}"
}

# (E2E_PROFILE) the given profile into a new store, selected for the
# instrumented release it names, as a farm's build selects it.
profile_given() {
	local sel
	step profile "$given_profile into a store"
	rm -rf "$out/drop" "$store"
	mkdir -p "$out/drop"
	cp "$given_profile" "$out/drop/" || fail "cannot copy $given_profile"
	"$kpgo" info "$given_profile" >"$out/profile-info.txt" 2>&1 ||
		fail "kpgo info: '$given_profile' is not a valid profile: $(head -1 "$out/profile-info.txt")"
	rel_i=$(info_value KERNEL_RELEASE)
	ingest_select
	ok "$(basename "$given_profile"): $rel_i, $(info_value OBJECTS) objects, $(info_value FUNCTIONS) functions, workload $(info_value WORKLOAD), sha256 ${profile_sha:0:16}"
}

# info_value KEY: KEY's value in the selected profile's manifest.
info_value() {
	sed -n "s/^  $1=//p" "$out/profile-info.txt"
}

install_v1() {
	local debs
	step install-v1 "apt install linux-image-pgo linux-headers-pgo (v1) in the guest"
	mapfile -t debs < <(find "$pkgdir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' | sort)
	make_repo "$out/repo-v1" "${debs[@]}" || fail "cannot make the repository in $out/repo-v1"
	repo_disk "$out/repo-v1"
	boot install-v1 "$rel_i" install "${rd[@]}"
	[ -n "$(guest_says 'kernel /boot/vmlinuz-' install-v1)" ] || fail "the guest named no installed kernel"
	guest_kernel "$rel_v1"
	ok "linux-image-pgo $(guest_says 'installed linux-image-pgo ' install-v1): $rel_v1 with its initramfs$(units_note)"
}

boot_v1() {
	step boot-v1 "v1, the kernel apt installed"
	boot boot-v1 "$rel_v1" check
	check_boot boot-v1 ""
	ok "release $rel_v1; $report_note; $(workload_line boot-v1)$(upload_note boot-v1)$(units_note)"
}

# boot_rpm GEN DIR REL: the kernel of DIR's .rpm of release REL, with the
# initramfs the .deb of the same build made.
boot_rpm() {
	local gen=$1 dir=$2 rel=$3 rpm k same
	step "boot-rpm-$gen" "the kernel of $gen's .rpm"
	# (no grep -q or head in pipes here: with pipefail, SIGPIPE fails the step)
	rpm=''
	for f in "$dir"/kernel-pgo-*.x86_64.rpm; do
		case $f in *-devel-* | *-instr-*) continue ;; esac
		if rpm -qpl "$f" 2>/dev/null | grep -x "/lib/modules/$rel/vmlinuz" >/dev/null; then
			rpm=$f
			break
		fi
	done
	[ -n "$rpm" ] || fail "no kernel-pgo .rpm of $rel in $dir"
	rm -rf "$out/rpm"
	mkdir -p "$out/rpm"
	(cd "$out/rpm" && rpm2cpio "$rpm" | cpio -idm --quiet "./lib/modules/$rel/vmlinuz") 2>>"$log" ||
		fail "no ./lib/modules/$rel/vmlinuz in $rpm"
	k=$out/rpm/lib/modules/$rel/vmlinuz
	boot "boot-rpm-$gen" "$rel" rpm -k "$k"
	same="the same image as the .deb's"
	cmp -s "$k" "$out/boot/vmlinuz-$rel" || same="an image that differs from the .deb's"
	ok "$(basename "$rpm"): release $rel, $same; $(workload_line "boot-rpm-$gen")$(units_note)"
}

build_v2() {
	local dsc srpm kopt=() rdef=() html_note
	step build "v2 from this run's profile: $([ "$do_source" = 1 ] && echo "source packages built as a farm does" || echo "make deb rpm")"
	v2dir=$out/packages
	rm -rf "$v2dir" "$out/source"
	mkdir -p "$v2dir"
	if [ -n "$signing_key" ]; then
		kopt=(--signing-key "$signing_key")
		rdef=(--define "kpgo_signing_key $signing_key")
	fi
	if [ "$do_source" = 1 ]; then
		run make -C "$top" source SOURCE_OUT="$out/source" KPGO_STORE="$store" "${make_vars[@]}" ||
			fail "make source failed; see $log"
		dsc=$(one "$out/source"/*.dsc) || fail "no single .dsc in $out/source"
		run "$top/tests/kernel/chroot-build.sh" --dsc "$dsc" --out "$v2dir" --cache "$cache" \
			--profiles pkg.kpgo.noinstr --jobs "$jobs" "${kopt[@]}" ||
			fail "the source package's build in a clean chroot failed; see $log"
		if [ "$do_srpm" = 1 ]; then
			run make -C "$top" srpm SOURCE_OUT="$out/source" KPGO_STORE="$store" "${make_vars[@]}" ||
				fail "make srpm failed; see $log"
			srpm=$(one "$out/source"/*.src.rpm) || fail "no single .src.rpm in $out/source"
			rm -rf "$out/rpmbuild"
			run rpmbuild --rebuild --nodeps --without instr --define "_topdir $out/rpmbuild" \
				--define "_smp_build_ncpus $jobs" "${rdef[@]}" "$srpm" ||
				fail "rpmbuild --rebuild of $(basename "$srpm") failed; see $log"
			cp "$out/rpmbuild/RPMS"/*/*.rpm "$v2dir/"
		fi
	else
		run make -C "$top" deb rpm PKGDIR="$v2dir" KPGO_STORE="$store" JOBS="$jobs" \
			DEB_PROFILES=pkg.kpgo.noinstr RPMBUILD_OPTS="--without instr" "${make_vars[@]}" ||
			fail "the optimized build failed; see $log"
	fi
	v2_img=$(find "$v2dir" -maxdepth 1 -name 'linux-image-*-pgo_*.deb' | head -1)
	[ -n "$v2_img" ] || fail "no linux-image-*-pgo package in $v2dir"
	rel_v2=$(dpkg-deb -f "$v2_img" Package | sed 's/^linux-image-//')
	! $v1 || [ "$rel_v2" != "$rel_v1" ] || fail "v2 has v1's release $rel_v1: a new profile must make a new release"
	rm -rf "$out/headers-instr" "$out/v2-image"
	dpkg-deb -x "$v2_img" "$out/v2-image" || fail "cannot unpack $v2_img"
	# the profile as people read it: names from the instrumented headers
	# package's .gcno files, and what v2's build applied
	html_note=''
	if [ -n "${hdr:-}" ]; then
		html_note="; the profile's report: $out/profile.html"
		dpkg-deb -x "$hdr" "$out/headers-instr" || fail "cannot unpack $hdr"
		run "$kpgo" info --html "$out/profile.html" --objtree "$out/headers-instr/usr/src/linux-headers-$rel_i" \
			--pgo-report "$out/v2-image/usr/share/doc/linux-image-$rel_v2/pgo-report" "$(cat "$out/profile.path")" ||
			fail "kpgo info --html of the collected profile failed; see $log"
	fi
	[ -s "$out/v2-image/usr/share/doc/linux-image-$rel_v2/pgo-report.html" ] ||
		fail "v2's package has no pgo-report.html"
	# the profile came from the store: its report says what the store's
	# freshness policy said of it
	grep -q '^profile policy: ok ([0-9]* days old, 0 releases behind; the store.s policy accepted it)$' \
		"$out/v2-image/usr/share/doc/linux-image-$rel_v2/pgo-report" ||
		fail "v2's pgo-report does not say what the store's freshness policy said of its profile"
	ok "$rel_v2, $(dpkg-deb -f "$v2_img" Version): $(find "$v2dir" -name '*.deb' | wc -l) .deb, $(find "$v2dir" -name '*.rpm' | wc -l) .rpm in $v2dir$html_note"
}

publish() {
	local debs
	step publish "a local apt repository of every package"
	# the instrumented packages and v1 first: v2's files of the same name replace them
	local dirs=("$pkgdir" "$v2dir")
	[ -z "$given_profile" ] || dirs=("$v2dir")
	mapfile -t debs < <(find "${dirs[@]}" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' |
		awk -F/ '{ k[$NF] = $0 } END { for (n in k) print k[n] }' | sort)
	make_repo "$out/repo" "${debs[@]}" || fail "cannot make the repository in $out/repo"
	grep -q '^Package: linux-image-pgo$' "$out/repo/Packages" || fail "the repository has no linux-image-pgo"
	ok "$out/repo: ${#debs[@]} packages"
}

upgrade() {
	local from=$rel_i gstep=install
	if $v1; then
		from=$rel_v1 gstep=upgrade
	fi
	step upgrade "$([ $gstep = upgrade ] && echo "apt upgrade on v1 ($rel_v1)" || echo "apt install linux-image-pgo on $rel_i")"
	repo_disk "$out/repo"
	boot upgrade "$from" "$gstep" "${rd[@]}"
	guest_kernel "$rel_v2"
	if $v1; then
		case $(guest_says 'kernels after: ' upgrade) in
		*"$rel_v1 "*"$rel_v2 "* | *"$rel_v2 "*"$rel_v1 "*) ;;
		*) fail "after apt upgrade the guest has $(guest_says 'kernels after: ' upgrade), not v1 and v2 side by side" ;;
		esac
	fi
	local ks
	ks=$(guest_says 'kernels after: ' upgrade)
	[ -n "$ks" ] || ks=$(guest_says 'kernels: ' upgrade)
	# with v1 apt upgrade moved it; without, apt install put it on the instr kernel
	local how=upgraded ver
	$v1 || how=installed
	ver=$(guest_says "$how linux-image-pgo " upgrade)
	[ -n "$ver" ] || fail "the guest does not say which linux-image-pgo it $how"
	ok "linux-image-pgo $ver $how; kernels: $ks$(units_note)"
}

boot_v2() {
	local enforce=() en=''
	step boot-v2 "v2, the kernel apt installed$([ -n "$signing_key" ] && echo ', module.sig_enforce=1')"
	if [ -n "$signing_key" ]; then
		en=module.sig_enforce=1
		enforce=(-a "$en")
	fi
	boot boot-v2 "$rel_v2" check "${enforce[@]}"
	check_boot boot-v2 "$profile_sha"
	[ -z "$signing_key" ] || [ -n "$(guest_says 'module dummy: loaded, signer: ' boot-v2)" ] ||
		fail "the module dummy has no signer under module.sig_enforce=1"
	ok "release $rel_v2; $report_note (this run's); $(guest_says 'module dummy: ' boot-v2 | sed 's/, signer: / signed by /')${en:+ under $en}; DKMS module: $(guest_says 'module kpgo_hello (DKMS): ' boot-v2 | cut -c1-60); $(workload_line boot-v2)$(upload_note boot-v2)$(units_note)"
}

build_clang() {
	step build-clang "make deb rpm KPGO_TOOLCHAIN=clang KPGO_STORE=$store"
	clang_pkgdir=$out/packages-clang
	rm -rf "$clang_pkgdir"
	run make -C "$top" deb rpm KPGO_TOOLCHAIN=clang PKGDIR="$clang_pkgdir" KPGO_STORE="$store" \
		JOBS="$jobs" DEB_PROFILES=pkg.kpgo.noinstr RPMBUILD_OPTS="--without instr" "${make_vars[@]}" ||
		fail "the Clang build failed; see $log"
	[ -n "$(one "$clang_pkgdir/linux-image-${rel_v2}_"*.deb || true)" ] ||
		fail "no linux-image-$rel_v2 .deb in $clang_pkgdir"
	ok "$(find "$clang_pkgdir" -name '*.deb' -o -name '*.rpm' | wc -l) packages in $clang_pkgdir"
}

install_clang() {
	local debs
	step install-clang "apt install --reinstall linux-image-$rel_v2 from the Clang packages"
	mapfile -t debs < <(find "$clang_pkgdir" -maxdepth 1 -name 'linux-*.deb' | sort)
	make_repo "$out/repo-clang" "${debs[@]}" || fail "cannot make the repository in $out/repo-clang"
	repo_disk "$out/repo-clang"
	boot install-clang "$rel_v2" reinstall "${rd[@]}"
	[ "$(guest_says 'reinstalled ' install-clang | cut -d' ' -f1)" = "linux-image-$rel_v2" ] ||
		fail "the guest did not reinstall linux-image-$rel_v2"
	mv "$out/boot/vmlinuz-$rel_v2" "$out/boot/vmlinuz-$rel_v2.gcc"
	guest_kernel "$rel_v2"
	! cmp -s "$out/boot/vmlinuz-$rel_v2" "$out/boot/vmlinuz-$rel_v2.gcc" ||
		fail "/boot/vmlinuz-$rel_v2 is still the GCC kernel after the reinstallation"
	ok "$(guest_says 'reinstalled ' install-clang)$(units_note)"
}

boot_clang() {
	local version
	step boot-clang "the Clang ThinLTO kernel installed by apt"
	boot boot-clang "$rel_v2" check
	version=$(guest_says 'proc version ' boot-clang)
	[[ $version == *'clang version'* ]] || fail "the kernel was not built by Clang: $version"
	check_boot boot-clang "$profile_sha"
	ok "release $rel_v2 by $(grep -o 'clang version [0-9.]*' <<<"$version"); $report_note; $(workload_line boot-clang)$(units_note)"
}

# --- main -----------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || { note "must run as root (chroot, mmdebstrap)"; exit 1; }
for t in qemu-system-x86_64 mkfs.ext4 debugfs dpkg-scanpackages rpm2cpio rpmbuild cpio mmdebstrap unshare; do
	command -v "$t" >/dev/null || { note "'$t' not found (tests/install-deps.sh installs it)"; exit 1; }
done
[ -x "$kpgo" ] || { note "no $kpgo (make)"; exit 1; }
if [ -n "$given_profile" ] && ! why=$("$kpgo" info "$given_profile" 2>&1 >/dev/null); then
	note "E2E_PROFILE: ${why#kpgo: }"
	exit 1
fi
rm -rf "${out:?}/probe" "${out:?}/profile.path" "${out:?}"/console-*.log "${out:?}"/guest-*.txt "${out:?}/boot" \
	"${out:?}/rpm" "$root"
mkdir -p "$out"
: >"$summary"
: >"$log"
trap on_exit EXIT
note "summary: $summary, log: $log"

if [ -n "$given_profile" ]; then
	make_rootfs
	profile_given
else
	instr_packages
	make_rootfs
	install_instr
	train
	profile
	[ "$instr_only" != 1 ] || exit 0
	if $v1; then
		install_v1
		boot_v1
		if [ -n "$(find "$pkgdir" -maxdepth 1 -name 'kernel-pgo-*.x86_64.rpm' | head -1)" ]; then
			boot_rpm v1 "$pkgdir" "$rel_v1"
		fi
	fi
fi
build_v2
publish
if [ -n "$given_profile" ]; then
	install_v2
else
	upgrade
fi
boot_v2
if [ -n "$(find "$v2dir" -maxdepth 1 -name 'kernel-pgo-*.x86_64.rpm' | head -1)" ]; then
	boot_rpm v2 "$v2dir" "$rel_v2"
fi
if [ "$do_clang" = 1 ] && [ -z "$given_profile" ]; then
	build_clang
	install_clang
	boot_clang
fi
