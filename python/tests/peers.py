"""What the tests that compare with a peer (TensorFlow, PyTorch) share: skipping when it is not
installed, unless tools/dev.sh installed it (then CI fails instead), and running a program that
imports duet and the peer in a process of its own."""

import os
import subprocess
import sys
import textwrap

import pytest


def require(module):
    """Skips the test when `module` cannot be imported, unless CI requires it."""
    try:
        __import__(module)
    except ImportError:
        required = "DUET_REQUIRE_TORCH" if module == "torch" else "DUET_REQUIRE_PEERS"
        if os.environ.get(required) == "1":
            raise
        pytest.skip(f"{module} is not installed (tools/dev.sh deps installs it)")


def run_python(code):
    """Runs `code` (dedented) in a new interpreter; its stdout, after asserting it succeeded."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout
