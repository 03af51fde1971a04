#!/bin/sh
# Configure a CMake build directory once, and never leave a broken one behind.
# Usage: scripts/configure.sh BUILD_DIR [cmake -D options...]
# The generated Makefile is the stamp: CMake writes it only when a configure succeeds, so a
# directory without one holds a failed or interrupted configure, whose cache (with its failed
# package checks) is thrown away before trying again. A configured directory is configured
# again only when an option asked for here differs from its cache; a configure that fails
# removes the cache and the stamp, so the next run starts clean instead of building nothing.
set -eu
dir=$1
shift
cd "$(dirname "$0")/.."
cache="$dir/CMakeCache.txt"
if [ -f "$dir/Makefile" ] && [ -f "$cache" ]; then
  stale=0
  for a in "$@"; do
    case "$a" in
      -D*=*)
        kv=${a#-D}
        name=${kv%%=*}
        value=${kv#*=}
        name=${name%%:*}
        # The compiler is chosen once, at the first configure (changing it empties the cache).
        [ "$name" = CMAKE_C_COMPILER ] && continue
        grep -q "^$name:[A-Z]*=$value\$" "$cache" || stale=1 ;;
    esac
  done
  [ "$stale" = 0 ] && exit 0
else
  rm -f "$cache"
fi
if ! cmake -S . -B "$dir" "$@"; then
  rm -f "$cache" "$dir/Makefile"
  echo "linkperf: configuring $dir failed (the message above says why); nothing is kept" >&2
  exit 1
fi
