#!/usr/bin/env bats
# kpgo info and kpgo diff on real kernel profiles: the former default
# profile (tests/fixtures/kernel/small-train.kpgo, the busybox training
# loop; profiles-store/ holds a newer one) and a held-out one of
# the same kernel source and config (tests/fixtures/kernel/, made with
# tests/kernel/init-heldout), named from the .gcno files of four of the
# instrumented build's objects (see tests/fixtures/kernel/README.md).

load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    ROOT=$BATS_TEST_DIRNAME/../..
    TRAIN=$ROOT/tests/fixtures/kernel/small-train.kpgo
    HELD=$ROOT/tests/fixtures/kernel/small-heldout.kpgo
    GCNO=$W/gcno
    mkdir -p "$GCNO"
    tar -xJf "$ROOT/tests/fixtures/kernel/small-gcno.tar.xz" -C "$GCNO"
}

@test "the default profile's hottest functions of the pipe and read paths, by name" {
    run kpgo info --objtree "$GCNO" --top 0 "$TRAIN"
    assert_success
    assert_output --partial "names: .gcno of 4 of 1097 objects read (4 of another compilation: matched by checksums)"
    # The training mix runs `echo | cat`, `cat | wc` 300 times: pipe_read
    # leads fs/pipe.o; strcmp is the hottest function of all.
    assert_line --regexp '^ +9\.9%  +34961858  lib/string\.c:strcmp$'
    fns=$(sed -n '/^hottest functions/,$p' <<<"$output")
    [ "$(grep -m1 -E '  fs/pipe\.(c|gcda)|\(in fs/pipe\.o\)' <<<"$fns" | awk '{print $3}')" = \
        fs/pipe.c:pipe_read ]
    [ "$(grep -m1 -E '  fs/read_write\.(c|gcda)|\(in fs/read_write\.o\)' <<<"$fns" |
        awk '{print $3}')" = include/linux/fsnotify.h:fsnotify_file ]
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  fs/read_write\.c:vfs_read$'
    assert_line --regexp '^ +[0-9.]+%  +[0-9]+  fs/pipe\.c:pipe_write$'
    # The other objects have no .gcno here: unnamed, but there.
    assert_line --regexp '^ +4\.0%  +14186903  mm/memory\.gcda ident [0-9]+$'

    # Every name of the four objects as gcov-dump reads it.
    command -v gcov-dump || skip "gcov-dump is not installed (it comes with gcc)"
    kpgo info --json --top 0 --objtree "$GCNO" "$TRAIN" >"$W/info.json"
    python3 - "$W/info.json" "$GCNO" <<'PY'
import json, re, subprocess, sys
d = json.load(open(sys.argv[1]))
named = [f for f in d["hottest_functions"] if f["named"] != "none"]
assert 20 < len(named) <= d["names"]["functions_exact"] == 165, d["names"]
dump = {}
for obj in ("fs/pipe", "fs/read_write", "lib/string", "kernel/locking/qspinlock"):
    out = subprocess.run(["gcov-dump", "-l", sys.argv[2] + "/" + obj + ".gcno"],
                         capture_output=True, text=True, check=True).stdout
    for m in re.finditer(r"FUNCTION ident=(\d+), .*`([^']*)' (\S+):(\d+):", out):
        dump[(obj + ".gcda", int(m[1]))] = (m[2], m[3], int(m[4]))
for f in named:
    name, file, line = dump[(f["object"], f["ident"])]
    assert (f["name"], f["line"]) == (name, line) and file.endswith(f["file"]), (f, name, file)
PY
}

@test "training against held-out mix: kpgo diff's numbers" {
    run kpgo diff --json --objtree "$GCNO" "$TRAIN" "$HELD"
    assert_success
    echo "$output" >"$W/diff.json"
    # The similarity is the overlap of the shares, as computed here from kpgo info.
    kpgo info --json --top 0 "$TRAIN" >"$W/a.json"
    kpgo info --json --top 0 "$HELD" >"$W/b.json"
    python3 - "$W/diff.json" "$W/a.json" "$W/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def shares(path):
    x = json.load(open(path))
    s = x["totals"]["sum_all"]
    return {(f["object"], f["ident"]): f["count"] / s for f in x["hottest_functions"]}
a, b = shares(sys.argv[2]), shares(sys.argv[3])
want = sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b))
assert abs(d["similarity"] - want) < 2e-6, (d["similarity"], want)
# Two different mixes on one kernel: alike in part (0.5722 when measured).
assert 0.45 < d["similarity"] < 0.7, d["similarity"]
assert d["functions"] == {"both": 31738, "changed": 0, "only_a": 0, "only_b": 0}, d["functions"]
g = {x["directory"]: x for x in d["subsystems"]}
# Fewer processes started: memory management loses. Lock spinning gains
# (virt_spin_lock: a guest's spinlock under QEMU TCG, whose vCPUs the host
# deschedules; it varies from run to run too, see docs/PROFILE-REPORT.md).
assert g["mm"]["share_a"] > 0.45 and g["mm"]["share_b"] < 0.25, g["mm"]
assert g["kernel/locking"]["share_b"] - g["kernel/locking"]["share_a"] > 0.25, g["kernel/locking"]
top = d["gained"][0]
assert (top["name"], top["file"]) == ("virt_spin_lock", "arch/x86/include/asm/qspinlock.h"), top
gained = [f["name"] for f in d["gained"]]
assert "pipe_write" in gained and "pipe_read" in gained, gained
PY
    kpgo diff --json "$HELD" "$TRAIN" >"$W/back.json"
    python3 -c 'import json, sys; a, b = (json.load(open(x))["similarity"] for x in sys.argv[1:]); assert a == b' \
        "$W/back.json" "$W/diff.json"
    run kpgo diff --min-similarity 0.8 "$TRAIN" "$HELD"
    assert_failure 1
    run kpgo diff --min-similarity 0.999999 "$TRAIN" "$TRAIN"
    assert_success
    assert_line "similarity: 1.0000 (overlap of the functions' shares: 1 the same shape, 0 nothing in common)"
}

@test "the default profile's HTML report: well-formed, the chart's subsystems as kpgo info counts them" {
    run kpgo info --html "$W/r.html" --objtree "$GCNO" "$TRAIN"
    assert_success
    xmllint --noout "$W/r.html"
    grep -q '<code class="fn">strcmp</code>' "$W/r.html"
    # The chart's bars: the 15 hottest subsystems and the rest, in the shares kpgo info prints.
    kpgo info --json --top 0 "$TRAIN" >"$W/info.json"
    python3 - "$W/r.html" "$W/info.json" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
svg = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
chart = [e for e in root.iter(svg + "svg") if e.get("id") == "subsystem-chart"][0]
texts = [t.text for t in chart.iter(svg + "text")]
labels, values = texts[0::2], texts[1::2]
groups = json.load(open(sys.argv[2]))["hottest_subsystems"]
assert labels[:15] == [g["directory"] for g in groups[:15]], labels
assert labels[15] == "other (%d)" % (len(groups) - 15), labels[15]
assert values[:15] == ["%.1f%%" % (100 * g["share"]) for g in groups[:15]], values
rest = sum(g["share"] for g in groups[15:])
assert values[15] == "%.1f%%" % (100 * rest), (values[15], rest)
PY
}
