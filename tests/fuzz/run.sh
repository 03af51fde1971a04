#!/bin/sh
# make fuzz: runs each libFuzzer harness of BUILD (configured with LP_FUZZ=ON) for SECONDS on a
# work copy of its committed corpus, BUILD/fuzz-work/corpus/<harness> (seeded from
# tests/fuzz/corpus, and kept: later runs go on from what earlier ones found; the committed
# corpus is never written), then prints per harness libFuzzer's final numbers: executions,
# coverage (cov: edges, ft: features) and the work corpus's size. A crash, leak, sanitizer
# report or hang (over 10 s for one input) ends that harness's run: its input is saved under
# BUILD/fuzz-work/crashes/<harness>/, the log (BUILD/fuzz-work/<harness>.log) says why, and
# the script exits 1 after the others have run.
# Usage: tests/fuzz/run.sh BUILD SECONDS [HARNESS...]   (default: every harness)
set -eu
build=$1
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$build/fuzz-work
names=${*:-$(ls "$here/corpus")}
mkdir -p "$work"
summary=$work/summary.txt
printf '%-22s %11s %6s %6s %8s  %s\n' harness executions cov ft corpus result > "$summary"
status=0
for h in $names; do
  bin=$build/tests/fuzz/$h
  if [ ! -x "$bin" ]; then
    printf '%-22s %11s %6s %6s %8s  %s\n' "$h" - - - - "not built" >> "$summary"
    continue
  fi
  mkdir -p "$work/corpus/$h" "$work/crashes/$h"
  cp -n "$here/corpus/$h"/* "$work/corpus/$h"/
  dict=
  case $h in fuzz_i3_*|fuzz_lpa_json|fuzz_web_body) dict=-dict=$here/json.dict ;; esac
  log=$work/$h.log
  echo "fuzzing $h for $secs s (log: $log)"
  result=ok
  touch "$work/crashes/$h/.start" # what this run finds is newer (earlier finds are kept)
  # shellcheck disable=SC2086
  if ! "$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$work/crashes/$h/" $dict "$work/corpus/$h" > "$log" 2>&1; then
    result="FAILED: $(find "$work/crashes/$h" -type f -newer "$work/crashes/$h/.start" | tr '\n' ' ')"
    status=1
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5 >&2 || true
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  num() { echo "$last" | sed -n "s/.* $1: \([^ ]*\).*/\1/p"; }
  printf '%-22s %11s %6s %6s %8s  %s\n' "$h" "${execs:--}" "$(num cov)" "$(num ft)" "$(num corp)" \
    "$result" >> "$summary"
done
cat "$summary"
exit $status
