# Sourced by the interop tests: finds the Python interpreter with the peer modules a test needs.
#   source tests/interop/peer_python.sh tensorflow [tensorboard ...]
# Sets $python (DUET_TF_PYTHON, else the venv tools/dev.sh makes, else python3). When it cannot
# import the modules, the test skips (exit 0, saying so), unless DUET_REQUIRE_PEERS=1:
# tools/dev.sh sets that once it has installed the peers, so that in CI a peer that cannot be
# imported fails the test instead of skipping it.
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"  # bazel test leaves HOME unset
python="${DUET_TF_PYTHON:-$home/.venvs/duet/bin/python}"
[ -x "$python" ] || command -v "$python" >/dev/null || python=python3
peer_modules="$(IFS=,; echo "$*")"
if ! "$python" -c "import $peer_modules" >/dev/null 2>&1; then
  if [ "${DUET_REQUIRE_PEERS:-0}" = 1 ]; then
    echo "FAILED: $python cannot import $peer_modules, which tools/dev.sh installed" \
      "(DUET_REQUIRE_PEERS=1):"
    "$python" -c "import $peer_modules" 2>&1 | tail -5
    exit 1
  fi
  echo "SKIPPED: $python cannot import $peer_modules (tools/dev.sh deps installs them into" \
    "\$HOME/.venvs/duet; or set DUET_TF_PYTHON)"
  exit 0
fi
