#!/usr/bin/env bash
# Runs python/tests with pytest against the package bazel built (python:package), in the
# interpreter the extension was built for ($1: the file holding its path).
set -euo pipefail
python="$(cat "$1")"
package="$2"
shift 2
site="$(mktemp -d)"
trap 'rm -rf "$site"' EXIT
tar -xf "$package" -C "$site"
cd python/tests
PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 exec "$python" -m pytest -q -p no:cacheprovider "$@" .
