#!/bin/sh
# Install what linkperf needs from Debian's archive. Usage: scripts/deps.sh build|run|check
# As root it installs missing packages with apt-get; otherwise it prints the exact command.
set -eu
what=${1:-build}

build_pkgs="cmake make gcc pkg-config libcjson-dev libmicrohttpd-dev libsqlite3-dev"
# gcc-arm-none-eabi + newlib: the agent's Cortex-M4 footprint build (make check-footprint)
# chromium: the web page's browser tests (tests/e2e, driven by playwright-core from npm)
check_pkgs="$build_pkgs libcmocka-dev iperf3 iperf python3 clang iproute2 procps nftables iputils-ping
 gcc-arm-none-eabi libnewlib-arm-none-eabi chromium"
case "$what" in
  build|run) pkgs=$build_pkgs ;;
  check) pkgs=$check_pkgs ;;
  *) echo "usage: $0 build|run|check" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
# Node.js and npm for the web page's packages (uPlot): Debian's, unless the machine has some.
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -z "$missing" ] && exec "$(dirname "$0")/npm-deps.sh"

if [ "$(id -u)" != 0 ]; then
  echo "linkperf: missing Debian packages:$missing" >&2
  echo "run: sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "linkperf: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# iperf3's package can offer to start a daemon on 5201; keep it from doing so.
echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
if ! apt-get install -y --no-install-recommends $missing; then
  apt-get update && apt-get install -y --no-install-recommends $missing
fi
exec "$(dirname "$0")/npm-deps.sh"
