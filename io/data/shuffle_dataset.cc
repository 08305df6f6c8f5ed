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
    const uint64_t seed = NextIterationSeed();
    if (const auto* indexed = dynamic_cast<const IndexedSource*>(input_.node().get())) {
      return std::make_unique<IndexShuffle>(indexed, buffer_size_, seed);
    }
    return std::make_unique<ElementShuffle>(input_.MakeIterator(std::move(context)), buffer_size_,
                                            seed);
  }
  int64_t Cardinality() const override { return input_.cardinality(); }

 private:
  // The buffer's entries (elements, or indices of an IndexedSource) and the draws from it.
  template <typename Entry>
  class Buffer {
   public:
    Buffer(int64_t capacity, uint64_t seed) : capacity_(capacity), random_(seed) {}
    bool full() const { return static_cast<int64_t>(entries_.size()) >= capacity_; }
    bool empty() const { return entries_.empty(); }
    void Add(Entry entry) { entries_.push_back(std::move(entry)); }
    // A random entry, removed; the last one takes its place.
    Entry Draw() {
      const size_t pick = random_() % entries_.size();
      Entry out = std::move(entries_[pick]);
      if (pick != entries_.size() - 1) entries_[pick] = std::move(entries_.back());
      entries_.pop_back();
      return out;
    }

   private:
    int64_t capacity_;
    std::mt19937_64 random_;
    std::vector<Entry> entries_;
  };

  class ElementShuffle final : public ElementIterator {
   public:
    ElementShuffle(std::unique_ptr<ElementIterator> input, int64_t buffer_size, uint64_t seed)
        : input_(std::move(input)), buffer_(buffer_size, seed) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (!input_done_ && !buffer_.full()) {
        Element e;
        DUET_RETURN_IF_ERROR(input_->GetNext(&e, &input_done_));
        if (!input_done_) buffer_.Add(std::move(e));
      }
      *end = buffer_.empty();
      if (!*end) *out = buffer_.Draw();
      return absl::OkStatus();
    }

   private:
    std::unique_ptr<ElementIterator> input_;
    Buffer<Element> buffer_;
    bool input_done_ = false;
  };

  // Note [Indexed sources] in dataset_node.h: the draws of ElementShuffle, over indices.
  class IndexShuffle final : public ElementIterator {
   public:
    IndexShuffle(const IndexedSource* input, int64_t buffer_size, uint64_t seed)
        : input_(input), buffer_(buffer_size, seed) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (next_ < input_->size() && !buffer_.full()) buffer_.Add(next_++);
      *end = buffer_.empty();
      if (!*end) input_->Get(buffer_.Draw(), out);
      return absl::OkStatus();
    }

   private:
    const IndexedSource* input_;  // kept alive by the Dataset that made this iteration
    Buffer<int64_t> buffer_;
    int64_t next_ = 0;
  };

  uint64_t NextIterationSeed() const {
    const uint64_t iteration = iterations_.fetch_add(1);
    if (!seed_) return (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    std::seed_seq sequence{static_cast<uint32_t>(*seed_), static_cast<uint32_t>(*seed_ >> 32),
                           static_cast<uint32_t>(reshuffle_ ? iteration : 0)};
    uint32_t words[2];
    sequence.generate(words, words + 2);
    return (uint64_t{words[0]} << 32) | words[1];
  }

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
