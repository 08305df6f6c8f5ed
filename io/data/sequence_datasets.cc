// Rearranging whole sequences without touching elements: repeat, take, skip, shard,
// concatenate, zip.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "io/data/dataset.h"

namespace duet::data {
namespace {

class RepeatNode final : public DatasetNode {
 public:
  RepeatNode(Dataset input, int64_t count) : input_(std::move(input)), count_(count) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, std::move(context));
  }
  int64_t Cardinality() const override {
    const int64_t n = input_.cardinality();
    if (n == 0 || count_ == 0) return 0;
    if (count_ < 0) return kInfiniteCardinality;  // an unknown input too, as tf.data says
    return n < 0 ? n : n * count_;
  }

 private:
  // Each epoch iterates the input afresh (a shuffle before repeat reshuffles). An epoch that
  // yields nothing ends the repetition, so repeat() of an empty dataset ends.
  class Iterator final : public ElementIterator {
   public:
    Iterator(const RepeatNode* node, std::shared_ptr<IterationContext> context)
        : node_(node), context_(std::move(context)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (node_->count_ < 0 || epoch_ < node_->count_) {
        if (!input_) {
          input_ = node_->input_.MakeIterator(context_);
          produced_in_epoch_ = false;
        }
        DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
        if (!*end) {
          produced_in_epoch_ = true;
          return absl::OkStatus();
        }
        input_.reset();
        ++epoch_;
        if (!produced_in_epoch_) break;
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    const RepeatNode* node_;
    std::shared_ptr<IterationContext> context_;
    std::unique_ptr<ElementIterator> input_;
    int64_t epoch_ = 0;
    bool produced_in_epoch_ = false;
  };

  Dataset input_;
  int64_t count_;
};

// take (skip = false) and skip (skip = true).
class TakeSkipNode final : public DatasetNode {
 public:
  TakeSkipNode(Dataset input, int64_t count, bool skip)
      : input_(std::move(input)), count_(count), skip_(skip) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, input_.MakeIterator(std::move(context)));
  }
  int64_t Cardinality() const override {
    const int64_t n = input_.cardinality();
    if (skip_) {
      if (n < 0) return n;
      return count_ < 0 ? 0 : std::max<int64_t>(n - count_, 0);
    }
    if (count_ < 0) return n;
    if (n == kInfiniteCardinality) return count_;
    return n == kUnknownCardinality ? n : std::min(n, count_);
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(const TakeSkipNode* node, std::unique_ptr<ElementIterator> input)
        : node_(node), input_(std::move(input)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      const int64_t count = node_->count_;
      if (!node_->skip_) {
        *end = count >= 0 && seen_ >= count;
        if (*end) return absl::OkStatus();
        ++seen_;
        return input_->GetNext(out, end);
      }
      while (count < 0 || seen_ < count) {  // skip(-1) skips everything, as in tf.data
        ++seen_;
        DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
        if (*end) return absl::OkStatus();
      }
      return input_->GetNext(out, end);
    }

   private:
    const TakeSkipNode* node_;
    std::unique_ptr<ElementIterator> input_;
    int64_t seen_ = 0;
  };

  Dataset input_;
  int64_t count_;
  bool skip_;
};

// Elements index, index + num_shards, index + 2 * num_shards, ...: one worker's part.
class ShardNode final : public DatasetNode {
 public:
  ShardNode(Dataset input, int64_t num_shards, int64_t index)
      : input_(std::move(input)), num_shards_(num_shards), index_(index) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, input_.MakeIterator(std::move(context)));
  }
  int64_t Cardinality() const override {
    const int64_t n = input_.cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    Iterator(const ShardNode* node, std::unique_ptr<ElementIterator> input)
        : node_(node), input_(std::move(input)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      while (true) {
        DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
        if (*end) return absl::OkStatus();
        if (position_++ % node_->num_shards_ == node_->index_) return absl::OkStatus();
      }
    }

   private:
    const ShardNode* node_;
    std::unique_ptr<ElementIterator> input_;
    int64_t position_ = 0;
  };

  Dataset input_;
  int64_t num_shards_, index_;
};

class ConcatenateNode final : public DatasetNode {
 public:
  ConcatenateNode(Dataset first, Dataset second)
      : first_(std::move(first)), second_(std::move(second)) {}

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    return std::make_unique<Iterator>(this, std::move(context));
  }
  int64_t Cardinality() const override {
    const int64_t a = first_.cardinality(), b = second_.cardinality();
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) return kInfiniteCardinality;
    return a < 0 || b < 0 ? kUnknownCardinality : a + b;
  }

 private:
  // Elements carry no static types here, so the dtypes are checked as the second dataset's
  // elements arrive, against the first dataset's first element.
  class Iterator final : public ElementIterator {
   public:
    Iterator(const ConcatenateNode* node, std::shared_ptr<IterationContext> context)
        : node_(node), context_(context), input_(node->first_.MakeIterator(std::move(context))) {}

    absl::Status GetNext(Element* out, bool* end) override {
      DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
      if (!*end) return Check(*out);
      if (in_second_) return absl::OkStatus();
      in_second_ = true;
      input_ = node_->second_.MakeIterator(context_);
      DUET_RETURN_IF_ERROR(input_->GetNext(out, end));
      return *end ? absl::OkStatus() : Check(*out);
    }

   private:
    absl::Status Check(const Element& e) {
      if (!in_second_) {
        if (dtypes_.empty()) {
          for (const Tensor& t : e) dtypes_.push_back(t.dtype());
        }
        return absl::OkStatus();
      }
      if (dtypes_.empty()) return absl::OkStatus();  // the first dataset was empty
      bool same = e.size() == dtypes_.size();
      for (size_t i = 0; same && i < e.size(); ++i) same = e[i].dtype() == dtypes_[i];
      if (same) return absl::OkStatus();
      auto names = [](const std::vector<DType>& dtypes) {
        std::string s;
        for (DType d : dtypes) absl::StrAppend(&s, s.empty() ? "" : ", ", DTypeName(d));
        return absl::StrCat("(", s, ")");
      };
      std::vector<DType> got;
      for (const Tensor& t : e) got.push_back(t.dtype());
      return absl::InvalidArgumentError(
          absl::StrCat("concatenate: the second dataset's elements are ", names(got),
                       " but the first dataset's are ", names(dtypes_)));
    }

    const ConcatenateNode* node_;
    std::shared_ptr<IterationContext> context_;
    std::unique_ptr<ElementIterator> input_;
    bool in_second_ = false;
    std::vector<DType> dtypes_;
  };

  Dataset first_, second_;
};

class ZipNode final : public DatasetNode {
 public:
  explicit ZipNode(std::vector<Dataset> inputs) : inputs_(std::move(inputs)) {}

  // The shortest input's: infinite only if every input is.
  int64_t Cardinality() const override {
    int64_t shortest = kInfiniteCardinality;
    for (const Dataset& d : inputs_) {
      const int64_t n = d.cardinality();
      if (n == kUnknownCardinality) return n;
      if (n != kInfiniteCardinality) shortest = shortest < 0 ? n : std::min(shortest, n);
    }
    return shortest;
  }

  std::unique_ptr<ElementIterator> MakeIterator(
      std::shared_ptr<IterationContext> context) const override {
    std::vector<std::unique_ptr<ElementIterator>> inputs;
    for (const Dataset& d : inputs_) inputs.push_back(d.MakeIterator(context));
    return std::make_unique<Iterator>(std::move(inputs));
  }

 private:
  class Iterator final : public ElementIterator {
   public:
    explicit Iterator(std::vector<std::unique_ptr<ElementIterator>> inputs)
        : inputs_(std::move(inputs)) {}

    absl::Status GetNext(Element* out, bool* end) override {
      out->clear();
      *end = false;
      for (auto& input : inputs_) {
        Element part;
        DUET_RETURN_IF_ERROR(input->GetNext(&part, end));
        if (*end) return absl::OkStatus();
        for (Tensor& t : part) out->push_back(std::move(t));
      }
      return absl::OkStatus();
    }

   private:
    std::vector<std::unique_ptr<ElementIterator>> inputs_;
  };

  std::vector<Dataset> inputs_;
};

}  // namespace

Dataset Dataset::repeat(int64_t count) const {
  return Dataset(std::make_shared<RepeatNode>(*this, count));
}

Dataset Dataset::take(int64_t count) const {
  return Dataset(std::make_shared<TakeSkipNode>(*this, count, /*skip=*/false));
}

Dataset Dataset::skip(int64_t count) const {
  return Dataset(std::make_shared<TakeSkipNode>(*this, count, /*skip=*/true));
}

Dataset Dataset::shard(int64_t num_shards, int64_t index) const {
  if (num_shards < 1 || index < 0 || index >= num_shards) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "shard: index ", index, " is not in [0, num_shards) for num_shards ", num_shards)));
  }
  return Dataset(std::make_shared<ShardNode>(*this, num_shards, index));
}

Dataset Dataset::auto_shard(int64_t num_shards, int64_t index) const {
  const Dataset by_elements = shard(num_shards, index);  // checks the arguments
  std::shared_ptr<const DatasetNode> by_files = node_->ShardFiles(num_shards, index);
  return by_files != nullptr ? Dataset(std::move(by_files)) : by_elements;
}

Dataset Dataset::concatenate(const Dataset& other) const {
  return Dataset(std::make_shared<ConcatenateNode>(*this, other));
}

Dataset Dataset::zip(std::vector<Dataset> datasets) {
  if (datasets.empty()) throw Error(absl::InvalidArgumentError("zip: no datasets"));
  return Dataset(std::make_shared<ZipNode>(std::move(datasets)));
}

}  // namespace duet::data
