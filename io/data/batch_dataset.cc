// batch, padded_batch and unbatch: rows copied straight into fresh tensors (element_copy.h).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "io/data/dataset.h"
#include "io/data/element_copy.h"

namespace duet::data {
namespace {

// How padded_batch pads; batch when absent.
struct Padding {
  std::vector<Shape> shapes;  // per component; -1 dims: the batch's largest; empty: all largest
  Element values;             // per component scalars; empty: zeros
};

class BatchNode final : public DatasetNode {
 public:
  BatchNode(Dataset input, int64_t batch_size, bool drop_remainder, std::optional<Padding> padding)
      : input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        padding_(std::move(padding)) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, input_.MakeIterator(std::move(context)));
  }
  int64_t Cardinality() const override {
    const int64_t n = input_.cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(const BatchNode* node, std::unique_ptr<ElementIterator> input)
        : node_(node), input_(std::move(input)) {}

    absl::Status GetNext(Element* out, bool* end) override;

   private:
    absl::StatusOr<Tensor> Combine(size_t component, const std::vector<Tensor>& rows) const;

    const BatchNode* node_;
    std::unique_ptr<ElementIterator> input_;
    int64_t index_ = 0;  // of the next input element
    bool input_done_ = false;
    std::vector<Element> pending_;
  };

  absl::StatusOr<Tensor> Pad(size_t component, const std::vector<Tensor>& rows,
                             int64_t first_index) const;

  Dataset input_;
  int64_t batch_size_;
  bool drop_remainder_;
  std::optional<Padding> padding_;
};

absl::Status BatchNode::Iterator::GetNext(Element* out, bool* end) {
  pending_.clear();
  const int64_t first_index = index_;
  while (!input_done_ && static_cast<int64_t>(pending_.size()) < node_->batch_size_) {
    Element e;
    ++index_;
    DUET_RETURN_IF_ERROR(input_->GetNext(&e, &input_done_));
    if (!input_done_) pending_.push_back(std::move(e));
  }
  const int64_t n = static_cast<int64_t>(pending_.size());
  *end = n == 0 || (node_->drop_remainder_ && n < node_->batch_size_);
  if (*end) return absl::OkStatus();
  const size_t components = pending_[0].size();
  out->clear();
  std::vector<Tensor> rows(n);
  for (size_t c = 0; c < components; ++c) {
    for (int64_t i = 0; i < n; ++i) {
      if (pending_[i].size() != components) {
        return absl::InvalidArgumentError(absl::StrCat(
            node_->padding_ ? "padded_batch" : "batch", ": element ", first_index + i, " has ",
            pending_[i].size(), " components but element ", first_index, " has ", components));
      }
      DUET_ASSIGN_OR_RETURN(rows[i], ReadableOnCpu(pending_[i][c], "batch"));
    }
    absl::StatusOr<Tensor> combined =
        node_->padding_ ? node_->Pad(c, rows, first_index)
                        : StackRows(rows, first_index, absl::StrCat("batch: component ", c));
    if (!combined.ok()) return combined.status();
    out->push_back(*std::move(combined));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> BatchNode::Pad(size_t component, const std::vector<Tensor>& rows,
                                      int64_t first_index) const {
  const std::string what = absl::StrCat("padded_batch: component ", component);
  const Tensor& first = rows[0];
  Shape shape = first.shape();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].dtype() != first.dtype() || rows[i].rank() != first.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": element ", first_index + static_cast<int64_t>(i), " is ",
                       DTypeName(rows[i].dtype()), " ", rows[i].shape().str(), " but element ",
                       first_index, " is ", DTypeName(first.dtype()), " ", first.shape().str(),
                       " (padding needs one dtype and rank)"));
    }
    for (int a = 0; a < shape.rank(); ++a) {
      shape.set_dim(a, std::max(shape.dim(a), rows[i].shape().dim(a)));
    }
  }
  if (component < padding_->shapes.size()) {
    const Shape& asked = padding_->shapes[component];
    if (asked.rank() != shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": padded shape ", asked.str(),
                                                     " has another rank than the elements' ",
                                                     shape.str()));
    }
    for (int a = 0; a < shape.rank(); ++a) {
      if (asked.dim(a) < 0) continue;
      if (asked.dim(a) < shape.dim(a)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": an element of the batch starting at element ", first_index, " has shape ",
            shape.str(), ", larger than the padded shape ", asked.str(), " in axis ", a));
      }
      shape.set_dim(a, asked.dim(a));
    }
  }
  Tensor value;
  if (component < padding_->values.size()) {
    DUET_ASSIGN_OR_RETURN(value, ReadableOnCpu(padding_->values[component], what));
    if (value.num_elements() != 1 || value.dtype() != first.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the padding value must be a ", DTypeName(first.dtype()),
                       " scalar, not ", DTypeName(value.dtype()), " ", value.shape().str()));
    }
  } else {
    value = Tensor::Empty(first.dtype(), Shape{});  // a kString one holds "" already
    if (first.dtype() != kString) std::memset(value.raw_data(), 0, DTypeSize(first.dtype()));
  }
  return PadAndStackRows(rows, shape, value);
}

class UnbatchNode final : public DatasetNode {
 public:
  explicit UnbatchNode(Dataset input) : input_(std::move(input)) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(input_.MakeIterator(std::move(context)));
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(std::unique_ptr<ElementIterator> input) : input_(std::move(input)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (row_ >= rows_) {
        *end = false;
        Element batch;
        const int64_t index = index_++;
        DUET_RETURN_IF_ERROR(input_->GetNext(&batch, end));
        if (*end) return absl::OkStatus();
        DUET_RETURN_IF_ERROR(Start(std::move(batch), index));
      }
      out->clear();
      for (const Tensor& c : batch_) out->push_back(SliceRow(c, row_));
      ++row_;
      return absl::OkStatus();
    }

   private:
    absl::Status Start(Element batch, int64_t index) {
      for (Tensor& c : batch) {
        DUET_ASSIGN_OR_RETURN(c, ReadableOnCpu(c, "unbatch"));
        if (c.rank() == 0 || c.shape().dim(0) != batch[0].shape().dim(0)) {
          std::string shapes;
          for (const Tensor& t : batch) absl::StrAppend(&shapes, " ", t.shape().str());
          return absl::InvalidArgumentError(
              absl::StrCat("unbatch: element ", index,
                           " needs components with the same axis 0 size, but has shapes", shapes));
        }
      }
      batch_ = std::move(batch);
      row_ = 0;
      rows_ = batch_.empty() ? 0 : batch_[0].shape().dim(0);
      return absl::OkStatus();
    }

    std::unique_ptr<ElementIterator> input_;
    Element batch_;
    int64_t row_ = 0, rows_ = 0;
    int64_t index_ = 0;
  };

  Dataset input_;
};

void CheckBatchSize(const char* what, int64_t batch_size) {
  if (batch_size <= 0) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(what, ": batch_size must be positive, not ", batch_size)));
  }
}

}  // namespace

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  CheckBatchSize("batch", batch_size);
  return Dataset(std::make_shared<BatchNode>(*this, batch_size, drop_remainder, std::nullopt));
}

Dataset Dataset::padded_batch(int64_t batch_size, std::vector<Shape> padded_shapes,
                              Element padding_values, bool drop_remainder) const {
  CheckBatchSize("padded_batch", batch_size);
  return Dataset(
      std::make_shared<BatchNode>(*this, batch_size, drop_remainder,
                                  Padding{std::move(padded_shapes), std::move(padding_values)}));
}

Dataset Dataset::unbatch() const { return Dataset(std::make_shared<UnbatchNode>(*this)); }

}  // namespace duet::data
