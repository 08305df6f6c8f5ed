// ignore_errors(): failed elements dropped and counted.
#include "io/data/dataset.h"

namespace duet::data {
namespace {

class IgnoreErrorsNode final : public DatasetNode {
 public:
  explicit IgnoreErrorsNode(Dataset input) : input_(std::move(input)) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(context, input_.MakeIterator(context));
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(std::shared_ptr<IterationContext> context, std::unique_ptr<ElementIterator> input)
        : context_(std::move(context)), input_(std::move(input)) {}

    // Relies on the iterators' contract (dataset_node.h): after a failure, the next call goes
    // on with the next element.
    absl::Status GetNext(Element* out, bool* end) override {
      while (true) {
        out->clear();
        if (input_->GetNext(out, end).ok()) return absl::OkStatus();
        context_->dropped.fetch_add(1);
      }
    }

   private:
    std::shared_ptr<IterationContext> context_;
    std::unique_ptr<ElementIterator> input_;
  };

  Dataset input_;
};

}  // namespace

Dataset Dataset::ignore_errors() const {
  return Dataset(std::make_shared<IgnoreErrorsNode>(*this));
}

}  // namespace duet::data
