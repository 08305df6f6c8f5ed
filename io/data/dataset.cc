#include "io/data/dataset.h"

#include <thread>

#include "absl/strings/str_cat.h"

namespace duet::data {

namespace dataset_adapters {

void CheckArity(const Element& e, size_t arity, const char* what) {
  if (e.size() == arity) return;
  throw Error(absl::InvalidArgumentError(absl::StrCat(
      what, " function takes ", arity, " tensors but the element has ", e.size(), " components")));
}

bool PredicateValue(const Tensor& t) {
  if (!t.defined() || t.dtype() != kBool || t.num_elements() != 1) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "filter predicate must return a bool or a scalar bool tensor, not ",
        t.defined() ? absl::StrCat(DTypeName(t.dtype()), " ", t.shape().str()) : "undefined")));
  }
  return t.item<bool>();
}

}  // namespace dataset_adapters

int ResolveParallelism(int num_parallel_calls) {
  if (num_parallel_calls != kAutotune) return num_parallel_calls;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

Dataset::Iterator::Iterator(std::shared_ptr<const DatasetNode> node,
                            std::shared_ptr<IterationContext> context)
    : node_(std::move(node)), context_(std::move(context)), impl_(node_->MakeIterator(context_)) {}

Dataset::Iterator& Dataset::Iterator::operator++() {
  element_.clear();
  const absl::Status status = impl_->GetNext(&element_, &end_);
  if (!status.ok()) throw Error(status);
  return *this;
}

int64_t Dataset::Iterator::dropped() const { return context_->dropped.load(); }

Dataset::Iterator Dataset::begin() const {
  auto context = std::make_shared<IterationContext>();
  Iterator it(node_, std::move(context));
  ++it;
  return it;
}

}  // namespace duet::data
