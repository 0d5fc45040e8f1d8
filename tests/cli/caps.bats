#!/usr/bin/env bats
# Caps on what a profile may expand to (issue 18): a few bytes of GCC >= 11's
# "all zero" counter records must not become gigabytes in any command, and
# what a writer accepts a reader accepts.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
}

# zero_gcda OUT FUNCTIONS COUNTERS: a GCC 12 .gcda whose FUNCTIONS functions
# each have COUNTERS arc counters in the compressed all-zero form (a
# negative length, no counter stored): 16 + 28 * FUNCTIONS bytes.
zero_gcda() {
    python3 - "$@" <<'PY'
import struct, sys
out, nf, nc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = struct.pack("<4I", 0x67636461, 0x4232322a, 1, 0)  # gcda, B22*, stamp, checksum
for i in range(nf):
    b += struct.pack("<5I", 0x01000000, 12, i + 1, 0x1234, 0x5678)
    b += struct.pack("<Ii", 0x01a10000, -nc * 8)
open(out, "wb").write(b)
PY
}

# forge_archive OUT GCDA: a .kpgo whose one object is GCDA as it is (not
# expanded), with a manifest that matches it (as a hostile uploader would).
forge_archive() {
    fixture_profile "$W/good.kpgo"
    python3 - "$W/good.kpgo" "$1" "$2" <<'PY'
import hashlib, io, subprocess, sys, tarfile
good, out, gcda = sys.argv[1:]
raw = subprocess.run(["zstd", "-q", "-d", "-c", good], check=True, capture_output=True).stdout
with tarfile.open(fileobj=io.BytesIO(raw)) as t:
    man = t.extractfile("MANIFEST").read().decode()
data = open(gcda, "rb").read()
name = "gcda/kernel/tiny.gcda"
nf = (len(data) - 16) // 28
nc = -int.from_bytes(data[36:40], "little", signed=True) // 8 * nf
h = hashlib.sha256(name.encode() + b"\0" + len(data).to_bytes(8, "little") + data).hexdigest()
kv = {"OBJECTS": 1, "FUNCTIONS": nf, "COUNTERS": nc, "SUM_ALL": 0, "SUM_MAX": 0,
      "PAYLOAD_SHA256": h}
lines = [l for l in man.splitlines() if l.split("=", 1)[0] not in kv]
man = "\n".join(lines + ["%s=%s" % i for i in kv.items()]) + "\n"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
    for n, d in (("MANIFEST", man.encode()), (name, data)):
        ti = tarfile.TarInfo(n); ti.size = len(d); t.addfile(ti, io.BytesIO(d))
subprocess.run(["zstd", "-q", "-f", "--zstd=wlog=17", "-o", out], input=buf.getvalue(), check=True)
PY
}

@test "a 44-byte .gcda claiming 2^24 counters: collect refuses it, writes nothing" {
    mkdir -p "$W/gcov/b"
    zero_gcda "$W/gcov/b/tiny.gcda" 1 16777216
    [ "$(stat -c %s "$W/gcov/b/tiny.gcda")" -eq 44 ]
    run kpgo collect --gcov-dir "$W/gcov" --build-root /b -o "$W/p.kpgo"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --regexp "^kpgo: .*too many counters \(16777216 in one function, at most 262144\)"
    run ls -A "$W"
    refute_output --partial "p.kpgo"
}

@test "the same .gcda in an archive: merge and ingest refuse it, write nothing" {
    zero_gcda "$W/tiny.gcda" 1 16777216
    forge_archive "$W/tiny.kpgo" "$W/tiny.gcda"
    [ "$(stat -c %s "$W/tiny.kpgo")" -lt 2000 ]
    run kpgo merge -o "$W/m.kpgo" "$W/tiny.kpgo" "$W/good.kpgo"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ]
    assert_output --partial "too many counters (16777216 in one function, at most 262144)"
    [ ! -e "$W/m.kpgo" ]
    run ls -A "$W"
    refute_output --partial "m.kpgo"
    # ingest sets the upload aside with its reason, and stores nothing of it
    mkdir "$W/drop"
    cp "$W/tiny.kpgo" "$W/drop/"
    touch -d '1 hour ago' "$W/drop/tiny.kpgo"
    run kpgo store --store "$W/store" ingest "$W/drop"
    assert_line --regexp "^rejected tiny\.kpgo: .*too many counters"
    grep -q "too many counters (16777216 in one function" "$W/drop/rejected/tiny.kpgo.reason"
    run kpgo store --store "$W/store" list
    refute_output --partial "tiny"
    [ -z "$(find "$W/store" -name '*.kpgo' 2>/dev/null)" ]
}

@test "objects within the caps make a profile every reader takes; one past the object cap is refused" {
    mkdir -p "$W/gcov/b"
    # 4 functions of 2^18 counters: exactly the 2^20 of one object
    zero_gcda "$W/gcov/b/full.gcda" 4 262144
    run kpgo collect -q --gcov-dir "$W/gcov" --build-root /b -o "$W/p.kpgo"
    assert_success
    run kpgo info "$W/p.kpgo"
    assert_success
    run kpgo merge -q -o "$W/m.kpgo" "$W/p.kpgo" "$W/p.kpgo"
    assert_success
    zero_gcda "$W/gcov/b/full.gcda" 5 262144
    run kpgo collect --gcov-dir "$W/gcov" --build-root /b -o "$W/q.kpgo"
    assert_failure 1
    assert_output --partial "too many counters (more than 1048576 in one file)"
    [ ! -e "$W/q.kpgo" ]
}

@test "stage holds one object at a time, not the whole profile" {
    skip_if_sanitized "ASan maps terabytes of shadow memory, so no ulimit -v cap can measure stage's memory"
    # 24 objects of 2^20 counters (all zero): 192 MiB of counters in memory
    # when loaded whole, 8 MiB (and its copy) when streamed.
    mkdir -p "$W/gcov/b"
    for i in $(seq 10 33); do
        zero_gcda "$W/gcov/b/o$i.gcda" 4 262144
    done
    kpgo collect -q --gcov-dir "$W/gcov" --build-root /b -o "$W/p.kpgo"
    mkdir "$W/tree"
    run bash -c 'ulimit -v 150000 && exec "$0" stage -q --cc none --objtree "$1" "$2"' \
        "$KPGO" "$W/tree" "$W/p.kpgo"
    assert_success
    [ "$(find "$W/tree" -name '*.gcda' | wc -l)" -eq 24 ]
}
