#!/usr/bin/env bash
# examples/revnet/revnet_train, briefly:
# 1. 100 traced steps of a depth-2 RevNet on Fashion-MNIST: traced once, the loss falls by 0.5
#    or more, and test accuracy on 2000 examples is above 0.4 (chance is 0.1; runs reach ~0.65).
# 2. 5 float64 steps traced, eagerly, and eagerly by ordinary backprop: the same losses at every
#    step (reversible gradients are ordinary ones, traced steps are eager ones).
set -euo pipefail
train=examples/revnet/revnet_train
if [[ ! -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz &&
      -z "${DUET_FASHION_MNIST_DIR:-}" ]]; then
  echo "skipped: Debian's dataset-fashion-mnist is not installed (tools/dev.sh deps installs it)"
  exit 0
fi

# The value of key=... on the summary line of $1.
field() { echo "$1" | awk -F'\t' -v key="$2" '/^summary/ {
  for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }'; }

out=$("$train" --steps 100 --batch 32 --depth 2 --log_every 20 --eval 2000)
echo "$out"
[[ $(field "$out" traces) == 1 ]] || { echo "FAIL: traced more than once"; exit 1; }
awk -v first="$(field "$out" first_loss)" -v final="$(field "$out" final_loss)" \
    -v acc="$(field "$out" test_acc)" 'BEGIN {
  if (!(final < first - 0.5)) { print "FAIL: loss " first " -> " final; exit 1 }
  if (!(acc > 0.4)) { print "FAIL: test accuracy " acc; exit 1 } }'

# The per-step losses ("step N loss L ...") of a short float64 run with the given flags.
losses() {
  "$train" --steps 5 --batch 16 --depth 2 --channels 8 --dtype float64 --log_every 1 --eval 100 \
    "$@" | awk '/^step/ { print $4 }'
}
traced=$(losses)
eager=$(losses --eager)
regular=$(losses --eager --regular)
echo "losses: traced reversible / eager reversible / eager regular"
paste <(echo "$traced") <(echo "$eager") <(echo "$regular")
paste <(echo "$traced") <(echo "$eager") <(echo "$regular") | awk '
  function abs(x) { return x < 0 ? -x : x }
  { n++; if (abs($1 - $2) > 1e-5 || abs($1 - $3) > 1e-5) bad = 1 }
  END { if (n != 5 || bad) { print "FAIL: the runs disagree"; exit 1 } }'
echo "PASS"
