#!/usr/bin/env bats
# kpgo store ingest: a build farm's drop directory into the store; bad and
# foreign files rejected with a reason, the rest ingested; profiles merged
# per kernel build, weighted by workload, idempotently.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
    make_program "$BATS_FILE_TMPDIR/build"
    run_program "$BATS_FILE_TMPDIR/build" 3
    gcov_tree "$BATS_FILE_TMPDIR/build" "$BATS_FILE_TMPDIR/gcov3"
    # A second training run: other counts, same build.
    run_program "$BATS_FILE_TMPDIR/build" 7
    gcov_tree "$BATS_FILE_TMPDIR/build" "$BATS_FILE_TMPDIR/gcov7"
}

setup() {
    W=$BATS_TEST_TMPDIR
    export KPGO_STORE=$W/store
    DROP=$W/drop
    mkdir "$DROP"
}

# profile OUT [RUN] [WORKLOAD] [BUILD_ID] [RELEASE]: a real profile.
profile() {
    kpgo collect -q --gcov-dir "$BATS_FILE_TMPDIR/gcov${2:-3}" --workload "${3:-test}" \
        --build-id "${4:-00ab}" --kernel-release "${5:-6.1.0-30-pgo-instr}" -o "$1"
}

payload() {
    tar --zstd -xOf "$1" MANIFEST | sed -n 's/^PAYLOAD_SHA256=//p'
}

@test "corrupt, truncated, foreign and odd files are rejected with a reason; the rest is ingested" {
    profile "$DROP/a.kpgo" 3
    profile "$DROP/b.kpgo" 7
    echo "not an archive" >"$DROP/garbage.kpgo"
    head -c 300 "$DROP/a.kpgo" >"$DROP/truncated.kpgo"
    tar --zstd -cf "$DROP/foreign-tar.kpgo" -C "$BATS_FILE_TMPDIR" build/main.c
    with_manifest "$DROP/a.kpgo" "$DROP/arm.kpgo" ARCH=aarch64
    flip_payload "$DROP/b.kpgo" "$DROP/flipped.kpgo"
    ln -s /etc/passwd "$DROP/link.kpgo"
    mkfifo "$DROP/fifo.kpgo"
    echo "left alone" >"$DROP/README"
    head -c 300 "$DROP/a.kpgo" >"$DROP/.inflight.kpgo"
    touch -d '1 hour ago' "$DROP"/*.kpgo
    run kpgo store ingest --arch "$(uname -m)" "$DROP"
    assert_success
    assert_line --regexp "^added a\.kpgo [0-9a-f]{64}$"
    assert_line --regexp "^added b\.kpgo [0-9a-f]{64}$"
    for f in garbage truncated foreign-tar arm flipped link fifo; do
        assert_line --regexp "^rejected $f\.kpgo: "
        [ -e "$DROP/rejected/$f.kpgo" ] || [ -L "$DROP/rejected/$f.kpgo" ]
        [ -s "$DROP/rejected/$f.kpgo.reason" ]
    done
    grep -qx "foreign: a profile of arch 'aarch64', not '$(uname -m)'" "$DROP/rejected/arm.kpgo.reason"
    grep -q "^not a valid kpgo profile: .*payload" "$DROP/rejected/flipped.kpgo.reason"
    grep -qx "not a regular file" "$DROP/rejected/link.kpgo.reason"
    # The link was moved, not followed.
    [ -L "$DROP/rejected/link.kpgo" ]
    [ -e "$DROP/README" ] && [ -e "$DROP/.inflight.kpgo" ]
    [ ! -e "$DROP/a.kpgo" ] && [ ! -e "$DROP/b.kpgo" ]
    run kpgo store list
    [ "$(grep -c ' 6\.1\.0-30-pgo-instr ' <<<"$output")" -eq 3 ] # two profiles and their merge
    run kpgo store verify
    assert_success
}

@test "a file still being written is left for the next run, then ingested; a later reject keeps the first" {
    profile "$W/a.kpgo" 3
    head -c 300 "$W/a.kpgo" >"$DROP/a.kpgo"
    run kpgo store ingest "$DROP"
    assert_success
    assert_output --regexp "^pending a\.kpgo: "
    [ -e "$DROP/a.kpgo" ]
    cp "$W/a.kpgo" "$DROP/a.kpgo"
    run kpgo store ingest "$DROP"
    assert_success
    assert_output --regexp "^added a\.kpgo "
    # Two bad files of one name, a run apart: both kept, reasons apart.
    echo bad1 >"$DROP/x.kpgo"
    touch -d '1 hour ago' "$DROP/x.kpgo"
    kpgo store ingest "$DROP" >/dev/null
    echo bad2 >"$DROP/x.kpgo"
    run kpgo store ingest --settle 0 "$DROP"
    assert_line --regexp "^rejected x\.kpgo: "
    [ "$(cat "$DROP/rejected/x.kpgo")" = bad1 ]
    [ "$(cat "$DROP/rejected/x.kpgo.1")" = bad2 ]
    [ -s "$DROP/rejected/x.kpgo.1.reason" ]
}

@test "one kernel build's profiles are merged, weighted by workload, and select picks the merge" {
    profile "$DROP/redis.kpgo" 3 redis
    profile "$DROP/build.kpgo" 7 kbuild
    profile "$DROP/batch.kpgo" 7 batch
    profile "$DROP/idle.kpgo" 3 idle
    printf '# weights\nredis=3\n*=1\nidle=0\n' >"$W/weights"
    run kpgo store ingest --weights "$W/weights" "$DROP"
    assert_success
    assert_line --regexp "^merged 6\.1\.0-30-pgo-instr \(build 00ab, [^,]+, gcov B[0-9]{2}\*\): 3 profiles into [0-9a-f]{64}$"
    merged=$(sed -n 's/^merged .* into //p' <<<"$output")
    # The same counters kpgo merge computes with the same weights (no
    # collection is above the median, so none is capped).
    profile "$W/redis.kpgo" 3 redis
    profile "$W/build.kpgo" 7 kbuild
    profile "$W/batch.kpgo" 7 batch
    kpgo merge -q --weights 3,1,1 -o "$W/ref.kpgo" "$W/redis.kpgo" "$W/build.kpgo" "$W/batch.kpgo"
    path=$(kpgo store select --release 6.1.0-30-pgo-instr --build-id 00ab 2>/dev/null)
    [[ $path == *"/$merged.kpgo" ]]
    [ "$(payload "$path")" = "$(payload "$W/ref.kpgo")" ]
    tar --zstd -xOf "$path" MANIFEST | grep -qx 'RUNS=5'
    tar --zstd -xOf "$path" MANIFEST | grep -qx 'MERGED_PROFILES=3'
    tar --zstd -xOf "$path" MANIFEST | grep -Eqx 'MERGE_INPUTS=[0-9a-f]{64}'
}

@test "a rerun changes nothing; a new profile makes a new merge and the old one goes" {
    profile "$DROP/one.kpgo" 3 redis
    profile "$DROP/two.kpgo" 7 redis
    kpgo store ingest "$DROP" >/dev/null
    before=$(kpgo store list)
    run kpgo store ingest "$DROP"
    assert_success
    assert_output ""
    run kpgo store -v ingest "$DROP"
    assert_line --regexp "^current 6\.1\.0-30-pgo-instr .*: 2 profiles, merged already$"
    [ "$(kpgo store list)" = "$before" ]
    old=$(kpgo store select --release 6.1.0-30-pgo-instr 2>/dev/null)
    profile "$DROP/three.kpgo" 3 batch
    run kpgo store ingest "$DROP"
    assert_success
    assert_line --regexp "^merged .*: 3 profiles into "
    old_sha=${old##*/}
    assert_line --regexp "^superseded 6\.1\.0-30-pgo-instr .*: removed ${old_sha%.kpgo}$"
    [ ! -e "$old" ]
    [ "$(kpgo store list | grep -c ' mixed ')" -eq 1 ]
    # Other weights are other inputs: merged again.
    printf 'redis=2\n' >"$W/weights"
    run kpgo store ingest --weights "$W/weights" "$DROP"
    assert_line --regexp "^merged .*: 3 profiles into "
    run kpgo store verify
    assert_success
}

@test "builds are merged apart; a lone profile, or one without a release, is not merged" {
    profile "$DROP/a1.kpgo" 3 w 00aa
    profile "$DROP/a2.kpgo" 7 w 00aa
    profile "$DROP/b1.kpgo" 3 w 00bb
    profile "$DROP/c1.kpgo" 3 w 00cc 6.1.0-31-pgo-instr
    kpgo collect -q --gcov-dir "$BATS_FILE_TMPDIR/gcov7" -o "$DROP/norelease1.kpgo"
    kpgo collect -q --gcov-dir "$BATS_FILE_TMPDIR/gcov3" -o "$DROP/norelease2.kpgo"
    run kpgo store ingest "$DROP"
    assert_success
    [ "$(grep -c '^added ' <<<"$output")" -eq 6 ]
    [ "$(grep -c '^merged ' <<<"$output")" -eq 1 ]
    assert_line --regexp "^merged 6\.1\.0-30-pgo-instr \(build 00aa, "
}

@test "70 profiles (merged in rounds) give what one merge gives" {
    local files=() w=()
    for i in $(seq 1 70); do
        # 34 of the smaller counts, 36 of the larger: the median is a larger
        # one, so none is capped and kpgo merge gives the same.
        profile "$DROP/p$i.kpgo" $((i <= 34 ? 3 : 7)) "w$i"
        cp "$DROP/p$i.kpgo" "$W/p$i.kpgo"
        files+=("$W/p$i.kpgo")
        w+=($((i % 3 + 1)))
    done
    for i in $(seq 1 70); do
        echo "w$i=$((i % 3 + 1))"
    done >"$W/weights"
    run kpgo store ingest --weights "$W/weights" "$DROP"
    assert_success
    assert_line --regexp "^merged .*: 70 profiles into "
    [ -z "$(ls -A "$KPGO_STORE/tmp")" ]
    kpgo merge -q --weights "$(IFS=,; echo "${w[*]}")" -o "$W/ref.kpgo" "${files[@]}"
    path=$(kpgo store select --release 6.1.0-30-pgo-instr 2>/dev/null)
    [ "$(payload "$path")" = "$(payload "$W/ref.kpgo")" ]
    tar --zstd -xOf "$path" MANIFEST | grep -qx 'MERGED_PROFILES=70'
}

@test "bad weights files are refused with the file and line, before anything is touched" {
    profile "$DROP/a.kpgo"
    for bad in 'redis' 'redis=-1' 'redis=1000001' 'red is=1' '=1' 'redis=1x' 'a=1\na=2' '*=1\n*=2'; do
        printf '%b\n' "$bad" >"$W/weights"
        run kpgo store ingest --weights "$W/weights" "$DROP"
        assert_failure 1
        assert_output --regexp "^kpgo: $W/weights:[12]: "
    done
    [ -e "$DROP/a.kpgo" ]
    [ ! -e "$KPGO_STORE" ]
}

@test "two ingests of one drop directory never run at once" {
    profile "$DROP/a.kpgo"
    exec {fd}>>"$DROP/.kpgo-ingest.lock"
    flock "$fd"
    run kpgo store ingest "$DROP"
    exec {fd}>&-
    assert_success
    assert_output "another ingest of '$DROP' is running; nothing to do"
    [ -e "$DROP/a.kpgo" ]
    run kpgo store ingest "$DROP"
    assert_line --regexp "^added a\.kpgo "
}

@test "an unusable drop directory or store is one clear error" {
    run kpgo store ingest "$W/missing"
    assert_failure 1
    assert_output "kpgo: cannot open the drop directory '$W/missing': No such file or directory"
    run kpgo store ingest
    assert_failure 2
    profile "$DROP/a.kpgo"
    echo file >"$W/store-file"
    run kpgo store --store "$W/store-file" ingest "$DROP"
    assert_failure 1
    assert_output --partial "kpgo: "
    [ -e "$DROP/a.kpgo" ]
}

# sum_all FILE: the sum of the profile's counters, as kpgo info counts them.
sum_all() {
    kpgo info --json "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["sum_all"])'
}

@test "an upload that claims more than one run or merged profiles is rejected; select takes the farm's merge" {
    profile "$DROP/a.kpgo" 3 w
    profile "$DROP/b.kpgo" 7 w
    profile "$W/c.kpgo" 3 w
    with_manifest "$W/c.kpgo" "$DROP/runs.kpgo" RUNS=18446744073709551615 \
        WINDOW_END=2099-01-01T00:00:00Z
    with_manifest "$W/c.kpgo" "$DROP/merged.kpgo" MERGED_PROFILES=1000
    run kpgo store ingest "$DROP"
    assert_success
    assert_line "rejected runs.kpgo: not a single collection: RUNS=18446744073709551615 MERGED_PROFILES=1 (merges are made by the farm, not uploaded)"
    assert_line --regexp "^rejected merged\.kpgo: not a single collection: RUNS=1 MERGED_PROFILES=1000 "
    assert_line --regexp "^merged .*: 2 profiles into "
    merged=$(sed -n 's/^merged .* into //p' <<<"$output")
    run --separate-stderr kpgo store select --release 6.1.0-30-pgo-instr --build-id 00ab
    assert_success
    [[ $output == *"/$merged.kpgo" ]]
}

@test "a machine whose counts are scaled a million times weighs no more than a typical one" {
    profile "$DROP/a.kpgo" 3 w
    profile "$DROP/b.kpgo" 7 w
    cp "$DROP/a.kpgo" "$W/a.kpgo"
    cp "$DROP/b.kpgo" "$W/b.kpgo"
    profile "$W/c.kpgo" 3 w
    kpgo merge -q --weights 1000000 -o "$W/big.kpgo" "$W/c.kpgo"
    # Consistent in itself (payload, totals): only its counts are out of scale.
    with_manifest "$W/big.kpgo" "$DROP/big.kpgo" RUNS=1
    run kpgo store ingest "$DROP"
    assert_success
    assert_line --regexp "^added big\.kpgo "
    assert_line --regexp "^merged .*: 3 profiles into "
    path=$(kpgo store select --release 6.1.0-30-pgo-instr --build-id 00ab 2>/dev/null)
    sa=$(sum_all "$W/a.kpgo") sb=$(sum_all "$W/b.kpgo") sm=$(sum_all "$path")
    [ "$sa" -lt "$sb" ]
    # The big one counts as the median collection (b) at most: a + b + b.
    [ "$sm" -le $((sa + 2 * sb)) ]
    [ "$sm" -ge $((sa + sb)) ]
    # Its SUM_MAX is capped with its counters.
    smax=$(tar --zstd -xOf "$path" MANIFEST | sed -n 's/^SUM_MAX=//p')
    [ "$smax" -le "$sm" ]
}
