# kpgo — profile-guided kernels as distro packages.
# `make` builds build/kpgo; `make check` builds and runs every test.

VERSION := 0.1.0
CC ?= gcc
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
DESTDIR ?=
B := build

CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	-Wformat=2 -Wno-format-nonliteral
KPGO_CFLAGS := -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -DKPGO_VERSION='"$(VERSION)"' \
	-Isrc/lib -Isrc -MMD -MP
LIBS := $(shell pkg-config --libs libarchive libcrypto libzstd 2>/dev/null || echo -larchive -lcrypto -lzstd)

# SANITIZE=address,undefined (make check-sanitize): the tool and its tests
# built with those sanitizers. Their tests then run with leak detection on and
# every sanitizer finding exiting 86, a status no test expects of kpgo (so a
# finding on an error path fails a test that expects exit 1 too); the CLI
# tests skip what cannot run sanitized (KPGO_SANITIZED, skip_if_sanitized).
SANITIZE_ENV :=
ifneq ($(SANITIZE),)
KPGO_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:exitcode=86
endif
ifneq ($(WERROR),)
KPGO_CFLAGS += -Werror
endif

LIB_SRC := $(sort $(wildcard src/lib/*.c))
CMD_SRC := $(sort $(wildcard src/cmd/*.c)) src/kpgo.c
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(B)/tests/%)

all: $(B)/kpgo

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KPGO_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libkpgo.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/kpgo: $(CMD_OBJ) $(B)/libkpgo.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(B)/libkpgo.a $(LIBS)

$(B)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libkpgo.a
	@mkdir -p $(dir $@)
	$(CC) $(KPGO_CFLAGS) -Itests/unit $(CFLAGS) $(LDFLAGS) $< -o $@ $(B)/libkpgo.a $(LIBS)

$(B)/tests/%: tests/tools/%.c $(wildcard tests/tools/*.h) $(B)/libkpgo.a
	@mkdir -p $(dir $@)
	$(CC) $(KPGO_CFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ $(B)/libkpgo.a $(LIBS)

tools: $(TOOL_BIN)

# The workload programs (tests/bench/wl-*.c): static, so that they run in
# any guest (tests/e2e) as on the host.
WL_SRC := $(sort $(wildcard tests/bench/wl-*.c))
WL_BIN := $(WL_SRC:tests/bench/%.c=$(B)/bench/%)

$(B)/bench/wl-%: tests/bench/wl-%.c tests/bench/wl.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -static $< -o $@

workloads: $(WL_BIN)

# --- tests -------------------------------------------------------------
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
# libFuzzer's runtime is part of clang's compiler-rt, which Debian packages
# per clang version (libclang-rt-N-dev): FUZZ_CC must be a clang whose
# runtime is installed (tests/install-deps.sh installs it for clang, i.e.
# clang-14 on Debian 12, and clang-16). fuzz-cc checks that first and says so.
FUZZ_CC ?= clang

# Everything (the README's test command, and CI's): the tool's tests, every
# series and config configured, then the kernel cycle once, as a build farm
# runs it: `make packages` (both flavours, the optimized one with the
# default profile: "v1"), `make e2e` (root; QEMU), which installs them,
# collects a profile, builds "v2" from it as a farm does (its source
# package in a clean chroot) and upgrades to it, and the package tests
# (tests/kernel/packages.bats) on the packages, with the profile e2e
# collected. check-tool is the quick part alone; check-sanitize the unit and
# CLI tests again with the tool built with ASan and UBSan; kernel-check the
# package tests on `make packages`.
# Time (2 cores): the tool's tests and kernel-configs, then check-sanitize,
# run on one core, so they run beside the kernel builds of `make packages`,
# in their own build directory (B=$(B)/lane: the package build cleans $(B)'s
# tool; the sanitized build is in $(B)/lane/asan), their output kept in
# $(B)/check-lane.log and shown when both are done. The source RPM's
# `rpmbuild --rebuild` is one more kernel build (12 minutes here), which
# make check leaves to `make e2e` (E2E_SRPM=1, its default).
check:
	$(MAKE) test-signing-key
	@mkdir -p $(B)
	@echo "make check: check-tool, kernel-configs and check-sanitize run beside make packages; their output: $(B)/check-lane.log"
	@date -u '+make check: %T UTC: packages and the lane start'
	@set +e; \
	( { $(MAKE) --no-print-directory B=$(B)/lane check-tool kernel-configs && \
	    $(MAKE) --no-print-directory B=$(B)/lane check-sanitize; } >$(B)/check-lane.log 2>&1; \
	  echo $$? >$(B)/check-lane.rc; date -u '+make check: %T UTC: the lane ended' ) & \
	$(MAKE) packages KPGO_SIGNING_KEY=$(TEST_SIGNING_KEY); rc=$$?; \
	date -u '+make check: %T UTC: make packages ended'; \
	wait; \
	echo "=== make check-tool kernel-configs check-sanitize (beside make packages):"; cat $(B)/check-lane.log; \
	lrc=$$(cat $(B)/check-lane.rc 2>/dev/null || echo '?'); \
	[ "$$lrc" = 0 ] || { echo "make check: check-tool, kernel-configs or check-sanitize failed (exit $$lrc)"; exit 1; }; \
	[ $$rc = 0 ] || { echo "make check: make packages failed (exit $$rc)"; exit 1; }
	@date -u '+make check: %T UTC: e2e starts'
	$(MAKE) e2e KPGO_SIGNING_KEY=$(TEST_SIGNING_KEY) E2E_CLANG=0 E2E_SRPM=0
	@date -u '+make check: %T UTC: kernel-tests start'
	$(MAKE) kernel-tests KPGO_SIGNING_KEY=$(TEST_SIGNING_KEY) \
		KPGO_INSTR_PROFILE="$$(cat $(E2E_OUT)/profile.path)"
	@date -u '+make check: %T UTC: done'

# A throwaway module signing key for the tests (as the kernel's own
# certs/Makefile makes one): a farm gives its own as KPGO_SIGNING_KEY.
TEST_SIGNING_KEY := $(CURDIR)/$(B)/test-signing-key.pem
test-signing-key: $(TEST_SIGNING_KEY)
$(TEST_SIGNING_KEY):
	@mkdir -p $(dir $@)
	openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-subj "/O=kpgo tests/CN=kpgo throwaway module signing key" \
		-addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=digitalSignature" \
		-addext "subjectKeyIdentifier=hash" -addext "authorityKeyIdentifier=keyid" \
		-newkey rsa:2048 -keyout $@.tmp -out $@.tmp 2>/dev/null
	chmod 0600 $@.tmp
	mv $@.tmp $@

check-tool: lint fuzz-smoke unit cachesim cli

# The unit and CLI tests with the tool (and its test tools) built with ASan
# and UBSan, in a build directory of their own ($(B)/asan), never mixed with
# the normal build's objects. ~5 minutes on one core here.
check-sanitize:
	$(MAKE) --no-print-directory B=$(B)/asan SANITIZE=address,undefined unit cli

unit: $(UNIT_BIN)
	$(SANITIZE_ENV) prove --exec '' $(UNIT_BIN)

# The kernel benchmark's QEMU plugins, the cache model (tests/bench/cachesim.c)
# and the block profile (blockprof.c), against qemu-plugin.h from Debian's
# source of the installed QEMU (tests/bench/qemu-plugin.sh: apt-get source
# the first time, as root).
cachesim:
	tests/bench/qemu-plugin.sh --out $(CURDIR)/$(B)/qemu-plugin
	tests/bench/qemu-plugin.sh --out $(CURDIR)/$(B)/qemu-plugin --plugin blockprof

cli: $(B)/kpgo $(TOOL_BIN) workloads
	$(SANITIZE_ENV) KPGO_SANITIZED=$(SANITIZE) \
		KPGO=$(CURDIR)/$(B)/kpgo KPGO_TESTS_BIN=$(CURDIR)/$(B)/tests KPGO_BUILD=$(CURDIR)/$(B) \
		prove --exec 'bats --tap' $(sort $(wildcard tests/cli/*.bats))

# libFuzzer targets, built with clang; each runs FUZZ_SECONDS from its seeds.
# The library is compiled once for all of them (with the fuzzer's coverage
# instrumentation, ASan and UBSan), each target linked with it.
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Isrc/lib -g -O1
FUZZ_LIB_OBJ := $(LIB_SRC:src/lib/%.c=$(B)/fuzz/lib/%.o)

fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz-%)

fuzz-cc:
	@mkdir -p $(B)/fuzz
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 1 ? 0 : 0; }\n' \
		>$(B)/fuzz/cc-check.c
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(B)/fuzz/cc-check.c -o $(B)/fuzz/cc-check \
		2>$(B)/fuzz/cc-check.log || { \
		echo "fuzz: '$(FUZZ_CC)' cannot link a libFuzzer target (see $(B)/fuzz/cc-check.log):"; \
		echo "fuzz: install the compiler-rt of that clang, libclang-rt-N-dev for clang-N"; \
		echo "fuzz: (tests/install-deps.sh), or name another clang: make FUZZ_CC=clang-14 ..."; \
		exit 1; }

# Made by a pattern rule for pattern rules: kept, not removed as intermediates.
.SECONDARY: $(FUZZ_LIB_OBJ)

$(B)/fuzz/lib/%.o: src/lib/%.c | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB_OBJ) | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< $(FUZZ_LIB_OBJ) -o $@ $(LIBS)

fuzz-smoke: fuzz $(B)/tests/fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus-$$t; \
		$(B)/tests/fuzz-seeds $$t $(B)/fuzz/corpus-$$t || exit 1; \
		echo "fuzz $$t for $(FUZZ_SECONDS)s"; \
		$(B)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-print_final_stats=0 -artifact_prefix=$(B)/fuzz/$$t- \
			$(B)/fuzz/corpus-$$t 2>$(B)/fuzz/$$t.log || \
			{ tail -40 $(B)/fuzz/$$t.log; exit 1; }; \
	done
	@echo "fuzz: ok"

# Lint: shellcheck on every shell script (tracked files named *.sh, *.bash,
# *.bats, or starting with a #! of sh, bash or dash), and the C against
# .clang-format. Tables that clang-format 14 would break apart are fenced
# with /* clang-format off */ and /* clang-format on */ and say so.
CLANG_FORMAT ?= clang-format-14
# Tracked files (every file below the tree when it is no git checkout).
LINT_FILES = $(shell git ls-files 2>/dev/null || find . -path ./$(B) -prune -o -path ./.git -prune \
	-o -type f -print | sed 's|^\./||')
SHELL_SCRIPTS = $(sort $(filter %.sh %.bash %.bats,$(LINT_FILES)) \
	$(shell awk 'FNR == 1 && /^\#!.*[/ ](ba|da)?sh/ { print FILENAME } { nextfile }' \
		$(filter-out %.sh %.bash %.bats %.c %.h %.md %.png %.svg %.kpgo,$(LINT_FILES))))
C_SOURCES = $(sort $(filter %.c %.h,$(LINT_FILES)))

lint: lint-shell lint-format

lint-shell:
	shellcheck -x $(SHELL_SCRIPTS)
	@echo "shellcheck: ok ($(words $(SHELL_SCRIPTS)) scripts)"

lint-format:
	$(CLANG_FORMAT) --dry-run --Werror $(C_SOURCES)
	@echo "clang-format: ok ($(words $(C_SOURCES)) files)"

# The README's main job (until the kernel packaging lands): the pipeline on
# a small program.
demo: $(B)/kpgo $(TOOL_BIN)
	./tests/demo.sh

# --- kernel packages -----------------------------------------------------
# What a kernel package build makes is decided by `kpgo plan` from these
# inputs, each with a default (README, "Kernel packages"), and written to
# debian/kpgo-plan.mk (with the kernel packages' changelog entries) and
# $(B)/kpgo-plan.macros, which debian/rules and rpm/kernel-pgo.spec read:
#   KPGO_KSERIES (6.1; 6.12), KPGO_KSRC (a kernel source tree; default
#   Debian's linux-source-SERIES, unpacked), KPGO_CONFIG (small; debian-cloud,
#   debian-amd64, debian-rt: Debian's configs from linux-config-SERIES; or
#   the name of KPGO_FULL_CONFIG, a complete .config), KPGO_PROFILE (.kpgo of
#   the pgo flavour; default profiles-store/SERIES/CONFIG.kpgo) or KPGO_STORE
#   (a store: the profile `kpgo store select` picks, under the store's
#   freshness policy; KPGO_POLICY_OVERRIDE=1 builds with a profile the
#   policy refuses, and the report says so; KPGO_NOW=YYYY-MM-DDTHH:MM:SSZ
#   measures the profile's age at that time), KPGO_SERIAL (a rebuild
#   number). And for the build itself: KPGO_MIN_APPLIED (%), KPGO_CC
#   (compiler, default gcc), KPGO_SIGNING_KEY (module signing key),
#   KPGO_DEBUG_INFO=1 (debug info for the small config, and the -dbg
#   packages: the Debian build profile pkg.kpgo.debuginfo),
#   JOBS. Both package formats share the kernel trees in KPGO_BUILDDIR, so
#   each flavour is built once.
#   KPGO_TOOLCHAIN=clang: the pgo flavour by Clang with ThinLTO (the Debian
#   build profile pkg.kpgo.clang, rpmbuild --with clang), with KPGO_CLANG
#   (default clang-16) and KPGO_GCNO (the instrumented build's .gcno; see
#   debian/rules).
KPGO_KSERIES ?= 6.1
KSERIES := $(KPGO_KSERIES)
JOBS ?= $(shell nproc)
KPGO_BUILDDIR ?= $(CURDIR)/$(B)/kernel
PKGDIR ?= $(CURDIR)/$(B)/packages
# One compiler cache for every build: dpkg-buildpackage and rpmbuild change
# HOME, and ccache would then start from nothing.
CCACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ccache
export KPGO_BUILDDIR CCACHE_DIR
KPGO_PKG_VARS := $(foreach v,KPGO_KSRC KPGO_MIN_APPLIED KPGO_CC KPGO_CLANG KPGO_GCNO \
	KPGO_SIGNING_KEY KPGO_DEBUG_INFO,$(if $($(v)),$(v)=$($(v))))
KPGO_TOOLCHAIN ?= gcc
ifeq ($(filter gcc clang,$(KPGO_TOOLCHAIN)),)
$(error KPGO_TOOLCHAIN is gcc or clang, not '$(KPGO_TOOLCHAIN)')
endif
empty :=
space := $(empty) $(empty)
comma := ,
DEB_ALL_PROFILES = $(subst $(space),$(comma),$(strip $(subst $(comma),$(space),$(DEB_PROFILES)) \
	$(if $(filter clang,$(KPGO_TOOLCHAIN)),pkg.kpgo.clang) \
	$(if $(filter 1 yes,$(KPGO_DEBUG_INFO)),pkg.kpgo.debuginfo)))

PLAN_ARGS = --series $(KPGO_KSERIES) $(if $(KPGO_KSRC),--src $(KPGO_KSRC)) \
	$(if $(KPGO_CONFIG),--config $(KPGO_CONFIG)) \
	$(if $(KPGO_FULL_CONFIG),--full-config $(abspath $(KPGO_FULL_CONFIG))) \
	--kconfig-dir $(CURDIR)/hooks/build/kconfig \
	$(if $(KPGO_STORE),--store $(KPGO_STORE) --cc $(or $(KPGO_CC),gcc) \
		$(if $(filter 1 yes,$(KPGO_POLICY_OVERRIDE)),--override-policy) \
		$(if $(KPGO_NOW),--now $(KPGO_NOW)),\
		$(if $(KPGO_PROFILE),--profile $(abspath $(KPGO_PROFILE)),--profiles-store $(CURDIR)/profiles-store)) \
	$(if $(KPGO_SERIAL),--serial $(KPGO_SERIAL))
# the changelog date of the instrumented flavour: kpgo's own
TOOL_EPOCH = $(shell dpkg-parsechangelog -l debian/changelog -STimestamp)

# The plan, written afresh (it is cheap) by every packaging target.
plan: $(B)/kpgo
	$(B)/kpgo plan $(PLAN_ARGS) --format make >debian/kpgo-plan.mk.new
	$(B)/kpgo plan $(PLAN_ARGS) --format rpm >$(B)/kpgo-plan.macros.new
	SOURCE_DATE_EPOCH=$(TOOL_EPOCH) $(B)/kpgo plan $(PLAN_ARGS) --changelog instr \
		>debian/kpgo-changelog.instr.new
	if grep -q '^KPGO_PROFILE := ..*' debian/kpgo-plan.mk.new; then \
		$(B)/kpgo plan $(PLAN_ARGS) --changelog pgo >debian/kpgo-changelog.pgo.new; \
	else : >debian/kpgo-changelog.pgo.new; fi
	for f in debian/kpgo-plan.mk debian/kpgo-changelog.instr debian/kpgo-changelog.pgo \
		$(B)/kpgo-plan.macros; do mv $$f.new $$f; done
	@sed -n 's/^KPGO_\(REL_[A-Z]*\|PROFILE\|CONFIG\) := \(..*\)/kpgo plan: \1 \2/p' debian/kpgo-plan.mk

deb: plan
	@mkdir -p $(PKGDIR)
	env $(KPGO_PKG_VARS) debian/rules debian/control
	env $(KPGO_PKG_VARS) DEB_BUILD_OPTIONS="parallel=$(JOBS) $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -b -us -uc $(if $(DEB_ALL_PROFILES),-P$(DEB_ALL_PROFILES))
	@# what this build made (debian/files), not whatever else is in ../
	cd .. && mv $$(awk '{ print $$1 }' $(CURDIR)/debian/files) \
		kpgo_$(VERSION)_$$(dpkg --print-architecture).changes $(PKGDIR)/
	@ls -1 $(PKGDIR)/*.deb

rpm: plan
	@mkdir -p $(PKGDIR) $(B)/rpmbuild
	rpmbuild -bb --build-in-place --nodeps --define "_topdir $(CURDIR)/$(B)/rpmbuild" \
		--define "kpgo_srcdir $(CURDIR)" --define "kpgo_builddir $(KPGO_BUILDDIR)" \
		--define "kpgo_plan_file $(CURDIR)/$(B)/kpgo-plan.macros" \
		--define "_smp_build_ncpus $(JOBS)" \
		$(foreach v,$(KPGO_PKG_VARS),--define "$(shell echo $(v) | sed 's/=.*//; y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/') $(lastword $(subst =, ,$(v)))") \
		$(if $(filter clang,$(KPGO_TOOLCHAIN)),--with clang) $(RPMBUILD_OPTS) rpm/kernel-pgo.spec
	cp $(B)/rpmbuild/RPMS/*/*.rpm $(PKGDIR)/
	@ls -1 $(PKGDIR)/*.rpm

# Source packages a build farm builds unmodified, in a clean chroot or with
# `rpmbuild --rebuild`: kpgo's glue (the repository's tracked files), the
# plan frozen, the profile and the config inside; the kernel source by
# reference (Build-Depends: linux-source-SERIES (= VERSION)) in the Debian
# one, as Source1 in the RPM one. Into SOURCE_OUT (build/source):
#   make source   NAME_VERSION.dsc and .tar.xz (source name and version:
#                 kpgo plan's linux-pgo-SERIES-CONFIG, KVER+DEBREV+kpgoSTAMP)
#   make srpm     kernel-pgo-VERSION-RELEASE.src.rpm
SOURCE_OUT ?= $(CURDIR)/$(B)/source
plan_value = $(shell sed -n 's/^KPGO_$(1) := //p' debian/kpgo-plan.mk)

# The frozen plan: the profile and config as the source package's own files.
$(B)/source-tree: plan
	rm -rf $(B)/source-tree && mkdir -p $(B)/source-tree/kpgo
	git ls-files -z | xargs -0 cp -a --parents -t $(B)/source-tree/kpgo
	set -e; t=$(B)/source-tree/kpgo; prof=$(call plan_value,PROFILE); \
	cfg=$(call plan_value,CONFIG_FILE); \
	if [ -n "$$prof" ]; then cp "$$prof" $$t/debian/kpgo-profile.kpgo; fi; \
	case $$cfg in *.xz) xz -dc "$$cfg" >$$t/debian/kpgo-config ;; *) cp "$$cfg" $$t/debian/kpgo-config ;; esac; \
	sed -e "s|^KPGO_PROFILE := ..*|KPGO_PROFILE := debian/kpgo-profile.kpgo|" \
	    -e "s|^KPGO_CONFIG_FILE := .*|KPGO_CONFIG_FILE := debian/kpgo-config|" \
	    -e "s|^KPGO_CONFIG_KIND := debian|KPGO_CONFIG_KIND := full|" \
	    debian/kpgo-plan.mk >$$t/debian/kpgo-plan.mk; \
	echo 'KPGO_SOURCE_MODE := yes' >>$$t/debian/kpgo-plan.mk; \
	cp debian/kpgo-changelog.instr debian/kpgo-changelog.pgo $$t/debian/; \
	if [ -s debian/kpgo-changelog.pgo ]; then f=pgo; else f=instr; fi; \
	$(CURDIR)/$(B)/kpgo plan $(PLAN_ARGS) --changelog $$f --as-source >$$t/debian/changelog; \
	(cd $$t && debian/rules debian/control)

source: $(B)/source-tree
	mkdir -p $(SOURCE_OUT)
	cd $(B)/source-tree && dpkg-source -b kpgo
	mv $(B)/source-tree/$(call plan_value,SOURCE_NAME)_$(call plan_value,SOURCE_PKG_VERSION)* $(SOURCE_OUT)/
	@ls -1 $(SOURCE_OUT)/*.dsc

srpm: $(B)/source-tree
	rm -rf $(B)/srpmbuild && mkdir -p $(B)/srpmbuild/SOURCES $(SOURCE_OUT)
	set -e; v=$(call plan_value,SOURCE_PKG_VERSION); s=$(CURDIR)/$(B)/srpmbuild/SOURCES; \
	mv $(B)/source-tree/kpgo $(B)/source-tree/kpgo-$$v; \
	tar -C $(B)/source-tree -czf $$s/kpgo-$$v.tar.gz kpgo-$$v; \
	mv $(B)/source-tree/kpgo-$$v $(B)/source-tree/kpgo; \
	cp /usr/src/linux-source-$(call plan_value,SERIES).tar.xz $$s/; \
	cp $(B)/source-tree/kpgo/debian/kpgo-config $$s/kpgo-config; \
	if [ -f $(B)/source-tree/kpgo/debian/kpgo-profile.kpgo ]; then \
	    cp $(B)/source-tree/kpgo/debian/kpgo-profile.kpgo $$s/; else : >$$s/kpgo-profile.kpgo; fi; \
	sed -e 's|^%kpgo_plan_config_kind debian|%kpgo_plan_config_kind full|' $(B)/kpgo-plan.macros \
	    >$$s/kpgo-plan.macros
	rpmbuild -bs --define "_topdir $(CURDIR)/$(B)/srpmbuild" \
		--define "kpgo_plan_file $(CURDIR)/$(B)/srpmbuild/SOURCES/kpgo-plan.macros" rpm/kernel-pgo.spec
	mv $(B)/srpmbuild/SRPMS/*.src.rpm $(SOURCE_OUT)/
	@ls -1 $(SOURCE_OUT)/*.src.rpm

packages: deb rpm

# The instrumented flavour alone (and the tool's packages), both formats.
instr-packages:
	$(MAKE) deb DEB_PROFILES=pkg.kpgo.nopgo
	$(MAKE) rpm RPMBUILD_OPTS="--without pgo"

# The package tests: builds (or reuses) the packages, then checks them
# as a packager would, and builds once from a changed source tree with the
# default profile (a stale profile) and once with none.
kernel-check: packages
	$(MAKE) kernel-tests

# Every series and config wired (6.1 and 6.12; small and Debian's cloud
# config; both flavours): configured, not built (a few minutes).
kernel-configs: $(B)/kpgo
	KPGO=$(CURDIR)/$(B)/kpgo bats --tap --timing tests/kernel/configs.bats

# The package tests alone, on what PKGDIR holds; KPGO_PROFILE: the profile
# the optimized packages were built with (default: profiles-store's).
kernel-tests: $(B)/kpgo
	$(B)/kpgo plan $(PLAN_ARGS) >$(B)/kernel-tests.plan
	KPGO=$(CURDIR)/$(B)/kpgo PKGDIR=$(PKGDIR) KPGO_BUILDDIR=$(KPGO_BUILDDIR) \
		KPGO_PLAN=$(CURDIR)/$(B)/kernel-tests.plan \
		$(if $(KPGO_INSTR_PROFILE),KPGO_INSTR_PROFILE=$(KPGO_INSTR_PROFILE)) \
		bats --tap --timing tests/kernel/packages.bats

# The default profile, made by the project's own pipeline: the pgo-instr
# tree, booted in QEMU on the kernel benchmark's Debian guest with the
# training mixes (tests/kernel/train-default.sh: train and system of
# tests/bench/guest/init), collected by kpgo in the guest. Root only (the
# guest's image). See profiles-store/README.md.
KSRC := $(or $(KPGO_KSRC),$(KPGO_BUILDDIR)/src/linux-source-$(KSERIES))

# (the installed linux-source-SERIES; tests/kernel/ksrc-unpack.sh, which
# unpacks other versions from the archive for make bench-decay)
$(KPGO_BUILDDIR)/src/linux-source-$(KSERIES)/Makefile:
	tests/kernel/ksrc-unpack.sh --series $(KSERIES) --dest $(KPGO_BUILDDIR)/src

default-profile: $(B)/kpgo workloads $(KSRC)/Makefile
	hooks/build/kpgo-kbuild --src $(KSRC) --flavour pgo-instr --kpgo $(CURDIR)/$(B)/kpgo --jobs $(JOBS) \
		--release "$$($(B)/kpgo plan $(PLAN_ARGS) | sed -n 's/^KPGO_REL_INSTR=//p')"
	tests/kernel/train-default.sh --kpgo $(CURDIR)/$(B)/kpgo --bench $(CURDIR)/$(B)/bench \
		--objtree $(KSRC)/pgo-instr -o profiles-store/$(KSERIES)/small.kpgo

# The whole cycle on a Debian 12 guest under QEMU (tests/e2e/e2e.sh):
# instrumented packages installed with apt, the workload, collection at
# shutdown, ingest, the optimized packages built with that profile, apt
# install linux-image-pgo, the optimized kernels (.deb and .rpm) booted.
# E2E_INSTR_ONLY=1: the steps up to the profile; E2E_PROFILE=FILE: the
# build farm's half from a profile collected before (README).
# Root only. Settings: E2E_* (see the script), KPGO_ACCEL, JOBS;
# E2E_INSTR_PKGDIR defaults to PKGDIR. Summary: build/e2e/summary.txt.
E2E_OUT ?= $(CURDIR)/$(B)/e2e

e2e: $(B)/kpgo workloads
	E2E_OUT=$(E2E_OUT) E2E_PKGDIR=$${E2E_PKGDIR:-$(PKGDIR)} KPGO=$(CURDIR)/$(B)/kpgo \
		KPGO_BENCH_BIN=$(CURDIR)/$(B)/bench JOBS=$(JOBS) tests/e2e/e2e.sh

# --- kernel benchmark ------------------------------------------------------
# baseline (-O2), -O3, pgo (GCC), pgo-pkg (GCC, the default profile, as
# make packages builds it), clang-lto and clang-lto-pgo (Clang 16 ThinLTO,
# without and with the same profile) kernels of the same source and config,
# booted alternately in QEMU on the training, held-out and foreign mixes
# (Debian's perf bench, hackbench, stress-ng); wall-clock ops/s, guest
# instructions per operation (-icount) and, in mode cache, a cache model
# (tests/bench/cachesim.c; make cachesim). Root only. Writes
# build/bench-kernel/{results.tsv,report.md,ratios.svg,builds.tsv}.
# Settings: BENCH_ROUNDS, BENCH_SCALE, BENCH_MODES, BENCH_MIXES,
# BENCH_KERNELS, BENCH_PKG_PROFILE, BENCH_PKG_TREE, BENCH_CACHE_*,
# BENCH_CACHES, BENCH_L1_PENALTY, BENCH_L2_PENALTY, BENCH_RESUME,
# BENCH_CLANG, BENCH_OUT, KPGO_ACCEL, JOBS; see tests/bench/bench-kernel.sh.
$(B)/tests/bench-report $(B)/tests/decay-report: LIBS += -lm

bench-kernel: $(B)/kpgo workloads $(B)/tests/bench-report $(KSRC)/Makefile
	KPGO=$(CURDIR)/$(B)/kpgo KPGO_BENCH_BIN=$(CURDIR)/$(B)/bench \
		BENCH_REPORT=$(CURDIR)/$(B)/tests/bench-report KPGO_KSRC=$(KSRC) \
		JOBS=$(JOBS) tests/bench/bench-kernel.sh

# The profile's decay across Debian's real releases (tests/bench/bench-decay.sh,
# docs/BENCHMARKS.md "Profile decay across releases"): linux-source-6.1 of
# DECAY_RELEASES and linux-source-6.12 DECAY_JUMP from the archive, each
# release's instrumented kernel trained (bench-kernel.sh BENCH_TRAIN_ONLY=1),
# the newest built with every older profile, 6.12 with a 6.1 one, icount
# boots against each release's own baseline and fresh profile; kpgo report
# --json of each, then decay-report's table and plot of the gain kept
# against releases and days apart. Root only; about 4-5 hours on 2 cores
# (small config). Writes build/bench-decay/CONFIG/{decay.md,decay.tsv,
# decay.svg}. Settings: KPGO_CONFIG (small; debian-cloud), DECAY_RELEASES,
# DECAY_JUMP, DECAY_JUMP_PROFILES (newest, oldest, all), DECAY_ROUNDS (3),
# DECAY_MIXES (train,heldout), DECAY_SCALE, DECAY_OUT, BENCH_DRY_RUN=1 (the
# plan only: what is downloaded, built, reused, trained and booted),
# BENCH_RESUME, BENCH_TIMEOUT, BENCH_CACHE, KPGO_ACCEL, JOBS.
bench-decay: $(B)/kpgo workloads $(B)/tests/bench-report $(B)/tests/decay-report
	KPGO=$(CURDIR)/$(B)/kpgo KPGO_BENCH_BIN=$(CURDIR)/$(B)/bench \
		BENCH_REPORT=$(CURDIR)/$(B)/tests/bench-report DECAY_REPORT=$(CURDIR)/$(B)/tests/decay-report \
		DECAY_CONFIG=$(or $(KPGO_CONFIG),small) JOBS=$(JOBS) tests/bench/bench-decay.sh

.PHONY: bench-kernel bench-decay

# --- install -----------------------------------------------------------
install: $(B)/kpgo
	install -D -m 0755 $(B)/kpgo $(DESTDIR)$(BINDIR)/kpgo
	install -D -m 0644 docs/kpgo.1 $(DESTDIR)$(MANDIR)/man1/kpgo.1
	install -D -m 0755 hooks/build/kpgo-kbuild $(DESTDIR)$(LIBDIR)/kpgo/kpgo-kbuild
	install -D -m 0755 hooks/build/kpgo-kinstall $(DESTDIR)$(LIBDIR)/kpgo/kpgo-kinstall
	install -d $(DESTDIR)$(LIBDIR)/kpgo/kconfig
	install -m 0644 hooks/build/kconfig/*.config $(DESTDIR)$(LIBDIR)/kpgo/kconfig/

# The machine side (hooks/machine/): systemd units and generator, kernel install
# hooks, the commented settings file and the spool. Packages set the
# directories: Debian KPGO_SETTINGS_DIR=/etc/default (the default), RPM
# KPGO_SETTINGS_DIR=/etc/sysconfig; SYSTEMD_UNITDIR=/lib/systemd/system on
# Debian 12. The units name $(BINDIR)/kpgo.
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
KPGO_SETTINGS_DIR ?= $(SYSCONFDIR)/default
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSTEMD_GENERATORDIR ?= $(PREFIX)/lib/systemd/system-generators
KERNEL_POSTINSTDIR ?= $(SYSCONFDIR)/kernel/postinst.d
KERNEL_INSTALLDIR ?= $(PREFIX)/lib/kernel/install.d
KPGO_UNITS := $(wildcard hooks/machine/systemd/*.service hooks/machine/systemd/*.timer)

install-hooks:
	install -d -m 0755 $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(SYSTEMD_GENERATORDIR)
	for u in $(KPGO_UNITS); do \
		sed 's|/usr/bin/kpgo|$(BINDIR)/kpgo|g' $$u >$(DESTDIR)$(SYSTEMD_UNITDIR)/$${u##*/} && \
		chmod 0644 $(DESTDIR)$(SYSTEMD_UNITDIR)/$${u##*/} || exit 1; \
	done
	sed 's|/usr/bin/kpgo|$(BINDIR)/kpgo|g' hooks/machine/systemd/kpgo-generator \
		>$(DESTDIR)$(SYSTEMD_GENERATORDIR)/kpgo-generator
	chmod 0755 $(DESTDIR)$(SYSTEMD_GENERATORDIR)/kpgo-generator
	install -D -m 0755 hooks/machine/kernel/postinst.d/kpgo $(DESTDIR)$(KERNEL_POSTINSTDIR)/kpgo
	install -D -m 0755 hooks/machine/kernel/install.d/50-kpgo.install \
		$(DESTDIR)$(KERNEL_INSTALLDIR)/50-kpgo.install
	install -D -m 0644 hooks/machine/default/kpgo $(DESTDIR)$(KPGO_SETTINGS_DIR)/kpgo
	install -d -m 0750 $(DESTDIR)$(LOCALSTATEDIR)/lib/kpgo/profiles

clean:
	rm -rf $(B)

.PHONY: fuzz-cc cachesim kernel-configs test-signing-key plan source srpm $(B)/source-tree deb rpm packages instr-packages kernel-check kernel-tests default-profile demo all check check-tool check-sanitize unit cli fuzz fuzz-smoke lint lint-shell lint-format install install-hooks clean tools workloads e2e
.DELETE_ON_ERROR:

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(FUZZ_LIB_OBJ:.o=.d)
