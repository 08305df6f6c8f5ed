// The inside of a Dataset: immutable nodes that describe a pipeline, and the per-iteration
// iterators they make (docs/data.md). Transformations live one per file (map_dataset.cc, ...).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/tensor.h"

namespace duet::data {

// One element of a dataset: its components (tf.data's tuple, flattened).
using Element = std::vector<Tensor>;

// What every iterator of one iteration (one begin()) shares.
struct IterationContext {
  // Elements that ignore_errors() stages of this iteration dropped.
  std::atomic<int64_t> dropped{0};
};

// One pass over a dataset. GetNext is called from one thread at a time (the iterator's owner);
// an iterator that runs threads of its own stops and joins them in its destructor.
class ElementIterator {
 public:
  virtual ~ElementIterator() = default;
  // The next element in *out, or *end = true after the last one. A failed element is a non-OK
  // status naming the element; the iterator stays usable: the next call goes on after it (so
  // ignore_errors() can skip it).
  virtual absl::Status GetNext(Element* out, bool* end) = 0;
};

// tf.data's cardinality() values for a dataset that never ends (repeat()) and for one whose length
// is not known without iterating it (filter, interleave, generators, files).
inline constexpr int64_t kInfiniteCardinality = -1;
inline constexpr int64_t kUnknownCardinality = -2;

// An immutable description of a dataset; Dataset holds one by shared_ptr, so copies are cheap and
// several iterations (and threads) may make iterators of one node at once.
class DatasetNode {
 public:
  virtual ~DatasetNode() = default;
  virtual std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const = 0;
  // The number of elements, kInfiniteCardinality or kUnknownCardinality, without iterating.
  virtual int64_t Cardinality() const { return kUnknownCardinality; }
  // Note [File sharding]: a dataset that reads a list of files returns the dataset that reads
  // only files index, index + num_shards, ... of it (Dataset::auto_shard's FILE policy); nullptr
  // when it reads no files, or fewer than num_shards.
  virtual std::shared_ptr<const DatasetNode> ShardFiles(int64_t num_shards, int64_t index) const {
    return nullptr;
  }
};

// Note [Indexed sources]: a source whose i-th element can be made directly (from_tensor_slices)
// implements this besides DatasetNode. shuffle() over it buffers element indices instead of
// elements: an epoch starts without making buffer_size elements first, and each element is made
// (as views of rows) only when drawn. The order is the same as when buffering elements.
class IndexedSource {
 public:
  virtual ~IndexedSource() = default;
  virtual int64_t size() const = 0;
  // Element `index`, 0 <= index < size().
  virtual void Get(int64_t index, Element* out) const = 0;
};

// Catches what a user callable throws and turns it into a status whose message starts with
// `what` ("map function failed on element 17: ..."). Worker threads must never let an exception
// escape.
template <typename Fn>
absl::Status CallUserFunction(const std::string& what, Fn&& fn) {
  try {
    fn();
    return absl::OkStatus();
  } catch (const Error& e) {
    return absl::Status(e.code(), what + ": " + e.what());
  } catch (const std::exception& e) {
    return absl::InternalError(what + ": " + e.what());
  } catch (...) {
    return absl::InternalError(what + ": an exception that is not a std::exception");
  }
}

// input.GetNext(out, end), with an exception (memory running out in Tensor::Empty, a device copy
// failing) turned into a status: what threads call, since nothing may escape them.
inline absl::Status GetNextOnThread(ElementIterator& input, Element* out, bool* end) {
  absl::Status status;
  const absl::Status thrown =
      CallUserFunction("reading the input failed", [&] { status = input.GetNext(out, end); });
  return thrown.ok() ? status : thrown;
}

}  // namespace duet::data
