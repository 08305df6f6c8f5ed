#!/usr/bin/env bash
# duet's set-up and everyday entry point. Installs missing Debian packages first (idempotent).
#   tools/dev.sh demo           build and run the eager tour (examples/eager_tour.cc)
#   tools/dev.sh test [ARGS]    what CI runs: the clang-format check, a CUDA compile-only build
#                               (--config=cuda), the tests that link no kernels under
#                               ASan/UBSan/LeakSanitizer, then the test suite and the nn kernel
#                               tests again as on an AVX2-only CPU (//... includes the Python
#                               tests), then `pip install .` into ~/.venvs/duet; ends with
#                               "N passed, N failed" over all test runs. ARGS go to the last two `bazel test` runs. For
#                               a quick local run: bazel test //tests/...
#   tools/dev.sh sanitize       the whole of //tests/... under ASan/UBSan/LeakSanitizer (too slow
#                               for CI's 90 minutes on 2 cores: run it after changing kernels,
#                               graph or eager code)
#   tools/dev.sh format         reformat the tracked C++/CUDA files in place
#   tools/dev.sh deps           only install the packages (Debian's, and ~/.venvs/duet's)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ python3 python3-dev python3-venv bazel-bootstrap libabsl-dev libprotobuf-dev
          protobuf-compiler libdnnl-dev libsleef-dev libeigen3-dev libleveldb-dev zlib1g-dev
          libpng-dev libzip-dev libgloo-dev libopenmpi-dev openmpi-bin dataset-fashion-mnist catch2
          clang-format)
BAZEL_FLAGS=(--disk_cache="$HOME/.cache/duet-bazel-disk")
# The sanitizer and CUDA builds use output bases of their own: their options change every action,
# and sharing the default base would evict the optimized build's outputs at each switch. They make
# no bazel-* links (--symlink_prefix=/): a link into another output base would be read as source
# by the main run's //... pattern.
SANITIZE_BASE="$HOME/.cache/duet-bazel-asan"
CUDA_BASE="$HOME/.cache/duet-bazel-cuda"
# The CPU nn and kernel tests (those running oneDNN), rerun by `test` with ONEDNN_MAX_CPU_ISA=AVX2.
NN_KERNEL_TESTS='filter("^//tests:(ops/nn/|gradients/nn_grads_test$|kernels/(?!cuda))",
                        tests(//tests:all))'
# duet's Python environment: what the bindings build with and their tests run with (BUILD_PYTHON,
# required), and the peers the interop tests compare with (PyPI's tensorflow-cpu; those tests skip,
# saying so, when it cannot be installed). third_party/python_configure.bzl builds the extension
# for this venv's interpreter.
PY_VENV="$HOME/.venvs/duet"
BUILD_PYTHON=(nanobind numpy pytest)

# The Python modules the interop tests import (tests/interop/peer_python.sh); PyTorch is installed
# too, for the Python tests (python/tests/test_with_peers.py).
TF_PEERS="tensorflow, tf_keras, tensorboard"

install_python() {
  if ! "$PY_VENV/bin/python" -c "import nanobind, numpy, pytest" >/dev/null 2>&1; then
    echo "installing ${BUILD_PYTHON[*]} into $PY_VENV (for the Python bindings)"
    python3 -m venv "$PY_VENV"
    "$PY_VENV/bin/pip" install -q "${BUILD_PYTHON[@]}"
  fi
}

# `pip install .` into $PY_VENV, as a user would (python/build_backend.py builds with Bazel), and
# an import of the installed package outside the repository.
install_package() {
  echo "== pip install . (into $PY_VENV)"
  "$PY_VENV/bin/pip" install -q --no-deps --no-build-isolation --force-reinstall . &&
    (cd / && "$PY_VENV/bin/python" -c "import duet; assert float(duet.reduce_sum([1., 2.])) == 3")
}

# Installs the peers into $PY_VENV; then CI requires them (DUET_REQUIRE_PEERS=1 and
# DUET_REQUIRE_TORCH=1 in PEER_FLAGS): a test that cannot import one fails instead of skipping. If the install fails, the tests
# skip, saying so.
PEER_FLAGS=()
install_peers() {
  if ! "$PY_VENV/bin/python" -c "import $TF_PEERS" >/dev/null 2>&1; then
    echo "installing tensorflow-cpu, tf-keras and tensorboard into $PY_VENV (for tests/interop)"
    # tf-keras (Keras 2, whose checkpoints the interop tests exchange) would pull in the full
    # tensorflow package; tensorflow-cpu provides the same module, so its own dependencies suffice.
    # tensorflow-cpu does not pull in tensorboard, which tests/interop/tensorboard_test reads with.
    { "$PY_VENV/bin/pip" install -q tensorflow-cpu tensorboard &&
      "$PY_VENV/bin/pip" install -q --no-deps tf-keras; } ||
      echo "warning: the TensorFlow peers could not be installed; the interop tests will skip" >&2
  fi
  # PyPI's torch wheel brings CUDA's libraries (2.8 GB; about 1 min to fetch, 1.5 min to install;
  # the venv grows to ~7 GB). DUET_NO_TORCH=1 leaves it out: its tests then skip, saying so.
  if [ "${DUET_NO_TORCH:-0}" != 1 ] && ! "$PY_VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
    echo "installing torch into $PY_VENV (for python/tests/test_with_peers.py)"
    "$PY_VENV/bin/pip" install -q torch ||
      echo "warning: torch could not be installed; its tests will skip" >&2
  fi
  if "$PY_VENV/bin/python" -c "import $TF_PEERS" >/dev/null 2>&1; then
    PEER_FLAGS=(--test_env=DUET_REQUIRE_PEERS=1)
  fi
  if "$PY_VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
    PEER_FLAGS+=(--test_env=DUET_REQUIRE_TORCH=1)
  fi
}

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ ! -d /usr/local/cuda/include ]; then
    echo "error: the CUDA toolkit is expected under /usr/local/cuda (it is linked, GPU optional)" >&2
    exit 1
  fi
}

# The tracked C++ and CUDA sources, for clang-format (style: .clang-format).
cxx_sources() { git ls-files -- '*.cc' '*.h' '*.cu'; }

# Fails, listing the files, when a tracked source is not clang-formatted.
check_format() {
  local unformatted
  unformatted=$(cxx_sources | xargs clang-format --dry-run 2>&1 | grep -o '^[^:]*: warning' |
                  cut -d: -f1 | sort -u)
  if [ -n "$unformatted" ]; then
    echo "error: not clang-formatted (run tools/dev.sh format):" >&2
    echo "$unformatted" >&2
    return 1
  fi
  echo "clang-format: $(cxx_sources | wc -l) files formatted"
}

# Compiles the CUDA code with --config=cuda (nvcc for the .cu files), so that it cannot rot on
# machines without a GPU; nothing runs. Only what --config=cuda changes: the CUDA kernels, the CUDA
# tests, the gradient checker and the GPU benchmark (the targets seeing DUET_CUDA=1); everything
# else compiles with the same commands as the main run's and comes from the disk cache there.
CUDA_TARGETS=(//kernels/cuda:kernels //tests:cuda_tests //tests:gradient_checker
              //tools/bench:gpu_bench)
cuda_build() {
  echo "== CUDA compile-only build (--config=cuda)"
  bazel --output_base="$CUDA_BASE" build "${BAZEL_FLAGS[@]}" --symlink_prefix=/ --config=cuda \
    "${CUDA_TARGETS[@]}"
}

# The tests CI runs under the sanitizers: those that link no kernels, which need the tree built
# only in part once more. They cover the code that reads untrusted bytes (TFRecords, Examples,
# checkpoints, .npy/.npz/IDX files and the fuzzers' corpora), tensors, the allocator and the
# threads of the input pipeline. `tools/dev.sh sanitize` runs all of //tests/....
SANITIZER_CI_TESTS='tests(//tests/...) except rdeps(//tests/..., //kernels/...) except attr(tags, no_sanitizers, tests(//tests/...))'

# Runs the given test targets under ASan, UBSan and LeakSanitizer (.bazelrc's --config=asan);
# prints the run's "N passed, N failed" last.
sanitizer_tests() {
  echo "== ASan/UBSan/LSan tests (--config=asan)" >&2
  local log status testlogs
  local flags=("${BAZEL_FLAGS[@]}" --symlink_prefix=/ --config=asan)
  log=$(mktemp)
  bazel --output_base="$SANITIZE_BASE" test "${flags[@]}" --test_summary=short -- "$@" 2>&1 |
    tee "$log" >&2
  status=${PIPESTATUS[0]}
  testlogs=$(bazel --output_base="$SANITIZE_BASE" info "${flags[@]}" bazel-testlogs 2>/dev/null)
  python3 tools/test_summary.py "$log" "$testlogs"
  rm -f "$log"
  return "$status"
}

cmd="${1:-test}"
shift || true
install_deps
install_python
case "$cmd" in
  deps) install_peers ;;
  format) cxx_sources | xargs clang-format -i ;;
  demo) bazel run "${BAZEL_FLAGS[@]}" //examples:eager_tour ;;
  sanitize) sanitizer_tests //tests/... ;;
  test)
    install_peers
    log=$(mktemp)
    set +e
    check_format
    checks_status=$?
    cuda_build || checks_status=1
    mapfile -t sanitizer_targets < <(bazel query "$SANITIZER_CI_TESTS" 2>/dev/null)
    if ((${#sanitizer_targets[@]})); then
      sanitizer_summary=$(sanitizer_tests "${sanitizer_targets[@]}") || checks_status=1
    else
      echo "error: bazel query found no tests to run under the sanitizers" >&2
      sanitizer_summary=""
      checks_status=1
    fi
    [[ "$sanitizer_summary" =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] ||
      sanitizer_summary="0 passed, 1 failed"  # the suite did not get as far as a summary
    echo "sanitizer suite: $sanitizer_summary"
    bazel test "${BAZEL_FLAGS[@]}" --test_env=DUET_TF_PYTHON="$PY_VENV/bin/python" \
      "${PEER_FLAGS[@]}" --test_summary=short "$@" //... 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    # Totalled before the rerun replaces the nn kernel tests' logs.
    summary=$(python3 tools/test_summary.py --plus "$sanitizer_summary" "$log" bazel-testlogs)
    # The nn kernel tests once more with oneDNN limited to AVX2, so that CI machines with AVX-512
    # run what AVX2-only CPUs run: the float32 fallback of 16-bit kernels (Note [Reduced precision
    # without oneDNN support] in kernels/cpu/common/dnnl_plan.cc). Cached like the first run.
    mapfile -t nn_tests < <(bazel query "$NN_KERNEL_TESTS" 2>/dev/null)
    if ((${#nn_tests[@]})); then
      bazel test "${BAZEL_FLAGS[@]}" --test_env=ONEDNN_MAX_CPU_ISA=AVX2 --test_summary=short \
        "$@" -- "${nn_tests[@]}" 2>&1 | tee "$log"
      rerun_status=${PIPESTATUS[0]}
      ((status)) || status=$rerun_status
    else
      echo "error: bazel query found no nn kernel tests to rerun with ONEDNN_MAX_CPU_ISA=AVX2" >&2
      : >"$log"
      ((status)) || status=1
    fi
    install_package || checks_status=1
    set -e
    python3 tools/test_summary.py --plus "$summary" "$log" bazel-testlogs
    rm -f "$log"
    ((status)) || status=$checks_status
    exit "$status"
    ;;
  *) echo "usage: tools/dev.sh demo|test|sanitize|deps|format" >&2; exit 2 ;;
esac
