#!/usr/bin/env bats
# kpgo info --html: one self-contained page, well-formed, rendered by a
# headless browser (Debian's chromium), every hostile string escaped.

# shellcheck disable=SC2154 # bats' run --separate-stderr sets $stderr
load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    fixture_profile "$W/p.kpgo"
    BUILD=$(ls -d "$W"/fx.*/build)
}

# chrome ARGS... URL: headless chromium, nothing fetched, nothing kept.
chrome() {
    command -v chromium >/dev/null || skip "chromium is not installed (tests/install-deps.sh installs it)"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$W/chrome" "$@" 2>"$W/chrome.log"
}

# A real pgo-report: the optimized build of the program with one function
# changed since the profile (GCC drops its counts) and a new object.
pgo_report() {
    local obj=$W/obj
    mkdir -p "$obj/lib" "$W/src2" "$obj/extra"
    make_program "$W/src2" 2
    cp "$BUILD/main.c" "$BUILD/lib/a.c" "$obj/" && mv "$obj/a.c" "$obj/lib/"
    cp "$W/src2/lib/b.c" "$obj/lib/b.c"
    echo 'int new_fn(void) { return 1; }' >"$obj/extra/new.c"
    kpgo stage --cc gcc -q --objtree "$obj" --summary "$W/stage.json" "$W/p.kpgo"
    read -ra flags <<<"$(kpgo flags)"
    (cd "$obj" && for f in main lib/a lib/b extra/new; do
        echo "  CC      $f.o"
        gcc -O2 "${flags[@]}" -Wmissing-profile -c "$f.c" -o "$f.o" 2>&1 || exit 1
    done) >"$W/build.log"
    kpgo report -q -p "$W/p.kpgo" -t "$obj" -l "$W/build.log" -s "$W/stage.json" \
        --min-applied 0 -o "$1"
}

@test "the report is one well-formed page that needs nothing else" {
    pgo_report "$W/pgo-report"
    run kpgo info --html "$W/r.html" --objtree "$BUILD" --pgo-report "$W/pgo-report" "$W/p.kpgo"
    assert_success
    [ -z "$output" ]
    xmllint --noout "$W/r.html"
    # Nothing to fetch: no script, no link, no image or style from elsewhere.
    run grep -Eio '<script|<link|<img|<iframe|src=|href=|@import|url\(' "$W/r.html"
    assert_failure 1
    [ "$(grep -Eo 'https?://[^"]*' "$W/r.html" | sort -u | tr '\n' ' ')" = \
        "http://www.w3.org/1999/xhtml http://www.w3.org/2000/svg " ]
    grep -q '<code class="fn">a_work</code>' "$W/r.html"
    grep -q '<svg xmlns="http://www.w3.org/2000/svg" id="subsystem-chart"' "$W/r.html"
    # The pgo-report: its verdict, that it names this profile, its lists.
    grep -q '<span class="ok" id="verdict">ok: ' "$W/r.html"
    grep -q '<span class="ok" id="same-profile">this profile</span>' "$W/r.html"
    grep -q '<summary>functions dropped (profile not used): object, where, function — 1 line</summary>' "$W/r.html"
    grep -q "<tr><th>profile functions dropped (control flow or counters changed)</th><td>1</td></tr>" "$W/r.html"

    # Another profile's report is said to be one.
    fixture_profile "$W/q.kpgo" 5
    kpgo info --html "$W/q.html" --pgo-report "$W/pgo-report" "$W/q.kpgo"
    grep -q '<span class="bad" id="same-profile">another profile than this report' "$W/q.html"
    grep -q 'Functions are not named' "$W/q.html"
}

@test "chromium renders the report: the DOM holds the hottest function, the screenshot is not blank" {
    pgo_report "$W/pgo-report"
    kpgo info --html "$W/r.html" --objtree "$BUILD" --pgo-report "$W/pgo-report" "$W/p.kpgo"
    chrome --dump-dom "file://$W/r.html" >"$W/dom.html" || { cat "$W/chrome.log"; false; }
    grep -q '<table id="hottest-functions">' "$W/dom.html"
    # The hottest function, first row of its table, as the browser parsed it.
    python3 - "$W/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
table = dom[dom.index('<table id="hottest-functions">'):]
table = table[:table.index("</table>")]
rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
assert re.search(r'<code class="fn">a_work</code>.*lib/a\.c:1<', rows[1], re.S), rows[1]
assert '<svg xmlns="http://www.w3.org/2000/svg" id="subsystem-chart"' in dom
assert dom.count("<rect ") == 2, "two subsystems, two bars"
PY
    chrome --screenshot="$W/r.png" --window-size=1200,1600 "file://$W/r.html" ||
        { cat "$W/chrome.log"; false; }
    # Decode the PNG's top 700 rows: many colours, and the chart's first bar.
    python3 - "$W/r.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
assert (w, h, depth) == (1200, 1600, 8) and ctype in (2, 6), (w, h, depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, i, colours = bytearray(stride), 0, set()
for y in range(700):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = row[x - bpp] if x >= bpp else 0
        b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
        if f == 1: row[x] = (row[x] + a) & 255
        elif f == 2: row[x] = (row[x] + b) & 255
        elif f == 3: row[x] = (row[x] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(row[x:x + 3]) for x in range(0, stride, bpp))
    prev = row
assert len(colours) > 50, "%d colours: blank?" % len(colours)
assert bytes((0x3b, 0x7d, 0xd8)) in colours, "the chart's first bar (#3b7dd8) is missing"
PY
}

@test "hostile names and a hostile pgo-report are escaped; the page stays well-formed" {
    cp -a "$BUILD" "$W/evil"
    python3 - "$W/evil/lib/a.gcno" <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
name = b"<script>alert(1)</script>&\x01\xff\xe2\x80"
old = b"a_work\0"
# A longer name: the string and the record grow by the same bytes.
i = b.index(old)
new = name + b"\0"
grow = len(new) - len(old)
b = b[:i - 4] + (len(new)).to_bytes(4, "little") + new + b[i + len(old):]
# The FUNCTION record's length is 8 bytes before its ident, 12 words before the name's length.
fn = b.rindex(b"\x00\x00\x00\x01", 0, i - 4 - 12)
length = int.from_bytes(b[fn + 4:fn + 8], "little") + grow
b = b[:fn + 4] + length.to_bytes(4, "little") + b[fn + 8:]
open(p, "wb").write(b)
PY
    kpgo info --objtree "$W/evil" "$W/p.kpgo" | grep -F '<script>alert(1)</script>&\x01\xff\xe2\x80'
    printf 'kpgo profile report for kernel <b>x</b>\nprofile: <script>alert(2)</script>\nprofile sha256: \xff\x00"\n\nverdict: FAILED: <i>no</i>\n\n== list <script>\n<img src=x>\n\x1b[31m\n' >"$W/evil-report"
    run kpgo info --html "$W/e.html" --objtree "$W/evil" --pgo-report "$W/evil-report" "$W/p.kpgo"
    assert_success
    xmllint --noout "$W/e.html"
    run grep -o '<script\|<img\|<b>x\|<i>no' "$W/e.html"
    assert_failure 1
    grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;&amp;\x01\xff\xe2\x80</code>' "$W/e.html"
    grep -qF '<span class="bad" id="verdict">FAILED: &lt;i&gt;no&lt;/i&gt;</span>' "$W/e.html"
    grep -qF '<code>\xff\x00&quot;</code> <span class="bad" id="same-profile">' "$W/e.html"
    grep -qF '&lt;img src=x&gt;' "$W/e.html"
    chrome --dump-dom "file://$W/e.html" >"$W/dom.html" || { cat "$W/chrome.log"; false; }
    run grep -o '<script\|<img' "$W/dom.html"
    assert_failure 1
}

@test "--html writes atomically: a failure leaves no file, an old report stays whole" {
    echo old >"$W/r.html"
    printf 'oncg' >"$BUILD/main.gcno"
    run --separate-stderr kpgo info --html "$W/r.html" --objtree "$BUILD" "$W/p.kpgo"
    assert_failure 1
    [ "$(cat "$W/r.html")" = old ]
    run --separate-stderr kpgo info --html "$W/none/r.html" "$W/p.kpgo"
    assert_failure 1
    [[ $stderr == "kpgo: cannot write '$W/none/r.html': "* ]]
    run --separate-stderr kpgo info --html "$W/r2.html" --pgo-report "$W/missing" "$W/p.kpgo"
    assert_failure 1
    assert_equal "$stderr" "kpgo: cannot read '$W/missing': No such file or directory"
    [ ! -e "$W/r2.html" ]
    [ -z "$(find "$W" -maxdepth 1 -name 'r*.html.*')" ]
}
