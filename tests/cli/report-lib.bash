# What the kpgo report tests (report*.bats) share, loaded after helpers.
# shellcheck shell=bash
# shellcheck disable=SC2154 # $output and $lines are set by bats' run

# refused WANT ARGS...: kpgo report ARGS -o $W/out/report must fail with
# exit 1 and one line matching WANT, and leave the old report (and nothing
# else) in $W/out.
refused() {
    local want=$1
    shift
    mkdir -p "$W/out"
    echo "the old report" >"$W/out/report"
    run kpgo report "$@" -o "$W/out/report"
    assert_failure 1
    [ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
    assert_output --regexp "^kpgo: $want"
    [ "$(cat "$W/out/report")" = "the old report" ]
    [ "$(ls -A "$W/out")" = report ]
}
