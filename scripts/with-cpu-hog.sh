#!/bin/sh
# Runs a command while another process keeps every core busy: stress-ng --cpu N (N = the
# number of cores) at the same nice level as the command, stopped by its PID when the command
# ends (also when it fails or is interrupted). Exit status: the command's.
# Usage: scripts/with-cpu-hog.sh COMMAND [ARGS...]   (make check-stress runs make check)
set -eu
command -v stress-ng >/dev/null 2>&1 || { echo "with-cpu-hog: stress-ng not found" \
  "(scripts/deps.sh check installs it)" >&2; exit 1; }
n=$(nproc 2>/dev/null || echo 2)
stress-ng --cpu "$n" --cpu-method matrixprod --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
echo "with-cpu-hog: stress-ng --cpu $n (pid $hog) keeps the machine busy during: $*"
rc=0
"$@" || rc=$?
echo "with-cpu-hog: $* exited $rc under the CPU hog"
exit "$rc"
