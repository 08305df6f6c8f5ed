// A character-level language model: Embedding -> LSTM (every step's output) -> Dense over the
// characters, trained to predict each next character of a text every Debian system ships (the
// GNU GPL, /usr/share/common-licenses/GPL-3). The training step is traced by duet::function, so
// the LSTM runs as one While loop and its gradient as another (Note [Recurrent layers]); the loss
// is printed as it falls, then the model continues a prompt one character at a time, eagerly.
//
//   bazel run //examples:char_rnn [-- STEPS [TEXT_FILE]]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "duet.h"

using namespace duet;

namespace {

constexpr int64_t kSequence = 48;  // characters per training window
constexpr int64_t kBatch = 32;     // windows per step

class CharModel : public nn::Module {
 public:
  explicit CharModel(int64_t vocabulary)
      : embed_(this, "embed", vocabulary, 32), head_(this, "head", vocabulary) {}
  // Logits of the next character at every position: (batch, time, vocabulary).
  Tensor operator()(const Tensor& ids) { return head_(lstm_(embed_(ids))); }

 private:
  nn::Embedding embed_;
  nn::LSTM lstm_{this, "lstm", 128, {.return_sequences = true}};
  nn::Dense head_;
};

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 400;
  const std::string text = ReadText(argc > 2 ? argv[2] : "/usr/share/common-licenses/GPL-3");
  // The vocabulary: the text's distinct bytes, in byte order.
  const std::set<unsigned char> distinct(text.begin(), text.end());
  const std::vector<unsigned char> chars(distinct.begin(), distinct.end());
  std::vector<int32_t> id_of(256, 0);
  for (size_t i = 0; i < chars.size(); ++i) id_of[chars[i]] = static_cast<int32_t>(i);
  const int64_t vocabulary = static_cast<int64_t>(chars.size());
  std::printf("%zu characters, %lld distinct\n", text.size(), static_cast<long long>(vocabulary));

  set_random_seed(1);
  CharModel model(vocabulary);
  optimizers::Adam adam(3e-3);
  auto train_step = duet::function([&](const Tensor& inputs, const Tensor& targets) {
    GradientTape tape;
    const Tensor loss =
        losses::sparse_categorical_crossentropy(targets, model(inputs), /*from_logits=*/true);
    adam.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                         model.trainable_variables());
    return loss;
  });

  // Windows at pseudo-random offsets (a fixed generator: every run prints the same).
  uint64_t state = 42;
  auto next_offset = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((state >> 33) % (text.size() - kSequence - 1));
  };
  std::vector<int32_t> inputs(kBatch * kSequence), targets(kBatch * kSequence);
  for (int step = 0; step < steps; ++step) {
    for (int64_t b = 0; b < kBatch; ++b) {
      const int64_t offset = next_offset();
      for (int64_t t = 0; t < kSequence; ++t) {
        inputs[b * kSequence + t] = id_of[static_cast<unsigned char>(text[offset + t])];
        targets[b * kSequence + t] = id_of[static_cast<unsigned char>(text[offset + t + 1])];
      }
    }
    const Tensor loss = train_step(from_vector(inputs, {kBatch, kSequence}),
                                   from_vector(targets, {kBatch, kSequence}));
    if (step % 50 == 0 || step == steps - 1) {
      std::printf("step %4d  loss %.4f\n", step, loss.item<float>());
    }
  }

  // Greedy continuation of a prompt, eagerly: the whole prefix each time, the last step's
  // prediction appended.
  std::string sample = "This License ";
  for (int i = 0; i < 60; ++i) {
    std::vector<int32_t> ids;
    for (unsigned char c : sample) ids.push_back(id_of[c]);
    const Tensor logits = model(from_vector(ids, {1, static_cast<int64_t>(ids.size())}));
    const Tensor last = reshape(logits, {-1, vocabulary})(-1);
    sample += static_cast<char>(chars[argmax(last, 0).item<int64_t>()]);
  }
  std::printf("sample: %s\n", sample.c_str());
  return 0;
}
