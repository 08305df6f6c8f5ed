#!/usr/bin/env bash
# Runs duet's GPU benchmark and its PyTorch peer, one after the other on the same GPU (staged by
# tools/gpu/bundle.sh). Record the output in docs/benchmarks.md with the device line.
#   BENCH_TIMEOUT=S bench.sh   # each program under a timeout of S seconds (default: none)
# Exits non-zero when either program failed; the last line gives both exit statuses.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
# PyTorch brings its own CUDA libraries; the bundle's (older) libstdc++ must not shadow the
# machine's for it, so Python runs with the library path this script was started with.
python_library_path="${ORIGINAL_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}"
source ./run.sh --env-only
limit="${BENCH_TIMEOUT:-0}"  # timeout 0: none
timeout --kill-after=5 "$limit" ./gpu_bench
gpu_bench_status=$?
LD_LIBRARY_PATH="$python_library_path" timeout --kill-after=5 "$limit" \
  python3 torch_gpu_bench.py "$@"
torch_status=$?
echo "gpu_bench: exit $gpu_bench_status; torch_gpu_bench.py: exit $torch_status"
((gpu_bench_status == 0 && torch_status == 0))
