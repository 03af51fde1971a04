#!/bin/sh
# make check-fresh: the README's two commands on a machine that has none of the project's
# packages. Builds a minimal Debian 12 root (mmdebstrap, minbase + make: what a newcomer needs
# to type `make`) from this machine's own apt sources and apt configuration, so it reaches the
# same archive; caches it as a tarball under ~/.cache/linkperf/; unpacks it into a temporary
# directory, copies `git archive HEAD` (what is committed, not the work tree) into it, and runs
# as root inside it, in a mount and PID namespace of its own, the steps of
# scripts/check-fresh-steps.sh: `make run` as a user without root (must stop with the sudo
# line), a failed configure, `make`, `make run`, `make check-fast`.
# Everything it mounts or starts goes away with the namespace; the directory is removed at exit.
#
# Usage: scripts/check-fresh.sh            (root; needs mmdebstrap, unshare, git)
#        LP_FRESH_KEEP=1 ...               keep the unpacked root for a look afterwards
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
    echo "check-fresh: the root is kept in $work/root"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
root="$work/root"
mkdir -p "$root"
tar -xf "$tarball" -C "$root"
mkdir -p "$root/src"
git -C "$src" archive HEAD | tar -x -C "$root/src"

# What this machine's network needs to reach the archive and the npm registry (DNS, hosts,
# TLS trust and npm's settings), as a newcomer's machine on the same network would have.
cp /etc/resolv.conf /etc/hosts "$root/etc/" 2>/dev/null || true
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
for f in /etc/npmrc /usr/etc/npmrc; do
  [ -f "$f" ] && mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f"
done

echo "check-fresh: in the fresh root: scripts/check-fresh-steps.sh"
# A mount namespace (its mounts vanish with it) and a PID namespace (every process the tests
# start dies with its init). Only the minimum of the environment goes in.
rc=0
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
    sh -euc "cd /src && scripts/check-fresh-steps.sh"
' sh "$root" || rc=$?
if [ "$rc" = 0 ]; then
  echo "check-fresh: PASS (a newcomer's make run, a failed configure, make, make run and" \
    "make check-fast in a fresh Debian 12 root)"
else
  echo "check-fresh: FAIL (exit status $rc)" >&2
fi
exit "$rc"
