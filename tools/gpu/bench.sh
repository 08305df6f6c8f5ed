#!/usr/bin/env bash
# Runs duet's GPU benchmark and its PyTorch peer, one after the other on the same GPU (staged by
# tools/gpu/bundle.sh). Record the output in docs/benchmarks.md with the device line.
set -uo pipefail
cd "$(dirname "$0")"
source ./run.sh --env-only
./gpu_bench
python3 torch_gpu_bench.py "$@"
