#!/bin/sh
# Fetch lwIP's source from Debian's `lwip` source package and unpack it; prints the source root
# (the directory holding src/core, src/include, src/apps). No change to /etc: a private apt
# configuration turns the machine's own deb entries into deb-src ones.
# Usage: agent/port/fetch-lwip.sh [DEST]   (default ${XDG_CACHE_HOME:-~/.cache}/linkperf)
set -eu
dest=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/linkperf}
root="$dest/lwip-src"
if [ -f "$root/src/core/tcp.c" ]; then echo "$root"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
found=0
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  sed 's/^Types:.*deb\b.*/Types: deb-src/' "$f" > "$work/parts/$(basename "$f")"
  found=1
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" > "$work/parts/$(basename "$f")"
  found=1
done
[ "$found" = 1 ] || { echo "fetch-lwip: no apt sources found under /etc/apt" >&2; exit 1; }

apt_opts="-o Dir::Etc::SourceParts=$work/parts -o Dir::Etc::SourceList=/dev/null \
 -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get $apt_opts -qq update >&2 || { echo "fetch-lwip: apt-get update (deb-src) failed" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$work/dl" && apt-get $apt_opts -qq source --download-only lwip >&2) ||
  { echo "fetch-lwip: apt-get source --download-only lwip failed" >&2; exit 1; }

orig=$(ls "$work"/dl/lwip_*.orig.tar.* | head -1)
mkdir -p "$work/unpack"
tar -xf "$orig" -C "$work/unpack"
top=$(ls -d "$work"/unpack/* | head -1)
[ -f "$top/src/core/tcp.c" ] || { echo "fetch-lwip: unexpected layout in $orig" >&2; exit 1; }
mkdir -p "$dest"
rm -rf "$root.tmp"
mv "$top" "$root.tmp"
mv "$root.tmp" "$root"
echo "$root"
