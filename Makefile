# Top-level entry points. Each installs what it needs first (scripts/deps.sh: apt-get as root,
# otherwise the exact command to run), so any of them works first on a fresh Debian 12 machine,
# in any order, and after an earlier run that failed or was interrupted.
BUILD ?= build
ASAN_BUILD ?= build-asan
ASAN_CLANG_BUILD ?= build-asan-clang
CLANG_BUILD ?= build-clang
FUZZ_BUILD ?= build-fuzz
# make fuzz: seconds per harness (12 harnesses: about 2 minutes), and which (default: all).
FUZZ_SECONDS ?= 10
FUZZ_HARNESSES ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# make check runs independent test files side by side: most of their time is spent waiting
# on the tests' own durations, not on the CPU (every assertion holds under load).
TEST_JOBS ?= 4
CMAKE_FLAGS ?=
CONFIGURE = scripts/configure.sh
# Every ctest run writes its results as JUnit (ctest-junit.xml in its build dir) with each test's
# whole output (ctest keeps 1 KiB of a passed test's by default; past 1 MiB this drops the start,
# not the end, where the SKIP lines are), and scripts/ctest-summary.py then prints the tests it
# skipped (exit 77, tests/CMakeLists.txt) with their reasons, also when a test failed.
#   $(call ctest,BUILD_DIR,CTEST_ARGS,NAME[,ENV_ASSIGNMENTS])
CTEST_SUMMARY = $(CURDIR)/scripts/ctest-summary.py
ctest = cd $(1) && $(4) ctest --output-on-failure -j $(TEST_JOBS) --output-junit ctest-junit.xml \
	--test-output-size-passed 1048576 --test-output-truncation head $(2); rc=$$?; \
	$(CTEST_SUMMARY) "$(3)" ctest-junit.xml; exit $$rc

.PHONY: all build run check check-fast check-stress check-fresh check-unit check-asan \
	check-clang check-footprint check-iperf3-new deps-build deps-fast deps-check demo clean man bench fuzz \
	install uninstall deb

# `make`: install what building needs, then build everything (build/linkperf, linkperf2, the
# board agent's host programs). Runs nothing.
all: build

build: deps-build
	@$(CONFIGURE) $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

deps-build:
	@scripts/deps.sh build

deps-fast:
	@scripts/deps.sh fast

deps-check:
	@scripts/deps.sh check

# Set-up, build, and the loopback demo: a 5 s TCP test then a 5 s UDP test.
run: deps-build
	@$(CONFIGURE) $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target linkperf
	$(BUILD)/linkperf demo

# The edit loop (under 3 minutes on 2 cores): unit and golden tests, and one interop case per
# direction and dialect against the stock iperf3 and iperf 2. Builds only what those need.
check-fast: deps-fast
	@$(CONFIGURE) $(BUILD) -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target check-fast-deps
	$(call ctest,$(BUILD),-L fast,make check-fast)

# Set-up, build, and every test: unit, golden, interop with the real iperf3 and iperf 2, the
# board agent on the real lwIP stack, the web API and the page in chromium; then the clang,
# ASan/UBSan and Cortex-M4 builds. The last line counts the tests that were skipped (a peer,
# root or the cross compiler missing; under CI=true each of those is a failure) and why.
check: deps-check
	@$(CONFIGURE) $(BUILD) -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	$(call ctest,$(BUILD),-LE fastonly,ctest in $(BUILD))
	$(MAKE) check-clang
	$(MAKE) check-asan
	$(MAKE) check-footprint
	@$(CTEST_SUMMARY) "make check" $(BUILD)/ctest-junit.xml $(ASAN_BUILD)/ctest-junit.xml \
		$(ASAN_CLANG_BUILD)/ctest-junit.xml

# make check with both cores kept busy by another process at the same nice level
# (stress-ng --cpu 2): every test must still pass.
check-stress: deps-check
	scripts/with-cpu-hog.sh $(MAKE) check

# A newcomer's first steps in a minimal Debian 12 root built from Debian's packages
# (scripts/check-fresh.sh): make run without root, a failed configure, make, make run,
# make check-fast and make deb; then the package in a second fresh root: apt-get install, the
# installed commands and a loopback test, apt-get purge, nothing left
# (packaging/check-deb-install.sh). Proves the install steps a green CI machine may hide.
check-fresh: deps-check
	scripts/check-fresh.sh

# The iperf3 interop files (ctest label iperf3: linkperf against a stock iperf3 client and
# server, -J key sets, endings, auth, robustness) against a second, newer stock iperf3:
#   make check-iperf3-new LINKPERF_IPERF3_NEW=/path/to/iperf3
# lptest uses it as the stock iperf3 (LINKPERF_IPERF3); the files whose expectations differ
# by version read `iperf3 --version`. Needs the binary only, not its build.
ifneq ($(filter check-iperf3-new,$(MAKECMDGOALS)),)
ifeq ($(strip $(LINKPERF_IPERF3_NEW)),)
$(error check-iperf3-new: LINKPERF_IPERF3_NEW is not set; run make check-iperf3-new LINKPERF_IPERF3_NEW=/path/to/iperf3 (a newer stock iperf3 than Debian's 3.12, e.g. 3.21))
endif
endif
check-iperf3-new: deps-check
	@test -x "$(LINKPERF_IPERF3_NEW)" || { echo "check-iperf3-new: LINKPERF_IPERF3_NEW=$(LINKPERF_IPERF3_NEW) is not an executable file" >&2; exit 1; }
	@$(CONFIGURE) $(BUILD) -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target linkperf
	@echo "check-iperf3-new: stock iperf3 = $(LINKPERF_IPERF3_NEW): $$("$(LINKPERF_IPERF3_NEW)" --version | head -1)"
	$(call ctest,$(BUILD),-L iperf3,make check-iperf3-new,LINKPERF_IPERF3="$(abspath \
		$(LINKPERF_IPERF3_NEW))" LINKPERF_IPERF3_NEW="$(abspath $(LINKPERF_IPERF3_NEW))")

# The same sources must build warning-free with clang.
check-clang: deps-check
	@$(CONFIGURE) $(CLANG_BUILD) -DCMAKE_C_COMPILER=clang -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(CLANG_BUILD) -j $(JOBS)

# AddressSanitizer + UBSan builds running the unit tests and the sanitizer-labelled system tests:
# with gcc, then with clang, which adds its integer checks (unsigned wrap-around, value-changing
# implicit conversions, unsigned shifts out of range) to UBSan's: see LP_SANITIZE in
# CMakeLists.txt and LP_WRAPS in src/core/compiler.h. Any report fails the test. The clang build
# makes only what those tests run (check-fast-deps: linkperf, the unit tests, the fuzz replays);
# check-clang already compiles the whole tree, lwIP's ten variants included, with clang.
check-asan: deps-check
	@$(CONFIGURE) $(ASAN_BUILD) -DLP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON \
		$(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	$(call ctest,$(ASAN_BUILD),-L 'unit|asan',ctest in $(ASAN_BUILD))
	@$(CONFIGURE) $(ASAN_CLANG_BUILD) -DCMAKE_C_COMPILER=clang -DLP_SANITIZE=ON \
		-DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_CLANG_BUILD) -j $(JOBS) --target check-fast-deps
	$(call ctest,$(ASAN_CLANG_BUILD),-L 'unit|asan',ctest in $(ASAN_CLANG_BUILD))

# Cortex-M4 cross build of the agent: sizes per configuration into agent/FOOTPRINT.md. Fails when a
# configuration does not compile or the raw iperf2 TCP+UDP build passes 2 x lwiperf's text.
check-footprint: deps-check
	agent/port/cortex-m4/footprint.py --check

# libFuzzer on every parser of network or user input (tests/fuzz; clang, ASan, UBSan), each for
# FUZZ_SECONDS on a copy of its corpus kept in $(FUZZ_BUILD)/fuzz-work; prints executions and
# coverage per harness, and fails with the inputs saved when one crashes, leaks or hangs.
fuzz: deps-check
	@$(CONFIGURE) $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DLP_FUZZ=ON -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz-harnesses
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

check-unit: deps-fast
	@$(CONFIGURE) $(BUILD) -DBUILD_TESTING=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	$(call ctest,$(BUILD),-L unit,make check-unit)

# Side-by-side benchmark against iperf3, iperf2 and the kernel ceiling (not a test; ~30 min).
# IPERF3_NEW=/path/to/iperf3 adds the newest iperf3's rows. See bench/README.md.
bench: deps-check build
	bench/run.py --out docs/BENCHMARKS.md --json bench/results/$$(date -u +%F)-full.json \
		$(if $(IPERF3_NEW),--iperf3-new $(IPERF3_NEW))

# make install [PREFIX=/usr/local] [DESTDIR=] [ALIASES=1]: the binary, linkperf2, the man
# page, bash and zsh completion and the systemd unit (not enabled) under $(DESTDIR)$(PREFIX).
# ALIASES=1 adds iperf and iperf3 links to linkperf (and their completion); never by default.
# make uninstall with the same PREFIX and DESTDIR removes the files the last install of this
# build dir put there (cmake's $(BUILD)/install_manifest.txt); under a DESTDIR (a staging
# root, whose directories the install made) also the directories that are left empty, up to
# the prefix. A system's own directories (/usr/local/share/man ...) stay.
PREFIX ?= /usr/local
DESTDIR ?=
ALIASES ?= 0
install: build
	LP_ALIASES=$(ALIASES) DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"
	@echo "$(DESTDIR)$(PREFIX)" > $(BUILD)/install_destination.txt

uninstall:
	@test -s $(BUILD)/install_manifest.txt || { echo "make uninstall: $(BUILD)/install_manifest.txt is missing: nothing was installed from $(BUILD)" >&2; exit 1; }
	@top="$(DESTDIR)$(PREFIX)"; last=$$(cat $(BUILD)/install_destination.txt 2>/dev/null); \
	[ "$$last" = "$$top" ] || { echo "make uninstall: the last install from $(BUILD) went to '$$last', not '$$top': give its PREFIX and DESTDIR" >&2; exit 1; }; \
	while IFS= read -r f || [ -n "$$f" ]; do \
	  case "$$f" in "$(DESTDIR)"/*) ;; *) f="$(DESTDIR)$$f" ;; esac; \
	  case "$$f" in "$$top"/*) ;; *) echo "make uninstall: keeping $$f (not under $$top)"; continue ;; esac; \
	  if [ -e "$$f" ] || [ -L "$$f" ]; then rm -f "$$f" && echo "removed $$f"; fi; \
	  d=$${f%/*}; while [ -n "$(DESTDIR)" ] && [ "$$d" != "$$top" ] && rmdir "$$d" 2>/dev/null; do \
	    d=$${d%/*}; done; \
	done < $(BUILD)/install_manifest.txt; rm -f $(BUILD)/install_destination.txt

# dist/linkperf_VERSION_ARCH.deb with Debian's dpkg-deb and dpkg-shlibdeps (packaging/make-deb.sh):
# what make install puts under /usr, the unit in /lib/systemd/system, not enabled.
deb: build
	@scripts/deps.sh deb
	packaging/make-deb.sh $(BUILD) dist

man: build
	$(BUILD)/linkperf --man > docs/linkperf.1

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(ASAN_CLANG_BUILD) $(CLANG_BUILD) $(FUZZ_BUILD)
