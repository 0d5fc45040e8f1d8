#!/usr/bin/env bats
# kpgo diff: two real profiles of one program under two workloads.

# shellcheck disable=SC2154 # bats' run --separate-stderr sets $stderr, $stderr_lines
load helpers

bats_require_minimum_version 1.5.0

# A program with a "network" and a "file" half, in net/ and fs/; its first
# argument picks the mix: n (network only), f (files only), m (both).
make_mix_program() {
    local dir=$1
    mkdir -p "$dir/net" "$dir/fs"
    cat >"$dir/main.c" <<'C'
int sock_send(int);
int file_write(int);
int shared(int);
int main(int argc, char **argv)
{
    char mode = argc > 1 ? argv[1][0] : 'm';
    int s = 0;
    for (int i = 0; i < 300; i++) {
        if (mode != 'f')
            s += sock_send(i);
        if (mode != 'n')
            s += file_write(i);
        s += shared(i);
    }
    return s == 42;
}
C
    cat >"$dir/net/sock.c" <<'C'
int sock_send(int x)
{
    int s = 0;
    for (int i = 0; i < x % 23; i++)
        s += i ^ x;
    return s;
}
C
    cat >"$dir/fs/file.c" <<'C'
int file_write(int x)
{
    int s = 0;
    for (int i = 0; i < x % 11; i++)
        s += (i & 1) ? x : -x;
    return s;
}
int shared(int x)
{
    return x & 7;
}
C
    (cd "$dir" && for f in main net/sock fs/file; do
        gcc -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o" || exit 1
    done && gcc -fprofile-arcs main.o net/sock.o fs/file.o -o prog)
}

# profile_of MODE RUNS OUT: the program run RUNS times with MODE, collected.
profile_of() {
    local i
    find "$W/build" -name '*.gcda' -delete
    for ((i = 0; i < $2; i++)); do
        (cd "$W/build" && ./prog "$1") || true
    done
    rm -rf "$W/gcov"
    gcov_tree "$W/build" "$W/gcov"
    kpgo collect -q --gcov-dir "$W/gcov" --workload "$1$2" --kernel-release 6.1.0-test \
        --build-id 0123abcd -o "$3"
}

setup() {
    W=$BATS_TEST_TMPDIR
    make_mix_program "$W/build"
    profile_of n 1 "$W/n.kpgo"
    profile_of n 2 "$W/n2.kpgo"
    profile_of f 1 "$W/f.kpgo"
    profile_of m 1 "$W/m.kpgo"
}

# similarity_py A B: the overlap of the functions' shares, computed here from
# kpgo info's per-function counts (matched by object and ident).
similarity_py() {
    local a b
    a=$(kpgo info --json --top 0 "$1") b=$(kpgo info --json --top 0 "$2")
    python3 -c '
import json, sys
def shares(text):
    d = json.loads(text)
    s = d["totals"]["sum_all"]
    return {(f["object"], f["ident"]): f["count"] / s for f in d["hottest_functions"]}
a, b = shares(sys.argv[1]), shares(sys.argv[2])
print("%.6f" % sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b)))
' "$a" "$b"
}

@test "a profile and the same workload run twice: similarity 1, nothing moved" {
    run kpgo diff "$W/n.kpgo" "$W/n2.kpgo"
    assert_success
    assert_line "similarity: 1.0000 (overlap of the functions' shares: 1 the same shape, 0 nothing in common)"
    assert_line "functions: 4 in both (0 changed: other checksums), 0 only in a, 0 only in b"
    # Every counter doubled exactly: no function gained or lost share.
    [ "$(sed -n '/^functions that gained/,/^$/p' <<<"$output" | wc -l)" -eq 3 ]
    run kpgo diff --min-similarity 0.9999 "$W/n.kpgo" "$W/n2.kpgo"
    assert_success
}

@test "two workloads: the similarity is the overlap of the shares, as computed independently" {
    for pair in "n f" "n m" "f m" "m n"; do
        # shellcheck disable=SC2086 # the pair's two words
        set -- $pair
        run kpgo diff --json "$W/$1.kpgo" "$W/$2.kpgo"
        assert_success
        got=$(python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); assert d["version"] == 1 and d["measure"] == "overlap"; print("%.6f" % d["similarity"])' <<<"$output")
        want=$(similarity_py "$W/$1.kpgo" "$W/$2.kpgo")
        python3 -c 'import sys; assert abs(float(sys.argv[1]) - float(sys.argv[2])) < 2e-6, sys.argv' "$got" "$want"
        back=$(kpgo diff --json "$W/$2.kpgo" "$W/$1.kpgo" | python3 -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["similarity"])')
        [ "$got" = "$back" ]
    done
    # Network only against files only: only main and shared are common.
    n_f=$(kpgo diff --json "$W/n.kpgo" "$W/f.kpgo" | python3 -c 'import json, sys; print(json.load(sys.stdin)["similarity"])')
    n_m=$(kpgo diff --json "$W/n.kpgo" "$W/m.kpgo" | python3 -c 'import json, sys; print(json.load(sys.stdin)["similarity"])')
    python3 -c 'import sys; a, b = map(float, sys.argv[1:]); assert 0 < a < b < 1, (a, b)' "$n_f" "$n_m"
}

@test "what gained and lost share, by subsystem and function, with names" {
    run kpgo diff --objtree "$W/build" "$W/n.kpgo" "$W/f.kpgo"
    assert_success
    assert_line "functions run: 2 in both, 1 only in a ($(kpgo diff --json "$W/n.kpgo" "$W/f.kpgo" | python3 -c 'import json, sys; print("%.2f" % (100 * json.load(sys.stdin)["functions_run"]["share_only_a"]))')% of a), 1 only in b ($(kpgo diff --json "$W/n.kpgo" "$W/f.kpgo" | python3 -c 'import json, sys; print("%.2f" % (100 * json.load(sys.stdin)["functions_run"]["share_only_b"]))')% of b)"
    sed -n '/^functions that gained/,/^$/p' <<<"$output" >"$W/gained"
    sed -n '/^functions that lost/,/^$/p' <<<"$output" >"$W/lost"
    sed -n '/^subsystems by change/,/^$/p' <<<"$output" >"$W/subsys"
    grep -E '^ +0\.00% +[0-9.]+% +\+[0-9.]+  fs/file\.c:file_write$' "$W/gained"
    grep -E '^ +[0-9.]+% +0\.00% +-[0-9.]+  net/sock\.c:sock_send$' "$W/lost"
    grep -E '^ +[0-9.]+% +0\.00% +-[0-9.]+  net$' "$W/subsys"
    grep -E '^ +[0-9.]+% +[0-9.]+% +\+[0-9.]+  fs$' "$W/subsys"
    sed -n '/^functions that ran in a only/,/^$/p' <<<"$output" | grep -q 'net/sock.c:sock_send$'
    sed -n '/^functions that ran in b only/,/^$/p' <<<"$output" | grep -q 'fs/file.c:file_write$'

    run kpgo diff --json --objtree "$W/build" "$W/n.kpgo" "$W/f.kpgo"
    assert_success
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["functions"] == {"both": 4, "changed": 0, "only_a": 0, "only_b": 0}, d["functions"]
r = d["functions_run"]
assert (r["both"], r["only_a"], r["only_b"]) == (2, 1, 1), r
g = {x["directory"]: x for x in d["subsystems"]}
# The subsystems shares of each side add up to 1; their changes to 0.
assert abs(sum(x["share_a"] for x in g.values()) - 1) < 1e-5
assert abs(sum(x["share_b"] - x["share_a"] for x in g.values())) < 1e-5
assert g["net"]["share_b"] == 0 and g["net"]["count_a"] > 0
assert d["gained"][0]["name"] == "file_write" and d["gained"][0]["file"] == "fs/file.c"
assert d["lost"][0]["name"] == "sock_send" and d["lost"][0]["count_b"] == 0
assert [f["name"] for f in d["run_only_a"]] == ["sock_send"]
assert [f["name"] for f in d["run_only_b"]] == ["file_write"]
# Similarity and subsystem similarity from the shares printed.
assert abs(d["subsystem_similarity"] - sum(min(x["share_a"], x["share_b"]) for x in g.values())) < 1e-5
assert d["a"]["workload"] == "n1" and d["b"]["workload"] == "f1"
assert d["a"]["names"]["functions_exact"] == 4
' <<<"$output"
}

@test "diff --min-similarity fails below the bound with one line" {
    run --separate-stderr kpgo diff --min-similarity 0.9 "$W/n.kpgo" "$W/f.kpgo"
    assert_failure 1
    [ -n "$output" ]
    [[ $stderr =~ ^kpgo:\ \'$W/n\.kpgo\'\ and\ \'$W/f\.kpgo\'\ differ:\ similarity\ 0\.[0-9]+\ is\ below\ 0\.9$ ]]
    run kpgo diff --min-similarity 0 "$W/n.kpgo" "$W/f.kpgo"
    assert_success
}

@test "profiles of two builds: objects and functions in one only" {
    mkdir -p "$W/other"
    cp -a "$W/build/." "$W/other/"
    cat >"$W/other/fs/extra.c" <<'C'
int extra(int x)
{
    return x * 3;
}
C
    sed -i 's/s += shared(i);/s += shared(i) + extra(i);/; s/^int shared(int);/int shared(int);\nint extra(int);/' "$W/other/main.c"
    # Compiled again there: a .gcda goes where its object was compiled.
    (cd "$W/other" && rm -f ./*.gcda ./*/*.gcda && for f in main net/sock fs/file fs/extra; do
        gcc -O2 -fprofile-arcs -ftest-coverage -c "$f.c" -o "$f.o"
    done && gcc -fprofile-arcs main.o net/sock.o fs/file.o fs/extra.o -o prog && ./prog m) || true
    gcov_tree "$W/other" "$W/gcov2"
    kpgo collect -q --gcov-dir "$W/gcov2" --kernel-release 6.1.0-test --build-id 0123abcd -o "$W/o.kpgo"
    run kpgo diff --json "$W/m.kpgo" "$W/o.kpgo"
    assert_success
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["objects"] == {"both": 3, "only_a": 0, "only_b": 1}, d["objects"]
assert d["functions"]["only_b"] == 1 and d["functions"]["changed"] == 1, d["functions"]
assert [f["object"] for f in d["run_only_b"]] == ["fs/extra.gcda"]
assert 0.5 < d["similarity"] < 1
' <<<"$output"
}

@test "diff errors: a bad archive, usage" {
    printf 'not a profile' >"$W/bad.kpgo"
    run --separate-stderr kpgo diff "$W/n.kpgo" "$W/bad.kpgo"
    assert_failure 1
    [ -z "$output" ]
    [[ $stderr == "kpgo: cannot read '$W/bad.kpgo': "* ]]
    run kpgo diff "$W/n.kpgo"
    assert_failure 2
    run kpgo diff --min-similarity 1.5 "$W/n.kpgo" "$W/f.kpgo"
    assert_failure 2
    run kpgo diff --min-similarity -1 "$W/n.kpgo" "$W/f.kpgo"
    assert_failure 2
    run kpgo diff --depth 0 "$W/n.kpgo" "$W/f.kpgo"
    assert_failure 2
}

@test "store ingest --min-similarity: each new profile against its build's merge; outliers flagged" {
    export KPGO_STORE=$W/store
    mkdir "$W/drop"
    cp "$W/n.kpgo" "$W/drop/n1.kpgo"
    cp "$W/n2.kpgo" "$W/drop/n2.kpgo"
    cp "$W/f.kpgo" "$W/drop/f1.kpgo"
    run --separate-stderr kpgo store ingest --min-similarity 0.5 "$W/drop"
    assert_success
    assert_line --regexp '^merged 6\.1\.0-test .*: 3 profiles into [0-9a-f]{64}$'
    merge=$(sed -n 's/^merged .* into //p' <<<"$output")
    kpgo store --store "$W/store" list >/dev/null
    # The numbers are kpgo diff's against the merge.
    merged_file=$W/store/objects/${merge:0:2}/$merge.kpgo
    [ -f "$merged_file" ]
    for p in n1:n f1:f; do
        want=$(kpgo diff --json "$W/${p#*:}.kpgo" "$merged_file" |
            python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["similarity"])')
        if [ "${p%%:*}" = f1 ]; then
            assert_line "outlier f1.kpgo: similarity $want to $merge (merge of 3 profiles) is below 0.5"
        else
            assert_line "similarity n1.kpgo: $want to $merge (merge of 3 profiles)"
        fi
    done
    assert_line --regexp '^similarity n2\.kpgo: 0\.[0-9]{4} to '
    assert_equal "$stderr" "kpgo: warning: 1 profiles are outliers: similarity below 0.5"

    # A profile alone in its build has nothing to be compared with.
    with_manifest "$W/m.kpgo" "$W/drop/other.kpgo" KERNEL_BUILD_ID=ffff
    run kpgo store ingest --similarity "$W/drop"
    assert_success
    assert_line "similarity other.kpgo: the only profile of its kernel build"
    run kpgo store ingest --min-similarity 2 "$W/drop"
    assert_failure 2
}
