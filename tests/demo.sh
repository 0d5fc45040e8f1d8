#!/bin/bash
# The README's main job until the kernel packaging lands: the whole kpgo
# pipeline on a small program instead of a kernel. Two "machines" train it,
# their gcov data is laid out as the kernel's debugfs shows it, collected,
# merged, stored, selected, staged, and the program is rebuilt with the
# profile. Thin glue: every step is a kpgo command.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kpgo=$top/build/kpgo
to_kernel=$top/build/tests/gcda-to-kernel
W=$top/build/demo
rm -rf "$W"
mkdir -p "$W"
step() { printf '\n== %s\n' "$*"; }

objs=(main lib/hash lib/sort lib/vm)

step "build the instrumented flavour (gcc -O2 -fprofile-arcs, as CONFIG_GCOV_PROFILE_ALL does)"
cp -r "$top/tests/fixtures/prog" "$W/src"
src=$W/src
(cd "$src" && for o in "${objs[@]}"; do
    gcc -O2 -fprofile-arcs -ftest-coverage -c "$o.c" -o "$o.o"
done && gcc -fprofile-arcs "${objs[@]/%/.o}" -o prog)

for machine in 1 2; do
    step "machine $machine runs the workload, then 'kpgo collect' reads its gcov data"
    find "$src" -name '*.gcda' -delete
    (cd "$src" && ./prog $((machine * 20000)) >/dev/null)
    # Lay the files out as /sys/kernel/debug/gcov does, in the kernel's format.
    gcov=$W/debugfs$machine
    while IFS= read -r f; do
        mkdir -p "$gcov$(dirname "$f")"
        "$to_kernel" "$f" "$gcov$f"
    done < <(find "$src" -name '*.gcda')
    "$kpgo" collect --gcov-dir "$gcov" --workload "demo" --kernel-release 6.1.0-demo \
        --build-id 5eed -o "$W/machine$machine.kpgo"
done

step "build farm: merge the machines' profiles in one pass, and look at the result"
"$kpgo" merge -o "$W/merged.kpgo" "$W/machine1.kpgo" "$W/machine2.kpgo"
"$kpgo" info --top 5 "$W/merged.kpgo"

step "build farm: keep it in the profile store, and select one for the next build"
export KPGO_STORE=$W/store
"$kpgo" store add "$W/machine1.kpgo" "$W/machine2.kpgo" "$W/merged.kpgo"
"$kpgo" store list
selected=$("$kpgo" store select --release 6.1.0-demo --cc gcc)

step "optimized flavour: stage the profile where GCC looks, build with 'kpgo flags'"
cp -r "$top/tests/fixtures/prog" "$W/pgo"
cp -r "$top/tests/fixtures/prog" "$W/base"
"$kpgo" stage --objtree "$W/pgo" "$selected"
read -ra pgo_flags <<<"$("$kpgo" flags)"
(cd "$W/pgo" && for o in "${objs[@]}"; do
    gcc -O2 "${pgo_flags[@]}" -Werror=coverage-mismatch -c "$o.c" -o "$o.o"
done && gcc "${objs[@]/%/.o}" -o prog)
(cd "$W/base" && for o in "${objs[@]}"; do
    gcc -O2 -c "$o.c" -o "$o.o"
done && gcc "${objs[@]/%/.o}" -o prog)

step "compare the baseline -O2 build with the profile-guided one"
[ "$("$W/base/prog" 30000)" = "$("$W/pgo/prog" 30000)" ] || {
    echo "demo: the two builds disagree" >&2
    exit 1
}
size "$W/base/prog" "$W/pgo/prog"
if command -v valgrind >/dev/null; then
    for b in base pgo; do
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$W/$b/prog" 30000 2>&1 |
            sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
        printf '%-5s %15s instructions (callgrind, workload 30000)\n' "$b" "$n"
    done
fi
printf '\ndemo: done; everything is in %s\n' "$W"
