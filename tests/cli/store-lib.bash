# What the kpgo store tests (store*.bats) share, loaded after helpers: real
# profiles of setup_file's gcov tree under any kernel, and their sha256.
# shellcheck shell=bash

# profile OUT RELEASE [BUILD_ID] [WORKLOAD]: a real profile of that kernel.
profile() {
    kpgo collect -q --gcov-dir "$BATS_FILE_TMPDIR/gcov" --kernel-release "$2" \
        --build-id "${3:-00}" --workload "${4:-test}" -o "$1"
}

# sha FILE: its sha256, the name the store gives it.
sha() {
    sha256sum "$1" | cut -d' ' -f1
}
