#!/usr/bin/env bats
# Hostile archives through every command that reads one: refused with one
# clear line, exit 1, nothing written anywhere, least of all outside.

load helpers

setup() {
    W=$BATS_TEST_TMPDIR
    fixture_profile "$W/good.kpgo"
    mkdir "$W/x"
    tar --zstd -xf "$W/good.kpgo" -C "$W/x"
    mkdir -p "$W/tree/sub"
}

# forge OUT.kpgo KIND: a tar+zstd archive built with Python's tarfile from the
# good archive's members, with one hostile change, and a manifest that
# matches the payload wherever the test is not about the manifest itself.
forge() {
    python3 - "$W/x" "$1.tar" "$2" <<'PY'
import hashlib, io, os, sys, tarfile
src, out, kind = sys.argv[1:]
names = sorted(os.path.relpath(os.path.join(d, f), src)
               for d, _, fs in os.walk(src) for f in fs if f != "MANIFEST")
man = open(os.path.join(src, "MANIFEST")).read()
members = [(n, open(os.path.join(src, n), "rb").read()) for n in names]
extra = []
if kind == "dotdot":
    members.append(("gcda/../../escape.gcda", members[0][1]))
elif kind == "absolute":
    members.append(("/tmp/kpgo-escape.gcda", members[0][1]))
elif kind == "lie":
    man = man.replace("OBJECTS=3", "OBJECTS=2")
elif kind == "payload":
    b = bytearray(members[0][1]); b[-1] ^= 1
    members[0] = (members[0][0], bytes(b))
elif kind == "order":
    members.reverse()
elif kind == "manifest-last":
    pass
def digest(ms):
    h = hashlib.sha256()
    for n, d in ms:
        if not n.startswith("gcda/") or ".." in n:
            continue
        h.update(n.encode() + b"\0" + len(d).to_bytes(8, "little") + d)
    return h.hexdigest()
if kind not in ("payload", "lie"):
    lines = [l for l in man.splitlines() if not l.startswith("PAYLOAD_SHA256=")]
    man = "\n".join(lines) + "\nPAYLOAD_SHA256=" + digest(members) + "\n"
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    def add(name, data=b"", **kw):
        ti = tarfile.TarInfo(name); ti.size = len(data)
        for k, v in kw.items(): setattr(ti, k, v)
        t.addfile(ti, io.BytesIO(data) if data else None)
    if kind != "manifest-last":
        add("MANIFEST", man.encode())
    for n, d in members:
        add(n, d)
    if kind == "symlink":
        add("gcda/zz.gcda", type=tarfile.SYMTYPE, linkname="/etc/passwd")
    elif kind == "hardlink":
        add("gcda/zz.gcda", type=tarfile.LNKTYPE, linkname="gcda/main.gcda")
    elif kind == "device":
        add("gcda/zz.gcda", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    elif kind == "directory":
        add("gcda/zz.gcda", type=tarfile.DIRTYPE)
    elif kind == "other":
        add("gcda/zz.txt", b"hello")
    elif kind == "manifest-last":
        add("MANIFEST", man.encode())
PY
    zstd -q -f "$1.tar" -o "$1" && rm -f "$1.tar"
}

# Every reader refuses the archive; nothing appears anywhere.
refused() {
    local a=$1 want=$2
    before=$(find "$W" -newer "$a" | grep -v "^$W/store" | sort)
    run kpgo info "$a"
    assert_failure 1
    assert_output --regexp "^kpgo: cannot read '.*': .*$want"
    [ "${#lines[@]}" -eq 1 ]
    run kpgo stage --cc none --objtree "$W/tree/sub" "$a"
    assert_failure 1
    assert_output --partial "$want"
    run kpgo merge -o "$W/m.kpgo" "$a" "$W/good.kpgo"
    assert_failure 1
    assert_output --partial "$want"
    run kpgo store --store "$W/store" add "$a"
    assert_failure 1
    run kpgo afdo -o "$W/a.afdo.txt" "$a"
    assert_failure 1
    assert_output --partial "$want"
    [ "${#lines[@]}" -eq 1 ]
    [ ! -e "$W/a.afdo.txt" ]
    run find "$W/tree" -type f
    assert_output ""
    [ ! -e "$W/m.kpgo" ]
    [ ! -e "$W/escape.gcda" ]
    [ ! -e /tmp/kpgo-escape.gcda ]
    after=$(find "$W" -newer "$a" | grep -v "^$W/store" | sort)
    [ "$before" = "$after" ] || { echo "new files: $after"; false; }
}

@test "the forged archive is refused only for its change (control)" {
    forge "$W/ok.kpgo" none
    run kpgo info "$W/ok.kpgo"
    assert_success
}

@test "an entry with '..' is refused" {
    forge "$W/a.kpgo" dotdot
    refused "$W/a.kpgo" "unsafe or bad archive entry name"
}

@test "an absolute entry is refused" {
    forge "$W/a.kpgo" absolute
    refused "$W/a.kpgo" "entry"
}

@test "symbolic links, hard links, device nodes and directories are refused" {
    forge "$W/s.kpgo" symlink
    refused "$W/s.kpgo" "not a regular file"
    forge "$W/h.kpgo" hardlink
    refused "$W/h.kpgo" "hard link"
    forge "$W/d.kpgo" device
    refused "$W/d.kpgo" "not a regular file"
    forge "$W/r.kpgo" directory
    refused "$W/r.kpgo" "not a regular file"
}

@test "entries that are not gcda, out of order, or a MANIFEST not first are refused" {
    forge "$W/o.kpgo" other
    refused "$W/o.kpgo" "bad archive entry name"
    forge "$W/r.kpgo" order
    refused "$W/r.kpgo" "out of order"
    forge "$W/ml.kpgo" manifest-last
    refused "$W/ml.kpgo" "not MANIFEST"
}

@test "a MANIFEST that lies about the payload is refused" {
    forge "$W/l.kpgo" lie
    refused "$W/l.kpgo" "manifest says OBJECTS=2, the payload has 3"
    forge "$W/p.kpgo" payload
    refused "$W/p.kpgo" "PAYLOAD_SHA256"
}

@test "truncated and garbage archives are refused" {
    head -c 200 "$W/good.kpgo" >"$W/t.kpgo"
    refused "$W/t.kpgo" ""
    head -c 4096 /dev/urandom >"$W/g.kpgo"
    refused "$W/g.kpgo" ""
}
