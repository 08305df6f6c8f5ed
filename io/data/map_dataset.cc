// map: fn on every element, in the iterating thread or on worker threads (Note [Parallel map]).
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/thread_pool.h"
#include "io/data/dataset.h"

namespace duet::data {
namespace {

// Runs fn on input element `index`, naming the element when it fails.
absl::Status ApplyMapFn(const MapFn& fn, int64_t index, Element in, Element* out) {
  return CallUserFunction(absl::StrCat("map function failed on element ", index),
                          [&] { *out = fn(std::move(in)); });
}

class MapNode final : public DatasetNode {
 public:
  MapNode(Dataset input, MapFn fn, int workers, bool deterministic)
      : input_(std::move(input)),
        fn_(std::move(fn)),
        workers_(workers),
        deterministic_(deterministic) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override;
  int64_t Cardinality() const override { return input_.cardinality(); }

 private:
  class SerialIterator;
  class ParallelIterator;

  Dataset input_;
  MapFn fn_;
  int workers_;
  bool deterministic_;
};

class MapNode::SerialIterator final : public ElementIterator {
 public:
  SerialIterator(const MapNode* node, std::unique_ptr<ElementIterator> input)
      : node_(node), input_(std::move(input)) {}

  absl::Status GetNext(Element* out, bool* end) override {
    Element in;
    const absl::Status read = input_->GetNext(&in, end);
    if (!read.ok()) {
      ++index_;  // a failed input element still counts, as in the parallel iterator
      return read;
    }
    if (*end) return absl::OkStatus();
    return ApplyMapFn(node_->fn_, index_++, std::move(in), out);
  }

 private:
  const MapNode* node_;
  std::unique_ptr<ElementIterator> input_;
  int64_t index_ = 0;
};

// Note [Parallel map]: workers take input elements one at a time, in order (input_mu_ makes
// reading the input and queueing the element's slot one step, so the queue is in input order),
// then run fn outside every lock. The consumer takes the front slot once it is done
// (deterministic), or the first done slot (not). At most 2 * workers slots are queued, so the
// workers stop reading ahead when the consumer stops taking. std::mutex, not absl::Mutex: see
// core/thread_pool.h (TSan cannot see Debian's Abseil's synchronisation).
class MapNode::ParallelIterator final : public ElementIterator {
 public:
  ParallelIterator(const MapNode* node, std::unique_ptr<ElementIterator> input)
      : node_(node), input_(std::move(input)), capacity_(2 * static_cast<size_t>(node->workers_)) {}

  ~ParallelIterator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  absl::Status GetNext(Element* out, bool* end) override {
    if (threads_.empty()) {
      for (int i = 0; i < node_->workers_; ++i) threads_.emplace_back([this] { WorkerLoop(); });
    }
    std::unique_lock<std::mutex> lock(mu_);
    std::deque<std::shared_ptr<Slot>>::iterator ready;
    changed_.wait(lock, [&] {
      ready = FirstReady();
      return ready != slots_.end() || (slots_.empty() && input_done_);
    });
    *end = ready == slots_.end();
    if (*end) return absl::OkStatus();
    std::shared_ptr<Slot> slot = std::move(*ready);
    slots_.erase(ready);
    lock.unlock();
    changed_.notify_all();  // room in the queue
    *out = std::move(slot->element);
    return slot->status;
  }

 private:
  struct Slot {
    bool done = false;
    absl::Status status;
    Element element;
  };

  // Guarded by mu_.
  std::deque<std::shared_ptr<Slot>>::iterator FirstReady() {
    if (node_->deterministic_) {
      return !slots_.empty() && slots_.front()->done ? slots_.begin() : slots_.end();
    }
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if ((*it)->done) return it;
    }
    return slots_.end();
  }

  void WorkerLoop() {
    RunKernelsSeriallyOnThisThread();
    while (true) {
      std::shared_ptr<Slot> slot;
      Element in;
      absl::Status read;
      int64_t index = 0;
      {
        std::lock_guard<std::mutex> input_lock(input_mu_);
        {
          std::unique_lock<std::mutex> lock(mu_);
          changed_.wait(lock, [&] { return cancelled_ || slots_.size() < capacity_; });
          if (cancelled_ || input_done_) return;
        }
        bool end = false;
        read = GetNextOnThread(*input_, &in, &end);
        std::lock_guard<std::mutex> lock(mu_);
        if (end && read.ok()) {
          input_done_ = true;
          changed_.notify_all();
          return;
        }
        slot = std::make_shared<Slot>();
        slots_.push_back(slot);
        index = next_index_++;
      }
      Element result;
      absl::Status status =
          read.ok() ? ApplyMapFn(node_->fn_, index, std::move(in), &result) : read;
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot->done = true;
        slot->status = std::move(status);
        slot->element = std::move(result);
      }
      changed_.notify_all();
    }
  }

  const MapNode* node_;
  std::unique_ptr<ElementIterator> input_;  // read under input_mu_
  const size_t capacity_;
  std::mutex input_mu_;
  int64_t next_index_ = 0;  // guarded by input_mu_ and mu_

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Slot>> slots_;  // guarded by mu_; input order
  bool input_done_ = false;                  // guarded by mu_
  bool cancelled_ = false;                   // guarded by mu_
  std::vector<std::thread> threads_;         // only the consumer touches it
};

std::unique_ptr<ElementIterator> MapNode::MakeIterator(
    std::shared_ptr<IterationContext> context) const {
  std::unique_ptr<ElementIterator> input = input_.MakeIterator(std::move(context));
  if (workers_ == 0) return std::make_unique<SerialIterator>(this, std::move(input));
  return std::make_unique<ParallelIterator>(this, std::move(input));
}

}  // namespace

Dataset Dataset::MapImpl(MapFn fn, int num_parallel_calls, bool deterministic) const {
  const int workers = ResolveParallelism(num_parallel_calls);
  if (workers < 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "map: num_parallel_calls must be >= 0 or kAutotune, not ", num_parallel_calls)));
  }
  return Dataset(std::make_shared<MapNode>(*this, std::move(fn), workers, deterministic));
}

}  // namespace duet::data
