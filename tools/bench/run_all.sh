#!/usr/bin/env bash
# Builds and runs duet's eager_bench, the libtorch C++ peer (torch_bench) and the PyTorch Python
# peer (torch_bench.py) in one go, prints every `name<TAB>value<TAB>unit` line, then the ratios
# the per-op overhead work is judged by and whether each target is met.
#
#   tools/bench/run_all.sh            # from anywhere inside the repo
#
# Environment:
#   DUET_BENCH_BAZEL_STARTUP  Bazel startup options, e.g. "--output_base=$HOME/.cache/bazel-ob-bench"
#                             to use a Bazel server of one's own while others build (default: none)
#   DUET_BENCH_REPS, DUET_BENCH_MIN_MS   repetitions and minimum ms per repetition (7, 20)
#   PYTHON                    interpreter with pip's torch (default: python3)
#   DUET_BENCH_NO_COMPILE=1   skip the torch.compile case (it takes ~10 s to compile)
# A peer that cannot be built or imported is reported and skipped; duet's own benchmark is not
# optional. Timings are noisy on a shared machine: the load average is printed with the results.
set -euo pipefail

cd "$(dirname "$0")/../.."
read -r -a startup <<<"${DUET_BENCH_BAZEL_STARTUP:-}"
build_opts=(-c opt --disk_cache="$HOME/.cache/duet-bazel-disk" --symlink_prefix=/)
bazel() { command bazel "${startup[@]}" "$@"; }

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD) on $(nproc) cores;" \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

bazel build "${build_opts[@]}" //tools/bench:eager_bench >&2
have_libtorch=1
bazel build "${build_opts[@]}" //tools/bench:torch_bench >&2 || {
  have_libtorch=0
  echo "# torch_bench did not build (is Debian's libtorch-dev installed?); skipping libtorch" >&2
}
bin="$(bazel info "${build_opts[@]}" bazel-bin 2>/dev/null)/tools/bench"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
# Run one after another, never together: each would steal the other's cores.
"$bin/eager_bench" | tee -a "$results"
if [[ $have_libtorch == 1 ]]; then "$bin/torch_bench" | tee -a "$results"; fi
python="${PYTHON:-python3}"
if "$python" -c "import torch" 2>/dev/null; then
  py_args=()
  if [[ -n ${DUET_BENCH_NO_COMPILE:-} ]]; then py_args+=(--no-compile); fi
  "$python" tools/bench/torch_bench.py "${py_args[@]}" | tee -a "$results"
else
  echo "# $python cannot import torch (pip install torch); skipping the Python peer" >&2
fi
echo "# load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Ratios and targets (docs/benchmarks.md). Every ratio is "how many times better duet is", so
# above 1 favours duet; a ratio whose peer is missing is not printed.
awk -F'\t' '
  { v[$1] = $2 }
  function ratio(name, num, den, target, what) {
    if (!(num in v) || !(den in v) || v[den] == 0) return
    r = v[num] / v[den]
    printf "%s\t%.3f\tx\n", name, r
    if (target != "") {
      verdict[++n] = sprintf("# target %s (>= %s): %s (%.3f)", what, target,
                             r >= target ? "met" : "MISSED", r)
    }
  }
  END {
    ratio("ratio.libtorch_over_duet_add_4x4", "libtorch.add_4x4_f32", "duet.add_4x4_f32", 3,
          "duet 4x4 add faster than libtorch C++ by")
    ratio("ratio.libtorch_over_duet_add_1", "libtorch.add_1_f32", "duet.add_1_f32", 3,
          "duet 1-element add faster than libtorch C++ by")
    ratio("ratio.pytorch_over_duet_add_4x4", "pytorch.add_4x4_f32", "duet.add_4x4_f32", "", "")
    ratio("ratio.libtorch_over_duet_matmul_64x64", "libtorch.matmul_64x64_f32",
          "duet.matmul_64x64_f32", "", "")
    ratio("ratio.duet_matmul_1024_vs_onednn", "duet.matmul_1024_f32", "onednn.matmul_1024_f32",
          0.98, "duet 1024^3 sgemm vs direct oneDNN")
    ratio("ratio.duet_add_1e7_vs_memcpy", "duet.add_1e7_f32", "memcpy.copy_1e7_f32", 0.70,
          "duet 1e7 add GB/s vs memcpy GB/s")
    for (c in v) if (c ~ /^duet\.add_(4x4|1)_/) {
      verdict[++n] = sprintf("# target %s <= 300 ns per eager op: %s (%.1f ns)", c,
                             v[c] <= 300 ? "met" : "MISSED", v[c])
    }
    for (i = 1; i <= n; ++i) print verdict[i]
  }' "$results"
