// interleave: cycle_length datasets made from input elements, block_length elements from each in
// turn, in tf.data's order (InterleaveDatasetOp's loop).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "io/data/dataset.h"
#include "io/data/prefetch_iterator.h"

namespace duet::data {
namespace {

class InterleaveNode final : public DatasetNode {
 public:
  InterleaveNode(Dataset input, DatasetFn fn, int64_t cycle_length, int64_t block_length,
                 bool parallel)
      : input_(std::move(input)),
        fn_(std::move(fn)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        parallel_(parallel) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, context, input_.MakeIterator(context));
  }

 private:
  // An open dataset of the cycle; the Dataset keeps the nodes its iterator points into alive.
  struct Open {
    std::optional<Dataset> dataset;
    std::unique_ptr<ElementIterator> iterator;
  };

  class Iterator final : public ElementIterator {
   public:
    Iterator(const InterleaveNode* node, std::shared_ptr<IterationContext> context,
             std::unique_ptr<ElementIterator> input)
        : node_(node),
          context_(std::move(context)),
          input_(std::move(input)),
          cycle_(node->cycle_length_) {}

    ~Iterator() override {
      for (Open& open : cycle_) open.iterator.reset();  // before the datasets they point into
    }

    absl::Status GetNext(Element* out, bool* end) override {
      *end = false;
      while (!input_done_ || open_ > 0) {
        Open& current = cycle_[cycle_index_];
        if (current.iterator) {
          bool exhausted = false;
          DUET_RETURN_IF_ERROR(current.iterator->GetNext(out, &exhausted));
          if (!exhausted) {
            if (++block_index_ == node_->block_length_) NextInCycle();
            return absl::OkStatus();
          }
          current.iterator.reset();
          current.dataset.reset();
          --open_;
          NextInCycle();
        } else if (!input_done_) {
          DUET_RETURN_IF_ERROR(OpenNext(current));
        } else {
          NextInCycle();
        }
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    void NextInCycle() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % cycle_.size();
    }

    // Makes the dataset of the next input element in `slot` (nothing at the end of the input).
    absl::Status OpenNext(Open& slot) {
      Element e;
      DUET_RETURN_IF_ERROR(input_->GetNext(&e, &input_done_));
      if (input_done_) return absl::OkStatus();
      const int64_t index = index_++;
      DUET_RETURN_IF_ERROR(
          CallUserFunction(absl::StrCat("interleave function failed on element ", index),
                           [&] { slot.dataset = node_->fn_(std::move(e)); }));
      slot.iterator = slot.dataset->MakeIterator(context_);
      if (node_->parallel_) {
        slot.iterator = std::make_unique<PrefetchingIterator>(
            std::move(slot.iterator),
            static_cast<size_t>(std::max<int64_t>(2, node_->block_length_)));
      }
      ++open_;
      return absl::OkStatus();
    }

    const InterleaveNode* node_;
    std::shared_ptr<IterationContext> context_;
    std::unique_ptr<ElementIterator> input_;
    std::vector<Open> cycle_;
    size_t cycle_index_ = 0;
    int64_t block_index_ = 0;
    int64_t open_ = 0;
    int64_t index_ = 0;
    bool input_done_ = false;
  };

  Dataset input_;
  DatasetFn fn_;
  int64_t cycle_length_;
  int64_t block_length_;
  bool parallel_;
};

}  // namespace

Dataset Dataset::InterleaveImpl(DatasetFn fn, int64_t cycle_length, int64_t block_length,
                                int num_parallel_calls) const {
  if (cycle_length == kAutotune) cycle_length = ResolveParallelism(kAutotune);
  if (cycle_length <= 0 || block_length <= 0) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("interleave: cycle_length and block_length must be positive, not ",
                     cycle_length, " and ", block_length)));
  }
  return Dataset(std::make_shared<InterleaveNode>(*this, std::move(fn), cycle_length, block_length,
                                                  num_parallel_calls != 0));
}

}  // namespace duet::data
