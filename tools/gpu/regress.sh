#!/usr/bin/env bash
# The one-call GPU regression run, for a machine with a GPU and no Bazel (the bundle staged by
# tools/gpu/bundle.sh, unpacked): every staged test binary, several at a time; then bench.sh
# (duet's gpu_bench beside its PyTorch peer); then compute-sanitizer's memcheck on each binary
# that crashed or failed with a memory fault (an illegal address, a misaligned address, a launch
# failure). Everything fits in one time budget.
#
#   regress.sh [OUT_DIR]        # default: ./regress; the device tool's $OUT when set
#
# Writes two files to OUT_DIR: summary.txt (the device, each binary's verdict and seconds as it
# finishes, the failing assertions, the benchmark lines, memcheck's first reports) and
# logs.tar.gz (every log), both rewritten after each stage, so that whatever has run is there
# when a time limit kills the run. Every summary line also goes to stdout. Two files because the
# device tool returns at most 8 from $OUT; the logs are written under WORK_DIR first.
#
# Environment: BUDGET (seconds for the whole run, default 480: the device call's timeout_s of 540
# less unpacking and a margin), JOBS (binaries at once, 8), TEST_TIMEOUT (seconds per binary,
# 150), BENCH_TIMEOUT (seconds for each of the two benchmark programs, 120), MEMCHECK_TIMEOUT
# (seconds per binary memcheck reruns, 150), SKIP_BENCH=1, WORK_DIR (default: a new folder in
# /tmp).
# Each stage's timeouts are cut to what is left of the budget, and a stage without time left is
# reported as not run. On a 16-core H200 the binaries took about 2 minutes this way.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
BUNDLE="$PWD"
OUT_DIR="${1:-${OUT:-$BUNDLE/regress}}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/duet_regress.XXXXXX)}"
LOGS="$WORK_DIR/logs"
mkdir -p "$LOGS"
SUMMARY="$OUT_DIR/summary.txt"
JOBS="${JOBS:-8}"
TEST_TIMEOUT="${TEST_TIMEOUT:-150}"
BENCH_TIMEOUT="${BENCH_TIMEOUT:-120}"
MEMCHECK_TIMEOUT="${MEMCHECK_TIMEOUT:-150}"
START=$(date +%s)
DEADLINE=$((START + ${BUDGET:-480}))

# A line for the summary and stdout (the device tool returns stdout's end even after a kill).
say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
# Seconds a step may take: `want`, cut to what is left of the budget less `margin`.
allowed() {
  local want="$1" margin="$2" left
  left=$((DEADLINE - $(date +%s) - margin))
  ((left < want)) && want=$left
  echo "$want"
}
pack_logs() {
  tar -czf "$OUT_DIR/logs.tar.gz.part" -C "$WORK_DIR" logs && mv -f "$OUT_DIR/logs.tar.gz.part" "$OUT_DIR/logs.tar.gz"
}
export DEADLINE LOGS SUMMARY TEST_TIMEOUT
export -f say allowed

ORIGINAL_LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
source ./run.sh --env-only 2> "$LOGS/environment.log"
export ORIGINAL_LD_LIBRARY_PATH
# As in CI (tests/defs.bzl): the gradient checks also run on the virtual device cpu:1.
export DUET_VIRTUAL_DEVICES="${DUET_VIRTUAL_DEVICES:-2}"

# Runs one binary and appends its verdict to the summary as soon as it ends:
#   PASS; NOGPU (passed, but duet saw no GPU: its GPU cases skipped); FAIL (failed assertions or
#   no test ran); CRASH(signal N) (killed by a signal); TIMEOUT; NOSTART (the loader could not
#   start it: a missing library); NOTRUN (no time left in the budget).
# Catch2 exits with the number of failed assertions (capped at 255), so an exit status alone can
# read as a signal, a timeout or a loader failure: the log and the elapsed time decide. Catch2
# catches SIGSEGV, SIGABRT & co. itself: it logs "fatal error condition", prints its closing line
# ("Failed 1 test case, ...") and raises the signal again: a closing line does not rule out a
# crash.
run_one() {
  local test="$1" name log limit begin status seconds verdict
  name="$(basename "$test")"
  log="$LOGS/$name.log"
  limit=$(allowed "$TEST_TIMEOUT" 20)
  if ((limit < 10)); then
    verdict=NOTRUN seconds=0
  else
    begin=$(date +%s)
    timeout --kill-after=5 "$limit" "$test" --reporter compact > "$log" 2>&1
    status=$?
    seconds=$(($(date +%s) - begin))
    if ((status == 0)); then
      if grep -q "No tests ran" "$log"; then
        verdict=FAIL
      elif grep -q "skipped: no CUDA device\|skipped: built without" "$log"; then
        verdict=NOGPU
      else
        verdict=PASS
      fi
    elif ((status == 127)) && grep -q "error while loading shared libraries" "$log"; then
      verdict=NOSTART
    elif ((status == 124 || status == 137)) && ((seconds >= limit)); then
      verdict=TIMEOUT
    elif ((status > 128)) && { grep -q "fatal error condition" "$log" ||
      ! grep -q -E "^(Passed|Failed|No tests ran)" "$log"; }; then
      verdict="CRASH(signal $((status - 128)))"
    else
      verdict=FAIL
    fi
  fi
  echo "$seconds $verdict" > "$LOGS/$name.status"  # the verdict last: it may hold a space
  say "$(printf '%-18s %5ss  %s' "$verdict" "$seconds" "$name")"
}
export -f run_one

binaries=()
while IFS= read -r -d '' test; do binaries+=("$test"); done \
  < <(find bin -maxdepth 1 -type f -perm -u+x -print0 | sort -z)
gpu_line="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
{
  echo "# duet GPU regression, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "device: ${gpu_line:-nvidia-smi found no GPU (or is missing)}"
  echo "bundle: $BUNDLE (${#binaries[@]} binaries, $JOBS at a time; budget $((DEADLINE - START)) s)"
  sed 's/^/environment: /' "$LOGS/environment.log"
  echo ""
  echo "## tests, as they finish (verdict, seconds, binary)"
} > "$SUMMARY"
cat "$SUMMARY"
if ((${#binaries[@]} == 0)); then
  say "no test binaries in $BUNDLE/bin: a broken bundle"
  exit 1
fi

# (The shell's own "Segmentation fault" lines go to a log: the verdicts say it.)
printf '%s\0' "${binaries[@]}" |
  xargs -0 -P "$JOBS" -I{} bash -c 'run_one "$1"' run_one {} 2>> "$LOGS/shell.log"

declare -A count=()
memcheck=()  # the binaries memcheck reruns
say ""
say "## what did not pass (the failing assertions, else the log's end)"
for test in "${binaries[@]}"; do
  name="$(basename "$test")"
  read -r seconds verdict < "$LOGS/$name.status"
  kind="${verdict%%(*}"  # CRASH(signal 11) counts as CRASH
  count[$kind]=$((${count[$kind]:-0} + 1))
  if [[ "$verdict" == CRASH* ]] || { [ "$verdict" = FAIL ] && grep -q -E \
    "IllegalAddress|illegal memory access|MisalignedAddress|misaligned address|LaunchFailure" \
    "$LOGS/$name.log"; }; then
    memcheck+=("$name")
  fi
  case "$verdict" in PASS | NOTRUN) continue ;; esac
  say "### $name: $verdict"
  log="$LOGS/$name.log"
  { grep -E -m 30 -A 2 ": failed: |fatal error|error:|skipped: no CUDA device" "$log" ||
      tail -n 5 "$log"; } | uniq | cut -c 1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
done
tests_line="tests:"
for verdict in PASS NOGPU FAIL CRASH TIMEOUT NOSTART NOTRUN; do
  tests_line+=" ${count[$verdict]:-0} $verdict,"
done
say "${tests_line%,} ($(($(date +%s) - START)) s)"
if [ -n "$gpu_line" ] && ((${count[NOGPU]:-0} > 0)); then
  say "WARNING: nvidia-smi sees a GPU, but duet saw none in ${count[NOGPU]} binaries (see their logs)"
fi
pack_logs

if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x ./gpu_bench ]; then
  say ""
  say "## bench.sh (gpu_bench, then torch_gpu_bench.py; each under its own timeout)"
  each=$((($(allowed $((2 * BENCH_TIMEOUT + 20)) 40) - 20) / 2))
  ((each > BENCH_TIMEOUT)) && each=$BENCH_TIMEOUT
  if ((each < 20)); then
    say "bench.sh: NOTRUN (no time left in the budget)"
  else
    BENCH_TIMEOUT=$each ./bench.sh 2>&1 | tee "$LOGS/bench.log" >> "$SUMMARY"
    bench_status=${PIPESTATUS[0]}
    say "bench.sh: exit $bench_status"
  fi
  pack_logs
fi

if ((${#memcheck[@]})); then
  say ""
  say "## compute-sanitizer --tool memcheck on the binaries that crashed or faulted"
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  if [ ! -x "$sanitizer" ]; then
    say "compute-sanitizer not found"
  else
    memcheck_one() {
      local name="$1" limit log
      log="$LOGS/$name.memcheck.log"
      limit=$(allowed "$MEMCHECK_TIMEOUT" 15)
      if ((limit < 20)); then echo "### $name: NOTRUN (no time left)" > "$log.summary"; return; fi
      timeout --kill-after=5 "$limit" "$SANITIZER" --tool memcheck --print-limit 10 \
        "bin/$name" --reporter compact > "$log" 2>&1
      { echo "### $name (exit $?, limit ${limit} s)"
        grep -E -A 6 "^========= (Invalid|Program hit|Error)" "$log" | head -n 40
        tail -n 3 "$log"; } > "$log.summary"
    }
    export -f memcheck_one
    export SANITIZER="$sanitizer" MEMCHECK_TIMEOUT
    printf '%s\0' "${memcheck[@]}" | xargs -0 -P 4 -I{} bash -c 'memcheck_one "$1"' memcheck_one {}
    for name in "${memcheck[@]}"; do tee -a "$SUMMARY" < "$LOGS/$name.memcheck.log.summary"; done
  fi
  pack_logs
fi

say ""
say "total: $(($(date +%s) - START)) s; every log in logs.tar.gz"
failures=$((${count[FAIL]:-0} + ${count[CRASH]:-0} + ${count[TIMEOUT]:-0} + ${count[NOSTART]:-0} + ${count[NOTRUN]:-0}))
((failures == 0)) && ! { [ -n "$gpu_line" ] && ((${count[NOGPU]:-0} > 0)); }
