#!/usr/bin/env bash
# Builds and runs duet's eager_bench, autodiff_bench and graph_bench, the libtorch C++ peer (torch_bench) and
# the PyTorch Python peer (torch_bench.py) in one go, prints every `name<TAB>value<TAB>unit`
# line, then the ratios the per-op overhead and autodiff work are judged by and whether each
# target is met.
#
#   tools/bench/run_all.sh            # from anywhere inside the repo
#
# Environment:
#   DUET_BENCH_BAZEL_STARTUP  Bazel startup options, e.g. "--output_base=$HOME/.cache/bazel-ob-bench"
#                             to use a Bazel server of one's own while others build (default: none)
#   DUET_BENCH_REPS, DUET_BENCH_MIN_MS   repetitions and minimum ms per repetition (7, 20)
#   DUET_BENCH_ROUNDS         rounds of the C++ programs, alternating; medians are taken (3)
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

bazel build "${build_opts[@]}" //tools/bench:eager_bench //tools/bench:autodiff_bench \
  //tools/bench:graph_bench >&2
have_libtorch=1
bazel build "${build_opts[@]}" //tools/bench:torch_bench >&2 || {
  have_libtorch=0
  echo "# torch_bench did not build (is Debian's libtorch-dev installed?); skipping libtorch" >&2
}
bin="$(bazel info "${build_opts[@]}" bazel-bin 2>/dev/null)/tools/bench"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
# Run one after another, never together: each would steal the other's cores. The C++ programs
# alternate for DUET_BENCH_ROUNDS rounds and the summary takes each line's median over them, so
# a slow spell of the shared machine (the other core busy) tilts neither side of a ratio.
rounds="${DUET_BENCH_ROUNDS:-3}"
python="${PYTHON:-python3}"
have_python=0
if "$python" -c "import torch" 2>/dev/null; then
  have_python=1
else
  echo "# $python cannot import torch (pip install torch); skipping the Python peer" >&2
fi
for ((round = 1; round <= rounds; ++round)); do
  echo "# round $round of $rounds"
  "$bin/eager_bench" | tee -a "$results"
  "$bin/autodiff_bench" | tee -a "$results"
  "$bin/graph_bench" | tee -a "$results"
  if [[ $have_libtorch == 1 ]]; then "$bin/torch_bench" | tee -a "$results"; fi
done
# Python's own timing loop is slower and steadier; once is enough.
if [[ $have_python == 1 ]]; then
  py_args=()
  if [[ -n ${DUET_BENCH_NO_COMPILE:-} ]]; then py_args+=(--no-compile); fi
  "$python" tools/bench/torch_bench.py "${py_args[@]}" | tee -a "$results"
fi
echo "# load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Ratios and targets (docs/benchmarks.md). Every ratio is "how many times better duet is", so
# above 1 favours duet; a ratio whose peer is missing is not printed.
awk -F'\t' '
  NF == 3 && $1 !~ /^#/ {
    if (!($1 in count)) order[++names] = $1
    all[$1, ++count[$1]] = $2
    unit[$1] = $3
  }
  function median(name,    k, i, j, t, x) {
    k = count[name]
    for (i = 1; i <= k; ++i) x[i] = all[name, i] + 0
    for (i = 2; i <= k; ++i) for (j = i; j > 1 && x[j - 1] > x[j]; --j) {
      t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
    }
    return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
  }
  # A ratio a program measured itself (interleaved peers, same process) is the median of its
  # per-round values; otherwise the ratio of the two medians.
  function ratio(name, num, den, target, what) {
    if (name in v) {
      r = v[name]
    } else {
      if (!(num in v) || !(den in v) || v[den] == 0) return
      r = v[num] / v[den]
    }
    printf "%s\t%.3f\tx\n", name, r
    if (target != "") {
      verdict[++n] = sprintf("# target %s (>= %s): %s (%.3f)", what, target,
                             r >= target ? "met" : "MISSED", r)
    }
  }
  END {
    printf "# medians over %d round(s) of the C++ programs\n", rounds
    for (i = 1; i <= names; ++i) {
      v[order[i]] = median(order[i])
      x = v[order[i]]
      if (order[i] ~ /^ratio\./) continue
      printf(x == int(x) ? "%s\t%d\t%s\n" : x >= 100 ? "%s\t%.1f\t%s\n" : "%s\t%.3f\t%s\n",
             order[i], x, unit[order[i]])
    }
    print "# ratios of the medians (above 1 favours duet)"
    ratio("ratio.libtorch_over_duet_add_4x4", "libtorch.add_4x4_f32", "duet.add_4x4_f32", 3,
          "duet 4x4 add faster than libtorch C++ by")
    ratio("ratio.libtorch_over_duet_add_1", "libtorch.add_1_f32", "duet.add_1_f32", 3,
          "duet 1-element add faster than libtorch C++ by")
    ratio("ratio.pytorch_over_duet_add_4x4", "pytorch.add_4x4_f32", "duet.add_4x4_f32", "", "")
    ratio("ratio.libtorch_over_duet_matmul_64x64", "libtorch.matmul_64x64_f32",
          "duet.matmul_64x64_f32", "", "")
    ratio("ratio.duet_matmul_1024_vs_onednn", "duet.matmul_1024_f32", "onednn.matmul_1024_f32",
          0.98, "duet 1024^3 sgemm vs direct oneDNN")
    ratio("ratio.duet_matmul_64x64_vs_onednn", "onednn.matmul_64x64_f32",
          "duet.matmul_64x64_f32", "", "")
    ratio("ratio.duet_add_1e7_vs_memcpy", "duet.add_1e7_f32", "memcpy.copy_1e7_f32", 0.70,
          "duet 1e7 add GB/s vs memcpy GB/s")
    ratio("ratio.duet_add_1e7_vs_memcpy_parallel", "duet.add_1e7_f32",
          "memcpy_parallel.copy_1e7_f32", "", "")
    ratio("ratio.duet_add_1e7_vs_libtorch", "duet.add_1e7_f32", "libtorch.add_1e7_f32", "", "")
    # Autodiff (autodiff_bench): a recorded tiny op and the MLP training step.
    ratio("ratio.libtorch_over_duet_add_4x4_taped", "libtorch.add_4x4_f32_autograd",
          "duet.add_4x4_f32_taped", "", "")
    ratio("ratio.pytorch_over_duet_add_4x4_taped", "pytorch.add_4x4_f32_autograd",
          "duet.add_4x4_f32_taped", "", "")
    ratio("ratio.libtorch_over_duet_mlp_step", "libtorch.mlp_step_f32", "duet.mlp_step_f32", 2,
          "duet MLP step faster than libtorch C++ by")
    ratio("ratio.pytorch_over_duet_mlp_step", "pytorch.mlp_step_f32", "duet.mlp_step_f32", 2,
          "duet MLP step faster than PyTorch by")
    ratio("ratio.duet_mlp_step_matmuls_over_step", "duet.mlp_step_matmuls_f32",
          "duet.mlp_step_f32", "", "")
    # Graph mode (graph_bench): session vs eager on the same work, in the same process.
    ratio("ratio.eager_over_session_mlp_forward", "eager.mlp_784_256_256_10_forward_f32",
          "session.mlp_784_256_256_10_forward_f32", 1, "session MLP forward vs eager, time ratio")
    ratio("ratio.eager_over_session_chain_50", "eager.chain_50_64x64_f32",
          "session.chain_50_64x64_f32", 1, "session 50-op chain vs eager, time ratio")
    ratio("ratio.eager_over_session_train_peak_rss", "eager.mlp_train_step_peak_rss",
          "session.mlp_train_step_peak_rss", 1, "session training peak memory vs eager, ratio")
    if ("graph.chain_1000_tiny_ns_per_node" in v) {
      c = "graph.chain_1000_tiny_ns_per_node"
      verdict[++n] = sprintf("# target %s <= 50 ns per node: %s (%.1f ns)", c,
                             v[c] <= 50 ? "met" : "MISSED", v[c])
    }
    for (c in v) if (c ~ /^duet\.add_(4x4|1)_f32$/) {
      verdict[++n] = sprintf("# target %s <= 300 ns per eager op: %s (%.1f ns)", c,
                             v[c] <= 300 ? "met" : "MISSED", v[c])
    }
    if ("duet.add_4x4_f32_taped" in v) {
      c = "duet.add_4x4_f32_taped"
      verdict[++n] = sprintf("# target %s <= 600 ns per recorded op: %s (%.1f ns)", c,
                             v[c] <= 600 ? "met" : "MISSED", v[c])
    }
    if ("duet.mlp_step_f32" in v) {
      c = "duet.mlp_step_f32"
      verdict[++n] = sprintf("# target %s <= 350 us per training step: %s (%.1f us)", c,
                             v[c] <= 350 ? "met" : "MISSED", v[c])
    }
    for (i = 1; i <= n; ++i) print verdict[i]
  }' rounds="$rounds" "$results"
