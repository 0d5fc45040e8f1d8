#!/bin/bash
# Benchmark: merge PROFILES kernel-sized profiles with one 'kpgo merge' and
# with chained 'gcov-tool merge -w 1,1' (it merges two directories at a
# time: PROFILES-1 steps), check that both give the same counters, and
# report times, their ratio and kpgo's peak memory for several input counts.
#
# Data: tests/tools/gen-profile, one build (SEED), runs 0..PROFILES-1, each
# a directory like /sys/kernel/debug/gcov ('kpgo collect' turns it into an
# archive; gcov-tool reads the directories). Everything lives in a scratch
# directory under ${TMPDIR:-/tmp} that is removed at the end (KEEP=1 keeps it).
#
# Settings (environment); the defaults run in about 15-20 minutes on 2 cores:
#   PROFILES=100      profiles to merge
#   OBJECTS=15000     .gcda files per profile (Debian 6.1 amd64: 13,522)
#   FUNCTIONS=, COUNTERS=   means per object / function (gen-profile defaults)
#   SEED=1            the synthetic kernel build
#   REPS=3            timed runs of each kpgo merge (median reported)
#   GT_REPS=3         runs of the whole gcov-tool chain (median reported)
#   GT_STEPS=10       chain steps to time. The full chain is PROFILES-1 (99)
#                     steps: GT_STEPS=99 measures all of it, but takes 25-45
#                     minutes per run here (2 hours with GT_REPS=3). With
#                     fewer steps the chain total is EXTRAPOLATED (the step
#                     time times PROFILES-1) and the report says so: every
#                     step merges two profiles of the same size, and the full
#                     measurement (docs/BENCHMARKS.md) found the first and
#                     last tenth of the steps equally fast. The agreement
#                     check then compares the chain's result with kpgo's
#                     merge of the same GT_STEPS+1 profiles.
#   RSS_AT="10 50"    further input counts to run kpgo merge on (memory growth)
#   SAMPLE=25         objects also compared with gcov-dump (GCC's own reader)
#   JOBS=$(nproc)     parallel jobs for generating the data (not timed)
#   KPGO=build/kpgo, KPGO_TESTS_BIN=build/tests (gen-profile, gcda-diff)
#   COMPARE=          another kpgo binary (say, a build of the previous
#                     commit) to time as well, on the same archives, its runs
#                     alternating with KPGO's; every pair of merges must give
#                     the same bytes (sha256), else the script fails
#
# Times are wall-clock seconds from /usr/bin/time, with user+system CPU
# seconds next to them; peak memory is its maximum resident set size.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
KPGO=${KPGO:-$top/build/kpgo}
KPGO_TESTS_BIN=${KPGO_TESTS_BIN:-$top/build/tests}
PROFILES=${PROFILES:-100}
OBJECTS=${OBJECTS:-15000}
FUNCTIONS=${FUNCTIONS:-}
COUNTERS=${COUNTERS:-}
SEED=${SEED:-1}
REPS=${REPS:-3}
GT_REPS=${GT_REPS:-3}
GT_STEPS=${GT_STEPS:-10}
RSS_AT=${RSS_AT:-10 50}
SAMPLE=${SAMPLE:-25}
JOBS=${JOBS:-$(nproc)}
ROOT=/build/linux-6.1
GEN=$KPGO_TESTS_BIN/gen-profile
GCDA_DIFF=$KPGO_TESTS_BIN/gcda-diff
TIME=/usr/bin/time
BENCH=bench-merge
# shellcheck source=tests/bench/bench-lib.sh
. "$top/tests/bench/bench-lib.sh"

COMPARE=${COMPARE:-}
need_built "$KPGO" "$GEN" "$GCDA_DIFF" "$TIME" ${COMPARE:+"$COMPARE"}
need_cmd gcov-tool gcov-dump tar zstd
[ "$PROFILES" -ge 2 ] || die "PROFILES must be at least 2"
[ "$GT_STEPS" -le $((PROFILES - 1)) ] || GT_STEPS=$((PROFILES - 1))
[ "$GT_STEPS" -ge 1 ] || die "GT_STEPS must be at least 1"

bench_scratch bench-merge

# timed OUTFILE CMD...: runs CMD, appends "wall cpu maxrss_kb" to OUTFILE
timed() {
    local out=$1
    shift
    "$TIME" -f '%e %U %S %M' -o "$W/time.tmp" "$@" || die "failed: $*"
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/time.tmp" >>"$out"
}

bench_machine
echo "$(gcov-tool --version | head -1); kpgo: $("$KPGO" --version)"
[ -z "$COMPARE" ] || echo "compared with: $COMPARE ($("$COMPARE" --version))"
load_start=$(load)
echo "load average at start: $load_start"

# --- data -----------------------------------------------------------------
gen_opts=(-s "$SEED" -n "$OBJECTS" --root "$ROOT" --no-gcno)
if [ -n "$FUNCTIONS" ]; then gen_opts+=(-f "$FUNCTIONS"); fi
if [ -n "$COUNTERS" ]; then gen_opts+=(-c "$COUNTERS"); fi

mkdir -p "$W/raw" "$W/kp"
"$GEN" "${gen_opts[@]}" -r 0 -o "$W/raw/0" >"$W/shape.txt"
need_kb=$(($(du -sk "$W/raw/0" | cut -f1) * (GT_STEPS + 5) * 11 / 10))
avail_kb=$(df -k --output=avail "$W" | tail -1)
[ "$avail_kb" -gt "$need_kb" ] ||
    die "need about $((need_kb / 1048576)) GiB in $W, $((avail_kb / 1048576)) GiB free"

log "generating $PROFILES profiles of $OBJECTS objects ($JOBS jobs)"
# gcov-tool reads directories: keep those of runs 0..GT_STEPS, only the
# archives of the others.
export GEN KPGO W GT_STEPS
# shellcheck disable=SC2016 # expanded by the inner bash
seq 0 $((PROFILES - 1)) | xargs -P "$JOBS" -I{} bash -c '
    set -e
    r=$1
    shift
    [ -d "$W/raw/$r" ] || "$GEN" -q "$@" -r "$r" -o "$W/raw/$r"
    "$KPGO" collect -q --gcov-dir "$W/raw/$r" --kernel-release 6.1.0-bench \
        --build-id 0b5eed --workload "run$r" -o "$W/kp/$r.kpgo"
    [ "$r" -le "$GT_STEPS" ] || rm -rf "$W/raw/$r"' _ {} "${gen_opts[@]}"
sync
raw_bytes=$(find "$W/raw/0" -name '*.gcda' -printf '%s\n' | awk '{ s += $1 } END { print s }')
kp_bytes=$(stat -c %s "$W/kp/0.kpgo")
read -r _ n_objs _ n_fns _ n_ctrs _ _ _ max _ zero <"$W/shape.txt"
log "data ready"

inputs() { # the first $1 archives
    local i
    for ((i = 0; i < $1; i++)); do echo "$W/kp/$i.kpgo"; done
}

# --- kpgo merge -------------------------------------------------------------
counts=()
for n in $RSS_AT; do
    [ "$n" -lt "$PROFILES" ] && counts+=("$n")
done
counts+=("$PROFILES")
for n in "${counts[@]}"; do
    log "kpgo merge of $n profiles, $REPS runs (load $(load))"
    mapfile -t in < <(inputs "$n")
    for ((r = 0; r < REPS; r++)); do
        rm -f "$W/kpgo-$n.kpgo"
        timed "$W/kpgo-$n.times" "$KPGO" merge -q -o "$W/kpgo-$n.kpgo" "${in[@]}"
        [ -n "$COMPARE" ] || continue
        rm -f "$W/cmp-$n.kpgo"
        timed "$W/cmp-$n.times" "$COMPARE" merge -q -o "$W/cmp-$n.kpgo" "${in[@]}"
        a=$(sha256sum <"$W/kpgo-$n.kpgo") b=$(sha256sum <"$W/cmp-$n.kpgo")
        [ "$a" = "$b" ] || die "$n inputs: '$KPGO' and '$COMPARE' wrote different archives"
        echo "${a%% *}" >>"$W/cmp-$n.sha256"
    done
done
load_after_kpgo=$(load)

# --- chained gcov-tool merge ------------------------------------------------
# Step i merges the result so far with run i: gcov-tool merge -w 1,1 A B -o C.
# Only the gcov-tool commands are timed; removing the previous step's
# directory is not.
for ((rep = 1; rep <= GT_REPS; rep++)); do
    log "gcov-tool chain, run $rep of $GT_REPS: $GT_STEPS steps (load $(load))"
    acc=$W/raw/0$ROOT
    for ((i = 1; i <= GT_STEPS; i++)); do
        out=$W/gt/$rep-$i
        mkdir -p "$W/gt"
        timed "$W/gt-$rep.steps" gcov-tool merge -w 1,1 -o "$out" "$acc" "$W/raw/$i$ROOT"
        [ "$i" -gt 1 ] && rm -rf "$acc"
        acc=$out
    done
    awk '{ w += $1; c += $2 } END { printf "%.2f %.2f\n", w, c }' "$W/gt-$rep.steps" \
        >>"$W/gt.totals"
    if [ "$rep" -lt "$GT_REPS" ]; then
        rm -rf "$acc"
    else
        gt_final=$acc
    fi
done
load_after_gt=$(load)

# --- same counters? ---------------------------------------------------------
log "checking kpgo's result against gcov-tool's"
if [ "$GT_STEPS" -eq $((PROFILES - 1)) ]; then
    check=$W/kpgo-$PROFILES.kpgo
else
    mapfile -t in < <(inputs $((GT_STEPS + 1)))
    check=$W/kpgo-check.kpgo
    "$KPGO" merge -q -o "$check" "${in[@]}"
fi
mkdir "$W/x"
tar --zstd -xf "$check" -C "$W/x"
diff_line=$("$GCDA_DIFF" "$gt_final" "$W/x/gcda" 2>"$W/diff.err") ||
    { cat "$W/diff.err" >&2; die "kpgo and gcov-tool disagree: $diff_line"; }

# Independently of kpgo's reader: GCC's gcov-dump on a sample of objects,
# counters only (gcov-tool adds a summary record, the kernel layout has none).
counters() {
    gcov-dump -l "$1" | sed -n 's/^[^:]*:[[:space:]]*//p' |
        grep -E '^(01000000|[0-9]+: )' | sed -e 's/lineno_checksum.*//' -e 's/ *$//'
}
mapfile -t all < <(cd "$gt_final" && find . -name '*.gcda' | sort)
step=$(((${#all[@]} + SAMPLE - 1) / SAMPLE))
dumped=0 dumped_ctrs=0
for ((k = 0; k < ${#all[@]}; k += step)); do
    f=${all[$k]#./}
    diff <(counters "$gt_final/$f") <(counters "$W/x/gcda/$f") >/dev/null ||
        die "gcov-dump shows different counters for '$f'"
    dumped=$((dumped + 1))
    dumped_ctrs=$((dumped_ctrs + $(counters "$gt_final/$f" | grep -v '^01000000' |
        awk '{ n += NF - 1 } END { print n + 0 }')))
done

# --- report -----------------------------------------------------------------
read -r kp_med _ _ < <(cut -d' ' -f1 "$W/kpgo-$PROFILES.times" | stats)
read -r kp_cpu _ _ < <(cut -d' ' -f2 "$W/kpgo-$PROFILES.times" | stats)
read -r gt_med gt_min gt_max < <(cut -d' ' -f1 "$W/gt.totals" | stats)
read -r gt_cpu _ _ < <(cut -d' ' -f2 "$W/gt.totals" | stats)
read -r st_med st_min st_max < <(cat "$W"/gt-*.steps | cut -d' ' -f1 | stats)
read -r st_rss _ _ < <(cat "$W"/gt-*.steps | cut -d' ' -f3 | stats)
# first and last tenth of the steps, to see whether a step's cost is constant
tenth=$(((GT_STEPS + 9) / 10))
read -r st_first _ _ < <(for f in "$W"/gt-*.steps; do head -n "$tenth" "$f"; done | cut -d' ' -f1 | stats)
read -r st_last _ _ < <(for f in "$W"/gt-*.steps; do tail -n "$tenth" "$f"; done | cut -d' ' -f1 | stats)
scale=1 note=""
if [ "$GT_STEPS" -lt $((PROFILES - 1)) ]; then
    scale=$(awk -v a=$((PROFILES - 1)) -v b="$GT_STEPS" 'BEGIN { print a / b }')
    note=" (EXTRAPOLATED from $GT_STEPS of $((PROFILES - 1)) steps)"
fi
gt_med_full=$(awk -v t="$gt_med" -v s="$scale" 'BEGIN { printf "%.2f", t * s }')
gt_cpu_full=$(awk -v t="$gt_cpu" -v s="$scale" 'BEGIN { printf "%.2f", t * s }')

echo
echo "== data (one profile; all $PROFILES are runs of the same build)"
printf '%-34s %s\n' "objects / functions / counters" "$n_objs / $n_fns / $n_ctrs"
printf '%-34s %s (%s zero), largest %s\n' "counters" "$n_ctrs" "$zero" "$max"
printf '%-34s %s bytes raw, %s bytes as .kpgo\n' "size" "$raw_bytes" "$kp_bytes"
merge_table() { # PREFIX: the kpgo-N.times or cmp-N.times files
    local n m lo hi c rss
    printf '%-8s %-24s %-8s %s\n' inputs wall cpu max-RSS
    for n in "${counts[@]}"; do
        read -r m lo hi < <(cut -d' ' -f1 "$W/$1-$n.times" | stats)
        read -r c _ _ < <(cut -d' ' -f2 "$W/$1-$n.times" | stats)
        rss=$(cut -d' ' -f3 "$W/$1-$n.times" | sort -n | tail -1)
        printf '%-8s %-24s %-8s %s MiB\n' "$n" "$m [$lo-$hi]" "$c" \
            "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
    done
}
echo
echo "== kpgo merge (median of $REPS runs; wall s [min-max], cpu s, peak RSS)"
merge_table kpgo
if [ -n "$COMPARE" ]; then
    echo
    echo "== $COMPARE merge, the same archives, runs alternating with the above"
    merge_table cmp
    for n in "${counts[@]}"; do
        printf '%s inputs: %s pairs of merges, the same bytes (sha256 %s)\n' "$n" \
            "$(wc -l <"$W/cmp-$n.sha256")" "$(sort -u "$W/cmp-$n.sha256" | head -c 16)..."
    done
fi
echo
echo "== gcov-tool merge -w 1,1, chained: $GT_STEPS steps, $GT_REPS runs$note"
printf '%-34s %s s [%s-%s], cpu %s s\n' "chain total (median of runs)" "$gt_med" "$gt_min" \
    "$gt_max" "$gt_cpu"
printf '%-34s %s s [%s-%s], peak RSS %s MiB\n' "one step (median of all)" "$st_med" "$st_min" \
    "$st_max" "$(awk -v k="$st_rss" 'BEGIN { printf "%.1f", k / 1024 }')"
printf '%-34s first tenth %s s, last tenth %s s\n' "one step, median" "$st_first" "$st_last"
echo
echo "== result"
printf '%-34s %s s vs %s s%s\n' "$PROFILES profiles: kpgo vs gcov-tool" "$kp_med" \
    "$gt_med_full" "$note"
printf '%-34s %sx wall, %sx cpu (target: at least 10x)\n' "speed-up" \
    "$(awk -v a="$gt_med_full" -v b="$kp_med" 'BEGIN { printf "%.1f", a / b }')" \
    "$(awk -v a="$gt_cpu_full" -v b="$kp_cpu" 'BEGIN { printf "%.1f", a / b }')"
printf '%-34s %s\n' "counters (gcda-diff, all objects)" "$diff_line"
printf '%-34s %s objects, %s counters: identical\n' "counters (gcov-dump, sample)" \
    "$dumped" "$dumped_ctrs"
printf '%-34s start %s; after kpgo %s; after gcov-tool %s\n' "load average" \
    "$load_start" "$load_after_kpgo" "$load_after_gt"
