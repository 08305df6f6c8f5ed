#!/usr/bin/env bash
# examples/fashion_mnist for a few steps: the CNN traced, then resumed from its checkpoint for a
# second epoch; the MLP eagerly; the MLP data-parallel on two workers (`duet launch`), resumed by
# one worker, then by two again. Each run checks its SavedModel against the model itself (and
# exits 1 when they differ); this checks the summaries, the checkpoints and the resumes.
set -euo pipefail
out="${TEST_TMPDIR:-$(mktemp -d)}/fashion_mnist"
rm -rf "$out"
run() { examples/fashion_mnist --out="$out" --steps=5 "$@" | tee /dev/stderr; }
fail() { echo "FAILED: $*" >&2; exit 1; }

first=$(run --model=cnn --epochs=1)
echo "$first" | grep -q "^Epoch 1/1$" || fail "no epoch header"
echo "$first" | grep -Eq "^5/5 - .* - loss: [0-9.]+ - accuracy: [0-9.]+ - val_loss: [0-9.]+ - val_accuracy: [0-9.]+$" \
  || fail "no plain progress line with the loss and metrics"
echo "$first" | grep -q "^result model=cnn mode=traced workers=1 epochs=1..1 " || fail "no result line"
ls "$out"/cnn/logs/train/events.out.tfevents.* "$out"/cnn/logs/validation/events.out.tfevents.* \
  >/dev/null || fail "no event files"
[[ -f "$out/cnn/checkpoints/ckpt-1.index" ]] || fail "no checkpoint after epoch 1"

resumed=$(run --model=cnn --epochs=2 --resume)
echo "$resumed" | grep -q "^resuming from .*/ckpt-1 after epoch 1$" || fail "did not resume"
echo "$resumed" | grep -q "^Epoch 1/2$" && fail "the resumed run trained epoch 1 again"
echo "$resumed" | grep -q "^result model=cnn mode=traced workers=1 epochs=2..2 " || fail "no second epoch"
[[ -f "$out/cnn/checkpoints/ckpt-2.index" ]] || fail "no checkpoint after epoch 2"

eager=$(run --model=mlp --epochs=1 --eager)
echo "$eager" | grep -q "^result model=mlp mode=eager workers=1 epochs=1..1 " || fail "the eager run"

# Data-parallel: a checkpoint two workers wrote resumes on one, and the reverse.
launch() { tools/duet launch --nproc 2 --timeout 60 -- examples/fashion_mnist --distributed "$@"; }
dist=$(launch --out="$out/dist" --steps=5 --model=mlp --epochs=1 | tee /dev/stderr)
echo "$dist" | grep -q "^\[0\] result model=mlp mode=traced workers=2 epochs=1..1 " \
  || fail "the two-worker run"
echo "$dist" | grep -q "^\[1\] .*result" && fail "rank 1 reported a result"
[[ -f "$out/dist/mlp/checkpoints/ckpt-1.index" ]] || fail "no checkpoint from the two workers"
single=$(examples/fashion_mnist --out="$out/dist" --steps=5 --model=mlp --epochs=2 --resume)
echo "$single" | grep -q "^resuming from .*/ckpt-1 after epoch 1$" || fail "one worker did not resume"
echo "$single" | grep -q "^result model=mlp mode=traced workers=1 epochs=2..2 " || fail "one worker"
again=$(launch --out="$out/dist" --steps=5 --model=mlp --epochs=3 --resume | tee /dev/stderr)
echo "$again" | grep -q "^\[0\] resuming from .*/ckpt-2 after epoch 2$" || fail "two did not resume"
echo "$again" | grep -q "^\[0\] result model=mlp mode=traced workers=2 epochs=3..3 " \
  || fail "the resumed two-worker run"
