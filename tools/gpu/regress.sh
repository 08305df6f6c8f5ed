#!/usr/bin/env bash
# The one-call GPU regression run, for a machine with a GPU and no Bazel (the bundle staged by
# tools/gpu/bundle.sh, unpacked): every staged test binary, several at a time; then bench.sh (duet's
# gpu_bench beside its PyTorch peer); then compute-sanitizer's memcheck on each binary that crashed
# or timed out. Writes one summary (and every log) to OUT_DIR.
#
#   regress.sh [OUT_DIR]        # default: ./regress; the device tool's $OUT when set
#
# Environment: JOBS (binaries at once, default 8), TEST_TIMEOUT (seconds per binary, 300),
# BENCH_TIMEOUT (180), MEMCHECK_TIMEOUT (seconds per crashed binary, 240), SKIP_BENCH=1.
# On a 16-core H200 the 33 binaries take about 2 minutes this way, the benchmark pair about 2;
# docs/cuda.md ("Running on a GPU machine") has the device tool's command.
set -uo pipefail
cd "$(dirname "$0")"
BUNDLE="$PWD"
OUT_DIR="${1:-${OUT:-$BUNDLE/regress}}"
mkdir -p "$OUT_DIR/logs"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
SUMMARY="$OUT_DIR/summary.txt"
JOBS="${JOBS:-8}"
TEST_TIMEOUT="${TEST_TIMEOUT:-300}"
BENCH_TIMEOUT="${BENCH_TIMEOUT:-180}"
MEMCHECK_TIMEOUT="${MEMCHECK_TIMEOUT:-240}"

source ./run.sh --env-only 2> "$OUT_DIR/logs/environment.log"
# As in CI (tests/defs.bzl): the gradient checks also run on the virtual device cpu:1.
export DUET_VIRTUAL_DEVICES="${DUET_VIRTUAL_DEVICES:-2}"
export BUNDLE OUT_DIR TEST_TIMEOUT

# Runs one binary; records its exit status and seconds beside its log. Catch2's compact reporter
# keeps the log short; a binary that ran no test counts as failed (a bad flag must not pass).
run_one() {
  local test="$1" name start status
  name="$(basename "$test")"
  start=$(date +%s)
  timeout --kill-after=10 "$TEST_TIMEOUT" "$test" --reporter compact > "$OUT_DIR/logs/$name.log" 2>&1
  status=$?
  if ((status == 0)) && grep -q "No tests ran" "$OUT_DIR/logs/$name.log"; then status=1; fi
  echo "$status $(($(date +%s) - start))" > "$OUT_DIR/logs/$name.status"
}
export -f run_one

start=$(date +%s)
{
  echo "# duet GPU regression, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    2>/dev/null || echo 'nvidia-smi not found')"
  echo "bundle: $BUNDLE ($(find bin -maxdepth 1 -type f | wc -l) binaries, $JOBS at a time)"
  sed 's/^/environment: /' "$OUT_DIR/logs/environment.log"
} > "$SUMMARY"

# (The shell's own "Segmentation fault" lines go to a log: the summary says it.)
find bin -maxdepth 1 -type f -perm -u+x | sort |
  xargs -P "$JOBS" -I{} bash -c 'run_one "$1"' run_one {} 2>> "$OUT_DIR/logs/shell.log"

passed=0 failed=0 crashed=0
crashed_names=()
echo "" >> "$SUMMARY"
echo "## tests (status, seconds, binary)" >> "$SUMMARY"
for status_file in "$OUT_DIR"/logs/*.status; do
  [ -f "$status_file" ] || continue
  name="$(basename "$status_file" .status)"
  read -r status seconds < "$status_file"
  if ((status == 0)); then
    verdict=PASS; passed=$((passed + 1))
  elif ((status == 124 || status == 137)); then
    verdict=TIMEOUT; crashed=$((crashed + 1)); crashed_names+=("$name")
  elif ((status > 128)); then
    verdict="CRASH(signal $((status - 128)))"; crashed=$((crashed + 1)); crashed_names+=("$name")
  else
    verdict=FAIL; failed=$((failed + 1))
  fi
  printf '%-22s %5ss  %s\n' "$verdict" "$seconds" "$name" >> "$SUMMARY"
  if [ "$verdict" != PASS ]; then  # the failing assertions, else the log's end
    log="$OUT_DIR/logs/$name.log"
    { grep -E -A3 "FAILED|error:" "$log" | head -30 | grep . || tail -5 "$log"; } |
      sed 's/^/    /' >> "$SUMMARY"
  fi
done
echo "tests: $passed passed, $failed failed, $crashed crashed or timed out" \
  "($(($(date +%s) - start)) s)" >> "$SUMMARY"

if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x ./gpu_bench ]; then
  echo "" >> "$SUMMARY"
  echo "## bench.sh (gpu_bench, then torch_gpu_bench.py)" >> "$SUMMARY"
  bench_start=$(date +%s)
  timeout --kill-after=10 "$BENCH_TIMEOUT" ./bench.sh > "$OUT_DIR/logs/bench.log" 2>&1
  bench_status=$?
  cat "$OUT_DIR/logs/bench.log" >> "$SUMMARY"
  echo "bench.sh: exit $bench_status ($(($(date +%s) - bench_start)) s)" >> "$SUMMARY"
fi

if ((${#crashed_names[@]})); then
  echo "" >> "$SUMMARY"
  echo "## compute-sanitizer --tool memcheck on the crashed binaries" >> "$SUMMARY"
  if ! command -v compute-sanitizer > /dev/null; then
    echo "compute-sanitizer not found" >> "$SUMMARY"
  fi
  for name in "${crashed_names[@]}"; do
    command -v compute-sanitizer > /dev/null || break
    log="$OUT_DIR/logs/$name.memcheck.log"
    timeout --kill-after=10 "$MEMCHECK_TIMEOUT" compute-sanitizer --tool memcheck \
      --print-limit 10 "bin/$name" --reporter compact > "$log" 2>&1
    echo "### $name (exit $?)" >> "$SUMMARY"
    grep -E -A6 "^========= (Invalid|Program hit|Error)" "$log" | head -40 >> "$SUMMARY"
    tail -3 "$log" >> "$SUMMARY"
  done
fi

echo "" >> "$SUMMARY"
echo "total: $(($(date +%s) - start)) s; logs in $OUT_DIR/logs" >> "$SUMMARY"
tail -n +1 "$SUMMARY" | grep -E "^(tests|bench.sh|total):"
((failed == 0 && crashed == 0))
