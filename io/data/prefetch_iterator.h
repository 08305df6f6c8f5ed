// An iterator that reads its input ahead on a thread of its own into a bounded buffer: what
// prefetch() and parallel interleave() are made of.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "io/data/dataset_node.h"

namespace duet::data {

// Note [Prefetch thread]: the thread starts at the first GetNext and keeps up to `capacity`
// results (elements or failures, in input order) ready; it waits while the buffer is full. The
// destructor cancels, wakes and joins it before the input iterator is destroyed, so a pipeline
// stopped mid-way leaves no thread behind; a thread inside the input's GetNext finishes that
// one call first. std::mutex, not absl::Mutex: see core/thread_pool.h.
class PrefetchingIterator final : public ElementIterator {
 public:
  PrefetchingIterator(std::unique_ptr<ElementIterator> input, size_t capacity);
  ~PrefetchingIterator() override;

  absl::Status GetNext(Element* out, bool* end) override;

 private:
  struct Result {
    absl::Status status;
    Element element;
  };
  void Fill();

  std::unique_ptr<ElementIterator> input_;  // only the thread reads it
  const size_t capacity_;
  std::thread thread_;

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Result> buffer_;  // guarded by mu_
  bool input_done_ = false;    // guarded by mu_
  bool cancelled_ = false;     // guarded by mu_
};

}  // namespace duet::data
