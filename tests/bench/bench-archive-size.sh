#!/bin/bash
# Benchmark: how small can a lossless profile archive get?
#
#   tests/bench/bench-archive-size.sh [REAL.kpgo...]
#
# For a synthetic, kernel-sized profile (tests/tools/gen-profile, collected
# with 'kpgo collect' as bench-collect.sh does) and for every archive given
# as an argument, reports:
#   - the raw payload (the .gcda bytes) and the archive kpgo writes now
#     (an argument is written again with 'kpgo merge -o', one input);
#   - the best generic compressors on the same tar (zstd -19 --long, xz -9e);
#   - the payload split into streams by tests/tools/payload-streams (names,
#     structure, function identity, counters as varints), each compressed
#     on its own: what a columnar format could reach;
#   - the function identity alone (ident, lineno_checksum, cfg_checksum):
#     hashes that every lossless format must carry;
#   - for the arguments (LEVELS=1): zstd levels and windows against the one
#     kpgo uses, with size, time and the memory a decoder needs.
#
# Settings (environment):
#   OBJECTS=10000   objects of the synthetic profile; SYNTHETIC=0 skips it
#   SEED=1, RUN=0   which synthetic build and run (gen-profile -s, -r)
#   LEVELS=1        the zstd level/window table for every argument
#   KEEP=1          keep the scratch directory
#   KPGO=build/kpgo, KPGO_TESTS_BIN=build/tests
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
KPGO=${KPGO:-$top/build/kpgo}
KPGO_TESTS_BIN=${KPGO_TESTS_BIN:-$top/build/tests}
OBJECTS=${OBJECTS:-10000}
SYNTHETIC=${SYNTHETIC:-1}
SEED=${SEED:-1}
RUN=${RUN:-0}
LEVELS=${LEVELS:-1}
GEN=$KPGO_TESTS_BIN/gen-profile
SPLIT=$KPGO_TESTS_BIN/payload-streams
TIME=/usr/bin/time
BENCH=bench-archive-size
# shellcheck source=tests/bench/bench-lib.sh
. "$top/tests/bench/bench-lib.sh"

need_built "$KPGO" "$GEN" "$SPLIT" "$TIME"
need_cmd zstd xz
for p in "$@"; do
    [ -r "$p" ] || die "cannot read '$p'"
done
[ "$SYNTHETIC" = 1 ] || [ $# -gt 0 ] || die "nothing to measure (SYNTHETIC=0 and no archive)"

bench_scratch bench-size

size() { stat -c %s "$1"; }
xz_size() { xz -9e -T1 -c "$1" | wc -c; }
zstd_size() { zstd -q -19 -T1 -c "$@" | wc -c; }
# The value of KEY in payload-streams' output FILE.
key() { awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' "$1" ||
    die "payload-streams printed no '$2'"; }
row() { # LABEL BYTES RAW
    printf '  %-52s %10s  %s\n' "$1" "$2" "$(ratio "$3" "$2" 2)"
}

bench_machine
echo "load average: $(load)"
echo "kpgo: $("$KPGO" --version); $(zstd --version); $(xz --version | head -1)"

# measure NAME ARCHIVE REWRITE: ARCHIVE as kpgo writes it now (written
# again with kpgo merge when REWRITE=1), against the other codings.
measure() {
    local name=$1 in=$2 rewrite=$3 d=$W/$1 raw kp tar s
    mkdir -p "$d"
    if [ "$rewrite" = 1 ]; then
        "$KPGO" merge -q -o "$d/kpgo.kpgo" "$in" || die "kpgo merge of '$in' failed"
    else
        cp "$in" "$d/kpgo.kpgo"
    fi
    "$SPLIT" "$d/kpgo.kpgo" "$d/streams" >"$d/split.txt" || die "payload-streams failed on '$in'"
    zstd -q -d -c "$d/kpgo.kpgo" >"$d/payload.tar"
    raw=$(key "$d/split.txt" raw)
    kp=$(size "$d/kpgo.kpgo")
    tar=$(size "$d/payload.tar")

    log "$name: generic compressors on the tar"
    zstd -q -19 --long=27 -T1 -c "$d/payload.tar" >"$d/tar.zst"
    xz -9e -T1 -c "$d/payload.tar" >"$d/tar.xz"

    log "$name: streams"
    : >"$d/streams.sizes"
    for s in "$d"/streams/*; do
        printf '%s %s %s %s %s\n' "$(basename "$s")" "$(size "$s")" "$(xz_size "$s")" \
            "$(zstd_size "$s")" "$(zstd_size --zstd=wlog=17 "$s")" >>"$d/streams.sizes"
    done
    # sz STREAM COLUMN: 3 = xz -9e, 4 = zstd -19, 5 = zstd -19 with kpgo's window
    sz() { awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$d/streams.sizes"; }
    sum() { # COLUMN STREAM...
        local c=$1 t=0 x
        shift
        for x in "$@"; do t=$((t + $(sz "$x" "$c"))); done
        echo "$t"
    }
    local rows=(names structure identity counters)
    local cols=(names structure identity.ident identity.lineno identity.cfg counters.zero
        counters.nonzero)
    local id_cols=(identity.ident identity.lineno identity.cfg)
    local floor order rest
    # The identity's floor, if the hashes are as random as they look: every
    # distinct value once at its full width (31 bits for idents when no
    # ident has the top bit set), repeats for free. A format that need not
    # keep the order of functions within an object (GCC looks them up by
    # ident) saves log2(k!) bits per object of k functions on top.
    floor=$(awk '$1 == "ident.high_bit_set" { w = $2 ? 32 : 31 }
        $1 == "ident.distinct" { i = $2 } $1 == "lineno.distinct" { l = $2 }
        $1 == "cfg.distinct" { c = $2 }
        END { printf "%.0f", (i * w + (l + c) * 32) / 8 }' "$d/split.txt")
    order=$(awk '$1 ~ /^objects_with_functions\./ { k = substr($1, 24) + 0; b = 0
            for (j = 2; j <= k; j++) b += log(j) / log(2)
            t += $2 * b }
        END { printf "%.0f", t / 8 }' "$d/split.txt")
    # Everything but the identity, each part in its best measured coding.
    rest=$(($(sz names 3) + $(sz structure 3)))
    if [ "$(sz counters 3)" -lt $(($(sz counters.zero 3) + $(sz counters.nonzero 3))) ]; then
        rest=$((rest + $(sz counters 3)))
    else
        rest=$((rest + $(sz counters.zero 3) + $(sz counters.nonzero 3)))
    fi

    echo
    echo "== $name: $in"
    printf '  %s objects, %s functions, %s counters (%s not zero)\n' \
        "$(key "$d/split.txt" objects)" "$(key "$d/split.txt" functions)" \
        "$(key "$d/split.txt" counters)" "$(key "$d/split.txt" nonzero_counters)"
    printf '  raw payload (.gcda bytes)        %10s  = structure %s + identity %s + counters %s\n' \
        "$raw" "$(key "$d/split.txt" raw.structure)" "$(key "$d/split.txt" raw.identity)" \
        "$(key "$d/split.txt" raw.counters)"
    printf '  tar of the payload (kpgo layout) %10s\n' "$tar"
    echo
    echo "  archive size                                                bytes  raw/bytes"
    if [ "$rewrite" = 1 ]; then
        row "archive as given" "$(size "$in")" "$raw"
    fi
    row "kpgo archive (libzstd -9, 128 KiB window)" "$kp" "$raw"
    row "tar | zstd -19 --long=27" "$(size "$d/tar.zst")" "$raw"
    row "tar | xz -9e" "$(size "$d/tar.xz")" "$raw"
    row "streams, rows + varints, xz -9e" "$(sum 3 "${rows[@]}")" "$raw"
    row "streams, rows + varints, zstd -19" "$(sum 4 "${rows[@]}")" "$raw"
    row "streams, columns + zero bitmap, xz -9e" "$(sum 3 "${cols[@]}")" "$raw"
    row "streams, columns + zero bitmap, zstd -19" "$(sum 4 "${cols[@]}")" "$raw"
    row "  the same, 128 KiB window" "$(sum 5 "${cols[@]}")" "$raw"
    row "identity alone, rows, xz -9e" "$(sz identity 3)" "$raw"
    row "identity alone, columns, xz -9e" "$(sum 3 "${id_cols[@]}")" "$raw"
    row "identity alone, uncompressed" "$(key "$d/split.txt" raw.identity)" "$raw"
    row "identity floor: distinct hashes once, full width" "$floor" "$raw"
    row "  the same without function order in objects" "$((floor - order))" "$raw"
    row "target: 1/10 of raw" "$((raw / 10))" "$raw"
    printf '  under 1/10, left beside the identity floor: %s bytes (%s without order) for
' \
        "$((raw / 10 - floor))" "$((raw / 10 - floor + order))"
    printf '  names, structure and counters; their best coding measured here: %s bytes
' "$rest"
    echo
    echo "  stream                      raw    xz -9e  zstd -19  zstd -19, 128 KiB window"
    awk '{ printf "  %-20s %9s %9s %9s %9s\n", $1, $2, $3, $4, $5 }' "$d/streams.sizes"
    echo
    printf '  never ran (all counters 0): %s of %s functions, identity %s bytes (xz -9e %s)\n' \
        "$(key "$d/split.txt" never_ran.functions)" "$(key "$d/split.txt" functions)" \
        "$(key "$d/split.txt" never_ran.identity_bytes)" "$(sz identity.never-ran 3)"
    echo "  identity values: distinct, functions sharing their value with another, functions"
    echo "  with the most common value; of the distinct values, % with each of bits 0-30 set"
    echo "  (least and most often set bit) and % with bit 31 set"
    for s in ident lineno cfg triple; do
        printf '    %-8s %8s %8s %8s' "$s" "$(key "$d/split.txt" "$s.distinct")" \
            "$(key "$d/split.txt" "$s.shared")" "$(key "$d/split.txt" "$s.most_common")"
        if [ "$s" != triple ]; then
            printf '   bits 0-30: %s-%s%%, bit 31: %s%%' \
                "$(key "$d/split.txt" "$s.bits_set_min_pct")" \
                "$(key "$d/split.txt" "$s.bits_set_max_pct")" \
                "$(key "$d/split.txt" "$s.bit31_set_pct")"
        fi
        echo
    done
}

# levels NAME: zstd level and window on NAME's tar: size, compression time,
# the window a decoder must hold and the decoder's peak RSS.
levels() {
    local name=$1 d=$W/$1 args out t rss win
    log "$name: zstd levels"
    echo
    echo "== $name: zstd level and window (same tar, one thread)"
    echo "  zstd options                          bytes   comp s  window   zstd -d peak RSS"
    for args in "-3" "-9 --zstd=wlog=17" "-9" "-12 --zstd=wlog=17" "-15 --zstd=wlog=17" \
        "-19 --zstd=wlog=17" "-19" "-19 --long=27" "--ultra -22 --zstd=wlog=17" \
        "--ultra -22 --long=27"; do
        out=$d/level.zst
        # shellcheck disable=SC2086 # $args is a list of options
        "$TIME" -f '%e' -o "$d/time.txt" zstd -q -f -T1 $args -o "$out" "$d/payload.tar"
        t=$(tail -1 "$d/time.txt")
        win=$(zstd -lv "$out" 2>/dev/null | sed -n 's/^Window Size: .*(\([0-9]*\) B)$/\1/p')
        "$TIME" -f '%M' -o "$d/time.txt" zstd -q -d -c --memory=2048MB "$out" >/dev/null
        rss=$(tail -1 "$d/time.txt")
        printf '  %-36s %9s %8s %8s KiB %8s KiB\n' "$args" "$(size "$out")" "$t" \
            "$((win / 1024))" "$rss"
    done
}

if [ "$SYNTHETIC" = 1 ]; then
    log "synthetic profile: $OBJECTS objects (gen-profile -s $SEED -r $RUN)"
    "$GEN" -q -s "$SEED" -r "$RUN" -n "$OBJECTS" -o "$W/gcov"
    "$KPGO" collect -q --gcov-dir "$W/gcov" --kernel-release 6.1.0-bench --build-id 0b5eed \
        -o "$W/synthetic.kpgo"
    rm -rf "$W/gcov"
    measure synthetic "$W/synthetic.kpgo" 0
fi
i=0
for p in "$@"; do
    i=$((i + 1))
    measure "profile$i" "$p" 1
    if [ "$LEVELS" = 1 ]; then levels "profile$i"; fi
done
