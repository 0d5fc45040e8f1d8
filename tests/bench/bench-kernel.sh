#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-kernel.sh: what PGO buys, measured (`make bench-kernel`). Kernels
# of one source tree, config and compiler, booted alternately in QEMU with
# the same machine settings, each running the same workload mixes. Glue
# around hooks/build/kpgo-kbuild, mkfs.ext4, qemu-system-x86_64, kpgo and
# bench-report (tests/tools/bench-report.c, which makes the tables and
# the plot).
#
#   kernels  baseline (no profile, the config's -O2), o3 (the same with
#            -O3), pgo (built with the profile below) and pgo-pkg (the
#            optimized flavour as `make packages` builds it: the default
#            profile of profiles-store/, BENCH_PKG_PROFILE), all by GCC;
#            clang-lto (Clang with ThinLTO, no profile) and clang-lto-pgo
#            (the same with the profile below, converted by kpgo afdo into a
#            sample profile); clang-lto-pgo-inl, the same with kpgo afdo
#            --inlined (the lines of functions GCC inlined before
#            instrumenting, under their own names); clang-lto-pgo-entry,
#            clang-lto-pgo with kpgo afdo --add: the functions gcov cannot
#            see (noinstr entry code, GCOV_PROFILE := n), profiled on a
#            baseline-dbg kernel (baseline with debug information, booted
#            once on the training mix under the blockprof plugin;
#            tests/bench/entry-profile.sh); clang-lto-pgo-pkg, clang-lto-pgo
#            of pgo-pkg's default profile (the instrumented tree's .gcno
#            files convert it, function by function where the profile's
#            build was another: kpgo afdo); each Clang kernel also as
#            clangN-... (Clang N, e.g. clang19-lto-pgo) and ...-fulllto-...
#            (full LTO instead of ThinLTO, e.g. clang-fulllto-pgo,
#            clang19-fulllto-pgo); and the instrumented pgo-instr:
#            hooks/build/kpgo-kbuild, each in its own tree directly inside the
#            source tree (KSRC/baseline, KSRC/o3, KSRC/pgo-bench,
#            KSRC/pgo-pkg, KSRC/clang-lto, KSRC/clang-lto-pgo,
#            KSRC/clang-lto-pgo-inl, KSRC/clang-lto-pgo-entry,
#            KSRC/baseline-dbg, KSRC/pgo-instr), reused when
#            built before from the same inputs
#   image    an ext4 disk image of the end-to-end test's Debian 12 root
#            (tests/e2e/rootfs.sh) plus the foreign mix's benchmark
#            programs (tests/bench/guest/bench.packages), with the guest's init
#            (tests/bench/guest/init, PID 1: no systemd), the static
#            workload programs, a static busybox and kpgo; cached under a
#            hash of its inputs
#   train    the instrumented kernel booted on the training mix only;
#            `kpgo collect` in the guest, as on the fleet's machines, writes
#            the profile to a 9p share (reused while the kernel, the
#            programs and the scale are the same)
#   pgo      the pgo kernels built with that profile; the pgo-report of
#            each must say that at least BENCH_MIN_APPLIED % (GCC) or
#            BENCH_MIN_APPLIED_CLANG % (Clang) of the profile applied
#   boots    per mode, BENCH_ROUNDS rounds of one boot of each kernel in
#            turn (baseline o3 pgo baseline o3 pgo ...); each boot runs the
#            calibration loop and the mixes of BENCH_MIXES (the training,
#            held-out and foreign mixes; see tests/bench/guest/init) and
#            powers off:
#              wall    QEMU with KVM when a guest boots with it, else TCG;
#                      ops/s from the guest's CLOCK_MONOTONIC
#              icount  QEMU TCG with -icount shift=0,sleep=off: the guest's
#                      clock advances 1 ns per guest instruction, so
#                      guest ns per operation = instructions per operation
#              cache   the same with the cache-model plugin
#                      (tests/bench/cachesim.c, built by qemu-plugin.sh from
#                      Debian's QEMU source): each program runs at two
#                      counts between markers, and the difference gives
#                      instructions, L1i, L1d and L2 misses per operation
#                      of the measured loops alone, and the modelled cycles
#                      (instructions + BENCH_L1_PENALTY x L1 misses +
#                      BENCH_L2_PENALTY x L2 misses); BENCH_CACHE_ROUNDS
#                      rounds at BENCH_CACHE_SCALE (the plugin makes a
#                      boot several times slower)
#   report   bench-report: the tables (median, min-max, ratio to baseline)
#            and the plot of the ratios
#
# Every boot has -smp 1 -m 1024 -nic none, QEMU's default CPU model, the
# disk image with snapshot=on (each boot starts from the same state).
#
# Writes to BENCH_OUT: results.tsv (every result of every boot), report.md,
# ratios.svg, medians.tsv (each median as data), builds.tsv (release, sizes and profile of each kernel),
# train.kpgo (the profile), logs/ (builds, consoles). Root only (the image
# is unpacked with its owners).
#
# Settings (environment; `make bench-kernel` passes KPGO, KPGO_BENCH_BIN,
# BENCH_REPORT, KPGO_KSRC and JOBS):
#   BENCH_ROUNDS=5            boots of each kernel per mode
#   BENCH_SCALE=1             operation counts: 1 as in the guest's init
#                             (about a minute per boot under TCG), small
#                             (0.1, a smoke test) or another number (0.5, 2)
#   BENCH_MODES="wall icount" the measurement modes, in this order (wall,
#                             icount, cache)
#   BENCH_MIXES=train,heldout,foreign   the mixes each boot runs (after
#                             the calibration loop)
#   BENCH_KERNELS="baseline o3 pgo clang-lto clang-lto-pgo"
#                             the kernels (baseline, o3, pgo, pgo-pkg,
#                             clang-lto, clang-lto-pgo, clang-lto-pgo-inl,
#                             clang-lto-pgo-entry, clang-lto-pgo-pkg, and
#                             these as clangN-...
#                             and clang[N]-fulllto-...); baseline is required
#   BENCH_PKG_PROFILE=profiles-store/6.1/small.kpgo   pgo-pkg's profile
#   BENCH_PKG_TREE=KSRC/pgo-pkg   pgo-pkg's tree (directly inside KSRC):
#                             two pgo-pkg builds (two profiles, or two kpgo
#                             versions' flags) kept side by side
#   BENCH_EXTRA_PROFILES="NAME=FILE.kpgo ..."   more pgo kernels, one per
#                             profile (another release's, an older one):
#                             kernel pgo-NAME in KSRC/pgo-NAME, booted with
#                             the others (tests/bench/bench-decay.sh)
#   BENCH_MIN_APPLIED_EXTRA=0   their --min-applied (a stale profile may
#                             apply little: that is what is measured)
#   BENCH_TRAIN_ONLY=1        build the instrumented kernel, train it into
#                             BENCH_OUT/train.kpgo and stop (no other
#                             kernel, no benchmark boot)
#   BENCH_DRY_RUN=1           print what would be built, reused, trained and
#                             booted, and stop
#   BENCH_CONFIG=small        the kernels' config: small
#                             (hooks/build/kconfig/small.config) or
#                             debian-cloud (Debian's cloud-amd64 config of
#                             the tree's series, from linux-config-SERIES,
#                             with tests/bench/guest/boot.config on top: the
#                             guest boots without an initramfs; the kernel
#                             image only, no modules: kpgo-kbuild
#                             --no-modules)
#   BENCH_CACHE_ROUNDS=1      boots of each kernel in mode cache
#   BENCH_CACHE_SCALE=0.2     their operation counts (and twice these)
#   BENCH_CACHES="l1i=32768:8:64 l1d=32768:8:64 l2=1048576:8:64"
#                             the modelled caches, SIZE:WAYS:LINE (AMD EPYC
#                             9004, Zen 4, per core)
#   BENCH_L1_PENALTY=14 BENCH_L2_PENALTY=50   modelled cycles per L1 miss
#                             (an L2 hit) and per L2 miss (an L3 hit)
#   BENCH_OUT=build/bench-kernel
#   BENCH_TRAIN_SCALE=1       the training boot's operation counts
#   BENCH_MIN_APPLIED=90      % of the profile's functions that must apply
#   BENCH_MIN_APPLIED_CLANG=50  the same for clang-lto-pgo(-inl) (functions whose
#                             profile Clang applied: see its pgo-report)
#   BENCH_CLANG=clang-16      the Clang of the clang kernels without a
#                             number (LLVM=-16); clangN-... kernels: clang-N
#   BENCH_TIMEOUT=1800        seconds one boot may take
#   BENCH_RESUME=1            boots whose logs in BENCH_OUT ran to their end
#                             (a run that stopped) with the same mixes and
#                             scale are read, not repeated
#   BENCH_INSTR=DIR           an instrumented tree (pgo-instr) to use as it
#                             is, neither configured nor built (one that
#                             another job is using); default KSRC/pgo-instr,
#                             built or reused by hooks/build/kpgo-kbuild
#   BENCH_ENTRY_DBG=DIR       clang-lto-pgo-entry: the debug baseline tree
#                             to profile, as it is (a baseline built with
#                             kpgo-kbuild --debug-info, of baseline's
#                             release); default KSRC/baseline-dbg, built
#                             or reused
#   BENCH_CACHE=build/e2e-cache   the Debian image archive, shared with
#                             make e2e (tests/e2e/rootfs.sh)
#   BENCH_IMAGE_DIR=BENCH_OUT  where the guest's disk image is made (one
#                             directory may serve several runs' BENCH_OUT)
#   KPGO_KSRC                 the kernel source tree (default: Debian's
#                             linux-source-6.1 unpacked in build/kernel/src)
#   KPGO_ACCEL=kvm|tcg        wall mode's accelerator (default: probed)
#   JOBS                      parallel jobs of the kernel builds

set -euo pipefail
prog='bench-kernel.sh'
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../kernel/qemu.bash
. "$top/tests/kernel/qemu.bash"

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

rounds=${BENCH_ROUNDS:-5}
scale_in=${BENCH_SCALE:-1}
read -r -a modes <<<"${BENCH_MODES:-wall icount}"
kernels_in=${BENCH_KERNELS:-baseline o3 pgo clang-lto clang-lto-pgo}
read -r -a kernels <<<"$kernels_in"
mixes=${BENCH_MIXES:-train,heldout,foreign}
pkg_profile=$(readlink -m "${BENCH_PKG_PROFILE:-$top/profiles-store/6.1/small.kpgo}")
cache_rounds=${BENCH_CACHE_ROUNDS:-1}
pkg_tree_in=${BENCH_PKG_TREE:-}
read -r -a extra_specs <<<"${BENCH_EXTRA_PROFILES:-}"
min_applied_extra=${BENCH_MIN_APPLIED_EXTRA:-0}
train_only=${BENCH_TRAIN_ONLY:-0}
config=${BENCH_CONFIG:-small}
cache_scale_in=${BENCH_CACHE_SCALE:-0.2}
read -r -a caches <<<"${BENCH_CACHES:-l1i=32768:8:64 l1d=32768:8:64 l2=1048576:8:64}"
l1_penalty=${BENCH_L1_PENALTY:-14}
l2_penalty=${BENCH_L2_PENALTY:-50}
out=$(readlink -m "${BENCH_OUT:-$top/build/bench-kernel}")
train_scale_in=${BENCH_TRAIN_SCALE:-1}
min_applied=${BENCH_MIN_APPLIED:-90}
min_applied_clang=${BENCH_MIN_APPLIED_CLANG:-50}
clang=${BENCH_CLANG:-clang-16}
boot_timeout=${BENCH_TIMEOUT:-1800}
cache=$(readlink -m "${BENCH_CACHE:-$top/build/e2e-cache}")
image_dir=$(readlink -m "${BENCH_IMAGE_DIR:-$out}")
ksrc=$(readlink -m "${KPGO_KSRC:-${KPGO_BUILDDIR:-$top/build/kernel}/src/linux-source-6.1}")
jobs=${JOBS:-$(nproc)}
kpgo=${KPGO:-$top/build/kpgo}
bench=${KPGO_BENCH_BIN:-$top/build/bench}
report_tool=${BENCH_REPORT:-$top/build/tests/bench-report}
kbuild=$top/hooks/build/kpgo-kbuild

# A scale as thousandths (kpgo_scale= of the guest's init).
permille() {
	local s=$1
	[ "$s" = small ] && s=0.1
	[[ $s =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 1
	s=$(awk -v s="$s" 'BEGIN { printf "%d", s * 1000 + 0.5 }')
	[ "$s" -ge 1 ] || return 1
	echo "$s"
}

[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "bad BENCH_ROUNDS '$rounds' (a positive number)"
[[ $cache_rounds =~ ^[1-9][0-9]*$ ]] || die "bad BENCH_CACHE_ROUNDS '$cache_rounds' (a positive number)"
cache_scale=$(permille "$cache_scale_in") || die "bad BENCH_CACHE_SCALE '$cache_scale_in'"
[[ $mixes =~ ^(train|heldout|foreign)(,(train|heldout|foreign))*$ ]] ||
	die "bad BENCH_MIXES '$mixes' (train, heldout, foreign, comma-separated)"
[[ $l1_penalty =~ ^[0-9]+$ ]] || die "bad BENCH_L1_PENALTY '$l1_penalty'"
[[ $l2_penalty =~ ^[0-9]+$ ]] || die "bad BENCH_L2_PENALTY '$l2_penalty'"
for c in "${caches[@]}"; do
	[[ $c =~ ^(l1i|l1d|l2)=[0-9]+:[0-9]+:[0-9]+$ ]] || die "bad cache '$c' in BENCH_CACHES (l1i=SIZE:WAYS:LINE)"
done
scale=$(permille "$scale_in") || die "bad BENCH_SCALE '$scale_in' (small or a positive number)"
train_scale=$(permille "$train_scale_in") || die "bad BENCH_TRAIN_SCALE '$train_scale_in'"
[[ $min_applied =~ ^([0-9]|[1-9][0-9]|100)$ ]] || die "bad BENCH_MIN_APPLIED '$min_applied' (0 to 100)"
[[ $min_applied_clang =~ ^([0-9]|[1-9][0-9]|100)$ ]] ||
	die "bad BENCH_MIN_APPLIED_CLANG '$min_applied_clang' (0 to 100)"
[[ $boot_timeout =~ ^[1-9][0-9]*$ ]] || die "bad BENCH_TIMEOUT '$boot_timeout'"
[[ $min_applied_extra =~ ^([0-9]|[1-9][0-9]|100)$ ]] ||
	die "bad BENCH_MIN_APPLIED_EXTRA '$min_applied_extra' (0 to 100)"
[[ $train_only =~ ^[01]$ ]] || die "bad BENCH_TRAIN_ONLY '$train_only' (0 or 1)"
case $config in
small | debian-cloud) ;;
*) die "unknown BENCH_CONFIG '$config' (small or debian-cloud)" ;;
esac
# the extra profiles' kernels: pgo-NAME, after those of BENCH_KERNELS
declare -A extra_profile=()
for spec in "${extra_specs[@]}"; do
	name=${spec%%=*} file=${spec#*=}
	[[ $spec == *=* && $name =~ ^[A-Za-z0-9][-A-Za-z0-9._+]*$ ]] ||
		die "bad BENCH_EXTRA_PROFILES entry '$spec' (NAME=FILE.kpgo, NAME of letters, digits and -._+)"
	case $name in
	bench | pkg | instr) die "BENCH_EXTRA_PROFILES: the name '$name' is taken (pgo-$name is another tree)" ;;
	esac
	[ -z "${extra_profile[pgo-$name]:-}" ] || die "BENCH_EXTRA_PROFILES names '$name' twice"
	# (a dry run may name profiles that the run before it will make)
	[ -r "$file" ] || [ "${BENCH_DRY_RUN:-0}" = 1 ] ||
		die "cannot read the profile '$file' of BENCH_EXTRA_PROFILES"
	extra_profile[pgo-$name]=$(readlink -m "$file")
	kernels+=("pgo-$name")
done
# A Clang kernel's name, clang[N]-[full]lto[-pgo[-inl|-entry|-pkg]]: sets
# ck_cc (clang-N, or BENCH_CLANG), ck_lto (thin, full), ck_kind (what it
# is built as: lto, lto-pgo, lto-pgo-inl, lto-pgo-entry, lto-pgo-pkg) and
# ck_lv (its release's suffix: -clang, -clang-inl, -clang-entry for
# BENCH_CLANG's ThinLTO kernels, as before; -clang-pkg, -clang19,
# -clang-full, -clang19-full-inl, ...). Fails for any other name.
clang_kernel() {
	[[ $1 =~ ^clang([1-9][0-9]*)?-(full)?(lto(-pgo(-inl|-entry|-pkg)?)?)$ ]] || return 1
	local n=${BASH_REMATCH[1]}
	ck_cc=${n:+clang-$n} ck_lto=${BASH_REMATCH[2]:-thin} ck_kind=${BASH_REMATCH[3]}
	ck_cc=${ck_cc:-$clang}
	ck_lv=-clang$n
	[ "$ck_lto" = thin ] || ck_lv+=-full
	case $ck_kind in
	lto-pgo-inl) ck_lv+=-inl ;;
	lto-pgo-entry) ck_lv+=-entry ;;
	lto-pgo-pkg) ck_lv+=-pkg ;;
	esac
}

# kernels trained on the benchmark's profile (pgo and the Clang pgo ones
# but the -pkg ones)
trained_kernel() {
	[ "$1" = pgo ] || { clang_kernel "$1" && [[ $ck_kind == lto-pgo* && $ck_kind != lto-pgo-pkg ]]; }
}

# Clang kernels of the default profile: they need the instrumented tree's
# .gcno files, not the training
pkg_clang_kernel() {
	clang_kernel "$1" && [ "$ck_kind" = lto-pgo-pkg ]
}

[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "bad JOBS '$jobs'"
[ "${#modes[@]}" -gt 0 ] || die "BENCH_MODES is empty (wall, icount or both)"
for m in "${modes[@]}"; do
	case $m in
	wall | icount | cache) ;;
	*) die "unknown mode '$m' in BENCH_MODES (wall, icount or cache)" ;;
	esac
done
has_baseline=false
for k in "${kernels[@]}"; do
	case $k in
	baseline) has_baseline=true ;;
	o3 | pgo | pgo-pkg) ;;
	*) [ -n "${extra_profile[$k]:-}" ] || clang_kernel "$k" ||
		die "unknown kernel '$k' in BENCH_KERNELS (baseline, o3, pgo, pgo-pkg, clang-lto, clang-lto-pgo, clang-lto-pgo-inl, clang-lto-pgo-entry; clangN-..., clang-fulllto-...)" ;;
	esac
done
if [ "$train_only" = 1 ]; then
	kernels=()
elif ! $has_baseline || [ "${#kernels[@]}" -lt 2 ]; then
	die "BENCH_KERNELS must name baseline and at least one other kernel"
fi
# What the kernels need: the training (want_pgo), the instrumented tree
# (want_instr: its profile, or its .gcno for the -pkg Clang kernels), the
# entry profile (want_entry), and which Clangs (clangs)
want_pgo=false want_instr=false want_entry=false
clangs=()
[ "$train_only" = 0 ] || want_pgo=true
for k in "${kernels[@]}"; do
	! trained_kernel "$k" || want_pgo=true
	! pkg_clang_kernel "$k" || want_instr=true
	clang_kernel "$k" || continue
	[ "$ck_kind" != lto-pgo-entry ] || want_entry=true
	printf '%s\n' "${clangs[@]}" | grep -qxF -- "$ck_cc" || clangs+=("$ck_cc")
done
! $want_pgo || want_instr=true

[ "$(id -u)" -eq 0 ] || die "must run as root (the image is unpacked with its owners)"
for t in qemu-system-x86_64 mkfs.ext4 busybox file readelf size nm tar cpio; do
	command -v "$t" >/dev/null || die "'$t' not found (tests/install-deps.sh installs it)"
done
busybox=$(command -v busybox)
file -L "$busybox" | grep -q 'statically linked' || die "'$busybox' is not static (install busybox-static)"
[ -x "$kpgo" ] || die "no kpgo at '$kpgo' (make)"
[ -x "$report_tool" ] || die "no bench-report at '$report_tool' (make tools)"
for w in wl-micro wl-syscall wl-pipe wl-fork wl-file wl-socket wl-thread; do
	[ -x "$bench/$w" ] || die "no workload program '$bench/$w' (make workloads)"
done
dry_run=${BENCH_DRY_RUN:-0}
[[ $dry_run =~ ^[01]$ ]] || die "bad BENCH_DRY_RUN '$dry_run' (0 or 1)"
[ -f "$ksrc/Makefile" ] || [ "$dry_run" = 1 ] || die "no kernel source tree at '$ksrc' (make unpacks it)"
pkg_tree=$(readlink -m "${pkg_tree_in:-$ksrc/pgo-pkg}")
[ "$(dirname "$pkg_tree")" = "$ksrc" ] || die "BENCH_PKG_TREE '$pkg_tree' is not directly inside '$ksrc'"

# BENCH_DRY_RUN=1: what a run would build, reuse and boot; nothing done.
# A tree or profile made before is reused when its inputs are the same
# (kpgo-kbuild and the training step decide that when they run).
if [ "$dry_run" = 1 ]; then
	before() { if [ -e "$1" ]; then echo "made before: reused if its inputs are the same"; else echo new; fi; }
	printf '%s: plan (BENCH_DRY_RUN=1): source %s, config %s, out %s\n' "$prog" "$ksrc" "$config" "$out"
	[ -f "$ksrc/Makefile" ] || printf '  source: not unpacked yet\n'
	if $want_instr; then
		if [ -n "${BENCH_INSTR:-}" ]; then
			printf '  instrumented kernel: %s as it is (BENCH_INSTR)\n' "$BENCH_INSTR"
		else
			printf '  build pgo-instr in %s (%s)\n' "$ksrc/pgo-instr" "$(before "$ksrc/pgo-instr/kpgo-inputs")"
		fi
		! $want_pgo ||
			printf '  train: profile %s (%s), training mix at BENCH_TRAIN_SCALE=%s\n' "$out/train.kpgo" \
				"$(before "$out/train.kpgo")" "$train_scale_in"
	fi
	for k in "${kernels[@]}"; do
		kind=$k
		! clang_kernel "$k" || kind=clang-$ck_kind
		case $kind in
		pgo) d=$ksrc/pgo-bench what="the profile trained above" ;;
		clang-lto-pgo) d=$ksrc/$k what="the profile trained above, kpgo afdo" ;;
		clang-lto-pgo-inl) d=$ksrc/$k what="the profile trained above, kpgo afdo --inlined" ;;
		clang-lto-pgo-entry)
			if [ -n "${BENCH_ENTRY_DBG:-}" ]; then
				printf '  entry profile kernel: %s as it is (BENCH_ENTRY_DBG)\n' "$BENCH_ENTRY_DBG"
			else
				printf '  build baseline-dbg in %s (baseline with debug information; %s)\n' "$ksrc/baseline-dbg" \
					"$(before "$ksrc/baseline-dbg/kpgo-inputs")"
			fi
			printf '  entry profile: %s (%s), baseline-dbg on the training mix under blockprof\n' \
				"$out/entry/entry.afdo.txt" "$(before "$out/entry/entry.afdo.txt")"
			d=$ksrc/$k what="the profile trained above, kpgo afdo --add the entry profile"
			;;
		pgo-pkg) d=$pkg_tree what="profile $pkg_profile" ;;
		clang-lto-pgo-pkg) d=$ksrc/$k what="profile $pkg_profile, kpgo afdo with the instrumented tree's .gcno" ;;
		pgo-*)
			d=$ksrc/$k what="profile ${extra_profile[$k]}, --min-applied $min_applied_extra"
			[ -r "${extra_profile[$k]}" ] || what+=", not made yet"
			;;
		*) d=$ksrc/$k what="no profile" ;;
		esac
		! clang_kernel "$k" || what="$ck_cc, $ck_lto LTO; $what"
		printf '  build %s in %s (%s; %s)\n' "$k" "$d" "$what" "$(before "$d/kpgo-inputs")"
	done
	if [ "$train_only" = 1 ]; then
		printf '  then stop (BENCH_TRAIN_ONLY=1): no benchmark boot\n'
	else
		printf '  boots: %s rounds of %s in modes %s, mixes %s, scale %s\n' "$rounds" \
			"${#kernels[@]} kernels" "${modes[*]}" "$mixes" "$scale_in"
	fi
	exit 0
fi

logs=$out/logs
mkdir -p "$out" "$logs"
t_all=$SECONDS

# The base config of every kernel (kpgo-kbuild's --config): the small
# config by default; Debian's cloud config as kpgo plan finds it, with
# what the guest needs built in (no initramfs: virtio-pci, virtio-blk, 9p)
# after it (a later line overrides an earlier one; olddefconfig settles it)
kbuild_config=()
if [ "$config" = debian-cloud ]; then
	series=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p' "$ksrc/Makefile" | paste -sd.)
	cfg=$("$kpgo" plan --series "$series" --src "$ksrc" --config debian-cloud \
		--kconfig-dir "$top/hooks/build/kconfig" | sed -n 's/^KPGO_CONFIG_FILE=//p')
	[ -r "$cfg" ] || die "no Debian cloud config for $series ('$cfg'; install linux-config-$series)"
	{
		xz -dcf "$cfg"
		cat "$here/guest/boot.config"
	} >"$out/base.config.new"
	mv "$out/base.config.new" "$out/base.config"
	# the guest boots without an initramfs and loads no module: the
	# kernel image only (a distro config's modules are most of its build)
	kbuild_config=(--config "$out/base.config" --full-config --no-modules)
fi

# --- kernels ------------------------------------------------------------

# tree KERNEL: the build tree of a benchmark kernel.
tree() {
	case $1 in
	pgo) echo "$ksrc/pgo-bench" ;;
	pgo-pkg) echo "$pkg_tree" ;;
	*) echo "$ksrc/$1" ;;
	esac
}

release_of() {
	cat "$1/include/config/kernel.release"
}

# kbuild KERNEL [args]: one tree, built or reused; the log in logs/.
kbuild() {
	local k=$1 dir t0=$SECONDS
	shift
	dir=$(tree "$k")
	note "kernel $k in $dir (log: $logs/build-$k.log)"
	"$kbuild" --src "$ksrc" --out "$dir" --kpgo "$kpgo" --jobs "$jobs" "${kbuild_config[@]}" "$@" \
		>"$logs/build-$k.log" 2>&1 || {
		tail -5 "$logs/build-$k.log" >&2
		die "building the $k kernel failed; see $logs/build-$k.log"
	}
	note "kernel $k: $(release_of "$dir"), $((SECONDS - t0))s"
}

# The clang kernels: Clang with ThinLTO or full LTO (kpgo-kbuild
# --toolchain clang --lto), their releases end in ck_lv (-clang, ...).
set_clang_opts() {
	clang_kernel "$1" || die "'$1' is not a Clang kernel"
	clang_opts=(--toolchain clang --cc "$ck_cc" --lto "$ck_lto" --localversion "$ck_lv")
}
for c in "${clangs[@]}"; do
	command -v "$c" >/dev/null || die "'$c' not found (tests/install-deps.sh installs clang-16 and clang-19)"
done
if $want_instr; then
	if [ -n "${BENCH_INSTR:-}" ]; then
		instr=$(readlink -f "$BENCH_INSTR")
		note "instrumented kernel: $instr as it is (BENCH_INSTR)"
	else
		instr=$ksrc/pgo-instr
		kbuild pgo-instr --flavour pgo-instr
	fi
	[ -f "$instr/arch/x86/boot/bzImage" ] || die "'$instr' has no arch/x86/boot/bzImage"
	grep -qx 'CONFIG_GCOV_KERNEL=y' "$instr/.config" || die "'$instr' is not an instrumented (pgo-instr) tree"
	[ "$(dirname "$instr")" = "$ksrc" ] ||
		die "'$instr' is not directly inside '$ksrc': its profile would not match the pgo tree's source names"
fi
for k in "${kernels[@]}"; do
	case $k in
	baseline | o3) kbuild "$k" --flavour "$k" ;;
	clang*-*lto)
		set_clang_opts "$k"
		kbuild "$k" --flavour baseline "${clang_opts[@]}"
		;;
	pgo-pkg)
		[ -r "$pkg_profile" ] || die "cannot read BENCH_PKG_PROFILE '$pkg_profile'"
		kbuild "$k" --flavour pgo --profile "$pkg_profile" --min-applied 50
		;;
	clang*-*lto-pgo-pkg)
		[ -r "$pkg_profile" ] || die "cannot read BENCH_PKG_PROFILE '$pkg_profile'"
		set_clang_opts "$k"
		kbuild "$k" --flavour pgo "${clang_opts[@]}" --gcno "$instr" --profile "$pkg_profile" \
			--min-applied "$min_applied_clang"
		;;
	pgo-*)
		[ -z "${extra_profile[$k]:-}" ] ||
			kbuild "$k" --flavour pgo --profile "${extra_profile[$k]}" --min-applied "$min_applied_extra"
		;;
	esac
done
# the entry profile's kernel: baseline with debug information, or one
# built before (BENCH_ENTRY_DBG, e.g. in another checkout's source tree of
# the same release: its places are relative to its object tree)
if $want_entry; then
	if [ -n "${BENCH_ENTRY_DBG:-}" ]; then
		dbg=$(readlink -f "$BENCH_ENTRY_DBG")
		note "entry profile's kernel: $dbg as it is (BENCH_ENTRY_DBG)"
		{ [ -f "$dbg/vmlinux" ] && [ -f "$dbg/arch/x86/boot/bzImage" ]; } || die "'$dbg' has no vmlinux and bzImage"
		[ "$(release_of "$dbg")" = "$(release_of "$(tree baseline)")" ] ||
			die "'$dbg' is $(release_of "$dbg"), not baseline's $(release_of "$(tree baseline)")"
	else
		dbg=$ksrc/baseline-dbg
		kbuild baseline-dbg --flavour baseline --debug-info
	fi
fi

# --- image ----------------------------------------------------------------

disk=$("$here/guest-image.sh" --out "$image_dir" --kpgo "$kpgo" --bench "$bench" --cache "$cache" \
	--log "$logs/image.log") || die "making the guest's image failed; see $logs/image.log"
# the Debian root in it (cached by rootfs.sh: named by its inputs)
rootfs_tar=$("$top/tests/e2e/rootfs.sh" --cache "$cache" --extra "$here/guest/bench.packages" 2>>"$logs/image.log") ||
	die "tests/e2e/rootfs.sh failed; see $logs/image.log"
note "image $disk"

# --- booting ------------------------------------------------------------

# boot NAME KERNEL PARAMS [qemu args...]: the guest runs what PARAMS say
# and powers off; its KPGO-BENCH lines go to logs/NAME.txt.
boot() {
	local name=$1 kernel=$2 params=$3 rc=0 why t0=$SECONDS
	local console=$logs/$name.console
	shift 3
	# BENCH_RESUME=1: a boot of this name that ran to its end before (a run
	# that stopped later), with the same parameters (mixes, scale), is read
	# again, not repeated (check_release then checks it was of the same kernel)
	if [ "${BENCH_RESUME:-0}" = 1 ] && [ -s "$logs/$name.txt" ] && grep -qx 'done' "$logs/$name.txt" &&
		[ "$(cat "$logs/$name.params" 2>/dev/null)" = "$params" ]; then
		note "boot $name: the log of an earlier run (BENCH_RESUME=1)"
		boot_s=0
		return
	fi
	timeout "$boot_timeout" qemu-system-x86_64 "$@" -m 1024 -smp 1 \
		-display none -monitor none -serial stdio -no-reboot -nic none \
		-kernel "$kernel" \
		-append "console=ttyS0 root=/dev/vda ro init=/usr/local/lib/kpgo-bench/init panic=-1 loglevel=4 $params" \
		-drive "file=$disk,if=virtio,format=raw,snapshot=on" </dev/null >"$console" 2>&1 || rc=$?
	why=$(kpgo_qemu_outcome "$console" KPGO-BENCH: 'done' "$rc" "$boot_timeout") ||
		die "boot $name: $why (console: $console)"
	sed -n 's/^KPGO-BENCH: //p' "$console" >"$logs/$name.txt"
	printf '%s\n' "$params" >"$logs/$name.params"
	boot_s=$((SECONDS - t0))
}

# An empty initramfs, for kpgo_qemu_accel's probe.
empty_initrd() {
	[ -s "$out/empty-initrd.gz" ] ||
		printf '' | cpio -o -H newc --quiet 2>/dev/null | gzip >"$out/empty-initrd.gz"
	echo "$out/empty-initrd.gz"
}

# check_release NAME TREE: the guest ran the kernel of TREE.
check_release() {
	local want ran
	want=$(release_of "$2")
	ran=$(sed -n 's/^release //p' "$logs/$1.txt")
	[ "$ran" = "$want" ] || die "boot $1: the guest ran '$ran', not '$want'"
}

# build_id_of VMLINUX: its GNU build id.
build_id_of() {
	local id
	id=$(readelf -n "$1" | sed -n 's/^ *Build ID: //p' | head -1)
	[ -n "$id" ] || die "'$1' has no GNU build id"
	echo "$id"
}

# train_boot_id LABEL BUILD_ID [FILE...]: what the output of a boot on the
# training mix is of: the kernel (LABEL, its build id), the image's Debian
# packages, the guest's init and the sources of its programs (not the
# binaries: their debug info names the directory they were built in), the
# scale, and FILEs (what else made the output)
train_boot_id() {
	local label=$1 id=$2
	shift 2
	{
		printf '%s %s\nrootfs %s\nscale %s\n' "$label" "$id" "$(basename "$rootfs_tar")" "$train_scale"
		cat "$here/guest/init" "$here"/wl.h "$here"/wl-*.c "$@"
	} | sha256sum | cut -c1-16
}

# --- training and the pgo kernel ----------------------------------------

if $want_pgo; then
	build_id=$(build_id_of "$instr/vmlinux")
	train_id=$(train_boot_id instr "$build_id")
	if [ -s "$out/train.kpgo" ] && [ "$(cat "$out/train.inputs" 2>/dev/null)" = "$train_id" ]; then
		note "profile $out/train.kpgo (trained before on the same kernel, programs and scale)"
	else
		rm -f "$out/train.kpgo" "$out/train.inputs"
		rm -rf "$out/train"
		mkdir -p "$out/train/share"
		accel_train=$(kpgo_qemu_accel "$out" "$instr/arch/x86/boot/bzImage" "$(empty_initrd)")
		note "training: $(release_of "$instr") on the training mix ($accel_train)"
		boot train "$instr/arch/x86/boot/bzImage" "kpgo_mix=train kpgo_scale=$train_scale kpgo_gcov=1" \
			-accel "$accel_train" \
			-virtfs "local,path=$out/train/share,mount_tag=out,security_model=none"
		check_release train "$instr"
		p=$out/train/share/train.kpgo
		"$kpgo" info "$p" >"$logs/train-info.txt" 2>&1 ||
			die "the guest's profile is not valid: $(tail -1 "$logs/train-info.txt")"
		grep -qx "  KERNEL_BUILD_ID=$build_id" "$logs/train-info.txt" ||
			die "the guest's profile is not of $instr/vmlinux (build id $build_id)"
		note "training boot: ${boot_s}s, $(sed -n 's/^collected //p' "$logs/train.txt")"
		mv "$p" "$out/train.kpgo"
		printf '%s\n' "$train_id" >"$out/train.inputs"
		rm -rf "$out/train"
	fi
	if [ "$train_only" = 1 ]; then
		note "profile: $out/train.kpgo (BENCH_TRAIN_ONLY=1: no other kernel, no benchmark boot)"
		exit 0
	fi
	# The entry profile: baseline-dbg on the training mix under blockprof
	# (every kernel block and taken branch counted), llvm-profgen's
	# sample profile of it, the places of its functions
	if $want_entry; then
		entry_id=$(train_boot_id kernel "$(build_id_of "$dbg/vmlinux")" "$here/blockprof.c" \
			"$here/entry-profile.sh")
		if [ -s "$out/entry/entry.afdo.txt" ] && [ "$(cat "$out/entry/inputs" 2>/dev/null)" = "$entry_id" ]; then
			note "entry profile $out/entry/entry.afdo.txt (made before from the same kernel, programs and scale)"
		else
			rm -rf "$out/entry"
			mkdir -p "$out/entry"
			bp=$("$here/qemu-plugin.sh" --out "$top/build/qemu-plugin" --plugin blockprof 2>"$logs/qemu-plugin.log") ||
				die "building the blockprof plugin failed; see $logs/qemu-plugin.log"
			text=$(nm "$dbg/vmlinux" | awk '$3 == "_stext" { lo = $1 } $3 == "_etext" { hi = $1 } END { if (lo && hi) print lo "-" hi }')
			[ -n "$text" ] || die "'$dbg/vmlinux' has no _stext and _etext"
			note "entry profile: $(release_of "$dbg") on the training mix under blockprof (text $text)"
			boot entry-train "$dbg/arch/x86/boot/bzImage" "kpgo_mix=train kpgo_scale=$train_scale" \
				-accel tcg -plugin "$bp,out=$out/entry/blocks,text=$text"
			check_release entry-train "$dbg"
			[ -s "$out/entry/blocks" ] || die "the blockprof plugin wrote no profile ($logs/entry-train.console)"
			note "entry boot: ${boot_s}s"
			"$here/entry-profile.sh" --vmlinux "$dbg/vmlinux" --objtree "$dbg" --blocks "$out/entry/blocks" \
				--out "$out/entry" 2>"$logs/entry-profile.log" ||
				die "entry-profile.sh failed: $(tail -1 "$logs/entry-profile.log")"
			note "$(tail -1 "$logs/entry-profile.log")"
			printf '%s\n' "$entry_id" >"$out/entry/inputs"
		fi
	fi
	for k in "${kernels[@]}"; do
		case $k in
		pgo) kbuild pgo --flavour pgo --profile "$out/train.kpgo" --min-applied "$min_applied" ;;
		clang*-*lto-pgo-pkg) ;;
		clang*-*lto-pgo*)
			set_clang_opts "$k"
			extra=()
			[ "$ck_kind" != lto-pgo-inl ] || extra=(--afdo-inlined)
			[ "$ck_kind" != lto-pgo-entry ] || extra=(
				--afdo-add "$out/entry/entry.afdo.txt" --afdo-add-places "$out/entry/entry.places")
			kbuild "$k" --flavour pgo "${clang_opts[@]}" "${extra[@]}" --gcno "$instr" \
				--profile "$out/train.kpgo" --min-applied "$min_applied_clang"
			;;
		esac
	done
fi

# --- what was built -----------------------------------------------------

{
	printf 'kernel\trelease\ttree\tvmlinux text\tdata\tbss\tbzImage\tfunctions with a .cold part\tprofile\n'
	for k in "${kernels[@]}"; do
		d=$(tree "$k")
		read -r text data bss _ < <(size "$d/vmlinux" | tail -1)
		# GCC moves the parts of a function it thinks cold into FN.cold:
		# many more with a profile (its "never ran" is a strong hint)
		cold=$(nm "$d/vmlinux" | grep -c '\.cold$' || true)
		prof='none'
		if trained_kernel "$k"; then
			prof=$(sed -n 's/^verdict: //p' "$d/pgo-report")
			prof="bench-train ($out/train.kpgo): $prof"
		elif [ "$k" = pgo-pkg ] || pkg_clang_kernel "$k"; then
			prof="default (${pkg_profile#"$top"/}, sha256 $(sha256sum <"$pkg_profile" | cut -c1-12)): $(sed -n 's/^verdict: //p' "$d/pgo-report")"
		elif [ -n "${extra_profile[$k]:-}" ]; then
			prof="${k#pgo-} (${extra_profile[$k]}, sha256 $(sha256sum <"${extra_profile[$k]}" | cut -c1-12)): $(sed -n 's/^verdict: //p' "$d/pgo-report")"
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$(release_of "$d")" "${d#"$ksrc"/}" \
			"$text" "$data" "$bss" "$(stat -c %s "$d/arch/x86/boot/bzImage")" "$cold" "$prof"
	done
} >"$out/builds.tsv"

# --- the benchmark boots ------------------------------------------------

accel=$(kpgo_qemu_accel "$out" "$(tree baseline)/arch/x86/boot/bzImage" "$(empty_initrd)")
plugin=''
for mode in "${modes[@]}"; do
	[ "$mode" = cache ] || continue
	plugin=$("$here/qemu-plugin.sh" --out "$top/build/qemu-plugin" 2>"$logs/qemu-plugin.log") ||
		die "building the cache-model plugin failed; see $logs/qemu-plugin.log"
	note "cache model: $plugin (${caches[*]})"
done
results=$out/results.tsv
printf 'mode\tround\tkernel\tmix\tworkload\tops\tseconds\taccel\n' >"$results"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A boot_secs=()
for mode in "${modes[@]}"; do
	mode_rounds=$rounds mode_scale=$scale mode_scale_in=$scale_in params=''
	if [ "$mode" = icount ]; then
		qargs=(-accel tcg -icount 'shift=0,sleep=off')
		label=tcg-icount
	elif [ "$mode" = cache ]; then
		qargs=(-accel tcg -icount 'shift=0,sleep=off')
		label=tcg-icount-cachesim
		mode_rounds=$cache_rounds mode_scale=$cache_scale mode_scale_in=$cache_scale_in
		params=' kpgo_cache=1'
	else
		qargs=(-accel "$accel")
		label=$accel
	fi
	for r in $(seq "$mode_rounds"); do
		for k in "${kernels[@]}"; do
			name=$mode-$r-$k
			note "boot $name ($label, scale $mode_scale_in)"
			if [ "$mode" = cache ]; then
				plug=$plugin,out=$logs/$name.cache
				for c in "${caches[@]}"; do plug+=,$c; done
				boot "$name" "$(tree "$k")/arch/x86/boot/bzImage" \
					"kpgo_mix=$mixes kpgo_scale=$mode_scale$params" "${qargs[@]}" -plugin "$plug"
				check_release "$name" "$(tree "$k")"
				boot_secs[$mode]=$((${boot_secs[$mode]:-0} + boot_s))
				# window k of the console lies between the plugin's marks
				# 2k-1 and 2k; each program has two windows (its count and
				# twice it): per operation, the difference of the two
				# windows' counts over that of their operations
				awk -v round="$r" -v kernel="$k" -v accel="$label" -v p1="$l1_penalty" \
					-v p2="$l2_penalty" -v f="$logs/$name.cache" '
					FNR == NR {
						if ($1 == "mark" && NF == 9) { for (i = 3; i <= 9; i++) m[$2, i] = $i; nm = $2 }
						next
					}
					$1 != "window" { next }
					NF != 4 || $4 !~ /^ops=[0-9]+$/ { printf "%s: bad window line: %s\n", f, $0 > "/dev/stderr"; bad = 1; exit 1 }
					{
						w++
						if (2 * w > nm) { printf "%s: %d marks for %d windows\n", f, nm, w > "/dev/stderr"; bad = 1; exit 1 }
						for (i = 3; i <= 9; i++) d[i] = m[2 * w, i] - m[2 * w - 1, i]
						ops = substr($4, 5) + 0
						if (w % 2) { for (i = 3; i <= 9; i++) first[i] = d[i]; fops = ops; fname = $3; next }
						if ($3 != fname || ops <= fops) { printf "%s: windows %d and %d are not one program at two counts\n", f, w - 1, w > "/dev/stderr"; bad = 1; exit 1 }
						dops = ops - fops
						for (i = 3; i <= 9; i++) { v[i] = d[i] - first[i]; if (v[i] < 0) v[i] = 0 }
						cyc = v[3] + p1 * (v[5] + v[7]) + p2 * v[9]
						split("cache-insns 3 cache-l1i 5 cache-l1d 7 cache-l2 9", t, " ")
						for (j = 1; j <= 8; j += 2)
							printf "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", t[j], round, kernel, $2, $3, dops, v[t[j + 1]], accel
						printf "cache-cycles\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", round, kernel, $2, $3, dops, cyc, accel
						n++
					}
					END { if (!bad && n == 0) { printf "%s: no cache results\n", f > "/dev/stderr"; exit 1 } }
				' "$logs/$name.cache" "$logs/$name.txt" >>"$results" ||
					die "boot $name: bad cache results (console: $logs/$name.console)"
				note "boot $name: ${boot_s}s"
				continue
			fi
			boot "$name" "$(tree "$k")/arch/x86/boot/bzImage" \
				"kpgo_mix=calib,$mixes kpgo_scale=$mode_scale" "${qargs[@]}"
			check_release "$name" "$(tree "$k")"
			boot_secs[$mode]=$((${boot_secs[$mode]:-0} + boot_s))
			awk -v mode="$mode" -v round="$r" -v kernel="$k" -v accel="$label" -v f="$logs/$name.txt" '
				$1 != "result" { next }
				NF < 5 || $4 !~ /^ops=[0-9]+$/ || $5 !~ /^seconds=[0-9.]+$/ {
					printf "%s: bad result line: %s\n", f, $0 > "/dev/stderr"; bad = 1; exit 1
				}
				{ printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mode, round, kernel, $2, $3,
					substr($4, 5), substr($5, 9), accel; n++ }
				# the guest'"'"'s context switches while the program ran: in
				# icount mode, a row of the mode ctxsw (count per operation)
				mode == "icount" && $NF ~ /^ctxsw=[0-9]+$/ {
					printf "ctxsw\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", round, kernel, $2, $3,
						substr($4, 5), substr($NF, 7), accel
				}
				END { if (!bad && n == 0) { printf "%s: no results\n", f > "/dev/stderr"; exit 1 } }
			' "$logs/$name.txt" >>"$results" || die "boot $name: bad results (console: $logs/$name.console)"
			note "boot $name: ${boot_s}s"
		done
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the report -----------------------------------------------------------

per_boot=()
for mode in "${modes[@]}"; do
	n_boots=$rounds
	[ "$mode" != cache ] || n_boots=$cache_rounds
	per_boot+=("$mode $((boot_secs[$mode] / (n_boots * ${#kernels[@]})))s")
done
settings="BENCH_ROUNDS=$rounds BENCH_SCALE=$scale_in BENCH_MODES=\"${modes[*]}\" BENCH_MIXES=$mixes BENCH_KERNELS=\"$kernels_in\""
[ "${#extra_specs[@]}" -eq 0 ] || settings+=" BENCH_EXTRA_PROFILES=\"${extra_specs[*]}\" BENCH_MIN_APPLIED_EXTRA=$min_applied_extra"
[ "$config" = small ] || settings+=" BENCH_CONFIG=$config"
for mode in "${modes[@]}"; do
	[ "$mode" != cache ] ||
		settings+=" BENCH_CACHE_ROUNDS=$cache_rounds BENCH_CACHE_SCALE=$cache_scale_in BENCH_CACHES=\"${caches[*]}\" BENCH_L1_PENALTY=$l1_penalty BENCH_L2_PENALTY=$l2_penalty"
done
# the calibration loop under icount: within 2% of its instruction count,
# or the icount numbers are not instruction counts (bench-report fails
# after writing the report)
"$report_tool" --calib-insns "$("$bench/wl-micro" -t calib -x)" --calib-max-error 2 \
	--builds "$out/builds.tsv" \
	--header "command: \`$settings make bench-kernel\`" \
	--header "guest: QEMU $(qemu-system-x86_64 --version | head -1 | sed 's/.*version //'), -smp 1 -m 1024, default CPU model; wall mode under $accel" \
	--header "host: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); load average $load_start at the start, $load_end at the end" \
	--header "kernel source: $(basename "$ksrc") ($(release_of "$(tree baseline)" | sed 's/-baseline$//')), $(gcc --version | head -1)$(for c in "${clangs[@]}"; do printf '; %s: %s' "$c" "$("$c" --version | head -1)"; done)" \
	--header "seconds per boot (mean): ${per_boot[*]}; whole run $((SECONDS - t_all))s" \
	-o "$out/report.md" --svg "$out/ratios.svg" --medians "$out/medians.tsv" "$results" ||
	die "bench-report failed (the report, if written: $out/report.md)"
note "results: $results; report: $out/report.md; plot: $out/ratios.svg"
