#!/bin/sh
# What scripts/check-fresh.sh runs inside the fresh root, as root, in /src (git archive HEAD):
# a newcomer's first steps, and the failures that must not poison the next step.
#  1. A user without root runs `make run`: it stops before building anything and prints the
#     exact `sudo apt-get install ...` line.
#  2. root runs `make run` with a compiler that does not exist: the packages get installed,
#     then the configure fails.
#  3. root runs `make`: the failed configure is not in the way; everything builds.
#  4. root runs `make run`: the demo prints results.
#  5. root runs `make check-fast` (it configures the tests into the same build).
#  6. root runs `make deb`: check-fresh.sh installs the package in a second fresh root.
set -eu
step() { echo; echo "check-fresh: step $*"; }
fail() { echo "check-fresh: FAIL: $*" >&2; exit 1; }

step "1: make run as a user without root"
id newcomer >/dev/null 2>&1 || useradd -m newcomer
rm -rf /home/newcomer/src
cp -r /src /home/newcomer/src
chown -R newcomer /home/newcomer/src
rc=0
su newcomer -s /bin/sh -c 'cd ~/src && make run' >/tmp/newcomer.out 2>&1 || rc=$?
cat /tmp/newcomer.out
[ "$rc" != 0 ] || fail "make run without root and without the packages exited 0"
grep -q "run: sudo apt-get install -y --no-install-recommends .*cmake" /tmp/newcomer.out ||
  fail "make run without root did not print the sudo apt-get install line"
for d in build node_modules; do
  [ ! -e "/home/newcomer/src/$d" ] || fail "make run without root left $d/ behind"
done

step "2: make run with a compiler that does not exist (the configure must fail)"
rc=0
make run CMAKE_FLAGS=-DCMAKE_C_COMPILER=/nonexistent/cc || rc=$?
[ "$rc" != 0 ] || fail "a configure with a missing compiler succeeded"
[ ! -f build/CMakeCache.txt ] || fail "the failed configure left build/CMakeCache.txt behind"

step "3: make"
make
for f in build/linkperf build/linkperf2 build/agent/lpa-host-raw; do
  [ -x "$f" ] || fail "make built no $f"
done

step "4: make run"
make run >/tmp/run.out 2>&1 || { cat /tmp/run.out; fail "make run"; }
cat /tmp/run.out
grep -q "receiver" /tmp/run.out || fail "the demo printed no receiver row"

step "5: make check-fast"
make check-fast

step "6: make deb"
make deb
ls dist/linkperf_*.deb >/dev/null 2>&1 || fail "make deb made no dist/linkperf_*.deb"
