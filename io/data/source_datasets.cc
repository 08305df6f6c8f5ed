// The sources: from_tensor_slices, from_tensors, range, from_generator.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "io/data/dataset.h"
#include "io/data/element_copy.h"

namespace duet::data {
namespace {

class TensorSlicesNode final : public DatasetNode, public IndexedSource {
 public:
  TensorSlicesNode(Element components, int64_t rows)
      : components_(std::move(components)), rows_(rows) {}

  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext>) const override {
    return std::make_unique<Iterator>(this);
  }
  int64_t Cardinality() const override { return rows_; }

  int64_t size() const override { return rows_; }
  void Get(int64_t index, Element* out) const override {
    out->clear();
    for (const Tensor& c : components_) out->push_back(SliceRow(c, index));
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(const TensorSlicesNode* node) : node_(node) {}
    absl::Status GetNext(Element* out, bool* end) override {
      *end = next_ >= node_->rows_;
      if (!*end) node_->Get(next_++, out);
      return absl::OkStatus();
    }

   private:
    const TensorSlicesNode* node_;  // kept alive by the Dataset that made this iteration
    int64_t next_ = 0;
  };

  Element components_;
  int64_t rows_;
};

class TensorsNode final : public DatasetNode {
 public:
  explicit TensorsNode(Element components) : components_(std::move(components)) {}

  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext>) const override {
    return std::make_unique<Iterator>(this);
  }
  int64_t Cardinality() const override { return 1; }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(const TensorsNode* node) : node_(node) {}
    absl::Status GetNext(Element* out, bool* end) override {
      *end = done_;
      if (!done_) *out = node_->components_;
      done_ = true;
      return absl::OkStatus();
    }

   private:
    const TensorsNode* node_;
    bool done_ = false;
  };

  Element components_;
};

class RangeNode final : public DatasetNode {
 public:
  RangeNode(int64_t start, int64_t stop, int64_t step) : start_(start), stop_(stop), step_(step) {}

  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext>) const override {
    return std::make_unique<Iterator>(this);
  }
  int64_t Cardinality() const override {
    const int64_t span = step_ > 0 ? stop_ - start_ : start_ - stop_;
    const int64_t stride = step_ > 0 ? step_ : -step_;
    return span <= 0 ? 0 : (span + stride - 1) / stride;
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(const RangeNode* node) : node_(node), next_(node->start_) {}
    absl::Status GetNext(Element* out, bool* end) override {
      *end = node_->step_ > 0 ? next_ >= node_->stop_ : next_ <= node_->stop_;
      if (*end) return absl::OkStatus();
      Tensor value = Tensor::Empty(kInt64, Shape{});
      *value.mutable_data<int64_t>() = next_;
      *out = Element{std::move(value)};
      next_ += node_->step_;
      return absl::OkStatus();
    }

   private:
    const RangeNode* node_;
    int64_t next_;
  };

  int64_t start_, stop_, step_;
};

class GeneratorNode final : public DatasetNode {
 public:
  explicit GeneratorNode(GeneratorFactory factory) : factory_(std::move(factory)) {}

  std::unique_ptr<ElementIterator> MakeIterator(std::shared_ptr<IterationContext>) const override {
    return std::make_unique<Iterator>(this);
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(const GeneratorNode* node) : node_(node) {}
    absl::Status GetNext(Element* out, bool* end) override {
      *end = false;
      if (!generator_) {
        const absl::Status made = CallUserFunction("from_generator: the generator factory failed",
                                                   [&] { generator_ = node_->factory_(); });
        // No generator, no elements: a failed factory ends the iteration after its error.
        if (!generator_) finished_ = true;
        DUET_RETURN_IF_ERROR(made);
      }
      if (finished_) {
        *end = true;
        return absl::OkStatus();
      }
      std::optional<Element> next;
      DUET_RETURN_IF_ERROR(CallUserFunction(
          absl::StrCat("from_generator: the generator failed on element ", index_++),
          [&] { next = generator_(); }));
      if (!next) {
        *end = finished_ = true;
        return absl::OkStatus();
      }
      *out = *std::move(next);
      return absl::OkStatus();
    }

   private:
    const GeneratorNode* node_;
    Generator generator_;
    bool finished_ = false;
    int64_t index_ = 0;
  };

  GeneratorFactory factory_;
};

std::string ShapesOf(const Element& components) {
  return absl::StrJoin(components, ", ", [](std::string* out, const Tensor& t) {
    absl::StrAppend(out, DTypeName(t.dtype()), " ", t.shape().str());
  });
}

}  // namespace

Dataset Dataset::from_tensor_slices(Element components) {
  if (components.empty()) {
    throw Error(absl::InvalidArgumentError("from_tensor_slices: no components"));
  }
  for (Tensor& c : components) {
    c = ValueOrThrow(ReadableOnCpu(c, "from_tensor_slices"));
    if (c.rank() == 0) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("from_tensor_slices: every component needs an axis 0 to slice, but got ",
                       ShapesOf(components))));
    }
  }
  const int64_t rows = components[0].shape().dim(0);
  for (const Tensor& c : components) {
    if (c.shape().dim(0) != rows) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "from_tensor_slices: the components' axis 0 sizes differ: ", ShapesOf(components))));
    }
  }
  return Dataset(std::make_shared<TensorSlicesNode>(std::move(components), rows));
}

Dataset Dataset::from_tensors(Element components) {
  for (Tensor& c : components) c = ValueOrThrow(ReadableOnCpu(c, "from_tensors"));
  return Dataset(std::make_shared<TensorsNode>(std::move(components)));
}

Dataset Dataset::range(int64_t stop) { return range(0, stop, 1); }

Dataset Dataset::range(int64_t start, int64_t stop, int64_t step) {
  if (step == 0) throw Error(absl::InvalidArgumentError("range: step must not be 0"));
  return Dataset(std::make_shared<RangeNode>(start, stop, step));
}

Dataset Dataset::from_generator(GeneratorFactory factory) {
  if (!factory) throw Error(absl::InvalidArgumentError("from_generator: an empty factory"));
  return Dataset(std::make_shared<GeneratorNode>(std::move(factory)));
}

}  // namespace duet::data
