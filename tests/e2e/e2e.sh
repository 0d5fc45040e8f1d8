#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# e2e.sh: the whole kpgo cycle, as a fleet operator and a build farm run it,
# on a Debian 12 guest under QEMU (`make e2e`). Glue around mmdebstrap,
# apt, mkfs.ext4/debugfs, qemu-system-x86_64, make and kpgo.
#
#   instr-packages  the instrumented packages (kpgo, linux-image-R-pgo-instr,
#                   linux-image-pgo-instr) from E2E_INSTR_PKGDIR; built there
#                   with `make deb DEB_PROFILES=pkg.kpgo.nopgo` when missing
#   rootfs          the Debian 12 image (tests/e2e/rootfs.sh; cached)
#   install-instr   the image unpacked, `apt install kpgo linux-image-pgo-instr`
#                   in a chroot from a local repository (the real maintainer
#                   scripts and the kpgo kernel hook run), the test's guest
#                   service and workload added, an ext4 disk image made of it
#                   with mkfs.ext4 -d (no loop mount)
#   train           the guest booted on the instrumented kernel (the image's
#                   /boot/vmlinuz-R, root=/dev/vda, no initramfs: virtio-blk
#                   and ext4 are built in); the workload (tests/e2e/guest/
#                   workload) runs; kpgo-collect.service collects into the
#                   spool at shutdown
#   profile         the spooled profile read out of the disk image (debugfs),
#                   `kpgo store ingest` into a new store, `kpgo store select`
#   build           `make deb rpm KPGO_STORE=<store>`: the optimized packages
#                   built with that profile (E2E_BUILD=0 skips this and uses
#                   E2E_PGO_PKGDIR's packages as they are; the summary says so)
#   publish         every package in a local apt repository
#   install-pgo     the guest on the instrumented kernel again, the repository
#                   shared over 9p: `apt install linux-image-pgo`
#   boot-pgo        the guest on the kernel apt installed (read out of the
#                   image): its release ends in -pgo, no gcov, the profile
#                   report in /usr/share/doc says "verdict: ok" (and names the
#                   profile selected above), the workload once more
#   boot-rpm        the guest on the kernel of the optimized .rpm
#                   (rpm2cpio: /lib/modules/R/vmlinuz), a short workload
#   build-clang     `make deb rpm KPGO_TOOLCHAIN=clang KPGO_STORE=<store>`:
#                   the optimized packages again, by Clang with ThinLTO and
#                   the same profile converted by kpgo afdo (E2E_CLANG=0
#                   skips this and the next two steps)
#   install-clang   the guest on the optimized kernel, the Clang packages'
#                   repository shared over 9p: `apt install --reinstall
#                   linux-image-R-pgo` (same names and version)
#   boot-clang      the guest on the kernel apt installed: built by Clang
#                   (/proc/version), no gcov, its report's verdict ok and
#                   the profile selected above, the workload once more
#
# Every step appends "STEP STATUS SECONDS DETAIL" to E2E_OUT/summary.txt;
# the first failing step says why and the run exits 1. Logs and serial
# consoles are in E2E_OUT.
#
# Settings (environment; `make e2e` passes them on):
#   E2E_OUT=build/e2e           work directory: disk image, repositories,
#                               store, logs; each step replaces what it writes.
#                               profile.path names the profile selected;
#                               `make check` tests the packages against it
#   E2E_CACHE=build/e2e-cache   the image archive and the KVM probe's answer
#   E2E_INSTR_PKGDIR=build/packages   the instrumented packages
#   E2E_BUILD=1                 0: no build step; the optimized packages are
#                               then E2E_PGO_PKGDIR's (default E2E_INSTR_PKGDIR)
#                               and the summary says that they were not built
#                               from this run's profile. With the build step
#                               they go to E2E_OUT/packages.
#   E2E_CLANG=1                 0: no Clang steps
#   E2E_TIMEOUT=1200            seconds one boot may take
#   E2E_SMP=2, E2E_MEM=1024     the guest's CPUs and MiB
#   KPGO_ACCEL=kvm|tcg          skip the KVM probe (tests/kernel/qemu.bash)
#   JOBS                        parallel jobs of the build step

set -euo pipefail
prog=e2e.sh
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../kernel/qemu.bash
. "$top/tests/kernel/qemu.bash"

out=$(readlink -m "${E2E_OUT:-$top/build/e2e}")
cache=$(readlink -m "${E2E_CACHE:-$top/build/e2e-cache}")
instr_pkgdir=$(readlink -m "${E2E_INSTR_PKGDIR:-$top/build/packages}")
pgo_pkgdir=$(readlink -m "${E2E_PGO_PKGDIR:-$instr_pkgdir}")
do_build=${E2E_BUILD:-1}
do_clang=${E2E_CLANG:-1}
boot_timeout=${E2E_TIMEOUT:-1200}
smp=${E2E_SMP:-2}
mem=${E2E_MEM:-1024}
jobs=${JOBS:-$(nproc)}
kpgo=${KPGO:-$top/build/kpgo}
bench=${KPGO_BENCH_BIN:-$top/build/bench}

summary=$out/summary.txt
log=$out/e2e.log
root=$out/root
disk=$out/disk.img
store=$out/store
cur='' t0=$SECONDS t_all=$SECONDS failed_units=''
profile_sha='' rel_p=''

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

# boot NAME KERNEL STEP [qemu args...]: the guest runs STEP
# (tests/e2e/guest/guest) and powers off; fails the current step unless
# the guest said "done STEP".
boot() {
	local name=$1 kernel=$2 gstep=$3 rc=0 why
	local console=$out/console-$name.log
	shift 3
	note "booting $kernel ($accel, $smp CPUs), guest step $gstep; console: $console"
	timeout "$boot_timeout" qemu-system-x86_64 -accel "$accel" -m "$mem" -smp "$smp" \
		-display none -monitor none -serial stdio -no-reboot -nic none \
		-kernel "$kernel" \
		-append "console=ttyS0 root=/dev/vda rw panic=-1 loglevel=4 kpgo_e2e=$gstep" \
		-drive "file=$disk,if=virtio,format=raw" "$@" </dev/null >"$console" 2>&1 || rc=$?
	sed -i 's/\r$//' "$console"
	# systemd puts "[time] guest[pid]: " before each line on the console
	sed -n 's/^.*\(KPGO-E2E: \)/\1/p' "$console" >"$out/guest-$name.txt"
	why=$(sed -n 's/^KPGO-E2E: FAIL //p' "$out/guest-$name.txt" | head -1)
	[ -z "$why" ] || fail "the guest: $why (console: $console)"
	[ "$rc" -ne 124 ] || fail "the guest did not power off within ${boot_timeout}s (console: $console)"
	grep -q "^KPGO-E2E: done $gstep\$" "$out/guest-$name.txt" ||
		fail "the guest stopped before the end of step $gstep (qemu exit $rc): $(grep -av '^\s*$' "$console" |
			tail -1 | cut -c1-200) (console: $console)"
	failed_units=$(guest_says 'failed units: ' "$name")
}

# For a boot step's summary: the units that failed in the guest, if any.
units_note() {
	[ -z "$failed_units" ] || printf '; failed units in the guest: %s' "$failed_units"
}

# guest_says PATTERN NAME: the rest of the guest's first line that starts
# with PATTERN (a sed regular expression without '|'), from boot NAME.
guest_says() {
	sed -n "s|^KPGO-E2E: $1||p" "$out/guest-$2.txt" | head -1
}

# The workload's results for the summary: "ops/s: syscall N, ..., redis N"
# (redis: the mean of redis-benchmark's tests).
workload_line() {
	sed -n 's/^KPGO-E2E: wl \([^ ]*\) .*ops_per_sec=\([0-9.]*\).*/\1 \2/p' "$out/guest-$1.txt" |
		awk '$1 ~ /^redis-/ { r += $2; nr++; next }
			{ sub(/^wl-/, "", $1); l = l sep $1 " " int($2); sep = ", " }
			END { if (nr) l = l sep "redis " int(r / nr); print "ops/s: " l }'
}

# --- steps ----------------------------------------------------------------

instr_packages() {
	local d=$instr_pkgdir
	step instr-packages "the instrumented packages in $d"
	img=$(one "$d"/linux-image-*-pgo-instr_*.deb || true)
	if [ -z "$img" ]; then
		note "no instrumented packages in $d: building them (make deb DEB_PROFILES=pkg.kpgo.nopgo)"
		run make -C "$top" deb PKGDIR="$d" DEB_PROFILES=pkg.kpgo.nopgo JOBS="$jobs" ||
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
	kver=${rel_i%-pgo-instr}
	dpkg-deb -c "$img" | grep "lib/modules/$rel_i/kernel/.*\.ko" >/dev/null ||
		fail "$img has no modules"
	ok "$rel_i: $(basename "$img"), $(basename "$meta"), $(basename "$tool")"
}

make_rootfs() {
	step rootfs "the Debian 12 image (cache $cache)"
	local made=made
	rootfs_tar=$("$here/rootfs.sh" --cache "$cache" 2>"$out/rootfs.log") ||
		fail "rootfs.sh failed; see $out/rootfs.log"
	grep -q '^rootfs.sh: cached ' "$out/rootfs.log" && made=cached
	ok "$(basename "$rootfs_tar"), $(($(stat -c %s "$rootfs_tar") / 1048576)) MiB, $made"
}

# apt-get in the chroot, the repository REPO bound at /srv/kpgo-repo, /proc
# mounted (systemctl enable in a maintainer script needs it to see the
# chroot); the mounts vanish with the private mount namespace.
chroot_apt() {
	local repo=$1
	shift
	printf '+ chroot apt-get %s\n' "$*" >>"$log"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private /bin/sh -ec '
		root=$1 repo=$2; shift 2
		mount -t proc proc "$root/proc"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
		mount --bind "$repo" "$root/srv/kpgo-repo"
		chroot "$root" apt-get -q -o APT::Sandbox::User=root -o Acquire::Languages=none "$@"
	' sh "$root" "$repo" "$@" </dev/null >>"$log" 2>&1
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

install_instr() {
	local u wants=etc/systemd/system/multi-user.target.wants
	step install-instr "apt install kpgo linux-image-pgo-instr into the image"
	[ -x "$bench/wl-syscall" ] || fail "no workload programs in $bench (make workloads)"
	rm -rf "$root"
	mkdir -p "$root"
	tar -xpf "$rootfs_tar" -C "$root" --numeric-owner || fail "cannot unpack $rootfs_tar"
	make_repo "$out/repo-instr" "$tool" "$img" "$meta"
	mkdir -p "$root/srv/kpgo-repo"
	printf 'deb [trusted=yes] file:/srv/kpgo-repo ./\n' \
		>"$root/etc/apt/sources.list.d/kpgo-e2e.list"
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	chroot_apt "$out/repo-instr" update || fail "apt-get update in the image failed; see $log"
	chroot_apt "$out/repo-instr" install -y --no-install-recommends kpgo linux-image-pgo-instr ||
		fail "apt-get install kpgo linux-image-pgo-instr failed; see $log"

	# what the packages and the kernel hook did
	[ -f "$root/boot/vmlinuz-$rel_i" ] || fail "no /boot/vmlinuz-$rel_i in the image"
	[ -s "$root/lib/modules/$rel_i/modules.dep" ] || fail "no modules.dep: depmod did not run"
	for u in multi-user.target.wants/kpgo-collect.service timers.target.wants/kpgo-collect.timer \
		timers.target.wants/kpgo-upload.timer; do
		[ -L "$root/etc/systemd/system/$u" ] ||
			fail "${u#*/} not enabled: the kpgo kernel hook did not prepare collection"
	done
	[ -d "$root/var/lib/kpgo/profiles" ] || fail "no spool /var/lib/kpgo/profiles"

	# as an operator would: the machine's workload label, in every profile
	printf '\n# tests/e2e\nKPGO_WORKLOAD=e2e-train\n' >>"$root/etc/default/kpgo"
	chroot "$root" kpgo spool config >>"$log" 2>&1 || fail "kpgo spool config: bad settings; see $log"

	# the test's own parts: the guest step service, workload, console output
	install -d "$root/usr/local/lib/kpgo-e2e" "$root/etc/systemd/system/kpgo-collect.service.d"
	install -m 0755 "$here/guest/guest" "$here/guest/workload" "$bench"/wl-* \
		"$root/usr/local/lib/kpgo-e2e/"
	install -m 0644 "$here/guest/kpgo-e2e.service" "$root/etc/systemd/system/"
	ln -sfn /etc/systemd/system/kpgo-e2e.service "$root/$wants/kpgo-e2e.service"
	install -m 0644 "$here/guest/kpgo-collect-console.conf" \
		"$root/etc/systemd/system/kpgo-collect.service.d/e2e-console.conf"

	mkdir -p "$out/boot"
	cp "$root/boot/vmlinuz-$rel_i" "$out/boot/"
	run mkfs.ext4 -q -F -L kpgo-e2e -d "$root" "$disk" 3G || fail "mkfs.ext4 -d failed; see $log"
	[ -n "${E2E_KEEP:-}" ] || rm -rf "$root"
	ok "$rel_i installed by apt, collection enabled by the kernel hook; $(du -m --apparent-size "$disk" | cut -f1) MiB disk, $(du -m "$disk" | cut -f1) MiB used"
}

probe_accel() {
	mkdir -p "$out/probe"
	printf '' | cpio -o -H newc --quiet 2>/dev/null | gzip >"$out/probe/initrd.gz"
	accel=$(kpgo_qemu_accel "$cache" "$out/boot/vmlinuz-$rel_i" "$out/probe/initrd.gz")
}

train() {
	local n
	step train "the workload on the instrumented kernel, collected at shutdown"
	probe_accel
	boot train "$out/boot/vmlinuz-$rel_i" train
	mapfile -t profiles < <(guest_ls /var/lib/kpgo/profiles | awk '$1 ~ /^100/ && $2 ~ /\.kpgo$/ { print $2 }')
	n=${#profiles[@]}
	[ "$n" -ge 1 ] || fail "no profile in the guest's spool /var/lib/kpgo/profiles after shutdown (console: $out/console-train.log)"
	ok "$accel; $n profile(s) spooled at shutdown; $(workload_line train)$(units_note)"
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
	run "$kpgo" store --store "$store" ingest "$out/drop" || fail "kpgo store ingest failed; see $log"
	if compgen -G "$out/drop/rejected/*.reason" >/dev/null; then
		fail "kpgo store ingest rejected: $(cat "$out/drop/rejected"/*.reason)"
	fi
	sel=$("$kpgo" store --store "$store" select --release "$rel_i" --cc gcc 2>>"$log") ||
		fail "kpgo store select --release $rel_i found no profile; see $log"
	profile_sha=$(sha256sum <"$sel" | cut -d' ' -f1)
	printf '%s\n' "$sel" >"$out/profile.path"
	"$kpgo" info "$sel" >"$out/profile-info.txt" 2>&1 || fail "kpgo info '$sel' failed"
	[ "$(info_value KERNEL_RELEASE)" = "$rel_i" ] ||
		fail "the profile is of kernel $(info_value KERNEL_RELEASE), not $rel_i"
	[ "$(info_value WORKLOAD)" = e2e-train ] ||
		fail "the profile's workload is '$(info_value WORKLOAD)', not the image's setting e2e-train"
	ok "$(basename "$sel"): $(info_value KERNEL_RELEASE), $(info_value OBJECTS) objects, $(info_value FUNCTIONS) functions, workload $(info_value WORKLOAD), $(info_value MERGED_PROFILES) profile(s), sha256 ${profile_sha:0:16}"
}

# info_value KEY: KEY's value in the selected profile's manifest.
info_value() {
	sed -n "s/^  $1=//p" "$out/profile-info.txt"
}

build() {
	step build "make deb rpm KPGO_STORE=$store"
	if [ "$do_build" = 0 ]; then
		[ -n "$(one "$pgo_pkgdir"/linux-image-pgo_*.deb || true)" ] ||
			fail "E2E_BUILD=0, and $pgo_pkgdir has no linux-image-pgo package"
		profile_sha=''
		record skipped "E2E_BUILD=0: the packages of $pgo_pkgdir as they are, NOT built from this run's profile"
		return
	fi
	pgo_pkgdir=$out/packages
	rm -rf "$pgo_pkgdir"
	run make -C "$top" deb rpm PKGDIR="$pgo_pkgdir" KPGO_STORE="$store" JOBS="$jobs" \
		DEB_PROFILES=pkg.kpgo.noinstr RPMBUILD_OPTS="--without instr" ||
		fail "the optimized build failed; see $log"
	ok "$(find "$pgo_pkgdir" -name '*.deb' -o -name '*.rpm' | wc -l) packages in $pgo_pkgdir"
}

publish() {
	local debs
	step publish "a local apt repository of every package"
	# find lists the instrumented packages first: a file of the same name
	# from the optimized build (kpgo, of the same version) replaces its.
	mapfile -t debs < <(find "$instr_pkgdir" "$pgo_pkgdir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' |
		awk -F/ '{ k[$NF] = $0 } END { for (n in k) print k[n] }' | sort)
	make_repo "$out/repo" "${debs[@]}" || fail "cannot make the repository in $out/repo"
	pgo_meta=$(sed -n 's/^Package: linux-image-pgo$/&/p' "$out/repo/Packages")
	[ -n "$pgo_meta" ] || fail "the repository has no linux-image-pgo"
	ok "$out/repo: ${#debs[@]} packages"
}

install_pgo() {
	step install-pgo "apt install linux-image-pgo in the guest"
	boot install-pgo "$out/boot/vmlinuz-$rel_i" install \
		-virtfs "local,path=$out/repo,mount_tag=kpgorepo,security_model=none,readonly=on"
	rel_p=$(guest_says 'kernel /boot/vmlinuz-' install-pgo)
	[ -n "$rel_p" ] || fail "the guest named no installed kernel"
	guest_get "/boot/vmlinuz-$rel_p" "$out/boot/vmlinuz-$rel_p" ||
		fail "cannot read /boot/vmlinuz-$rel_p out of the disk image"
	ok "linux-image-pgo $(guest_says 'installed linux-image-pgo ' install-pgo): $rel_p$(units_note)"
}

boot_pgo() {
	local verdict sha
	step boot-pgo "the optimized kernel installed by apt"
	boot boot-pgo "$out/boot/vmlinuz-$rel_p" check
	[ "$(guest_says 'step check on ' boot-pgo | cut -d, -f1)" = "$rel_p" ] ||
		fail "the guest ran $(guest_says 'step check on ' boot-pgo | cut -d, -f1), not $rel_p"
	verdict=$(guest_says 'report verdict: ' boot-pgo)
	sha=$(guest_says 'report profile sha256: ' boot-pgo)
	if [ -n "$profile_sha" ] && [ "$sha" != "$profile_sha" ]; then
		fail "the kernel was built with profile ${sha:0:16}, not with this run's ${profile_sha:0:16}"
	fi
	local which="the profile of the packages used"
	[ -z "$profile_sha" ] || which="built with this run's profile"
	ok "release $rel_p; report: ${verdict%%,*}, $which; $(workload_line boot-pgo)$(units_note)"
}

boot_rpm() {
	local rpm k
	step boot-rpm "the kernel of the optimized .rpm"
	rpm=$(one "$pgo_pkgdir/kernel-pgo-${kver}"-*.x86_64.rpm || true)
	[ -n "$rpm" ] || fail "no kernel-pgo-$kver .rpm in $pgo_pkgdir"
	rm -rf "$out/rpm"
	mkdir -p "$out/rpm"
	(cd "$out/rpm" && rpm2cpio "$rpm" | cpio -idm --quiet "./lib/modules/$rel_p/vmlinuz") 2>>"$log" ||
		fail "no ./lib/modules/$rel_p/vmlinuz in $rpm"
	k=$out/rpm/lib/modules/$rel_p/vmlinuz
	boot boot-rpm "$k" rpm
	[ "$(guest_says 'step rpm on ' boot-rpm | cut -d, -f1)" = "$rel_p" ] ||
		fail "the guest ran $(guest_says 'step rpm on ' boot-rpm | cut -d, -f1), not $rel_p"
	local same="the same image as in the .deb"
	cmp -s "$k" "$out/boot/vmlinuz-$rel_p" || same="an image that differs from the .deb"
	ok "$(basename "$rpm"): release $rel_p, $same; $(workload_line boot-rpm)$(units_note)"
}

build_clang() {
	step build-clang "make deb rpm KPGO_TOOLCHAIN=clang KPGO_STORE=$store"
	clang_pkgdir=$out/packages-clang
	rm -rf "$clang_pkgdir"
	if [ "$do_clang" = 0 ]; then
		record skipped "E2E_CLANG=0"
		return
	fi
	run make -C "$top" deb rpm KPGO_TOOLCHAIN=clang PKGDIR="$clang_pkgdir" KPGO_STORE="$store" \
		JOBS="$jobs" DEB_PROFILES=pkg.kpgo.noinstr RPMBUILD_OPTS="--without instr" ||
		fail "the Clang build failed; see $log"
	[ -n "$(one "$clang_pkgdir/kernel-pgo-${kver}"-*.x86_64.rpm || true)" ] ||
		fail "no kernel-pgo-$kver .rpm in $clang_pkgdir"
	ok "$(find "$clang_pkgdir" -name '*.deb' -o -name '*.rpm' | wc -l) packages in $clang_pkgdir;" \
		"$(sed -n 's/^verdict: //p' "${KPGO_BUILDDIR:-$top/build/kernel}/src/linux-source-6.1/pgo-clang/pgo-report" 2>/dev/null |
			cut -d, -f1)"
}

install_clang() {
	local debs
	step install-clang "apt install --reinstall linux-image-$rel_p from the Clang packages"
	if [ "$do_clang" = 0 ]; then
		record skipped "E2E_CLANG=0"
		return
	fi
	mapfile -t debs < <(find "$clang_pkgdir" -maxdepth 1 -name 'linux-*.deb' | sort)
	make_repo "$out/repo-clang" "${debs[@]}" || fail "cannot make the repository in $out/repo-clang"
	boot install-clang "$out/boot/vmlinuz-$rel_p" reinstall \
		-virtfs "local,path=$out/repo-clang,mount_tag=kpgorepo,security_model=none,readonly=on"
	[ "$(guest_says 'reinstalled ' install-clang | cut -d' ' -f1)" = "linux-image-$rel_p" ] ||
		fail "the guest did not reinstall linux-image-$rel_p"
	guest_get "/boot/vmlinuz-$rel_p" "$out/boot/vmlinuz-$rel_p-clang" ||
		fail "cannot read /boot/vmlinuz-$rel_p out of the disk image"
	! cmp -s "$out/boot/vmlinuz-$rel_p" "$out/boot/vmlinuz-$rel_p-clang" ||
		fail "/boot/vmlinuz-$rel_p is still the GCC kernel after the reinstallation"
	ok "$(guest_says 'reinstalled ' install-clang)$(units_note)"
}

boot_clang() {
	local verdict sha version
	step boot-clang "the Clang ThinLTO kernel installed by apt"
	if [ "$do_clang" = 0 ]; then
		record skipped "E2E_CLANG=0"
		return
	fi
	boot boot-clang "$out/boot/vmlinuz-$rel_p-clang" check
	[ "$(guest_says 'step check on ' boot-clang | cut -d, -f1)" = "$rel_p" ] ||
		fail "the guest ran $(guest_says 'step check on ' boot-clang | cut -d, -f1), not $rel_p"
	version=$(guest_says 'proc version ' boot-clang)
	[[ $version == *'clang version'* ]] || fail "the kernel was not built by Clang: $version"
	verdict=$(guest_says 'report verdict: ' boot-clang)
	sha=$(guest_says 'report profile sha256: ' boot-clang)
	if [ -n "$profile_sha" ] && [ "$sha" != "$profile_sha" ]; then
		fail "the kernel was built with profile ${sha:0:16}, not with this run's ${profile_sha:0:16}"
	fi
	ok "release $rel_p by $(grep -o 'clang version [0-9.]*' <<<"$version"); report: ${verdict%%,*}; $(workload_line boot-clang)$(units_note)"
}

# --- main -----------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || { note "must run as root (chroot, mmdebstrap)"; exit 1; }
for t in qemu-system-x86_64 mkfs.ext4 debugfs dpkg-scanpackages rpm2cpio cpio mmdebstrap unshare; do
	command -v "$t" >/dev/null || { note "'$t' not found (tests/install-deps.sh installs it)"; exit 1; }
done
[ -x "$kpgo" ] || { note "no $kpgo (make)"; exit 1; }
rm -rf "${out:?}/probe" "${out:?}/profile.path" "${out:?}"/console-*.log "${out:?}"/guest-*.txt "${out:?}/boot" \
	"${out:?}/rpm" "$root"
mkdir -p "$out"
: >"$summary"
: >"$log"
trap on_exit EXIT
note "summary: $summary, log: $log"

instr_packages
make_rootfs
install_instr
train
profile
build
publish
install_pgo
boot_pgo
boot_rpm
build_clang
install_clang
boot_clang
