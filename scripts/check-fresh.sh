#!/bin/sh
# make check-fresh: the README's two commands on a machine that has none of the project's
# packages. Builds a minimal Debian 12 root (mmdebstrap, minbase + make: what a newcomer needs
# to type `make`) from this machine's own apt sources and apt configuration, so it reaches the
# same archive; caches it as a tarball under ~/.cache/linkperf/; unpacks it into a temporary
# directory, copies `git archive HEAD` (what is committed, not the work tree) into it, and runs
# as root inside it, in a mount and PID namespace of its own, the steps of
# scripts/check-fresh-steps.sh: `make run` as a user without root (must stop with the sudo
# line), a failed configure, `make`, `make run`, `make check-fast`, `make deb`. Then it unpacks
# a second fresh root, copies in the .deb made in the first, and runs
# packaging/check-deb-install.sh there: apt-get install ./linkperf_*.deb, the installed
# commands, a loopback test, apt-get purge, nothing left.
# Everything it mounts or starts goes away with the namespace; the directory is removed at exit.
#
# Usage: scripts/check-fresh.sh            (root; needs mmdebstrap, unshare, git)
#        LP_FRESH_KEEP=1 ...               keep the unpacked roots for a look afterwards
#        LP_FRESH_DEB=dist/linkperf_....deb ...   only the package's part, on that .deb
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)

die() { echo "check-fresh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, mounts)"
for t in mmdebstrap unshare chroot git; do
  command -v "$t" >/dev/null 2>&1 || die "$t not found (scripts/deps.sh check installs it)"
done

# This machine's apt sources (enabled entries only) and apt configuration.
sources=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -s "$f" ] && sources="$sources $f"
done
[ -n "$sources" ] || die "no apt sources under /etc/apt"
aptconf=""
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  [ -f "$f" ] && aptconf="$aptconf $f"
done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/linkperf
mkdir -p "$cache"
# The root's recipe; the tarball is named after it and everything it is made from, so a
# changed source list, apt setting or recipe makes a new one (and the old ones go).
variant="--variant=minbase --include=make"
suite=bookworm
# shellcheck disable=SC2086
key=$( (echo "$variant $suite"; cat $sources $aptconf) | sha256sum | cut -c1-16)
tarball="$cache/fresh-root-bookworm-$key.tar"
if [ ! -s "$tarball" ]; then
  rm -f "$cache"/fresh-root-bookworm-*.tar "$cache"/fresh-root-bookworm-*.tar.tmp
  echo "check-fresh: building a minimal Debian 12 root (mmdebstrap, cached as $tarball)"
  opts=""
  for f in $aptconf; do opts="$opts --aptopt=$f"; done
  # shellcheck disable=SC2086
  mmdebstrap --quiet --format=tar $variant $opts "$suite" "$tarball.tmp" $sources ||
    { rm -f "$tarball.tmp"; die "mmdebstrap failed"; }
  mv "$tarball.tmp" "$tarball"
else
  echo "check-fresh: using the cached root $tarball"
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/linkperf-fresh.XXXXXX")
cleanup() {
  if [ "${LP_FRESH_KEEP:-0}" = 1 ]; then
    echo "check-fresh: the roots are kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# new_root DIR: the cached root unpacked into DIR, with what this machine's network needs to
# reach the archive and the npm registry (DNS, hosts, TLS trust and npm's settings), as a
# newcomer's machine on the same network would have.
new_root() {
  mkdir -p "$1"
  tar -xf "$tarball" -C "$1"
  cp /etc/resolv.conf /etc/hosts "$1/etc/" 2>/dev/null || true
  if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$1/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$1/usr/local/share/ca-certificates/"
  fi
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$1/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/"
  fi
  for f in /etc/npmrc /usr/etc/npmrc; do
    if [ -f "$f" ]; then mkdir -p "$1$(dirname "$f")" && cp "$f" "$1$f"; fi
  done
}

# in_root DIR COMMAND: COMMAND (sh -euc) as root in DIR, in a mount namespace (its mounts
# vanish with it) and a PID namespace (every process the steps start dies with its init).
# Only the minimum of the environment goes in.
in_root() {
  unshare --mount --pid --fork --propagation private sh -eu -c '
    root=$1
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root/run"
    mount -t tmpfs tmpfs "$root/run"
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
      TERM=dumb LANG=C.UTF-8 CI="${CI:-}" NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
      sh -euc "$2"
  ' sh "$1" "$2"
}

# check_deb FILE: the package in a root of its own, which has none of the build's packages.
check_deb() {
  start=$(date +%s)
  echo "check-fresh: in a second fresh root: packaging/check-deb-install.sh $(basename "$1")"
  new_root "$work/root-deb"
  mkdir -p "$work/root-deb/deb"
  cp "$1" "$src/packaging/check-deb-install.sh" "$work/root-deb/deb/"
  in_root "$work/root-deb" "/deb/check-deb-install.sh /deb/$(basename "$1")" || return
  echo "check-fresh: the package's part took $(($(date +%s) - start)) s"
}

if [ -n "${LP_FRESH_DEB:-}" ]; then
  [ -s "$LP_FRESH_DEB" ] || die "LP_FRESH_DEB=$LP_FRESH_DEB is not a file"
  rc=0
  check_deb "$(cd "$(dirname "$LP_FRESH_DEB")" && pwd)/$(basename "$LP_FRESH_DEB")" || rc=$?
  if [ "$rc" = 0 ]; then
    echo "check-fresh: PASS (the package in a fresh Debian 12 root)"
  else
    echo "check-fresh: FAIL (exit status $rc)" >&2
  fi
  exit "$rc"
fi

root="$work/root"
new_root "$root"
mkdir -p "$root/src"
git -C "$src" archive HEAD | tar -x -C "$root/src"

echo "check-fresh: in the fresh root: scripts/check-fresh-steps.sh"
rc=0
in_root "$root" "cd /src && scripts/check-fresh-steps.sh" || rc=$?
if [ "$rc" = 0 ]; then
  set -- "$root"/src/dist/linkperf_*.deb
  [ -s "$1" ] || { echo "check-fresh: make deb left no dist/linkperf_*.deb" >&2; rc=1; }
fi
[ "$rc" != 0 ] || check_deb "$1" || rc=$?
if [ "$rc" = 0 ]; then
  echo "check-fresh: PASS (a newcomer's make run, a failed configure, make, make run," \
    "make check-fast and make deb in a fresh Debian 12 root; the package installed, run and" \
    "purged in another)"
else
  echo "check-fresh: FAIL (exit status $rc)" >&2
fi
exit "$rc"
