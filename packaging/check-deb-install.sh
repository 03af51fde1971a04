#!/bin/sh
# make check-fresh's last part, run as root inside a second fresh Debian 12 root (minbase,
# none of the build's packages): the .deb that `make deb` made in the first root installs
# with apt-get (which fetches its Depends from the archive), runs from the installed paths,
# and leaves nothing behind when purged.
#   check-deb-install.sh /deb/linkperf_VERSION_ARCH.deb
set -eu
deb=$1
fail() { echo "check-fresh: FAIL: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt="apt-get -o DPkg::Lock::Timeout=120 -y --no-install-recommends"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; /\/$/d' >/tmp/deb-files
$apt install "$deb" || { apt-get update && $apt install "$deb"; } || fail "apt-get install $deb"

[ "$(command -v linkperf)" = /usr/bin/linkperf ] || fail "linkperf is not /usr/bin/linkperf"
linkperf -v | grep -q "iperf3 3.12 protocol" || fail "linkperf -v"
linkperf2 -v 2>&1 | grep -q "^iperf version 2.1.8 " || fail "linkperf2 -v is not iperf2's line"
if command -v man >/dev/null 2>&1; then
  man -w linkperf >/dev/null || fail "man -w linkperf"
fi
bash -c '. /usr/share/bash-completion/completions/linkperf; COMP_WORDS=(linkperf --dia)
  COMP_CWORD=1; _linkperf; [ "${COMPREPLY[*]}" = --dialect ]' || fail "bash completion"
for f in /lib/systemd/system/linkperf.service /usr/share/man/man1/linkperf.1.gz \
  /usr/share/zsh/vendor-completions/_linkperf /usr/share/doc/linkperf/copyright; do
  [ -s "$f" ] || fail "$f is missing"
done
if [ -e /usr/bin/iperf3 ] || [ -e /usr/bin/iperf ]; then fail "the package installed an alias"; fi

# A loopback test from the installed binary: exactly 1 MiB each way's accounting.
linkperf -s -p 5299 -1 --no-history >/tmp/server.out 2>&1 &
server=$!
i=0
until grep -qiE ':14B3 [0-9A-F]+:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
  i=$((i + 1))
  [ "$i" -lt 100 ] || { kill "$server"; cat /tmp/server.out; fail "the installed server did not listen"; }
  sleep 0.1
done
timeout 60 linkperf -c 127.0.0.1 -p 5299 -n 1M -J --no-history >/tmp/client.json ||
  { kill "$server" 2>/dev/null; fail "the installed client failed"; }
wait "$server" || fail "the installed server exited with an error"
n=$(grep -c '"bytes":[[:space:]]*1048576,' /tmp/client.json) || true
[ "$n" -ge 4 ] || { cat /tmp/client.json; fail "the client's JSON does not account 1048576 bytes"; }

$apt purge linkperf || fail "apt-get purge linkperf"
left=""
while IFS= read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
done </tmp/deb-files
[ -z "$left" ] || fail "purge left:$left"
[ ! -e /var/lib/linkperf ] || fail "purge left /var/lib/linkperf"
! dpkg-query -W -f='${Status}' linkperf 2>/dev/null | grep -q installed || fail "still installed"
echo "check-fresh: the package installed, ran (1048576 bytes over loopback) and purged cleanly"
