#!/usr/bin/env bash
# Builds duet's GPU tests (and benchmarks) here with --config=cuda and stages everything they need
# to run on a machine that has a GPU but no Bazel: the binaries, the shared libraries Bazel built
# them against, and the system libraries that such a machine may lack (Abseil, protobuf, oneDNN,
# SLEEF, libgomp). CUDA's own libraries (cudart, cuBLAS, cuDNN, NVRTC, NCCL: gigabytes) are not
# copied: run.sh finds them on the GPU machine, in its CUDA installation or PyTorch's.
#
#   tools/gpu/bundle.sh [bazel targets]   # default: every GPU test, the gradient checks and
#                                         # tools/bench:gpu_bench
#   then, on the GPU machine (the device tool carries .device/gpu_bundle.tar.xz; the unpacked
#   folder is over its 64 MiB limit):
#   tar -xJf .device/gpu_bundle.tar.xz -C /tmp && /tmp/gpu_bundle/regress.sh "$OUT"
#                                             # everything, in parallel, one summary (docs/cuda.md)
#   /tmp/gpu_bundle/run.sh [name filter]      # the tests one at a time
#   /tmp/gpu_bundle/bench.sh                  # gpu_bench beside tools/bench/torch_gpu_bench.py
set -euo pipefail
cd "$(dirname "$0")/../.."

BUNDLE=.device/gpu_bundle
OUTPUT_BASE="$HOME/.cache/duet-bazel-cuda"  # tools/dev.sh's CUDA build shares it
TARGETS=("$@")
if ((${#TARGETS[@]} == 0)); then
  mapfile -t TARGETS < <(bazel --output_base="$OUTPUT_BASE" query \
    'tests(//tests:all) intersect (attr(name, "kernels/cuda/", //tests:all) + attr(name, "_grads_test$", //tests:all))' 2>/dev/null)
  # (A failed query inside the process substitution escapes set -e: count what came back.)
  if ((${#TARGETS[@]} < 2)); then
    echo "error: the query for the GPU test targets found ${#TARGETS[@]}" >&2
    exit 1
  fi
  TARGETS+=(//tools/bench:gpu_bench)
fi
# No bazel-* links (--symlink_prefix=/): they would point the main build's links at this base.
bazel --output_base="$OUTPUT_BASE" build --config=cuda --disk_cache="$HOME/.cache/duet-bazel-disk" \
  --symlink_prefix=/ "${TARGETS[@]}"
BIN="$(bazel --output_base="$OUTPUT_BASE" info --config=cuda bazel-bin 2>/dev/null)"

rm -rf "$BUNDLE" && mkdir -p "$BUNDLE/bin" "$BUNDLE/lib"
for target in "${TARGETS[@]}"; do
  path="${target#//}"
  path="${path/://}"
  case "$path" in
    tools/bench/*) cp "$BIN/$path" "$BUNDLE/" ;;  # run by bench.sh, not as a test
    *) cp "$BIN/$path" "$BUNDLE/bin/$(basename "$path")" ;;
  esac
done
# Every library the binaries load, except glibc's and CUDA's (those come from the GPU machine).
for binary in "$BUNDLE"/bin/* "$BUNDLE"/gpu_bench; do
  [ -f "$binary" ] || continue
  LD_LIBRARY_PATH="$BIN/_solib_k8" ldd "$binary" > "$BUNDLE.ldd.txt"
  if grep -q "not found" "$BUNDLE.ldd.txt"; then
    echo "error: $binary needs libraries ldd cannot find here:" >&2
    grep "not found" "$BUNDLE.ldd.txt" >&2
    exit 1
  fi
  awk '/=> \//{print $3}' "$BUNDLE.ldd.txt"
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | ld-linux*) ;;
    libcuda.so* | libcudart* | libcublas* | libcudnn* | libnvrtc* | libnvJitLink* | libnccl*) ;;
    *) cp -L "$lib" "$BUNDLE/lib/" ;;
  esac
done
rm -f "$BUNDLE.ldd.txt"
# torch_gpu_bench.py imports torch_bench.py and peer_timing.py (the shared output format) from
# beside itself.
cp tools/gpu/run.sh tools/gpu/bench.sh tools/gpu/regress.sh tools/bench/torch_gpu_bench.py \
  tools/bench/torch_bench.py tools/bench/peer_timing.py "$BUNDLE/"
chmod -R u+w "$BUNDLE"
find "$BUNDLE" -type f \( -name '*.so*' -o -perm -u+x \) ! -name '*.sh' ! -name '*.py' \
  -exec strip --strip-unneeded {} + 2>/dev/null || true
tar -cJf "$BUNDLE.tar.xz" -C "$(dirname "$BUNDLE")" "$(basename "$BUNDLE")"
du -sh "$BUNDLE" "$BUNDLE.tar.xz"
