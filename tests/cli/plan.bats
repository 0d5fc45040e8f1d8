#!/usr/bin/env bats
# kpgo plan: what a kernel package build makes, from a source tree, dpkg's
# status, a config name and a profile; the versions sort as apt and rpm
# must see them when a new profile, a rebuild or Debian's next revision
# comes; bad inputs are refused with one line.
# shellcheck disable=SC2154 # bats sets status, output, lines, stderr

load helpers

bats_require_minimum_version 1.5.0

setup() {
    W=$BATS_TEST_TMPDIR
    mkdir -p "$W/src" "$W/kconfig" "$W/debcfg"
    printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\n' >"$W/src/Makefile"
    : >"$W/kconfig/small.config"
    printf 'CONFIG_X=y\n' | xz >"$W/debcfg/config.amd64_none_cloud-amd64.xz"
    cat >"$W/status" <<'EOF'
Package: linux-source-6.1
Status: install ok installed
Source: linux
Version: 6.1.192-3

EOF
    PROFILE=$BATS_TEST_DIRNAME/../../profiles-store/6.1/small.kpgo
    BASE=(--src "$W/src" --source-package linux-source-6.1 --dpkg-status "$W/status"
        --kconfig-dir "$W/kconfig" --debian-config-dir "$W/debcfg")
}

# value KEY: KEY's value in $output (shell format)
value() {
    sed -n "s/^KPGO_$1=//p" <<<"$output"
}

@test "plan: the small config, no profile" {
    run kpgo plan "${BASE[@]}"
    assert_success
    assert_line KPGO_SERIES=6.1
    assert_line KPGO_KVER=6.1.192
    assert_line KPGO_SOURCE_VERSION=6.1.192-3
    assert_line KPGO_BUILT_USING_SOURCE=linux
    assert_line KPGO_REL_INSTR=6.1.192-3-pgo-instr
    assert_line KPGO_REL_PGO=
    assert_line "KPGO_DEB_VERSION_INSTR=6.1.192-3+kpgo$("$KPGO" --version | awk '{ print $NF }')"
    assert_line "KPGO_CONFIG_FILE=$W/kconfig/small.config"
    assert_line KPGO_PROFILE=
}

@test "plan: Debian's cloud config and a profile" {
    run kpgo plan "${BASE[@]}" --config debian-cloud --profile "$PROFILE"
    assert_success
    assert_line KPGO_CONFIG=debian-cloud-amd64
    assert_line KPGO_CONFIG_KIND=debian
    assert_line "KPGO_CONFIG_FILE=$W/debcfg/config.amd64_none_cloud-amd64.xz"
    assert_line KPGO_REL_INSTR=6.1.192-3-cloud-amd64-pgo-instr
    stamp=$("$KPGO" info "$PROFILE" | sed -n 's/^  WINDOW_END=//p' | tr -d -- '-:TZ')
    assert_line "KPGO_REL_PGO=6.1.192-3.$stamp-cloud-amd64-pgo"
    assert_line "KPGO_DEB_VERSION_PGO=6.1.192-3+kpgo$stamp"
    assert_line "KPGO_PROFILE_SHA256=$(sha256sum <"$PROFILE" | cut -d' ' -f1)"
    assert_line KPGO_SOURCE_NAME=linux-pgo-6.1-cloud-amd64
    assert_line "KPGO_SOURCE_PKG_VERSION=6.1.192+3+kpgo$stamp"
    assert_line KPGO_TREE_PGO=cloud-pgo
}

@test "plan: the formats carry the same values" {
    run kpgo plan "${BASE[@]}" --profile "$PROFILE"
    rel=$(value REL_PGO)
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --format make
    assert_line "KPGO_REL_PGO := $rel"
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --format rpm
    assert_line "%kpgo_plan_rel_pgo $rel"
    assert_line "%kpgo_plan_debrev 3"
    run kpgo plan "${BASE[@]}" --format rpm
    assert_line "%kpgo_plan_rel_pgo %{nil}"
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --format json
    assert_success
    python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["version"] == 1; print(d["REL_PGO"])' \
        <<<"$output" >"$W/rel"
    assert_equal "$(cat "$W/rel")" "$rel"
}

@test "plan: the default profile of profiles-store, and none when there is none" {
    mkdir -p "$W/ps/6.1"
    cp "$PROFILE" "$W/ps/6.1/small.kpgo"
    run kpgo plan "${BASE[@]}" --profiles-store "$W/ps"
    assert_line "KPGO_PROFILE=$W/ps/6.1/small.kpgo"
    run kpgo plan "${BASE[@]}" --profiles-store "$W/ps" --config debian-cloud
    assert_success
    assert_line KPGO_PROFILE=
}

@test "plan: each profile in the repository's profiles-store is the default of the config it is named for" {
    ps=$BATS_TEST_DIRNAME/../../profiles-store
    for dir in "$ps"/*/; do
        series=$(basename "$dir")
        [[ $series =~ ^6\.(1|12)$ ]] || fail "profiles-store/$series: not a series kpgo builds"
        # a source tree and dpkg's status of that series
        mkdir -p "$W/src-$series"
        printf 'VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = 7\nEXTRAVERSION =\n' "${series#6.}" >"$W/src-$series/Makefile"
        printf 'Package: linux-source-%s\nStatus: install ok installed\nSource: linux\nVersion: %s.7-1\n\n' \
            "$series" "$series" >"$W/status-$series"
        picked=()
        for cfg in small debian-cloud; do
            run kpgo plan --src "$W/src-$series" --source-package "linux-source-$series" \
                --dpkg-status "$W/status-$series" --kconfig-dir "$W/kconfig" \
                --debian-config-dir "$W/debcfg" --profiles-store "$ps" --config "$cfg"
            assert_success
            name=$(value CONFIG)
            if [ -f "$ps/$series/$name.kpgo" ]; then
                assert_line "KPGO_PROFILE=$ps/$series/$name.kpgo"
                picked+=("$name.kpgo")
            fi
        done
        # nothing there that no config picks (a profile under a name plan never asks for)
        for f in "$ps/$series"/*.kpgo; do
            [[ " ${picked[*]} " == *" ${f##*/} "* ]] || fail "profiles-store/$series/${f##*/} is no config's default profile"
        done
    done
}

@test "plan: versions sort as apt and rpm must see them" {
    # a newer profile, a rebuild, Debian's next revision with the old profile
    with_manifest "$PROFILE" "$W/newer.kpgo" WINDOW_END=2027-01-15T08:00:00Z
    plan_of() {
        kpgo plan "${BASE[@]}" "$@" | sed -n 's/^KPGO_\(DEB_VERSION_PGO\|RPM_RELEASE_PGO\|REL_PGO\)=/\1 /p'
    }
    read -r _ old < <(plan_of --profile "$PROFILE" | grep ^DEB)
    read -r _ rpm_old < <(plan_of --profile "$PROFILE" | grep ^RPM)
    read -r _ rel_old < <(plan_of --profile "$PROFILE" | grep ^REL)
    read -r _ new < <(plan_of --profile "$W/newer.kpgo" | grep ^DEB)
    read -r _ rpm_new < <(plan_of --profile "$W/newer.kpgo" | grep ^RPM)
    read -r _ rel_new < <(plan_of --profile "$W/newer.kpgo" | grep ^REL)
    read -r _ rebuild < <(plan_of --profile "$PROFILE" --serial 1 | grep ^DEB)
    assert_equal "$new" 6.1.192-3+kpgo20270115080000
    dpkg --compare-versions "$new" gt "$old"
    dpkg --compare-versions "$rebuild" gt "$old"
    dpkg --compare-versions "$new" gt "$rebuild"
    run rpm --eval "%{lua: print(rpm.vercmp('$rpm_new', '$rpm_old'))}"
    assert_output 1
    # a new profile is a new release (installed beside the old one)
    [ "$rel_new" != "$rel_old" ]
    # GRUB lists the newest first: version sort of the releases
    assert_equal "$(printf '%s\n' "$rel_new" "$rel_old" | sort -V | tail -1)" "$rel_new"
    # Debian's next revision of the same kernel, with the older profile
    sed -i 's/^Version: 6.1.192-3$/Version: 6.1.192-4/' "$W/status"
    read -r _ next < <(plan_of --profile "$PROFILE" | grep ^DEB)
    dpkg --compare-versions "$next" gt "$new"
}

@test "plan: the changelog entries name the kernel source and the profile" {
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --changelog pgo
    assert_success
    sha=$(sha256sum <"$PROFILE" | cut -d' ' -f1)
    printf '%s\n' "$output" >"$W/changelog"
    run dpkg-parsechangelog -l "$W/changelog" -SVersion
    assert_output "$(kpgo plan "${BASE[@]}" --profile "$PROFILE" | sed -n 's/^KPGO_DEB_VERSION_PGO=//p')"
    run grep -c "$sha" "$W/changelog"
    assert_output 1
    grep -q "linux-source-6.1 6.1.192-3" "$W/changelog"
    # the profile's own workload label (profiles-store's default profile)
    wl=$(kpgo info "$PROFILE" | sed -n 's/^  WORKLOAD=//p')
    [ -n "$wl" ]
    grep -q "workload $wl" "$W/changelog"
    # the machines it was collected on: one, or a merge's (HOSTS)
    with_manifest "$PROFILE" "$W/one.kpgo" HOST=web-01
    run kpgo plan "${BASE[@]}" --profile "$W/one.kpgo" --changelog pgo
    [[ "$(tr -s ' \n' '  ' <<<"$output")" == *"collected on "*" by web-01, 1 profile(s) merged"* ]]
    with_manifest "$PROFILE" "$W/none.kpgo" "HOST=(none)"
    run kpgo plan "${BASE[@]}" --profile "$W/none.kpgo" --changelog pgo
    [[ "$(tr -s ' \n' '  ' <<<"$output")" == *" by an unnamed machine, 1 profile(s) merged"* ]]
    for h in web-02 db-7 web-01; do
        with_manifest "$PROFILE" "$W/$h.kpgo" HOST=$h
    done
    "$KPGO" merge -q -o "$W/merged.kpgo" "$W"/web-02.kpgo "$W"/db-7.kpgo "$W"/web-01.kpgo
    run kpgo plan "${BASE[@]}" --profile "$W/merged.kpgo" --changelog pgo
    [[ "$(tr -s ' \n' '  ' <<<"$output")" == *" by 3 machines (db-7, web-01, web-02), 3 profile(s) merged"* ]]
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --changelog pgo --as-source
    printf '%s\n' "$output" >"$W/changelog"
    run dpkg-parsechangelog -l "$W/changelog" -SSource
    assert_output linux-pgo-6.1-small
    run kpgo plan "${BASE[@]}" --changelog pgo
    assert_failure 1
    assert_output --partial "needs a profile"
    SOURCE_DATE_EPOCH=0 run kpgo plan "${BASE[@]}" --changelog instr
    assert_success
    assert_output --partial " -- kpgo developers <kpgo-devel@example.org>  Thu, 01 Jan 1970 00:00:00 +0000"
}

@test "plan: bad inputs get one line and a failure" {
    run kpgo plan "${BASE[@]}" --config debian-arm64
    assert_failure 2
    assert_output --partial "unknown config 'debian-arm64'"
    run kpgo plan "${BASE[@]}" --config debian-amd64
    assert_failure 1
    assert_output --partial "cannot read the config"
    run kpgo plan "${BASE[@]}" --series 6.12
    assert_failure 1
    assert_output --partial "not of the series 6.12"
    run kpgo plan "${BASE[@]}" --source-package linux-source-6.12
    assert_failure 1
    assert_output "kpgo: the kernel source package 'linux-source-6.12' is not installed"
    sed -i 's/^Version: 6.1.192-3$/Version: 6.1.176-1/' "$W/status"
    run kpgo plan "${BASE[@]}"
    assert_failure 1
    assert_output --partial "the kernel source is Linux 6.1.192, but its package's version is 6.1.176-1"
    mkdir -p "$W/bad dir"
    : >"$W/bad dir/c.config"
    run kpgo plan --src "$W/src" --source-version 6.1.192-3 --full-config "$W/bad dir/c.config"
    assert_failure 1
    assert_output --partial "blanks, quotes and shell characters are refused"
    refute_line --regexp '^KPGO_'
    printf 'garbage' >"$W/p.kpgo"
    run kpgo plan --src "$W/src" --source-version 6.1.192-3 --kconfig-dir "$W/kconfig" --profile "$W/p.kpgo"
    assert_failure 1
    run kpgo plan "${BASE[@]}" --profile "$PROFILE" --store "$W"
    assert_failure 2
    run kpgo plan "${BASE[@]}" --serial -1
    assert_failure 2
}

@test "plan: a profile from a store, selected for the instrumented release" {
    run kpgo plan "${BASE[@]}" --store "$W/store"
    assert_failure 1
    with_manifest "$PROFILE" "$W/this.kpgo" KERNEL_RELEASE=6.1.192-3-pgo-instr \
        WINDOW_END=2027-01-15T08:00:00Z
    with_manifest "$PROFILE" "$W/other.kpgo" KERNEL_RELEASE=6.1.192-3-cloud-amd64-pgo-instr
    "$KPGO" store --store "$W/store" add "$W/this.kpgo" "$W/other.kpgo" >/dev/null
    run kpgo plan "${BASE[@]}" --store "$W/store"
    assert_success
    assert_line "KPGO_PROFILE_SHA256=$(sha256sum <"$W/this.kpgo" | cut -d' ' -f1)"
    assert_line KPGO_PROFILE_RELEASE=6.1.192-3-pgo-instr
    assert_line KPGO_REL_PGO=6.1.192-3.20270115080000-pgo
    run kpgo plan "${BASE[@]}" --store "$W/store" --config debian-cloud
    assert_success
    assert_line "KPGO_PROFILE_SHA256=$(sha256sum <"$W/other.kpgo" | cut -d' ' -f1)"
}

@test "rpm spec: each kernel's Provides carry the kernel's version and %{?dist}, not kpgo's" {
    command -v rpmspec >/dev/null || skip "rpmspec is not installed"
    kpgo plan "${BASE[@]}" --profile "$PROFILE" --format rpm >"$W/plan.macros"
    run rpmspec -P --define "kpgo_plan_file $W/plan.macros" --define "kpgo_srcdir $W" \
        --define 'dist .el9' "$BATS_TEST_DIRNAME/../../rpm/kernel-pgo.spec"
    assert_success
    printf '%s\n' "$output" >"$W/spec"
    rel_p=$(sed -n 's/^%kpgo_plan_rpm_release_pgo //p' "$W/plan.macros")
    rel_i=$(sed -n 's/^%kpgo_plan_rpm_release_instr //p' "$W/plan.macros")
    [ -n "$rel_p" ] && [ -n "$rel_i" ]
    assert_line "Release:        $rel_p.el9"
    assert_line "Provides:       kernel = 6.1.192-$rel_p.el9"
    assert_line "Provides:       kernel = 6.1.192-$rel_i.el9"
    refute_line --regexp '^Provides: +kernel = 0\.'
    # every kernel and devel package: install-only, its release by name
    assert_equal "$(grep -c '^Provides: *installonlypkg(kernel)$' "$W/spec")" 4
    assert_equal "$(grep -c '^Provides: *kernel\(-devel\)\?-uname-r(' "$W/spec")" 4
    assert_equal "$(grep -c '^Requires(posttrans): */usr/bin/kernel-install$' "$W/spec")" 2
    assert_line '%package devel'
    assert_line '%package instr-devel'
}

@test "plan: the store's freshness policy stops the plan; --override-policy builds and says so" {
    with_manifest "$PROFILE" "$W/old.kpgo" KERNEL_RELEASE=6.1.192-3-pgo-instr \
        WINDOW_END=2020-01-01T00:00:00Z
    "$KPGO" store --store "$W/store" add "$W/old.kpgo" >/dev/null
    # no policy file: kpgo's defaults; a month after its window chosen, and
    # the plan says how old it is
    run kpgo plan "${BASE[@]}" --store "$W/store" --now 2020-02-01T00:00:00Z
    assert_success
    assert_line KPGO_PROFILE_POLICY=ok
    assert_line KPGO_POLICY_MIN_APPLIED=50
    assert_line KPGO_PGO_MIN_APPLIED=50
    assert_line KPGO_PROFILE_RELEASES_BEHIND=0
    assert_line KPGO_PROFILE_AGE_DAYS=31
    # years later refused by the default age limit
    run --separate-stderr kpgo plan "${BASE[@]}" --store "$W/store"
    assert_failure 1
    [[ "$stderr" == *"days old, limit 210 days"* ]]
    printf 'MAX_AGE_DAYS=42\nWARN_AGE_DAYS=14\nMIN_APPLIED=70\n' >"$W/store/policy"
    run --separate-stderr kpgo plan "${BASE[@]}" --store "$W/store"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == *"the store's policy refused 1"*"days old, limit 42 days"* ]]
    run --separate-stderr kpgo plan "${BASE[@]}" --store "$W/store" --override-policy
    assert_success
    assert_line KPGO_PROFILE_POLICY=overridden
    assert_line KPGO_POLICY_MIN_APPLIED=70
    assert_line KPGO_PGO_MIN_APPLIED=70
    [[ "$stderr" == *"warning: the store's policy refuses"*"--override-policy"* ]]
    run kpgo plan "${BASE[@]}" --override-policy
    assert_failure 2
    # ages measured at --now: the same profile fresh on the day after its
    # window, refused 43 days after it, and --now checked
    run kpgo plan "${BASE[@]}" --store "$W/store" --now 2020-01-02T00:00:00Z
    assert_success
    assert_line KPGO_PROFILE_POLICY=ok
    assert_line KPGO_PROFILE_AGE_DAYS=1
    run --separate-stderr kpgo plan "${BASE[@]}" --store "$W/store" --now 2020-02-13T00:00:00Z
    assert_failure 1
    [[ "$stderr" == *"43 days old, limit 42 days"* ]]
    run kpgo plan "${BASE[@]}" --store "$W/store" --now 2020-02-30
    assert_failure 2
    assert_output --partial "bad --now '2020-02-30'"
    run kpgo plan "${BASE[@]}" --now 2020-01-02T00:00:00Z
    assert_failure 2
    # a profile file (no store): no policy
    run kpgo plan "${BASE[@]}" --profile "$W/old.kpgo"
    assert_success
    assert_line KPGO_PROFILE_POLICY=none
    assert_line KPGO_POLICY_MIN_APPLIED=
    assert_line KPGO_PGO_MIN_APPLIED=50
}
