// data::Dataset: input pipelines as in tf.data (docs/data.md is the guide).
//
//   auto ds = data::Dataset::from_tensor_slices({images, labels})
//                 .shuffle(60000, /*seed=*/1).repeat(4).batch(32).prefetch(2);
//   for (auto& batch : ds) { /* batch[0], batch[1] */ }
//
// A Dataset is an immutable description (cheap to copy); each begin() starts a fresh iteration
// with its own iterators and threads, which stop when the iterator is destroyed, also mid-way.
// An element is a std::vector<Tensor>, its components. Errors throw duet::Error on the thread
// that iterates, naming the transformation and the element ("map function failed on element 17:
// ...").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/data/dataset_node.h"

namespace duet {
// duet::function's callable (graph/traced_function.h); declared here so that io/data needs no
// graph/ dependency: a user who makes one has the whole class.
template <typename F>
class TracedFunction;
}  // namespace duet

namespace duet::data {

// num_parallel_calls / prefetch size meaning "pick for me": the machine's hardware threads (as
// tf.data.AUTOTUNE, without the tuning).
inline constexpr int kAutotune = -1;

class Dataset;

// The callables transformations keep, after the adapters in dataset_adapters below.
using MapFn = std::function<Element(Element)>;
using PredicateFn = std::function<bool(const Element&)>;
using DatasetFn = std::function<Dataset(Element)>;
// A generator yields elements until it returns std::nullopt; from_generator calls the factory
// once per iteration for a fresh generator (as tf.data calls a Python generator function).
using Generator = std::function<std::optional<Element>()>;
using GeneratorFactory = std::function<Generator()>;

namespace dataset_adapters {

// duet::function's call operator accepts anything at overload resolution, so what a traced
// function takes is read off the callable it wraps.
template <typename F>
struct CallTarget {
  using type = F;
};
template <typename G>
struct CallTarget<TracedFunction<G>> {
  using type = G;
};

// A callable's result as an element: an Element, a Tensor, or a tuple/pair of Tensors.
inline Element ToElement(Element e) { return e; }
inline Element ToElement(Tensor t) { return Element{std::move(t)}; }
template <typename... Ts>
Element ToElement(std::tuple<Ts...> t) {
  return std::apply([](auto&... x) { return Element{std::move(x)...}; }, t);
}
template <typename A, typename B>
Element ToElement(std::pair<A, B> p) {
  return Element{std::move(p.first), std::move(p.second)};
}

// Throws when a callable that takes `arity` tensors meets an element with another count.
void CheckArity(const Element& e, size_t arity, const char* what);

// Calls f with the element whole (when it takes a std::vector<Tensor>) or unpacked into its
// components (when it takes 1 to 4 Tensors, as tf.data unpacks tuples into arguments).
template <typename F>
auto Apply(const F& f, Element e, const char* what) {
  using G = typename CallTarget<std::decay_t<F>>::type;
  if constexpr (std::is_invocable_v<const G&, Element>) {
    return f(std::move(e));
  } else if constexpr (std::is_invocable_v<const G&, Tensor>) {
    CheckArity(e, 1, what);
    return f(e[0]);
  } else if constexpr (std::is_invocable_v<const G&, Tensor, Tensor>) {
    CheckArity(e, 2, what);
    return f(e[0], e[1]);
  } else if constexpr (std::is_invocable_v<const G&, Tensor, Tensor, Tensor>) {
    CheckArity(e, 3, what);
    return f(e[0], e[1], e[2]);
  } else if constexpr (std::is_invocable_v<const G&, Tensor, Tensor, Tensor, Tensor>) {
    CheckArity(e, 4, what);
    return f(e[0], e[1], e[2], e[3]);
  } else {
    static_assert(sizeof(F) == 0,
                  "a dataset function takes a std::vector<Tensor> (the element) or 1 to 4 "
                  "Tensors (its components)");
  }
}

// A predicate's result as a bool: a bool, or a scalar bool Tensor.
bool PredicateValue(const Tensor& t);
inline bool PredicateValue(bool b) { return b; }

}  // namespace dataset_adapters

class Dataset {
 public:
  // The iterator of one iteration (an input iterator, move-only). operator++ throws Error when
  // an element fails; the iteration may go on after it.
  class Iterator {
   public:
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    using reference = Element&;
    using iterator_category = std::input_iterator_tag;

    Iterator(Iterator&&) = default;
    Iterator& operator=(Iterator&&) = default;

    Element& operator*() { return element_; }
    Element* operator->() { return &element_; }
    Iterator& operator++();
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return end_; }

    // Elements dropped so far in this iteration by ignore_errors() stages.
    int64_t dropped() const;

   private:
    friend class Dataset;
    Iterator(std::shared_ptr<const DatasetNode> node, std::shared_ptr<IterationContext> context);

    // Declared first, destroyed last: the iterators point into the nodes.
    std::shared_ptr<const DatasetNode> node_;
    std::shared_ptr<IterationContext> context_;
    std::unique_ptr<ElementIterator> impl_;
    Element element_;
    bool end_ = false;
  };

  explicit Dataset(std::shared_ptr<const DatasetNode> node) : node_(std::move(node)) {}

  // Sources.
  // One element per row of axis 0 of every component (all must have the same number of rows).
  static Dataset from_tensor_slices(Element components);
  // The one element `components`.
  static Dataset from_tensors(Element components);
  // int64 scalars start, start + step, ... before stop (as Python's range; step != 0).
  static Dataset range(int64_t stop);
  static Dataset range(int64_t start, int64_t stop, int64_t step = 1);
  // The elements of a fresh generator per iteration (see Generator).
  static Dataset from_generator(GeneratorFactory factory);
  // Elements of all datasets side by side: their components concatenated; ends with the
  // shortest.
  static Dataset zip(std::vector<Dataset> datasets);

  // Transformations.
  // fn(element) for every element. fn takes the element (std::vector<Tensor>) or its components
  // as 1 to 4 Tensors, and returns a std::vector<Tensor>, a Tensor or a tuple/pair of Tensors; a
  // duet::function works (its plan is cached per signature and it is safe on several threads).
  // num_parallel_calls 0: in the iterating thread; n > 0 (or kAutotune): n worker threads, the
  // results in input order unless deterministic = false (then as they finish).
  template <typename F>
  Dataset map(F fn, int num_parallel_calls = 0, bool deterministic = true) const {
    return MapImpl(
        [fn = std::move(fn)](Element e) {
          return dataset_adapters::ToElement(dataset_adapters::Apply(fn, std::move(e), "map"));
        },
        num_parallel_calls, deterministic);
  }
  // The elements for which predicate(element) is true; it returns a bool or a scalar bool
  // Tensor, and takes the element or its components as map's fn does.
  template <typename P>
  Dataset filter(P predicate) const {
    return FilterImpl([predicate = std::move(predicate)](const Element& e) {
      return dataset_adapters::PredicateValue(dataset_adapters::Apply(predicate, e, "filter"));
    });
  }
  // tf.data's shuffle: a buffer of buffer_size elements, each output drawn uniformly from it and
  // replaced by the next input. The same seed gives the same order; with
  // reshuffle_each_iteration each new iteration of this dataset (each repeat epoch, each
  // begin()) gets another order, the same sequence of orders for the same seed. No seed: a
  // random one per iteration.
  Dataset shuffle(int64_t buffer_size, std::optional<uint64_t> seed = std::nullopt,
                  bool reshuffle_each_iteration = true) const;
  // batch_size consecutive elements stacked along a new axis 0 per component; the last, smaller
  // batch is dropped with drop_remainder.
  Dataset batch(int64_t batch_size, bool drop_remainder = false) const;
  // batch for elements of different shapes: each component padded (at the end of every axis) to
  // padded_shapes (a -1 dim: the batch's largest) or, when empty, the batch's largest shape,
  // with padding_values (scalars, one per component; default zeros).
  Dataset padded_batch(int64_t batch_size, std::vector<Shape> padded_shapes = {},
                       Element padding_values = {}, bool drop_remainder = false) const;
  // The inverse of batch: every row of axis 0 as an element.
  Dataset unbatch() const;
  // The elements count times (-1: forever), each time from a fresh iteration of this dataset.
  Dataset repeat(int64_t count = -1) const;
  // The first count elements (-1: all); all but the first count elements (-1: none).
  Dataset take(int64_t count) const;
  Dataset skip(int64_t count) const;
  // Elements index, index + num_shards, ...: worker `index` of `num_shards`'s part of the data
  // (tf.data's shard; shard before shuffling, so workers see disjoint elements). Throws Error
  // unless 0 <= index < num_shards.
  Dataset shard(int64_t num_shards, int64_t index) const;
  // shard for data-parallel training, as tf.data's AUTO shard policy: by files when this dataset
  // reads at least num_shards files (a TFRecordDataset: worker `index` reads files index,
  // index + num_shards, ... whole, so no worker reads the others' files), else by elements as
  // shard(). Call it on the file dataset itself, before map, shuffle and batch.
  Dataset auto_shard(int64_t num_shards, int64_t index) const;
  // This dataset's elements, then other's (whose components must have the same dtypes).
  Dataset concatenate(const Dataset& other) const;
  // fn(element) for cycle_length input elements at once, block_length elements from each in
  // turn (tf.data's order). With num_parallel_calls != 0 every open dataset is read ahead by a
  // thread of its own; the order stays the same.
  template <typename F>
  Dataset interleave(F fn, int64_t cycle_length, int64_t block_length = 1,
                     int num_parallel_calls = 0) const {
    return InterleaveImpl(
        [fn = std::move(fn)](Element e) -> Dataset {
          return dataset_adapters::Apply(fn, std::move(e), "interleave");
        },
        cycle_length, block_length, num_parallel_calls);
  }
  // A background thread keeps up to buffer_size elements ready (0: no thread; kAutotune: 2).
  Dataset prefetch(int64_t buffer_size) const;
  // Keeps the elements in memory after the first complete iteration; later iterations replay
  // them without running what is before cache().
  Dataset cache() const;
  // Drops elements whose production failed (an error from a stage before this one) and counts
  // them in Iterator::dropped().
  Dataset ignore_errors() const;

  // Range-for: a fresh iteration; begin() produces the first element (and may throw).
  // The number of elements without iterating, as tf.data's cardinality(): kInfiniteCardinality
  // after repeat(), kUnknownCardinality after filter, interleave, unbatch and for generators and
  // files.
  int64_t cardinality() const { return node_->Cardinality(); }

  Iterator begin() const;
  std::default_sentinel_t end() const { return std::default_sentinel; }

  // A fresh iteration as an ElementIterator (for io/ code that wants statuses, not exceptions);
  // this dataset (or a copy) must outlive it.
  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext> context) const {
    return node_->MakeIterator(std::move(context));
  }
  const std::shared_ptr<const DatasetNode>& node() const { return node_; }

 private:
  Dataset MapImpl(MapFn fn, int num_parallel_calls, bool deterministic) const;
  Dataset FilterImpl(PredicateFn predicate) const;
  Dataset InterleaveImpl(DatasetFn fn, int64_t cycle_length, int64_t block_length,
                         int num_parallel_calls) const;

  std::shared_ptr<const DatasetNode> node_;
};

// The number of worker threads num_parallel_calls asks for (kAutotune: hardware threads).
int ResolveParallelism(int num_parallel_calls);

}  // namespace duet::data
