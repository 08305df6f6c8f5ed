// filter: the elements a predicate keeps.
#include "absl/strings/str_cat.h"
#include "io/data/dataset.h"

namespace duet::data {
namespace {

class FilterNode final : public DatasetNode {
 public:
  FilterNode(Dataset input, PredicateFn predicate)
      : input_(std::move(input)), predicate_(std::move(predicate)) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, input_.MakeIterator(std::move(context)));
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(const FilterNode* node, std::unique_ptr<ElementIterator> input)
        : node_(node), input_(std::move(input)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (true) {
        const int64_t index = index_++;
        DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
        if (*end) return absl::OkStatus();
        bool keep = false;
        DUET_RETURN_IF_ERROR(
            CallUserFunction(absl::StrCat("filter predicate failed on element ", index),
                             [&] { keep = node_->predicate_(*out); }));
        if (keep) return absl::OkStatus();
      }
    }

   private:
    const FilterNode* node_;
    std::unique_ptr<ElementIterator> input_;
    int64_t index_ = 0;
  };

  Dataset input_;
  PredicateFn predicate_;
};

}  // namespace

Dataset Dataset::FilterImpl(PredicateFn predicate) const {
  return Dataset(std::make_shared<FilterNode>(*this, std::move(predicate)));
}

}  // namespace duet::data
