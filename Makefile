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

ifneq ($(SANITIZE),)
KPGO_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
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

$(B)/tests/unit/%: tests/unit/%.c tests/unit/tap.h $(B)/libkpgo.a
	@mkdir -p $(dir $@)
	$(CC) $(KPGO_CFLAGS) -Itests/unit $(CFLAGS) $(LDFLAGS) $< -o $@ $(B)/libkpgo.a $(LIBS)

$(B)/tests/%: tests/tools/%.c $(B)/libkpgo.a
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
FUZZ_CC ?= clang

# Everything (the README's test command, and CI's): the tool's tests, then
# the kernel cycle once, as a build farm runs it: the instrumented packages;
# `make e2e` (root; QEMU), which collects a profile from them and builds the
# optimized packages with it; those join the instrumented ones in PKGDIR,
# and the package tests (tests/kernel/packages.bats) check them all, with
# the profile e2e collected. check-tool is the quick part alone;
# kernel-check the package tests on `make packages` (the default profile).
check: check-tool
	$(MAKE) instr-packages
	$(MAKE) e2e
	cp $(E2E_OUT)/packages/*.deb $(E2E_OUT)/packages/*.rpm $(PKGDIR)/
	$(MAKE) kernel-tests KPGO_PROFILE="$$(cat $(E2E_OUT)/profile.path)"

check-tool: fuzz-smoke unit cachesim cli

unit: $(UNIT_BIN)
	prove --exec '' $(UNIT_BIN)

# The kernel benchmark's cache-model QEMU plugin (tests/bench/cachesim.c),
# against qemu-plugin.h from Debian's source of the installed QEMU
# (tests/bench/qemu-plugin.sh: apt-get source the first time, as root).
cachesim:
	tests/bench/qemu-plugin.sh --out $(CURDIR)/$(B)/qemu-plugin

cli: $(B)/kpgo $(TOOL_BIN)
	KPGO=$(CURDIR)/$(B)/kpgo KPGO_TESTS_BIN=$(CURDIR)/$(B)/tests \
		prove --exec 'bats --tap' $(sort $(wildcard tests/cli/*.bats))

# libFuzzer targets, built with clang; each runs FUZZ_SECONDS from its seeds.
fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz-%)

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Isrc/lib -g -O1 -fsanitize=fuzzer,address,undefined \
		$< $(LIB_SRC) -o $@ $(LIBS)

fuzz-smoke: fuzz $(B)/tests/fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus-$$t; \
		$(B)/tests/fuzz-seeds $$t $(B)/fuzz/corpus-$$t || exit 1; \
		echo "fuzz $$t for $(FUZZ_SECONDS)s"; \
		$(B)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-print_final_stats=0 $(B)/fuzz/corpus-$$t 2>$(B)/fuzz/$$t.log || \
			{ tail -40 $(B)/fuzz/$$t.log; exit 1; }; \
	done
	@echo "fuzz: ok"

# The README's main job (until the kernel packaging lands): the pipeline on
# a small program.
demo: $(B)/kpgo $(TOOL_BIN)
	./tests/demo.sh

# --- kernel packages -----------------------------------------------------
# Inputs, each with a default (see debian/rules and rpm/kernel-pgo.spec):
#   KPGO_KSRC (kernel source tree; default Debian's linux-source-6.1, unpacked),
#   KPGO_KCONFIG (base config fragment), KPGO_FULL_CONFIG (a complete
#   .config instead), KPGO_PROFILE (.kpgo of the pgo flavour) or KPGO_STORE
#   (a store: the profile `kpgo store select` picks for the release),
#   KPGO_MIN_APPLIED (%), KPGO_CC (compiler, default gcc), JOBS. Both package formats share the kernel trees
#   in KPGO_BUILDDIR, so each flavour is built once.
#   KPGO_TOOLCHAIN=clang: the pgo flavour by Clang with ThinLTO (the Debian
#   build profile pkg.kpgo.clang, rpmbuild --with clang), with KPGO_CLANG
#   (default clang-16) and KPGO_GCNO (the instrumented build's .gcno; see
#   debian/rules).
KSERIES ?= 6.1
JOBS ?= $(shell nproc)
KPGO_BUILDDIR ?= $(CURDIR)/$(B)/kernel
PKGDIR ?= $(CURDIR)/$(B)/packages
# One compiler cache for every build: dpkg-buildpackage and rpmbuild change
# HOME, and ccache would then start from nothing.
CCACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ccache
export KPGO_BUILDDIR CCACHE_DIR
KPGO_PKG_VARS := $(foreach v,KPGO_KSRC KPGO_KCONFIG KPGO_FULL_CONFIG KPGO_PROFILE KPGO_STORE \
	KPGO_MIN_APPLIED KPGO_CC KPGO_CLANG KPGO_GCNO,$(if $($(v)),$(v)=$($(v))))
KPGO_TOOLCHAIN ?= gcc
ifeq ($(filter gcc clang,$(KPGO_TOOLCHAIN)),)
$(error KPGO_TOOLCHAIN is gcc or clang, not '$(KPGO_TOOLCHAIN)')
endif
empty :=
space := $(empty) $(empty)
comma := ,
DEB_ALL_PROFILES = $(subst $(space),$(comma),$(strip $(subst $(comma),$(space),$(DEB_PROFILES)) \
	$(if $(filter clang,$(KPGO_TOOLCHAIN)),pkg.kpgo.clang)))

deb:
	@mkdir -p $(PKGDIR)
	env $(KPGO_PKG_VARS) debian/rules debian/control
	env $(KPGO_PKG_VARS) DEB_BUILD_OPTIONS="parallel=$(JOBS) $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -b -us -uc $(if $(DEB_ALL_PROFILES),-P$(DEB_ALL_PROFILES))
	mv ../kpgo_$(VERSION)_*.deb ../kpgo-dbgsym_$(VERSION)_*.deb ../kpgo_$(VERSION)_*.changes \
		../kpgo_$(VERSION)_*.buildinfo $(PKGDIR)/
	-mv ../linux-image-*pgo*.deb ../linux-headers-*pgo*.deb $(PKGDIR)/ 2>/dev/null
	@ls -1 $(PKGDIR)/*.deb

rpm:
	@mkdir -p $(PKGDIR) $(B)/rpmbuild
	rpmbuild -bb --build-in-place --nodeps --define "_topdir $(CURDIR)/$(B)/rpmbuild" \
		--define "kpgo_srcdir $(CURDIR)" --define "kpgo_builddir $(KPGO_BUILDDIR)" \
		--define "_smp_build_ncpus $(JOBS)" \
		$(foreach v,$(KPGO_PKG_VARS),--define "$(shell echo $(v) | sed 's/=.*//; y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/') $(lastword $(subst =, ,$(v)))") \
		$(if $(filter clang,$(KPGO_TOOLCHAIN)),--with clang) $(RPMBUILD_OPTS) rpm/kernel-pgo.spec
	cp $(B)/rpmbuild/RPMS/*/*.rpm $(PKGDIR)/
	@ls -1 $(PKGDIR)/*.rpm

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

# The package tests alone, on what PKGDIR holds; KPGO_PROFILE: the profile
# the optimized packages were built with (default: profiles-store's).
kernel-tests:
	KPGO=$(CURDIR)/$(B)/kpgo PKGDIR=$(PKGDIR) KPGO_BUILDDIR=$(KPGO_BUILDDIR) \
		$(if $(KPGO_PROFILE),KPGO_PROFILE=$(KPGO_PROFILE)) bats --tap tests/kernel/packages.bats

# The default profile, made by the project's own pipeline: the pgo-instr
# tree, booted in QEMU on the kernel benchmark's Debian guest with the
# training mixes (tests/kernel/train-profile.sh: train and system of
# tests/bench/guest/init), collected by kpgo in the guest. Root only (the
# guest's image). See profiles-store/README.md.
KSRC := $(or $(KPGO_KSRC),$(KPGO_BUILDDIR)/src/linux-source-$(KSERIES))

$(KPGO_BUILDDIR)/src/linux-source-$(KSERIES)/Makefile:
	mkdir -p $(KPGO_BUILDDIR)/src
	tar -xJf /usr/src/linux-source-$(KSERIES).tar.xz -C $(KPGO_BUILDDIR)/src

default-profile: $(B)/kpgo workloads $(KSRC)/Makefile
	hooks/build/kpgo-kbuild --src $(KSRC) --flavour pgo-instr --kpgo $(CURDIR)/$(B)/kpgo --jobs $(JOBS)
	tests/kernel/train-profile.sh --kpgo $(CURDIR)/$(B)/kpgo --bench $(CURDIR)/$(B)/bench \
		--objtree $(KSRC)/pgo-instr -o profiles-store/$(KSERIES)/small.kpgo

# The whole cycle on a Debian 12 guest under QEMU (tests/e2e/e2e.sh):
# instrumented packages installed with apt, the workload, collection at
# shutdown, ingest, the optimized packages built with that profile, apt
# install linux-image-pgo, the optimized kernels (.deb and .rpm) booted.
# Root only. Settings: E2E_* (see the script), KPGO_ACCEL, JOBS;
# E2E_INSTR_PKGDIR defaults to PKGDIR. Summary: build/e2e/summary.txt.
E2E_OUT ?= $(CURDIR)/$(B)/e2e

e2e: $(B)/kpgo workloads
	E2E_OUT=$(E2E_OUT) E2E_INSTR_PKGDIR=$${E2E_INSTR_PKGDIR:-$(PKGDIR)} KPGO=$(CURDIR)/$(B)/kpgo \
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
$(B)/tests/bench-report: LIBS += -lm

bench-kernel: $(B)/kpgo workloads $(B)/tests/bench-report $(KSRC)/Makefile
	KPGO=$(CURDIR)/$(B)/kpgo KPGO_BENCH_BIN=$(CURDIR)/$(B)/bench \
		BENCH_REPORT=$(CURDIR)/$(B)/tests/bench-report KPGO_KSRC=$(KSRC) \
		JOBS=$(JOBS) tests/bench/bench-kernel.sh

.PHONY: bench-kernel

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

.PHONY: cachesim deb rpm packages instr-packages kernel-check kernel-tests default-profile demo all check check-tool unit cli fuzz fuzz-smoke install install-hooks clean tools workloads e2e
.DELETE_ON_ERROR:

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
