#!/bin/sh
# The npm packages of package-lock.json into node_modules/ (run by scripts/deps.sh):
#   npm-deps.sh build   uPlot only (the build embeds it into the web page): npm ci --omit=dev
#   npm-deps.sh check   also playwright-core (the browser tests drive Debian's chromium)
# A stamp written only after npm ci succeeded records what was installed from which lock
# file, so an interrupted or failed install is redone, never trusted.
set -eu
tier=${1:-check}
cd "$(dirname "$0")/.."
lock=$(sha256sum package-lock.json | cut -c1-16)
stamp=node_modules/.linkperf-npm
have=$(cat "$stamp" 2>/dev/null || true)
# A check install (dev packages too) also serves a build.
case "$have" in
  "check $lock") exit 0 ;;
  "build $lock") [ "$tier" = build ] && exit 0 ;;
esac
flags=""
[ "$tier" = build ] && flags="--omit=dev"
echo "linkperf: installing npm packages (npm ci $flags, package-lock.json)"
rm -f "$stamp"
# shellcheck disable=SC2086
if ! npm ci $flags --no-audit --no-fund --loglevel=error; then
  echo "linkperf: npm ci failed; run it again with: (cd $(pwd) && npm ci $flags)" >&2
  exit 1
fi
echo "$tier $lock" > "$stamp"
