#include "io/data/prefetch_iterator.h"

#include "absl/strings/str_cat.h"
#include "core/thread_pool.h"
#include "io/data/dataset.h"

namespace duet::data {

PrefetchingIterator::PrefetchingIterator(std::unique_ptr<ElementIterator> input, size_t capacity)
    : input_(std::move(input)), capacity_(capacity) {}

PrefetchingIterator::~PrefetchingIterator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::Status PrefetchingIterator::GetNext(Element* out, bool* end) {
  if (!thread_.joinable()) thread_ = std::thread([this] { Fill(); });
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return !buffer_.empty() || input_done_; });
  *end = buffer_.empty();
  if (*end) return absl::OkStatus();
  Result result = std::move(buffer_.front());
  buffer_.pop_front();
  lock.unlock();
  changed_.notify_all();  // room in the buffer
  *out = std::move(result.element);
  return result.status;
}

void PrefetchingIterator::Fill() {
  RunKernelsSeriallyOnThisThread();
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return cancelled_ || buffer_.size() < capacity_; });
      if (cancelled_) return;
    }
    Result result;
    bool end = false;
    result.status = GetNextOnThread(*input_, &result.element, &end);
    const bool finished = end && result.status.ok();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished) {
        input_done_ = true;
      } else {
        buffer_.push_back(std::move(result));
      }
    }
    changed_.notify_all();
    if (finished) return;
  }
}

namespace {

class PrefetchNode final : public DatasetNode {
 public:
  PrefetchNode(Dataset input, size_t buffer_size)
      : input_(std::move(input)), buffer_size_(buffer_size) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<PrefetchingIterator>(input_.MakeIterator(std::move(context)),
                                                 buffer_size_);
  }
  int64_t Cardinality() const override { return input_.cardinality(); }

 private:
  Dataset input_;
  size_t buffer_size_;
};

}  // namespace

Dataset Dataset::prefetch(int64_t buffer_size) const {
  if (buffer_size == kAutotune) buffer_size = 2;
  if (buffer_size < 0) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("prefetch: buffer_size must be >= 0 or kAutotune, not ", buffer_size)));
  }
  if (buffer_size == 0) return *this;
  return Dataset(std::make_shared<PrefetchNode>(*this, static_cast<size_t>(buffer_size)));
}

}  // namespace duet::data
