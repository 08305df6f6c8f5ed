#!/usr/bin/env bash
# examples/linear_regression runs to the end (it fails itself when eager and traced training
# disagree) and learns W and B within 0.1 of the true 3 and 2.
set -euo pipefail
out=$(examples/linear_regression)
echo "$out"
echo "$out" | awk '/^learned W/ { w = $3; b = $7; seen = 1 }
                   END { exit !(seen && w > 2.9 && w < 3.1 && b > 1.9 && b < 2.1) }'
