#!/bin/bash
# Benchmark: 'kpgo collect' of a gcov directory with OBJECTS .gcda files
# (laid out like /sys/kernel/debug/gcov, .gcno links included), warm page
# cache, median of REPS runs; and the size of the archive against the raw
# .gcda bytes, for the realistic counter model and for a worst case.
#
# Data: tests/tools/gen-profile in a scratch directory under
# ${TMPDIR:-/tmp}, removed at the end (KEEP=1 keeps it). The real debugfs
# builds each file on read() (seq_file over the kernel's counters), so it is
# slower or faster than a page-cached file system; this cannot be measured
# here.
#
# Settings (environment), defaults for the full-size run:
#   OBJECTS=10000     .gcda files
#   FUNCTIONS=, COUNTERS=   means per object / function (gen-profile defaults)
#   SEED=1, RUN=0     which synthetic build and run
#   REPS=5            timed runs (median reported), after one untimed warm-up
#   REFERENCE=1       also compress the same files with 'tar | xz -9' and
#                     'tar | zstd -19' as a yardstick for the ratio (slow)
#   KPGO=build/kpgo, KPGO_TESTS_BIN=build/tests
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
KPGO=${KPGO:-$top/build/kpgo}
KPGO_TESTS_BIN=${KPGO_TESTS_BIN:-$top/build/tests}
OBJECTS=${OBJECTS:-10000}
FUNCTIONS=${FUNCTIONS:-}
COUNTERS=${COUNTERS:-}
SEED=${SEED:-1}
RUN=${RUN:-0}
REPS=${REPS:-5}
REFERENCE=${REFERENCE:-1}
GEN=$KPGO_TESTS_BIN/gen-profile
TIME=/usr/bin/time
BENCH=bench-collect
# shellcheck source=tests/bench/bench-lib.sh
. "$top/tests/bench/bench-lib.sh"

need_built "$KPGO" "$GEN" "$TIME"
[ "$REPS" -ge 1 ] || die "REPS must be at least 1"
bench_scratch bench-collect

gcda_bytes() { find "$1" -name '*.gcda' -printf '%s\n' | awk '{ s += $1 } END { print s }'; }

bench_machine
echo "kpgo: $("$KPGO" --version); $(zstd --version)"
load_start=$(load)
echo "load average at start: $load_start"

gen_opts=(-s "$SEED" -r "$RUN" -n "$OBJECTS")
if [ -n "$FUNCTIONS" ]; then gen_opts+=(-f "$FUNCTIONS"); fi
if [ -n "$COUNTERS" ]; then gen_opts+=(-c "$COUNTERS"); fi

collect() { # DIR OUT
    "$KPGO" collect -q --gcov-dir "$1" --kernel-release 6.1.0-bench --build-id 0b5eed \
        -o "$2"
}

log "generating $OBJECTS objects"
"$GEN" "${gen_opts[@]}" -o "$W/gcov" >"$W/shape.txt"
"$GEN" "${gen_opts[@]}" --values random -q -o "$W/gcov-random"
n_files=$(find "$W/gcov" -name '*.gcda' | wc -l)
n_links=$(find "$W/gcov" -name '*.gcno' -type l | wc -l)
raw=$(gcda_bytes "$W/gcov")
raw_random=$(gcda_bytes "$W/gcov-random")
read -r _ _ _ n_fns _ n_ctrs _ _ _ max _ zero <"$W/shape.txt"
sync

log "kpgo collect: 1 warm-up + $REPS runs (load $(load))"
collect "$W/gcov" "$W/out.kpgo"
for ((r = 0; r < REPS; r++)); do
    rm -f "$W/out.kpgo"
    "$TIME" -f '%e %U %S %M' -o "$W/time.tmp" "$KPGO" collect -q --gcov-dir "$W/gcov" \
        --kernel-release 6.1.0-bench --build-id 0b5eed -o "$W/out.kpgo" ||
        die "kpgo collect failed"
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/time.tmp" >>"$W/collect.times"
done
load_after=$(load)
archive=$(stat -c %s "$W/out.kpgo")
collect "$W/gcov-random" "$W/random.kpgo"
archive_random=$(stat -c %s "$W/random.kpgo")
# The archive holds exactly what was read: the totals agree.
"$KPGO" info "$W/out.kpgo" | grep -q "OBJECTS=$n_files\$" ||
    die "the archive does not list $n_files objects"

if [ "$REFERENCE" = 1 ]; then
    log "reference compressors (tar of the .gcda files)"
    (cd "$W/gcov" && find . -name '*.gcda' | sort | tar -cf "$W/ref.tar" -T -)
    zstd -q -19 -T1 -c "$W/ref.tar" >"$W/ref.tar.zst"
    xz -9 -T1 -c "$W/ref.tar" >"$W/ref.tar.xz"
fi

read -r med lo hi < <(cut -d' ' -f1 "$W/collect.times" | stats)
read -r cpu _ _ < <(cut -d' ' -f2 "$W/collect.times" | stats)
rss=$(cut -d' ' -f3 "$W/collect.times" | sort -n | tail -1)

echo
echo "== data"
printf '%-36s %s .gcda files (+ %s .gcno links), %s functions, %s counters\n' "gcov directory" \
    "$n_files" "$n_links" "$n_fns" "$n_ctrs"
printf '%-36s %s zero, largest %s\n' "counters" "$zero" "$max"
echo
echo "== kpgo collect (median of $REPS runs, warm cache)"
printf '%-36s %s s [%s-%s], cpu %s s, peak RSS %s MiB (target: under 2 s)\n' "time" "$med" \
    "$lo" "$hi" "$cpu" "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
printf '%-36s %s files/s\n' "rate" "$(awk -v n="$n_files" -v t="$med" 'BEGIN { printf "%.0f", n / t }')"
echo
echo "== size (target: archive at most 1/10 of the raw bytes)"
printf '%-36s %s bytes raw, %s bytes archive: %s\n' "flow model (default)" "$raw" "$archive" \
    "$(ratio "$raw" "$archive")"
printf '%-36s %s bytes raw, %s bytes archive: %s\n' "random model (worst case)" "$raw_random" \
    "$archive_random" "$(ratio "$raw_random" "$archive_random")"
if [ "$REFERENCE" = 1 ]; then
    printf '%-36s %s bytes: %s\n' "reference: tar | zstd -19" "$(stat -c %s "$W/ref.tar.zst")" \
        "$(ratio "$raw" "$(stat -c %s "$W/ref.tar.zst")")"
    printf '%-36s %s bytes: %s\n' "reference: tar | xz -9" "$(stat -c %s "$W/ref.tar.xz")" \
        "$(ratio "$raw" "$(stat -c %s "$W/ref.tar.xz")")"
fi
# Bytes no lossless coding can remove: per function the ident (31 bits, a
# hash in GCC 12), lineno_checksum (32 bits, a hash) and, for the half of
# the functions whose control flow is not shared, cfg_checksum (32 bits).
printf '%-36s %s bytes: %s\n' "function hashes alone (lower bound)" \
    "$(awk -v f="$n_fns" 'BEGIN { printf "%.0f", f * (31 + 32 + 16) / 8 }')" \
    "$(ratio "$raw" "$(awk -v f="$n_fns" 'BEGIN { printf "%.0f", f * (31 + 32 + 16) / 8 }')")"
printf '%-36s start %s; after %s\n' "load average" "$load_start" "$load_after"
