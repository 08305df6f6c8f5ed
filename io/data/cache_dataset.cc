// cache(): the elements kept in memory after the first complete iteration.
#include <mutex>

#include "io/data/dataset.h"

namespace duet::data {
namespace {

// Note [Cache]: an iteration that reads the input collects its elements and, when it reaches
// the end without a failure, publishes them (the first such iteration wins); later iterations
// replay the published elements (tensors are immutable, so sharing them is safe). An iteration
// stopped early or that met a failure publishes nothing, as tf.data discards a partial cache.
class CacheNode final : public DatasetNode {
 public:
  explicit CacheNode(Dataset input) : input_(std::move(input)) {}
  int64_t Cardinality() const override { return input_.cardinality(); }

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    std::shared_ptr<const std::vector<Element>> cached;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cached = cached_;
    }
    if (cached) return std::make_unique<ReplayIterator>(std::move(cached));
    return std::make_unique<FillIterator>(this, input_.MakeIterator(std::move(context)));
  }

 private:
  class ReplayIterator final : public ElementIterator {
   public:
    explicit ReplayIterator(std::shared_ptr<const std::vector<Element>> elements)
        : elements_(std::move(elements)) {}
    absl::Status GetNext(Element* out, bool* end) override {
      *end = next_ >= elements_->size();
      if (!*end) *out = (*elements_)[next_++];
      return absl::OkStatus();
    }

   private:
    std::shared_ptr<const std::vector<Element>> elements_;
    size_t next_ = 0;
  };

  class FillIterator final : public ElementIterator {
   public:
    FillIterator(const CacheNode* node, std::unique_ptr<ElementIterator> input)
        : node_(node), input_(std::move(input)) {}
    absl::Status GetNext(Element* out, bool* end) override {
      const absl::Status status = input_->GetNext(out, end);
      if (!status.ok()) {
        failed_ = true;
        return status;
      }
      if (!*end) {
        elements_.push_back(*out);
      } else if (!failed_ && !published_) {
        published_ = true;
        std::lock_guard<std::mutex> lock(node_->mu_);
        if (!node_->cached_) {
          node_->cached_ = std::make_shared<const std::vector<Element>>(std::move(elements_));
        }
      }
      return absl::OkStatus();
    }

   private:
    const CacheNode* node_;
    std::unique_ptr<ElementIterator> input_;
    std::vector<Element> elements_;
    bool failed_ = false;
    bool published_ = false;
  };

  Dataset input_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const std::vector<Element>> cached_;  // guarded by mu_
};

}  // namespace

Dataset Dataset::cache() const { return Dataset(std::make_shared<CacheNode>(*this)); }

}  // namespace duet::data
