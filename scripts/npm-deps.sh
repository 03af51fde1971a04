#!/bin/sh
# The npm packages of package-lock.json into node_modules/, only when they are not there yet:
# uPlot (the build embeds it into the web page) and playwright-core (the browser tests drive
# Debian's chromium with it). Run by scripts/deps.sh.
set -eu
cd "$(dirname "$0")/.."
[ -f node_modules/uplot/dist/uPlot.iife.min.js ] &&
  [ -f node_modules/playwright-core/package.json ] && exit 0
echo "linkperf: installing npm packages (package-lock.json)"
npm ci --no-audit --no-fund --loglevel=error
