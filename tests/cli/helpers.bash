# Shared setup for the CLI tests: the built binary, bats-assert, and real
# .gcda fixtures made at test time by compiling and running a small program.
# shellcheck shell=bash

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

KPGO=${KPGO:-$BATS_TEST_DIRNAME/../../build/kpgo}
KPGO_TESTS_BIN=${KPGO_TESTS_BIN:-$BATS_TEST_DIRNAME/../../build/tests}

kpgo() {
    "$KPGO" "$@"
}

# need_tools CMD...: skips the test unless each CMD is installed.
need_tools() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null || skip "$t is not installed (tests/install-deps.sh)"
    done
}

# skip_if_sanitized WHY: skips the test when $KPGO is built with sanitizers
# (make check-sanitize: the Makefile's cli target sets KPGO_SANITIZED to
# SANITIZE's list, empty for the normal build), saying WHY it cannot run so.
skip_if_sanitized() {
    [ -z "${KPGO_SANITIZED:-}" ] || skip "kpgo built with -fsanitize=$KPGO_SANITIZED: $1"
}

# afdo_workdir: for the kpgo afdo tests, which compile with gcc-12 (skipped
# without it): W, the test's directory by its physical path (gcov reports
# the directory GCC ran in), and B=$W/build, made.
afdo_workdir() {
    command -v gcc-12 >/dev/null || skip "gcc-12 is not installed"
    W=$(cd "$BATS_TEST_TMPDIR" && pwd -P)
    B=$W/build
    mkdir -p "$B"
}

# afdo_collect OUT: the counters of the program run in $B, served as the
# kernel's debugfs serves them ($W/gcov, made anew) and collected into OUT.
afdo_collect() {
    rm -rf "$W/gcov"
    gcov_tree "$B" "$W/gcov"
    kpgo collect -q --gcov-dir "$W/gcov" --kernel-release 6.1.0-afdo --build-id 0123abcd -o "$1"
}

# afdo_collect_main: $B/main.c built with gcov's options by gcc-12, run
# once, its counters collected into $W/p.kpgo.
afdo_collect_main() {
    (cd "$B" && gcc-12 -O2 -fprofile-arcs -ftest-coverage -c main.c -o main.o &&
        gcc-12 -fprofile-arcs main.o -o prog && ./prog)
    afdo_collect "$W/p.kpgo"
}

# bench_plugin NAME [PATH]: the kernel benchmark's QEMU plugin NAME
# (tests/bench/NAME.c, built into build/qemu-plugin by make cachesim), or
# PATH when given; the test fails without it or without qemu-x86_64 (the
# plugin tests run it on small programs in QEMU's user mode).
bench_plugin() {
    local p=${2:-}
    [ -n "$p" ] || p=$(find "${KPGO_BUILD:-$BATS_TEST_DIRNAME/../../build}/qemu-plugin" -name "$1-*.so" 2>/dev/null | head -1)
    [ -f "$p" ] || { fail "no $1 plugin (make cachesim, or KPGO_${1^^}=PATH)"; return 1; }
    command -v qemu-x86_64 >/dev/null ||
        { fail "qemu-x86_64 not found (tests/install-deps.sh installs qemu-user)"; return 1; }
    echo "$p"
}

# make_program DIR [VARIANT]: builds a three-object program with
# -fprofile-arcs in DIR (objects main.o, lib/a.o, lib/b.o). VARIANT 2
# changes the control flow of lib/b.c (for stale-profile tests).
make_program() {
    local dir=$1 variant=${2:-1}
    mkdir -p "$dir/lib"
    cat >"$dir/main.c" <<'C'
int a_work(int);
int b_work(int);
int main(int argc, char **argv)
{
    int n = argc > 1 ? argv[1][0] - '0' : 3, s = 0;
    for (int i = 0; i < n * 100; i++)
        s += (i % 3) ? a_work(i) : b_work(i);
    return s == 42;
}
C
    cat >"$dir/lib/a.c" <<'C'
int a_work(int x)
{
    int s = 0;
    for (int i = 0; i < x % 17; i++)
        s += (i & 1) ? i : -i;
    return s;
}
C
    if [ "$variant" = 2 ]; then
        cat >"$dir/lib/b.c" <<'C'
int b_work(int x)
{
    if (x > 1000)
        return x / 3;
    if (x > 100)
        return x * 2;
    return x;
}
C
    else
        cat >"$dir/lib/b.c" <<'C'
int b_work(int x)
{
    return x > 100 ? x * 2 : x;
}
C
    fi
    (cd "$dir" && for f in main lib/a lib/b; do
        gcc -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o" || exit 1
    done && gcc -fprofile-arcs main.o lib/a.o lib/b.o -o prog)
}

# run_program DIR [ARG]: one training run; GCC's runtime writes the .gcda files.
run_program() {
    (cd "$1" && ./prog "${2:-3}")
}

# gcov_tree DIR GCOVDIR: lays out DIR's .gcda files as the kernel's debugfs
# does: GCOVDIR/<absolute object directory>/<obj>.gcda, in the kernel's own
# form (no summary, checksum 0), converted by the gcda-to-kernel test tool.
gcov_tree() {
    local dir src rel
    dir=$(cd "$1" && pwd)
    while IFS= read -r src; do
        rel=${src#"$dir"/}
        mkdir -p "$2$dir/$(dirname "$rel")"
        "$KPGO_TESTS_BIN/gcda-to-kernel" "$src" "$2$dir/$rel" || return 1
        ln -sf "$dir/${rel%.gcda}.gcno" "$2$dir/${rel%.gcda}.gcno"
    done < <(find "$dir" -name '*.gcda' | sort)
}

# fixture_profile OUT.kpgo [ARG] [WORKLOAD]: program built, run, collected.
fixture_profile() {
    local w="$BATS_TEST_TMPDIR/fx.$RANDOM"
    make_program "$w/build" || return 1
    run_program "$w/build" "${2:-3}" || true
    gcov_tree "$w/build" "$w/gcov" || return 1
    "$KPGO" collect -q --gcov-dir "$w/gcov" --workload "${3:-test}" \
        --kernel-release 6.1.0-test --build-id 0123abcd -o "$1"
}

# with_manifest IN OUT KEY=VALUE...: IN with those manifest values (the
# manifest is not part of the payload hash, so OUT is valid).
with_manifest() {
    local in=$1 out=$2 x kv
    x=$(mktemp -d "$BATS_TEST_TMPDIR/wm.XXXXXX")
    shift 2
    tar --zstd -xf "$in" -C "$x"
    for kv in "$@"; do
        sed -i "s|^${kv%%=*}=.*|$kv|" "$x/MANIFEST"
        grep -qxF "$kv" "$x/MANIFEST"
    done
    (cd "$x" && find gcda -type f | LC_ALL=C sort >"$x.list")
    # zstd's window as kpgo writes it (128 KiB; tar --zstd would use 2 MiB,
    # which readers refuse)
    tar --no-recursion --owner=0 --group=0 -cf "$x.tar" -C "$x" MANIFEST -T "$x.list"
    zstd -q -f --zstd=wlog=17 "$x.tar" -o "$out"
}

# flip_payload IN OUT: IN with one byte of a counter changed.
flip_payload() {
    zstd -q -d -c "$1" >"$2.tar"
    python3 - "$2.tar" <<'PY'
import sys, tarfile
path = sys.argv[1]
with tarfile.open(path) as t:
    m = t.getmember("gcda/main.gcda")
    off = m.offset_data + m.size - 2
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)
    f.seek(off)
    f.write(bytes([b[0] ^ 0x10]))
PY
    zstd -q -f "$2.tar" -o "$2"
    rm -f "$2.tar"
}

# The instrumented test program in $BATS_FILE_TMPDIR/build, run three
# times, and its gcov tree in $BATS_FILE_TMPDIR/gcov: what the tests that
# collect profiles start from (their setup_file).
program_gcov_tree() {
    make_program "$BATS_FILE_TMPDIR/build"
    run_program "$BATS_FILE_TMPDIR/build" 3
    gcov_tree "$BATS_FILE_TMPDIR/build" "$BATS_FILE_TMPDIR/gcov"
}
