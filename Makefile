# Top-level entry points. `make run` and `make check` install what is missing first.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build run check check-unit check-asan check-clang check-footprint deps-build deps-check demo clean man bench

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps-build:
	@scripts/deps.sh build

deps-check:
	@scripts/deps.sh check

# Set-up, build, and the loopback demo: a 5 s TCP test then a 5 s UDP test.
run: deps-build build
	$(BUILD)/linkperf demo

# Set-up, build, and every test (unit, golden, interop with real iperf3, system).
check: deps-check build
	cd $(BUILD) && ctest --output-on-failure -j 1
	$(MAKE) check-clang
	$(MAKE) check-asan
	$(MAKE) check-footprint

# The same sources must build warning-free with clang.
check-clang:
	cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang -DBUILD_TESTING=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build build-clang -j $(JOBS)

# AddressSanitizer + UBSan build running the unit tests and the sanitizer-labelled system tests.
check-asan:
	cmake -S . -B $(ASAN_BUILD) -DLP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -L 'unit|asan'

# Cortex-M4 cross build of the agent: sizes per configuration into agent/FOOTPRINT.md. Fails when a
# configuration does not compile or the raw iperf2 TCP+UDP build passes 2 x lwiperf's text.
check-footprint:
	agent/port/cortex-m4/footprint.py --check

check-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit

# Side-by-side benchmark against iperf3 and iperf2 (not a test; ~10 min). See bench/README.md.
bench: deps-check
	bench/run.py --out docs/BENCHMARKS.md

man: build
	$(BUILD)/linkperf --man > docs/linkperf.1

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-clang
