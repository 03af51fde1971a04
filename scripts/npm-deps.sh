#!/bin/sh
# The npm packages the build embeds (uPlot, into the web page) installed from package-lock.json
# into node_modules/, only when they are not there yet. Run by scripts/deps.sh.
set -eu
cd "$(dirname "$0")/.."
[ -f node_modules/uplot/dist/uPlot.iife.min.js ] && exit 0
echo "linkperf: installing npm packages (package-lock.json)"
npm ci --no-audit --no-fund --loglevel=error
