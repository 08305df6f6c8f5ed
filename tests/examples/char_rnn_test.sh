#!/usr/bin/env bash
# examples/char_rnn trains its traced LSTM for 120 steps: the loss falls from about ln(vocabulary)
# (4.4) to under 3, and the greedy sample is printed.
set -euo pipefail
out=$(examples/char_rnn 120)
echo "$out"
echo "$out" | awk '/^step/ { if (!seen) first = $4; last = $4; seen = 1 }
                   END { exit !(seen && first > 4 && last < 3) }'
echo "$out" | grep -q '^sample: This License '
