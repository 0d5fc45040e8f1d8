#!/usr/bin/env bats
# kpgo tree check: a kernel tree built with O= against the flavour it was
# built as, and the flavour's report; and kpgo flags --specs-dir, the
# options ccache compiles uncached moved to a specs file. The "vmlinux"
# and the modules are programs and objects GCC (and Clang) compile here,
# the counts checked against nm's: what kpgo-kbuild did with nm and grep.
# shellcheck disable=SC2154 # bats sets status, output, lines, stderr

load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    S=$W/src O=$W/obj
    mkdir -p "$S/init" "$S/kernel" "$S/scripts" "$O/init" "$O/kernel" "$O/scripts" "$O/tools/x" "$O/drivers"
    printf 'int main(void) { return 0; }\n' >"$S/init/main.c"
    cat >"$S/kernel/fork.c" <<'C'
int fork_one(int x) { return x * 3 + 1; }
int fork_two(int x) { return x > 2 ? fork_one(x) : 0; }
C
    : >"$S/scripts/mod.c"
    (cd "$O" && gcc -O2 -c "$S/kernel/fork.c" -o kernel/fork.o)
    touch "$O/init/main.o" "$O/scripts/mod.o" "$O/tools/x/x.o" "$O/kernel/fork.mod.o" \
        "$O/kernel/entry.o" "$O/scripts/mod.gcno"
    printf 'savedcmd_init/main.o := gcc -Wp,-MMD,init/.main.o.d -nostdinc -O2 -fno-PIE -c -o init/main.o %s/init/main.c\n' \
        "$S" >"$O/init/.main.o.cmd"
}

# instrumented: vmlinux a program compiled with gcov (it defines __gcov_init)
instrumented() {
    (cd "$O" && gcc -O2 --coverage -c "$S/kernel/fork.c" -o kernel/fork.o &&
        gcc -O2 --coverage "$S/init/main.c" kernel/fork.o -o vmlinux)
}

@test "tree check pgo-instr: gcov in vmlinux, the report's lines as nm and find count them" {
    instrumented
    run kpgo tree check --flavour pgo-instr --objtree "$O" --srctree "$S" \
        --report "$O/pgo-instr-report" --kernel-release 6.1.0-kpgo-pgo-instr \
        --build-seconds 85 --source-names "absolute, $S/kernel/fork.c"
    assert_success
    counters=$(nm "$O/vmlinux" | grep -c ' __gcov0\.')
    [ "$counters" -gt 0 ]
    gcno=$(find "$O" -name '*.gcno' -type f | wc -l)
    [ "$gcno" -eq 3 ]
    assert_output "kernel release: 6.1.0-kpgo-pgo-instr
build seconds: 85
source file names: absolute, $S/kernel/fork.c
objects compiled from C: 2
objects with gcov (.gcno): $gcno
functions with counters in vmlinux (__gcov0.*): $counters
vmlinux bytes: $(stat -c %s "$O/vmlinux")"
    [ "$(cat "$O/pgo-instr-report")" = "$output" ]
}

@test "tree check pgo-instr: vmlinux without gcov fails, one line" {
    (cd "$O" && gcc -O2 "$S/init/main.c" -o vmlinux)
    run --separate-stderr kpgo tree check --flavour pgo-instr --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: vmlinux has no __gcov_init: not instrumented"
}

@test "tree check baseline and o3: the -O level, no profile, no gcov in vmlinux or a module" {
    (cd "$O" && gcc -O2 "$S/init/main.c" -o vmlinux && gcc -O2 -c "$S/kernel/fork.c" -o drivers/m.ko)
    run kpgo tree check --flavour baseline --objtree "$O" --srctree "$S" --report "$O/kbuild-report" \
        --kernel-release 6.1.0-b --build-seconds 9 --cc-version "$(gcc --version | head -1)"
    assert_success
    assert_output "kernel release: 6.1.0-b
build seconds: 9
compiler: $(gcc --version | head -1)
toolchain: gcc
optimisation: -O2 (last -O on the compiler line of init/main.o)
KCFLAGS: (none)
vmlinux bytes: $(stat -c %s "$O/vmlinux")"
    run --separate-stderr kpgo tree check --flavour o3 --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was compiled with '-O2', not -O3 (see $O/init/.main.o.cmd)"
    sed -i 's/ -fno-PIE / -fno-PIE -O3 /' "$O/init/.main.o.cmd"
    run kpgo tree check --flavour o3 --objtree "$O" --srctree "$S" --report "$O/kbuild-report" --kcflags=-O3
    assert_success
    assert_line "KCFLAGS: -O3"
    assert_line "optimisation: -O3 (last -O on the compiler line of init/main.o)"
    # a module compiled with gcov
    (cd "$O" && gcc -O2 --coverage -c "$S/kernel/fork.c" -o drivers/m.ko)
    [ "$(nm "$O/drivers/m.ko" | grep -c __gcov)" -gt 0 ]
    run --separate-stderr kpgo tree check --flavour o3 --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: '$O/drivers/m.ko' has __gcov symbols: the module is instrumented"
    instrumented
    run --separate-stderr kpgo tree check --flavour pgo --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: vmlinux has __gcov symbols: the pgo kernel is instrumented"
}

@test "tree check pgo: init/main.o compiled with the profile (GCC), the sample profile (Clang)" {
    (cd "$O" && gcc -O2 "$S/init/main.c" -o vmlinux)
    run --separate-stderr kpgo tree check --flavour pgo --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was not compiled with -fprofile-use"
    sed -i 's/ -fno-PIE / -fprofile-use -fno-PIE /' "$O/init/.main.o.cmd"
    run kpgo tree check --flavour pgo --objtree "$O" --srctree "$S"
    assert_success
    assert_output ""
    run --separate-stderr kpgo tree check --flavour baseline --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was compiled with a profile"
    run kpgo tree check --flavour pgo --objtree "$O" --srctree "$S" --report "$O/r"
    assert_failure 2
    # Clang, ThinLTO: the compiler line, then vmlinux's .comment
    run --separate-stderr kpgo tree check --flavour pgo --compiler clang --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was not compiled with -flto=thin (see $O/init/.main.o.cmd)"
    sed -i "s| -fno-PIE | -flto=thin -fprofile-sample-use=$O/kpgo.afdo -fno-PIE |" "$O/init/.main.o.cmd"
    run --separate-stderr kpgo tree check --flavour pgo --compiler clang --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: vmlinux's .comment does not name clang: not built by Clang"
    command -v clang-16 >/dev/null || skip "no clang-16"
    (cd "$O" && clang-16 -O2 "$S/init/main.c" -o vmlinux)
    run kpgo tree check --flavour pgo --compiler clang --objtree "$O" --srctree "$S"
    assert_success
    # full LTO: -flto, and not -flto=thin
    run --separate-stderr kpgo tree check --flavour pgo --compiler clang --lto full --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was not compiled with -flto (full LTO) (see $O/init/.main.o.cmd)"
    sed -i "s| -flto=thin | -flto |" "$O/init/.main.o.cmd"
    run kpgo tree check --flavour pgo --compiler clang --lto full --objtree "$O" --srctree "$S"
    assert_success
    run --separate-stderr kpgo tree check --flavour pgo --compiler clang --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was not compiled with -flto=thin (see $O/init/.main.o.cmd)"
    sed -i "s| -flto | -flto=thin |" "$O/init/.main.o.cmd"
    sed -i "s|=$O/kpgo.afdo|=/elsewhere/kpgo.afdo|" "$O/init/.main.o.cmd"
    run --separate-stderr kpgo tree check --flavour pgo --compiler clang --objtree "$O" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: init/main.o was not compiled with -fprofile-sample-use"
}

@test "tree check: usage errors exit 2, a missing tree exits 1" {
    for args in "" "--flavour pgo --objtree $O" "--flavour x --objtree $O --srctree $S" \
        "--flavour pgo-instr --compiler clang --objtree $O --srctree $S" \
        "--flavour pgo --compiler icc --objtree $O --srctree $S" "--flavour pgo --objtree $O --srctree $S extra" \
        "--flavour pgo --lto full --objtree $O --srctree $S" \
        "--flavour pgo --compiler clang --lto fat --objtree $O --srctree $S"; do
        read -ra words <<<"$args"
        run kpgo tree check "${words[@]}"
        assert_failure 2
    done
    run --separate-stderr kpgo tree check --flavour baseline --objtree "$W/none" --srctree "$S"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/none/vmlinux': No such file or directory"
    run kpgo tree --help
    assert_success
    assert_line --partial "usage: kpgo tree check"
}

@test "flags --specs-dir: what ccache compiles uncached goes to a specs file named by its text" {
    d=$W/ccache/kpgo-specs
    run kpgo flags --specs-dir "$d"
    assert_success
    text=$'*cc1_options:\n+ -fprofile-partial-training'
    name=$(printf '%s' "$text" | sha256sum | cut -c1-16).specs
    assert_output "-fprofile-use -fprofile-correction -Wno-error=coverage-mismatch -Wno-error=missing-profile -specs=$d/$name"
    [ "$(cat "$d/$name")" = "$text" ]
    [ "$(wc -c <"$d/$name")" -eq $((${#text} + 2)) ] # and a blank line
    # written once: ccache hashes the file's mtime
    touch -d @1000000000 "$d/$name"
    run kpgo flags --specs-dir "$d" --make
    assert_output "KCFLAGS=-fprofile-use -fprofile-correction -Wno-error=coverage-mismatch -Wno-error=missing-profile -specs=$d/$name"
    [ "$(stat -c %Y "$d/$name")" = 1000000000 ]
    # the kernel's CFLAGS_GCOV through the same rule; flags without such options unchanged
    run kpgo flags --specs-dir "$d" --rewrite "-fprofile-arcs -ftest-coverage -fprofile-update=prefer-atomic"
    assert_success
    gname=$(printf '%s' $'*cc1_options:\n+ -fprofile-update=prefer-atomic' | sha256sum | cut -c1-16).specs
    assert_output "-fprofile-arcs -ftest-coverage -specs=$d/$gname"
    run kpgo flags --specs-dir "$d" --rewrite=-O3
    assert_output "-O3"
    run kpgo flags --specs-dir "$d" --rewrite ""
    assert_output ""
    run kpgo flags --compiler clang --sample-profile /b/kpgo.afdo --specs-dir "$d"
    assert_output "$(kpgo flags --compiler clang --sample-profile /b/kpgo.afdo)"
    # a directory that cannot be made: a warning, the flags unchanged
    : >"$W/file"
    run --separate-stderr kpgo flags --specs-dir "$W/file/x"
    assert_success
    assert_output "$(kpgo flags)"
    assert_equal "$stderr" "kpgo: warning: cannot write the specs file '$W/file/x/$name': Not a directory; the flags unchanged"
    for args in "--rewrite -O3" "--specs-dir $d --rewrite -O3 --ld" "--specs-dir $d --rewrite -O3 --json"; do
        read -ra words <<<"$args"
        run kpgo flags "${words[@]}"
        assert_failure 2
    done
}
