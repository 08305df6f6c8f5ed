#!/usr/bin/env bash
# Runs the staged GPU test binaries (see tools/gpu/bundle.sh) on a machine with a GPU. Finds the
# CUDA 13 libraries in /usr/local/cuda*/lib64 or in PyTorch's bundled nvidia packages.
# tools/gpu/regress.sh runs them all at once under one time budget, with a summary.
#   run.sh [substring]   # only the binaries whose names contain it
#   source run.sh --env-only   # only set LD_LIBRARY_PATH (bench.sh)
set -uo pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

cuda_dirs=()
for dir in /usr/local/cuda/lib64 /usr/local/cuda-13*/lib64 \
  $(python3 -c "import nvidia, os; print(' '.join(os.path.join(p, d, 'lib') for p in nvidia.__path__ for d in os.listdir(p)))" 2>/dev/null); do
  [ -d "$dir" ] && cuda_dirs+=("$dir")
done
export LD_LIBRARY_PATH="$PWD/lib:$(IFS=:; echo "${cuda_dirs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# (The cache is read once, not piped into grep -q: with pipefail an early exit reads as a miss.)
known_libraries="$(ldconfig -p 2>/dev/null)"
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnvrtc.so.13 \
  libnccl.so.2; do
  found=0
  grep -q -F "$lib" <<< "$known_libraries" && found=1
  for dir in ${LD_LIBRARY_PATH//:/ }; do [ -e "$dir/$lib" ] && found=1; done
  if ((!found)); then
    echo "warning: $lib not found on this machine; binaries that need it will not start" >&2
  fi
done

[ "${1:-}" = --env-only ] && return 0

# Logs go to logs/ (not beside the binaries, where a rerun would take them for tests). A binary
# that ran no test case fails: a filter typo or a bad flag must not read as a pass.
mkdir -p logs
passed=0 failed=0
for test in bin/*; do
  name="$(basename "$test")"
  case "$name" in *"${1:-}"*) ;; *) continue ;; esac
  log="logs/$name.log"
  if "$test" --reporter compact > "$log" 2>&1 && ! grep -q "No tests ran" "$log"; then
    passed=$((passed + 1)); echo "PASS $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; tail -40 "$log"
  fi
  grep -h -i "skipped\|not checked" "$log" | sort -u | head -3
done
echo "$passed passed, $failed failed"
