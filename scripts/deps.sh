#!/bin/sh
# Install what linkperf needs, for one purpose:
#   scripts/deps.sh build    building and running (make, make run): compilers, libraries, and
#                            the npm package the build embeds (uPlot)
#   scripts/deps.sh fast     make check-fast: build + the unit tests' library, python3 and the
#                            stock iperf3 / iperf 2 the interop cases talk to, and the tools
#                            tests/tree/test_install.py checks the installed files with
#   scripts/deps.sh deb      make deb: build + Debian's package tools (dpkg-shlibdeps)
#   scripts/deps.sh check    make check: fast + clang (and its libFuzzer: make fuzz), the
#                            agent tests' tools, the Cortex-M4 cross compiler, chromium and
#                            playwright-core for the browser tests, stress-ng (make
#                            check-stress), mmdebstrap (check-fresh)
# As root it installs the missing Debian packages with apt-get; otherwise it prints the exact
# `sudo apt-get install ...` line and exits 1 before anything is built. The npm packages go
# into node_modules/ (scripts/npm-deps.sh), which needs no root.
set -eu
what=${1:-build}
here=$(dirname "$0")

build_pkgs="cmake make gcc libc6-dev pkg-config libcjson-dev libmicrohttpd-dev libsqlite3-dev
 libssl-dev xz-utils"
# dpkg-dev: make deb (tests/tree/test_install.py builds the package); groff-base: the
# installed man page is rendered.
deb_pkgs="$build_pkgs dpkg-dev"
fast_pkgs="$deb_pkgs libcmocka-dev python3 iperf3 iperf iproute2 procps openssl groff-base"
# openssl: the authentication tests make their RSA keys with it; nftables + iputils-ping: loss and reachability in the namespace tests; the arm compiler and
# newlib: make check-footprint and the agent's Cortex-M4 firmware, which qemu-system-arm boots
# (tests/agent/test_agent_qemu.py); chromium: tests/e2e (driven by playwright-core from npm);
# libclang-rt-dev: clang's libFuzzer and sanitizer runtimes (make fuzz; only recommended by clang);
# zsh: the installed zsh completion is loaded (tests/tree/test_install.py);
# python3-prometheus-client: tests/interop/test_metrics.py parses --metrics with it.
check_pkgs="$fast_pkgs clang libclang-rt-dev nftables iputils-ping gcc-arm-none-eabi
 libnewlib-arm-none-eabi qemu-system-arm chromium stress-ng mmdebstrap git zsh
 python3-prometheus-client"
case "$what" in
  build|run) pkgs=$build_pkgs; npm_tier=build ;;
  fast) pkgs=$fast_pkgs; npm_tier=build ;;
  deb) pkgs=$deb_pkgs; npm_tier=build ;;
  check) pkgs=$check_pkgs; npm_tier=check ;;
  *) echo "usage: $0 build|fast|deb|check" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
# Node.js and npm for the web page's packages: Debian's, unless the machine has its own.
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"

if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "linkperf: missing Debian packages:$missing" >&2
    echo "run: sudo apt-get install -y --no-install-recommends$missing" >&2
    echo "then run this make command again" >&2
    exit 1
  fi
  echo "linkperf: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  # An apt or dpkg run that was interrupted earlier leaves packages half configured; finish
  # them first, or apt-get refuses to install anything.
  dpkg --configure -a
  # iperf3's package can offer to start a daemon on 5201; keep it from doing so.
  echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
  apt="apt-get -o DPkg::Lock::Timeout=120"
  # shellcheck disable=SC2086
  if ! $apt install -y --no-install-recommends $missing; then
    # A fresh machine has no package lists yet (or stale ones): fetch them once and retry.
    $apt update && $apt install -y --no-install-recommends $missing
  fi
fi
exec "$here/npm-deps.sh" "$npm_tier"
