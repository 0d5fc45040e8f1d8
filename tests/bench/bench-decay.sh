#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-decay.sh: how much of a profile survives newer kernel releases
# (`make bench-decay`; issue 15). Real Debian releases of linux-source-6.1,
# and one of linux-source-6.12 for the jump of series: each release's
# instrumented kernel trained into a profile, the newest release built with
# every older release's profile, and all of them measured against the
# newest release's own baseline and own fresh profile. Glue around
# tests/kernel/ksrc-unpack.sh (the sources), tests/bench/bench-kernel.sh
# (builds, training, boots: the same kernels, training mix and icount
# boots as `make bench-kernel`), kpgo report --json (what applied) and
# decay-report (tests/tools/decay-report.c: the table and the plot).
#
#   sources  each release's linux-source-SERIES from the Debian archive
#            (apt-get download linux-source-6.1=VERSION), unpacked in
#            DECAY_OUT/src/VERSION/linux-source-SERIES with its changelog
#            (in directory names a version's '~' is '_')
#   profiles for each 6.1 release but the newest, bench-kernel.sh
#            BENCH_TRAIN_ONLY=1: its instrumented kernel (pgo-instr) built
#            and booted on the training mix, the profile collected into
#            DECAY_OUT/VERSION/train.kpgo
#   newest   bench-kernel.sh on the newest 6.1 release: baseline, pgo (its
#            own fresh profile, trained as above) and one pgo-VERSION kernel
#            per older release's profile (BENCH_EXTRA_PROFILES), booted
#            DECAY_ROUNDS times each in mode icount on DECAY_MIXES
#   jump     the same on the 6.12 release: baseline, pgo (its own profile)
#            and pgo-VERSION with the newest (DECAY_JUMP_PROFILES) 6.1
#            profile
#   report   kpgo report --json of every pgo kernel (--min-applied 0: a
#            stale profile's count is what is measured), each release's date
#            (its changelog), then decay-report: DECAY_OUT/decay.md,
#            decay.tsv, decay.svg, and pairs.tsv (its input)
#
# A kernel, profile or boot made before from the same inputs is reused
# (kpgo-kbuild's and bench-kernel's own checks; BENCH_RESUME=1 reuses
# finished boots), so a run that stopped can be started again.
#
# Settings (environment; `make bench-decay` passes KPGO, KPGO_BENCH_BIN,
# BENCH_REPORT, DECAY_REPORT and JOBS):
#   DECAY_RELEASES="6.1.170-3 6.1.176-1 6.1.187-1 6.1.190-1 6.1.192-3"
#                        linux-source-6.1 versions (apt-cache madison
#                        linux-source-6.1); the newest is built with the
#                        profiles of all the others (one version alone,
#                        with DECAY_JUMP: only its profile, for the jump)
#   DECAY_JUMP=6.12.118-1~deb12u1   a linux-source-6.12 version built with a
#                        6.1 profile; empty: no jump of series
#   DECAY_JUMP_PROFILES=newest   which 6.1 profiles the 6.12 kernel is built
#                        with: newest, oldest or all
#   DECAY_ROUNDS=3       icount boots of each kernel
#   DECAY_MIXES=train,heldout   the mixes of those boots
#   DECAY_SCALE=1        their operation counts (BENCH_SCALE)
#   DECAY_CONFIG=small   small or debian-cloud (BENCH_CONFIG; make's
#                        KPGO_CONFIG)
#   DECAY_OUT=build/bench-decay/CONFIG
#   BENCH_DRY_RUN=1      print the plan (sources, kernels, profiles; what is
#                        there already) and stop
#   BENCH_RESUME, BENCH_TIMEOUT, BENCH_TRAIN_SCALE, BENCH_CACHE, KPGO_ACCEL,
#   JOBS                 as for bench-kernel.sh
#
# Root only (bench-kernel.sh's guest image).

set -euo pipefail
prog=bench-decay.sh
here=$(dirname "$(readlink -f "$0")")
top=$(cd "$here/../.." && pwd)

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

read -r -a releases <<<"${DECAY_RELEASES:-6.1.170-3 6.1.176-1 6.1.187-1 6.1.190-1 6.1.192-3}"
jump=${DECAY_JUMP-6.12.118-1~deb12u1}
jump_profiles=${DECAY_JUMP_PROFILES:-newest}
rounds=${DECAY_ROUNDS:-3}
mixes=${DECAY_MIXES:-train,heldout}
scale=${DECAY_SCALE:-1}
config=${DECAY_CONFIG:-small}
out=$(readlink -m "${DECAY_OUT:-$top/build/bench-decay/$config}")
dry_run=${BENCH_DRY_RUN:-0}
kpgo=${KPGO:-$top/build/kpgo}
report_tool=${DECAY_REPORT:-$top/build/tests/decay-report}

# one 6.1 release is enough for the jump alone (its profile on 6.12)
[ "${#releases[@]}" -ge 2 ] || { [ "${#releases[@]}" -eq 1 ] && [ -n "$jump" ]; } ||
	die "DECAY_RELEASES must name at least two linux-source-6.1 versions (or one, with DECAY_JUMP)"
for v in "${releases[@]}" ${jump:+"$jump"}; do
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+-[0-9A-Za-z.+~]+$ ]] || die "bad version '$v' (6.1.170-3)"
done
for v in "${releases[@]}"; do
	[[ $v == 6.1.* ]] || die "'$v' in DECAY_RELEASES is not a 6.1 version"
done
[ -z "$jump" ] || [[ $jump == 6.12.* ]] || die "DECAY_JUMP '$jump' is not a 6.12 version"
case $jump_profiles in newest | oldest | all) ;; *) die "bad DECAY_JUMP_PROFILES '$jump_profiles' (newest, oldest or all)" ;; esac
case $config in small | debian-cloud) ;; *) die "bad DECAY_CONFIG '$config' (small or debian-cloud)" ;; esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "bad DECAY_ROUNDS '$rounds'"
[[ $dry_run =~ ^[01]$ ]] || die "bad BENCH_DRY_RUN '$dry_run' (0 or 1)"
[ -x "$kpgo" ] || die "no kpgo at '$kpgo' (make)"
[ -x "$report_tool" ] || die "no decay-report at '$report_tool' (make tools)"

# oldest to newest (Debian's order of versions); the newest is built with
# the others' profiles
mapfile -t releases < <(printf '%s\n' "${releases[@]}" | sort -u -V)
for ((i = 1; i < ${#releases[@]}; i++)); do
	dpkg --compare-versions "${releases[i - 1]}" lt "${releases[i]}" ||
		die "cannot order '${releases[i - 1]}' and '${releases[i]}'"
done
newest=${releases[-1]}
older=("${releases[@]:0:${#releases[@]}-1}")

series_of() { echo "${1%.*-*}"; }
# a release's directories: its version, '~' as '_' (6.12.118-1_deb12u1)
dir_of() { echo "${1//\~/_}"; }
ksrc_of() { echo "$out/src/$(dir_of "$1")/linux-source-$(series_of "$1")"; }

mkdir -p "$out"
t_all=$SECONDS
# a dry run's plan, in order, on stdout (bench-kernel.sh's and these notes)
[ "$dry_run" = 0 ] || exec 2>&1

# --- sources ------------------------------------------------------------

for v in "${releases[@]}" ${jump:+"$jump"}; do
	t=$(ksrc_of "$v")
	if [ "$dry_run" = 1 ]; then
		if [ -f "$t/Makefile" ]; then
			note "source $v: $t (unpacked before: $(cat "$t/.kpgo-source-version" 2>/dev/null || echo '?'))"
		else
			note "source $v: to download and unpack into $t"
		fi
		continue
	fi
	note "source $v"
	"$top/tests/kernel/ksrc-unpack.sh" --series "$(series_of "$v")" --version "$v" \
		--dest "$out/src/$(dir_of "$v")" --debs "$top/build/bench-decay/debs" >/dev/null ||
		die "cannot unpack linux-source-$(series_of "$v") $v"
done

# bench RELEASE [VAR=VALUE...]: bench-kernel.sh on RELEASE's tree, its
# output in DECAY_OUT/RELEASE; the guest's image shared by all.
bench() {
	local v=$1 t0=$SECONDS
	shift
	note "bench-kernel.sh on $v ($*)"
	env "$@" KPGO_KSRC="$(ksrc_of "$v")" BENCH_OUT="$out/$(dir_of "$v")" BENCH_IMAGE_DIR="$out/image" \
		BENCH_CONFIG="$config" "$here/bench-kernel.sh" ||
		die "bench-kernel.sh on $v failed (its logs: $out/$(dir_of "$v")/logs)"
	[ "$dry_run" = 1 ] || note "bench-kernel.sh on $v: $((SECONDS - t0))s"
}

# The settings of a measuring run: icount only (instructions per
# operation; independent of the host's load), baseline and the fresh pgo
boots=(BENCH_KERNELS="baseline pgo" BENCH_MODES=icount BENCH_MIXES="$mixes"
	BENCH_ROUNDS="$rounds" BENCH_SCALE="$scale")

# --- profiles of the older releases ---------------------------------------

for v in "${older[@]}"; do
	bench "$v" BENCH_TRAIN_ONLY=1
done

# --- the newest release with every profile ----------------------------------

# profile_of RELEASE: where its training profile is
profile_of() { echo "$out/$(dir_of "$1")/train.kpgo"; }

# measure RELEASE PROFILE_RELEASE...: RELEASE's baseline, fresh pgo and one
# pgo-PROFILE_RELEASE kernel per other release's profile, booted
measure() {
	local v=$1 p extras=()
	shift
	for p in "$@"; do
		extras+=("$p=$(profile_of "$p")")
	done
	bench "$v" "${boots[@]}" BENCH_EXTRA_PROFILES="${extras[*]}"
}

# a single 6.1 release (DECAY_JUMP's only): its profile, no boots of it
if [ "${#older[@]}" -gt 0 ]; then
	measure "$newest" "${older[@]}"
else
	bench "$newest" BENCH_TRAIN_ONLY=1
fi

# --- the jump of series -----------------------------------------------------

jump_from=()
if [ -n "$jump" ]; then
	case $jump_profiles in
	newest) jump_from=("$newest") ;;
	oldest) jump_from=("${releases[0]}") ;;
	all) jump_from=("${releases[@]}") ;;
	esac
	measure "$jump" "${jump_from[@]}"
fi

if [ "$dry_run" = 1 ]; then
	note "then: kpgo report --json of each pgo kernel, and decay-report into $out/decay.md, decay.tsv, decay.svg"
	exit 0
fi

# --- what applied, and the table ----------------------------------------

# date RELEASE: its changelog's, in seconds since the epoch
date_of() {
	dpkg-parsechangelog -l "$(ksrc_of "$1")/.kpgo-source-changelog" -STimestamp
}

# pair PROFILE_RELEASE BUILT_RELEASE KERNEL: a line of pairs.tsv, with the
# counts of kpgo report --json for KERNEL's tree of BUILT_RELEASE
pair() {
	local p=$1 b=$2 k=$3 tree json prof
	tree=$(ksrc_of "$b")/$k
	[ "$k" != pgo ] || tree=$(ksrc_of "$b")/pgo-bench
	prof=$(profile_of "$p")
	json=$out/reports/$(dir_of "$b")--$k.json
	"$kpgo" report --profile "$prof" --objtree "$tree" --build-log "$tree/kpgo-build.log" \
		--stage-summary "$tree/kpgo-stage.json" --min-applied 0 --json -q >"$json" ||
		die "kpgo report on $tree failed"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$(date_of "$p")" "$b" "$(date_of "$b")" "$k" \
		"$out/$(dir_of "$b")/medians.tsv" "$json"
}

mkdir -p "$out/reports"
{
	printf 'profile\tprofile_date\tbuilt\tbuilt_date\tkernel\tmedians\treport\n'
	for v in "${older[@]}"; do
		pair "$v" "$newest" "pgo-$v"
	done
	[ "${#older[@]}" -eq 0 ] || pair "$newest" "$newest" pgo
	for v in "${jump_from[@]}"; do
		pair "$v" "$jump" "pgo-$v"
	done
	[ -z "$jump" ] || pair "$jump" "$jump" pgo
} >"$out/pairs.tsv"

settings="DECAY_RELEASES=\"${releases[*]}\" DECAY_JUMP=$jump DECAY_JUMP_PROFILES=$jump_profiles DECAY_ROUNDS=$rounds DECAY_MIXES=$mixes DECAY_SCALE=$scale"
"$report_tool" --header "command: \`make bench-decay KPGO_CONFIG=$config $settings\`" \
	--header "kpgo: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown); $(gcc --version | head -1); QEMU $(qemu-system-x86_64 --version | head -1 | sed 's/.*version //'), -icount shift=0, -smp 1 -m 1024" \
	--header "host: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); whole run $((SECONDS - t_all))s" \
	--header "config: $config; each release's own baseline and fresh profile: $out/RELEASE/report.md" \
	-o "$out/decay.md" --tsv "$out/decay.tsv" --svg "$out/decay.svg" "$out/pairs.tsv" ||
	die "decay-report failed (its input: $out/pairs.tsv)"
note "table: $out/decay.md; numbers: $out/decay.tsv; plot: $out/decay.svg"
