# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the tool benchmarks (bench-collect.sh, bench-merge.sh,
# bench-archive-size.sh) share, sourced after they set BENCH (their name):
# die, the check for the programs they run, a scratch directory removed at
# exit (KEEP=1 keeps it), log lines with the time, the load average, the
# median / min / max of a column of numbers and the machine's description.

die() {
    echo "$BENCH: $*" >&2
    exit 1
}

# need_built PROG...: each an executable file (built by make); need_cmd CMD...: in PATH
need_built() {
    local t
    for t in "$@"; do
        [ -x "$t" ] || die "'$t' not found (make && make tools)"
    done
}
need_cmd() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null || die "'$t' not found"
    done
}

# bench_scratch TAG: W, a directory under ${TMPDIR:-/tmp}, removed at exit
bench_scratch() {
    W=$(mktemp -d "${TMPDIR:-/tmp}/kpgo-$1.XXXXXX")
    trap bench_cleanup EXIT
}
bench_cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then
        echo "kept $W" >&2
    else
        rm -rf "$W"
    fi
}

log() { printf '%s  %s\n' "$(date +%T)" "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# median / min / max of the numbers on stdin, one per line
stats() { sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "- - -"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }

# ratio A B [DIGITS]: "1/(A/B)"
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { printf "1/%.*f", d, a / b }'; }

# bench_machine: the CPUs, memory, kernel and scratch file system
bench_machine() {
    echo "== machine"
    echo "cpus: $(nproc), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort -u | head -1)"
    echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "kernel: $(uname -r)"
    echo "scratch: $W ($(df -h --output=fstype,avail "$W" | tail -1 | xargs))"
}
