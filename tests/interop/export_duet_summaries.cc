// Writes an event file with every summary kind into DIR, for check_duet_summaries_in_tb.py, which
// recomputes each expected value (tests/interop/tensorboard_test.sh):
//   "loss"      steps 0..4, 1 / (step + 1), from a traced step (Note [Summaries in traced
//               functions]); "lr" steps 0..4, 0.01 * (step + 1), from a C++ number
//   "w"         steps 0 and 1: the histogram of (i - 50) / 25 * (step + 1), i = 0..100 (float32)
//   "x"         step 3: two RGB 4x5 images, pixel (h, w, c) = (h * 15 + w * 3 + c) / 60 and
//               1 - that, so x/image/0 and x/image/1
//   "notes"     step 0: text
//   the graph of the traced step
#include <iostream>
#include <vector>

#include "duet.h"

namespace duet {
namespace {

void Export(const std::string& dir) {
  summary::FileWriter w(dir);
  auto step_fn = duet::function([&](const Tensor& step) {
    Tensor loss = 1.0f / (cast(step, kFloat32) + 1.0f);
    w.scalar("loss", loss, step);
    return loss;
  });
  for (int64_t step = 0; step < 5; ++step) {
    step_fn(constant(step));
    w.scalar("lr", 0.01 * (step + 1), step);
  }
  for (int64_t step = 0; step < 2; ++step) {
    std::vector<float> values;
    for (int i = 0; i <= 100; ++i) values.push_back((i - 50) / 25.0f * (step + 1));
    Variable weights(constant(values, Shape({101})));
    w.histogram("w", weights, step);
  }
  std::vector<float> pixels;
  for (int n = 0; n < 2; ++n) {
    for (int h = 0; h < 4; ++h) {
      for (int x = 0; x < 5; ++x) {
        for (int c = 0; c < 3; ++c) {
          const float v = (h * 15 + x * 3 + c) / 60.0f;
          pixels.push_back(n == 0 ? v : 1.0f - v);
        }
      }
    }
  }
  w.image("x", constant(pixels, Shape({2, 4, 5, 3})), 3);
  w.text("notes", "hello **TensorBoard**", 0);
  w.graph(step_fn, constant(int64_t{0}));
  w.flush();
  std::cout << w.path() << "\n";
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_summaries DIR\n";
    return 2;
  }
  duet::Export(argv[1]);
  return 0;
}
