// shuffle: tf.data's buffered shuffle with reproducible per-iteration seeds (Note [Shuffle
// seeds]).
#include <atomic>
#include <random>

#include "absl/strings/str_cat.h"
#include "io/data/dataset.h"

namespace duet::data {
namespace {

// Note [Shuffle seeds]: the generator is std::mt19937_64, whose output the C++ standard fixes,
// and an index is drawn as `bits % size` (not std::uniform_int_distribution, whose algorithm
// differs between standard libraries), so a seed gives the same order everywhere. With
// reshuffle_each_iteration the node counts the iterations made of it (each repeat epoch makes a
// fresh iterator of its input, each begin() one of the whole pipeline) and seeds the k-th from
// (seed, k): another order each time, the same sequence of orders for the same seed. The order
// is not TensorFlow's (tf.data uses Philox): only its distribution is the same.
class ShuffleNode final : public DatasetNode {
 public:
  ShuffleNode(Dataset input, int64_t buffer_size, std::optional<uint64_t> seed, bool reshuffle)
      : input_(std::move(input)), buffer_size_(buffer_size), seed_(seed), reshuffle_(reshuffle) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    const uint64_t iteration = iterations_.fetch_add(1);
    uint64_t seed;
    if (!seed_) {
      seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    } else {
      std::seed_seq sequence{static_cast<uint32_t>(*seed_), static_cast<uint32_t>(*seed_ >> 32),
                             static_cast<uint32_t>(reshuffle_ ? iteration : 0)};
      uint32_t words[2];
      sequence.generate(words, words + 2);
      seed = (uint64_t{words[0]} << 32) | words[1];
    }
    return std::make_unique<Iterator>(this, input_.MakeIterator(std::move(context)), seed);
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(const ShuffleNode* node, std::unique_ptr<ElementIterator> input, uint64_t seed)
        : node_(node), input_(std::move(input)), random_(seed) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (!input_done_ && static_cast<int64_t>(buffer_.size()) < node_->buffer_size_) {
        Element e;
        DUET_RETURN_IF_ERROR(input_->GetNext(&e, &input_done_));
        if (!input_done_) buffer_.push_back(std::move(e));
      }
      *end = buffer_.empty();
      if (*end) return absl::OkStatus();
      const size_t pick = random_() % buffer_.size();
      *out = std::move(buffer_[pick]);
      if (pick != buffer_.size() - 1) buffer_[pick] = std::move(buffer_.back());
      buffer_.pop_back();
      return absl::OkStatus();
    }

   private:
    const ShuffleNode* node_;
    std::unique_ptr<ElementIterator> input_;
    std::mt19937_64 random_;
    std::vector<Element> buffer_;
    bool input_done_ = false;
  };

  Dataset input_;
  int64_t buffer_size_;
  std::optional<uint64_t> seed_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> iterations_{0};
};

}  // namespace

Dataset Dataset::shuffle(int64_t buffer_size, std::optional<uint64_t> seed,
                         bool reshuffle_each_iteration) const {
  if (buffer_size <= 0) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("shuffle: buffer_size must be positive, not ", buffer_size)));
  }
  return Dataset(std::make_shared<ShuffleNode>(*this, buffer_size, seed, reshuffle_each_iteration));
}

}  // namespace duet::data
