// The whole pass pipeline on thousands of random well-typed graphs: each graph runs unoptimized
// and optimized on the same inputs and the kept outputs must agree (float64 within 1e-9
// relative, float32 within 1e-4: the fusions round differently; see Mismatch). Ops whose
// domain or range could blow up come wrapped (log(|x| + 1), x / (|y| + 1), exp(tanh(x))), and
// the generator tracks a bound on every value to keep magnitudes sane. It builds what the
// passes look for (constant subgraphs, repeated subexpressions, x * 1 and friends, reshapes and
// transposes of reshapes and transposes, dense and convolution + batch norm layers, hand-written
// softmax cross-entropies) among ordinary ops, and the test requires every pass to have fired,
// so it cannot pass vacuously.
//
// A failure prints the seed, the mismatch and both graphs. DUET_RANDOM_GRAPH_SEED=s reruns graph
// s alone; DUET_RANDOM_GRAPHS=n runs n graphs (from seed s, else 1), e.g. a longer soak:
//   DUET_RANDOM_GRAPHS=200000 DUET_RANDOM_GRAPH_SEED=5001
//   bazel-bin/tests/graph/passes/random_graph_test
// (or bazel test ... --test_env=DUET_RANDOM_GRAPH_SEED=1234).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/passes/graph_dump.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// Sanitizer builds run several times slower: fewer graphs keep the test within its timeout.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int64_t kGraphs = 500;
#else
constexpr int64_t kGraphs = 5000;
#endif

// Values stay small: no op makes more elements than this or magnitudes beyond MaxBound.
constexpr int64_t kMaxElements = 64;
double MaxBound(DType dtype) { return dtype == kFloat64 ? 1e6 : 1e3; }

// One tensor of the graph being built.
struct Value {
  Tensor tensor;  // symbolic
  Shape shape;    // the concrete shape it has when run (the graph may know less: -1 dims)
  double bound;   // no element's magnitude exceeds this
  bool placeholder;
};

// How a value was made, to make it again (the same op on the same inputs: work for CSE).
struct Recipe {
  std::function<Tensor()> make;
  Shape shape;
  double bound;
};

struct RandomGraph {
  Graph graph;
  FeedList feeds;
  std::vector<std::string> fetches;
  std::vector<double> fetch_bounds;  // the magnitudes each fetch is computed from, at most
};

// `shape` with a leading dim of 2.
Shape Prepend2(const Shape& shape) {
  Shape s{2};
  for (int64_t d : shape.dims()) s.push_back(d);
  return s;
}

// NumPy broadcasting of two concrete shapes, or nullopt when they do not broadcast.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  Shape out;
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    const int64_t da = ia < 0 ? 1 : a[ia], db = ib < 0 ? 1 : b[ib];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out.push_back(std::max(da, db));
  }
  return out;
}

class GraphGenerator {
 public:
  GraphGenerator(uint64_t seed, DType dtype) : rng_(seed), dtype_(dtype) {}

  RandomGraph Generate() {
    RandomGraph result;
    {
      GraphScope scope(result.graph);
      AddLeaves();
      const int steps = Uniform(6, 24);
      for (int made = 0, tries = 0; made < steps && tries < 20 * steps; ++tries) {
        made += Step() ? 1 : 0;
      }
    }
    result.feeds = std::move(feeds_);
    ChooseFetches(result);
    return result;
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Uniform(0, static_cast<int>(items.size()) - 1)];
  }

  // A tensor of dtype_ with values uniform in [lo, hi].
  Tensor RandomTensor(const Shape& shape, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> values(shape.num_elements());
    for (double& v : values) v = dist(rng_);
    return Materialize(values, shape);
  }
  Tensor Materialize(const std::vector<double>& values, const Shape& shape) const {
    if (dtype_ == kFloat64) return from_vector(values, shape);
    return from_vector(std::vector<float>(values.begin(), values.end()), shape);
  }
  Tensor Filled(const Shape& shape, double x) const {
    return Materialize(std::vector<double>(shape.num_elements(), x), shape);
  }
  static double MaxAbs(const Tensor& t) {
    double m = 0;
    for (double v : testing::ToDoubles(t)) m = std::max(m, std::abs(v));
    return m;
  }

  Shape RandomShape(int min_rank, int max_rank) {
    Shape s;
    const int rank = Uniform(min_rank, max_rank);
    for (int i = 0; i < rank; ++i) s.push_back(Uniform(1, 4));
    return s;
  }

  Value& Push(Tensor tensor, Shape shape, double bound, bool placeholder = false) {
    if (!tensor.shape().IsCompatibleWith(shape)) {  // the generator's own shape arithmetic
      FAIL("the graph says " << tensor.shape().str() << ", the generator " << shape.str());
    }
    values_.push_back({std::move(tensor), std::move(shape), bound, placeholder});
    return values_.back();
  }

  // Makes a value from `make` and remembers how, for Repeat.
  bool Apply(std::function<Tensor()> make, Shape shape, double bound) {
    if (bound > MaxBound(dtype_) || shape.num_elements() > kMaxElements) return false;
    Push(make(), shape, bound);
    recipes_.push_back({std::move(make), std::move(shape), bound});
    return true;
  }

  void AddPlaceholder(const Shape& shape) {
    Shape declared = shape;
    if (shape.rank() > 0 && Chance(0.25)) declared.set_dim(0, -1);  // known only when fed
    const std::string name = absl::StrCat("p", feeds_.size());
    Push(placeholder(dtype_, declared, OpSite(name)), shape, 2, /*placeholder=*/true);
    feeds_.emplace_back(name, RandomTensor(shape, -2, 2));
  }

  void AddConst(const Shape& shape) { Push(const_op(RandomTensor(shape, -2, 2)), shape, 2); }

  // Inputs: a matrix and an NHWC image often, so that the layers have something to work on.
  void AddLeaves() {
    if (Chance(0.8)) AddPlaceholder(Shape{Uniform(1, 3), Uniform(1, 4)});
    if (Chance(0.4)) AddPlaceholder(Shape{Uniform(1, 2), Uniform(2, 3), Uniform(2, 3), 2});
    for (int i = Uniform(1, 3); i > 0; --i) AddPlaceholder(RandomShape(0, 3));
    for (int i = Uniform(1, 3); i > 0; --i) AddConst(RandomShape(0, 2));
  }

  // A value, often one of the newest, so that chains grow deep.
  const Value& AnyValue() {
    if (!Chance(0.5)) return Pick(values_);
    return values_[values_.size() - 1 - Uniform(0, std::min<int>(2, values_.size() - 1))];
  }

  // A value of rank `rank`, or nullptr.
  const Value* ValueOfRank(int rank) {
    std::vector<const Value*> found;
    for (const Value& v : values_) {
      if (v.shape.rank() == rank) found.push_back(&v);
    }
    return found.empty() ? nullptr : Pick(found);
  }

  // One random op (or small pattern); false when it did not fit.
  bool Step() {
    using Op = bool (GraphGenerator::*)();
    static const std::vector<std::pair<Op, int>> kOps = {
        {&GraphGenerator::Unary, 6},          {&GraphGenerator::Binary, 8},
        {&GraphGenerator::ConstantBinary, 2}, {&GraphGenerator::Neutral, 3},
        {&GraphGenerator::DoubleNegation, 1}, {&GraphGenerator::CastRoundTrip, 1},
        {&GraphGenerator::Reshape, 2},        {&GraphGenerator::Transpose, 2},
        {&GraphGenerator::BroadcastTo, 1},    {&GraphGenerator::Reduce, 2},
        {&GraphGenerator::Dense, 2},          {&GraphGenerator::ConvBatchNorm, 2},
        {&GraphGenerator::Repeat, 3},         {&GraphGenerator::Split, 1},
        {&GraphGenerator::ShapeOps, 2},       {&GraphGenerator::CrossEntropy, 1},
    };
    int total = 0;
    for (const auto& op : kOps) total += op.second;
    int r = Uniform(0, total - 1);
    for (const auto& [op, weight] : kOps) {
      if (r < weight) return (this->*op)();
      r -= weight;
    }
    return false;
  }

  bool Unary() {
    const Value x = AnyValue();
    const Tensor t = x.tensor;
    const double b = x.bound;
    switch (Uniform(0, 11)) {
      case 0:
        return Apply([t] { return negative(t); }, x.shape, b);
      case 1:
        return Apply([t] { return abs(t); }, x.shape, b);
      case 2:
        return Apply([t] { return relu(t); }, x.shape, b);
      case 3:
        return Apply([t] { return tanh(t); }, x.shape, 1);
      case 4:
        return Apply([t] { return sigmoid(t); }, x.shape, 1);
      case 5:
        return Apply([t] { return relu6(t); }, x.shape, 6);
      case 6:
        return Apply([t] { return elu(t); }, x.shape, std::max(b, 1.0));
      case 7:
        return Apply([t] { return square(t); }, x.shape, b * b);
      case 8:
        return Apply([t] { return softplus(t); }, x.shape, b + 1);
      case 9:
        return Apply([t] { return exp(tanh(t)); }, x.shape, std::exp(1.0));
      case 10: {  // log(|x| + 1): defined everywhere
        const Tensor one = Filled({}, 1);
        return Apply([t, one] { return log(abs(t) + const_op(one)); }, x.shape, std::log1p(b));
      }
      default:
        return Apply([t] { return sqrt(abs(t)); }, x.shape, std::sqrt(b));
    }
  }

  // A second operand for `x`: a value that broadcasts with it, or a new constant.
  Value Operand(const Value& x) {
    if (Chance(0.6)) {
      std::vector<const Value*> fits;
      for (const Value& v : values_) {
        std::optional<Shape> s = Broadcast(x.shape, v.shape);
        if (s && s->num_elements() <= kMaxElements) fits.push_back(&v);
      }
      if (!fits.empty()) return *Pick(fits);
    }
    Shape shape;  // a scalar, a vector along the last dim, or x's shape
    const int kind = Uniform(0, 2);
    if (kind == 1 && x.shape.rank() > 0) shape = Shape{x.shape[x.shape.rank() - 1]};
    if (kind == 2) shape = x.shape;
    const Tensor c = RandomTensor(shape, -2, 2);
    return {const_op(c), shape, MaxAbs(c), false};
  }

  bool BinaryOf(const Value& x, const Value& y) {
    const std::optional<Shape> shape = Broadcast(x.shape, y.shape);
    if (!shape) return false;
    const Tensor a = x.tensor, b = y.tensor;
    const double ba = x.bound, bb = y.bound;
    switch (Uniform(0, 5)) {
      case 0:
        return Apply([a, b] { return add(a, b); }, *shape, ba + bb);
      case 1:
        return Apply([a, b] { return subtract(a, b); }, *shape, ba + bb);
      case 2:
        return Apply([a, b] { return multiply(a, b); }, *shape, ba * bb);
      case 3: {  // a / (|b| + 1): no division by zero
        const Tensor one = Filled({}, 1);
        return Apply([a, b, one] { return divide(a, abs(b) + const_op(one)); }, *shape, ba);
      }
      case 4:
        return Apply([a, b] { return maximum(a, b); }, *shape, std::max(ba, bb));
      default:
        return Apply([a, b] { return minimum(a, b); }, *shape, std::max(ba, bb));
    }
  }

  bool Binary() {
    const Value x = AnyValue();
    const Value y = Operand(x);
    return Chance(0.5) ? BinaryOf(x, y) : BinaryOf(y, x);
  }

  // An op on constants only: a subgraph constant folding evaluates.
  bool ConstantBinary() {
    const Shape shape = RandomShape(0, 2);
    const Tensor a = RandomTensor(shape, -2, 2), b = RandomTensor(shape, -2, 2);
    return BinaryOf({const_op(a), shape, 2, false}, {const_op(b), shape, 2, false});
  }

  // x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1 with 1 and 0 of x's shape, a scalar, or a shape
  // that broadcasts x (which must not simplify).
  bool Neutral() {
    const Value x = AnyValue();
    const Tensor t = x.tensor;
    Shape shape = Pick(std::vector<Shape>{Shape{}, x.shape, Prepend2(x.shape)});
    const std::optional<Shape> out = Broadcast(x.shape, shape);
    const int rule = Uniform(0, 5);
    const Tensor c = Filled(shape, rule < 2 || rule == 5 ? 1 : 0);
    switch (rule) {
      case 0:
        return Apply([t, c] { return multiply(t, const_op(c)); }, *out, x.bound);
      case 1:
        return Apply([t, c] { return multiply(const_op(c), t); }, *out, x.bound);
      case 2:
        return Apply([t, c] { return add(t, const_op(c)); }, *out, x.bound);
      case 3:
        return Apply([t, c] { return add(const_op(c), t); }, *out, x.bound);
      case 4:
        return Apply([t, c] { return subtract(t, const_op(c)); }, *out, x.bound);
      default:
        return Apply([t, c] { return divide(t, const_op(c)); }, *out, x.bound);
    }
  }

  bool DoubleNegation() {
    const Value x = AnyValue();
    const Tensor t = x.tensor;
    if (Chance(0.5)) return Apply([t] { return identity(t); }, x.shape, x.bound);
    return Apply([t] { return negative(negative(t)); }, x.shape, x.bound);
  }

  // Through the other float type and back: exact in float32; in float64 a step, which would
  // turn the rounding differences of folded batch norms into large ones, so only before those.
  bool CastRoundTrip() {
    if (dtype_ == kFloat64 && folds_batch_norm_) return false;
    const Value x = AnyValue();
    const Tensor t = x.tensor;
    const DType other = dtype_ == kFloat64 ? kFloat32 : kFloat64, dtype = dtype_;
    return Apply([t, other, dtype] { return cast(cast(t, other), dtype); }, x.shape, x.bound);
  }

  // A random shape with `n` elements.
  Shape Factor(int64_t n) {
    Shape s;
    for (int rank = Uniform(1, 3); rank > 1; --rank) {
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= n; ++d) {
        if (n % d == 0) divisors.push_back(d);
      }
      const int64_t d = Pick(divisors);
      s.push_back(d);
      n /= d;
    }
    s.push_back(n);
    return s;
  }

  // Reshape to a random shape, to its own shape, or twice in a row.
  bool Reshape() {
    const Value x = AnyValue();
    if (!x.tensor.shape().is_fully_defined()) return false;
    const Tensor t = x.tensor;
    const int64_t n = x.shape.num_elements();
    const Shape s1 = Chance(0.3) ? x.shape : Factor(n), s2 = Factor(n);
    if (Chance(0.5)) return Apply([t, s1] { return reshape(t, s1); }, s1, x.bound);
    return Apply([t, s1, s2] { return reshape(reshape(t, s1), s2); }, s2, x.bound);
  }

  std::vector<int64_t> Permutation(int rank) {
    std::vector<int64_t> p(rank);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng_);
    return p;
  }

  // Transpose, or two in a row (sometimes cancelling).
  bool Transpose() {
    const Value x = AnyValue();
    if (x.shape.rank() < 2) return false;
    const Tensor t = x.tensor;
    const std::vector<int64_t> p1 = Permutation(x.shape.rank());
    std::vector<int64_t> p2 = Permutation(x.shape.rank());
    if (Chance(0.5)) {
      for (size_t i = 0; i < p1.size(); ++i) p2[p1[i]] = static_cast<int64_t>(i);  // inverse
    }
    Shape s1, s2;
    for (int64_t d : p1) s1.push_back(x.shape[d]);
    for (int64_t d : p2) s2.push_back(s1[d]);
    if (Chance(0.4)) return Apply([t, p1] { return transpose(t, p1); }, s1, x.bound);
    return Apply([t, p1, p2] { return transpose(transpose(t, p1), p2); }, s2, x.bound);
  }

  // One piece of Split: a node with several outputs, of which the others go unread.
  bool Split() {
    const Value x = AnyValue();
    if (x.shape.rank() == 0) return false;
    const int axis = Uniform(0, x.shape.rank() - 1);
    const int64_t n = Pick(std::vector<int64_t>{1, 2, 3});
    if (x.shape[axis] % n != 0) return false;
    const int64_t piece = Uniform(0, static_cast<int>(n) - 1);
    Shape s = x.shape;
    s.set_dim(axis, s[axis] / n);
    const Tensor t = x.tensor;
    return Apply([t, n, axis, piece] { return split(t, n, axis)[piece]; }, s, x.bound);
  }

  // Ops that read only shapes, which constant folding evaluates when the shapes are static:
  // reshape(x, shape_of(y)), x + zeros_like(y), x * ones_like(y).
  bool ShapeOps() {
    const Value x = AnyValue();
    const Tensor t = x.tensor;
    std::vector<const Value*> same_size, same_shape;
    for (const Value& v : values_) {
      if (v.shape.num_elements() == x.shape.num_elements()) same_size.push_back(&v);
      if (v.shape == x.shape) same_shape.push_back(&v);
    }
    const int op = Uniform(0, 2);
    const Value& y = *Pick(op == 0 ? same_size : same_shape);
    const Tensor u = y.tensor;
    switch (op) {
      case 0:
        return Apply([t, u] { return reshape(t, shape_of(u)); }, y.shape, x.bound);
      case 1:
        return Apply([t, u] { return add(t, zeros_like(u)); }, y.shape, x.bound);
      default:
        return Apply([t, u] { return multiply(t, ones_like(u)); }, y.shape, x.bound);
    }
  }

  // BroadcastTo x's own shape (a no-op) or to a larger one.
  bool BroadcastTo() {
    const Value x = AnyValue();
    if (!x.tensor.shape().is_fully_defined()) return false;
    const Tensor t = x.tensor;
    const Shape s = Chance(0.5) ? x.shape : Prepend2(x.shape);
    return Apply([t, s] { return broadcast_to(t, s); }, s, x.bound);
  }

  bool Reduce() {
    const Value x = AnyValue();
    if (x.shape.rank() == 0) return false;
    const Tensor t = x.tensor;
    const int axis = Uniform(0, x.shape.rank() - 1);
    const bool keep_dims = Chance(0.5), mean = Chance(0.5);
    Shape s;
    for (int i = 0; i < x.shape.rank(); ++i) {
      if (i != axis) s.push_back(x.shape[i]);
      if (i == axis && keep_dims) s.push_back(1);
    }
    if (mean) {
      return Apply([t, axis, keep_dims] { return reduce_mean(t, axis, keep_dims); }, s, x.bound);
    }
    return Apply([t, axis, keep_dims] { return reduce_sum(t, axis, keep_dims); }, s,
                 x.bound * x.shape[axis]);
  }

  // act(x · w + b) with constant w and b: what fuse_bias_activation fuses (float32).
  bool Dense() {
    const Value* x = ValueOfRank(2);
    if (x == nullptr) return false;
    const int64_t k = x->shape[1], n = Uniform(1, 4);
    const Tensor t = x->tensor, w = RandomTensor({k, n}, -1, 1), b = RandomTensor({n}, -1, 1);
    const bool add_v2 = Chance(0.3);
    const int act = Uniform(0, 5);
    const double bound = act == 2 || act == 3 ? 1 : x->bound * k + 1;
    auto make = [t, w, b, add_v2, act] {
      Tensor y = matmul(t, const_op(w));
      y = add_v2 ? add(y, const_op(b)) : bias_add(y, const_op(b));
      switch (act) {
        case 0:
          return relu(y);
        case 1:
          return elu(y);
        case 2:
          return tanh(y);
        case 3:
          return sigmoid(y);
        default:
          return y;
      }
    };
    return Apply(make, Shape{x->shape[0], n}, bound);
  }

  // [relu](batch_norm(conv2d(x, w) [+ bias])) with constants: what fold_batch_norm folds.
  bool ConvBatchNorm() {
    const Value* x = ValueOfRank(4);
    if (x == nullptr) return false;
    const Shape& in = x->shape;
    const int64_t kh = Uniform(1, static_cast<int>(in[1])), kw = Uniform(1, 2);
    const int64_t out_channels = Uniform(1, 3);
    const bool same = kw > in[2] || Chance(0.5);
    const Tensor t = x->tensor, w = RandomTensor({kh, kw, in[3], out_channels}, -1, 1);
    const Tensor bias = RandomTensor({out_channels}, -1, 1);
    const Tensor scale = RandomTensor({out_channels}, -2, 2),
                 offset = RandomTensor({out_channels}, -1, 1),
                 mean = RandomTensor({out_channels}, -1, 1),
                 variance = RandomTensor({out_channels}, 0.5, 2);
    const int with_bias = Uniform(0, 2);  // none, BiasAdd, AddV2
    const bool with_relu = Chance(0.5);
    auto make = [=] {
      Tensor y = conv2d(t, const_op(w), {1, 1, 1, 1}, same ? "SAME" : "VALID");
      if (with_bias == 1) y = bias_add(y, const_op(bias));
      if (with_bias == 2) y = add(y, const_op(bias));
      y = fused_batch_norm(y, const_op(scale), const_op(offset), const_op(mean), const_op(variance),
                           1e-3f, false)
              .y;
      return with_relu ? relu(y) : y;
    };
    const Shape s{in[0], same ? in[1] : in[1] - kh + 1, same ? in[2] : in[2] - kw + 1,
                  out_channels};
    const double conv = x->bound * kh * kw * in[3] + 1;
    folds_batch_norm_ = Apply(make, s, (conv + MaxAbs(mean)) * 2 / std::sqrt(0.5) + 1);
    return folds_batch_norm_;
  }

  // -sum(y * L, last axis) with L = log_softmax(z) or log(softmax(z)), the product's operands
  // either way round: the softmax cross-entropy fuse_softmax_cross_entropy fuses. The logits are
  // small enough that no probability underflows (unfused, log(0) = -inf would give inf or NaN
  // where the fused op is finite); the labels are a value of the logits' shape or a constant
  // distribution per row.
  bool CrossEntropy() {
    std::vector<const Value*> logits;
    for (const Value& v : values_) {
      if (v.shape.rank() == 2 && v.bound <= 30) logits.push_back(&v);
    }
    if (logits.empty()) return false;
    const Value& x = *Pick(logits);
    std::vector<const Value*> labels;
    for (const Value& v : values_) {
      if (v.shape == x.shape) labels.push_back(&v);
    }
    const Tensor z = x.tensor;
    Tensor y, distribution;
    double label_bound = 1;
    if (Chance(0.5)) {
      const Value& v = *Pick(labels);  // x itself at least
      y = v.tensor;
      label_bound = v.bound;
    } else {
      std::vector<double> p = testing::ToDoubles(RandomTensor(x.shape, 0, 1));
      const int64_t classes = x.shape[1];
      for (size_t row = 0; row < p.size(); row += classes) {
        double total = 0;
        for (int64_t c = 0; c < classes; ++c) total += p[row + c];
        for (int64_t c = 0; c < classes; ++c) p[row + c] /= total;
      }
      distribution = Materialize(p, x.shape);
    }
    const bool log_of_softmax = Chance(0.5), labels_first = Chance(0.5);
    const int axis = Chance(0.5) ? -1 : 1;
    auto make = [=] {
      const Tensor l = log_of_softmax ? log(softmax(z)) : log_softmax(z);
      const Tensor u = y.defined() ? y : const_op(distribution);
      return negative(reduce_sum(labels_first ? multiply(u, l) : multiply(l, u), axis));
    };
    const int64_t classes = x.shape[1];
    return Apply(make, Shape{x.shape[0]},
                 classes * label_bound * (2 * x.bound + std::log(static_cast<double>(classes))));
  }

  // The same op on the same inputs as an earlier one.
  bool Repeat() {
    if (recipes_.empty()) return false;
    const Recipe recipe = Pick(recipes_);
    return Apply(recipe.make, recipe.shape, recipe.bound);
  }

  // The last value and up to three other results (values nothing reads), never placeholders.
  void ChooseFetches(RandomGraph& g) {
    absl::flat_hash_set<const Node*> read;
    for (const Node* node : g.graph.nodes()) {
      for (const NodeOutput& in : node->inputs()) read.insert(in.node);
    }
    std::vector<const Value*> results;
    for (const Value& v : values_) {
      if (!v.placeholder && !read.contains(g.graph.OutputOf(v.tensor)->node)) results.push_back(&v);
    }
    std::shuffle(results.begin(), results.end(), rng_);
    results.resize(std::min<size_t>(results.size(), 3));
    results.insert(results.begin(), &values_.back());
    for (const Value* v : results) {
      const std::string name = Node::EdgeName(*g.graph.OutputOf(v->tensor));
      if (v->placeholder || absl::c_linear_search(g.fetches, name)) continue;
      g.fetches.push_back(name);
      g.fetch_bounds.push_back(v->bound);
    }
  }

  std::mt19937_64 rng_;
  DType dtype_;
  std::vector<Value> values_;
  std::vector<Recipe> recipes_;
  FeedList feeds_;
  bool folds_batch_norm_ = false;
};

// The first element where `after` differs from `before`, described; "" when they agree. Rounding
// differences of the fusions grow with the magnitudes a value is computed from (`bound`), so the
// tolerance has a part relative to the value and one relative to those.
std::string Mismatch(const Tensor& before, const Tensor& after, double bound) {
  const bool f64 = before.dtype() == kFloat64;
  const double relative = f64 ? 1e-9 : 1e-4;
  const double absolute = 16 * (f64 ? 0x1p-52 : 0x1p-23) * bound;
  if (before.dtype() != after.dtype() || before.shape() != after.shape()) {
    return absl::StrCat(DTypeName(before.dtype()), " ", before.shape().str(), " before, ",
                        DTypeName(after.dtype()), " ", after.shape().str(), " after");
  }
  const std::vector<double> a = testing::ToDoubles(before), b = testing::ToDoubles(after);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool same = a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])) ||
                      std::abs(a[i] - b[i]) <= relative * (1 + std::abs(a[i])) + absolute;
    if (!same) return absl::StrCat("element ", i, ": ", a[i], " before, ", b[i], " after");
  }
  return "";
}

// What the run saw, for the summary and the no-vacuity check.
struct Statistics {
  int graphs = 0, float32_graphs = 0;
  int64_t nodes_before = 0, nodes_after = 0;
  std::map<std::string, int> graphs_changed_by;  // pass -> graphs it changed
  std::map<std::string, int64_t> counters;

  void Add(const PassReport& report, DType dtype) {
    ++graphs;
    float32_graphs += dtype == kFloat32;
    nodes_before += report.nodes_before;
    nodes_after += report.nodes_after;
    std::map<std::string, bool> changed;
    for (const PassRun& run : report.runs) {
      changed[run.pass] |= run.changed;
      for (const auto& [name, value] : run.counters) counters[name] += value;
    }
    for (const auto& [pass, did] : changed) graphs_changed_by[pass] += did;
  }

  std::string str() const {
    std::string out =
        absl::StrCat("random graphs: ", graphs, " (", float32_graphs, " float32), nodes ",
                     nodes_before, " -> ", nodes_after, " after optimizing\n");
    for (const std::string& pass : PassNames()) {
      const auto it = graphs_changed_by.find(pass);
      absl::StrAppend(&out, "  ", pass, " changed ", it == graphs_changed_by.end() ? 0 : it->second,
                      " graphs\n");
    }
    for (const auto& [name, value] : counters) {
      absl::StrAppend(&out, "    ", name, " ", value, "\n");
    }
    return out;
  }
};

// Builds graph `seed`, optimizes a copy keeping the fetches, runs both and compares. Returns
// an empty string, or what went wrong with everything needed to reproduce it.
std::string CheckOne(uint64_t seed, Statistics& stats) {
  const DType dtype = seed % 4 == 0 ? kFloat32 : kFloat64;
  RandomGraph g = GraphGenerator(seed, dtype).Generate();
  auto describe = [&](const std::string& what, const Graph* optimized, const PassReport* report) {
    std::string text = absl::StrCat("seed ", seed, " (", DTypeName(dtype), "): ", what,
                                    "\nfetches: ", absl::StrJoin(g.fetches, ", "), "\ngraph:\n",
                                    GraphText::Of(g.graph).str());
    if (report != nullptr) absl::StrAppend(&text, report->str());
    if (optimized != nullptr) {
      absl::StrAppend(&text, "optimized:\n", GraphText::Of(*optimized).str());
    }
    return text;
  };
  Graph optimized = g.graph.Copy();
  PassOptions options;
  for (const std::string& fetch : g.fetches) {
    options.keep.push_back(fetch.substr(0, fetch.find(':')));
  }
  absl::StatusOr<PassReport> report = OptimizeKeeping(optimized, options, {});
  if (!report.ok()) return describe(std::string(report.status().message()), nullptr, nullptr);
  std::vector<Tensor> before, after;
  try {
    before = testing::RunUnoptimized(g.graph, g.feeds, g.fetches);
  } catch (const Error& e) {
    return describe(absl::StrCat("the generated graph fails: ", e.what()), nullptr, nullptr);
  }
  try {
    after = testing::RunUnoptimized(optimized, g.feeds, g.fetches);
  } catch (const Error& e) {
    return describe(absl::StrCat("the optimized graph fails: ", e.what()), &optimized, &*report);
  }
  for (size_t i = 0; i < before.size(); ++i) {
    const std::string mismatch = Mismatch(before[i], after[i], g.fetch_bounds[i]);
    if (!mismatch.empty()) {
      return describe(absl::StrCat("'", g.fetches[i], "' differs: ", mismatch), &optimized,
                      &*report);
    }
  }
  stats.Add(*report, dtype);
  return "";
}

int64_t EnvOr(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoll(value) : fallback;
}

TEST_CASE("random graphs compute the same values optimized, and every pass fires") {
  const bool from_seed = std::getenv("DUET_RANDOM_GRAPH_SEED") != nullptr;
  const uint64_t first = EnvOr("DUET_RANDOM_GRAPH_SEED", 1);
  const int64_t count = EnvOr("DUET_RANDOM_GRAPHS", from_seed ? 1 : kGraphs);
  Statistics stats;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    INFO("seed " << seed);  // for a failure inside the generator
    const std::string failure = CheckOne(seed, stats);
    if (!failure.empty()) FAIL(failure);
  }
  std::cout << stats.str();
  if (from_seed) return;
  // Passes whose patterns pure random graphs cannot have: calls of functions (nested
  // duet::functions; inline_functions_test covers them), variable updates (stateful;
  // fuse_gradient_update_test covers ResourceApplyGradientDescent of a MatMul) and loops with
  // their gradients (merge_loop_twins_test).
  const std::set<std::string> needs_more = {"inline_functions", "fuse_gradient_update",
                                            "merge_loop_twins"};
  for (const std::string& pass : PassNames()) {
    if (needs_more.count(pass)) continue;
    INFO(stats.str());
    INFO("pass " << pass << " never changed a graph: the generator no longer makes its patterns");
    CHECK(stats.graphs_changed_by[pass] > 0);
  }
}

}  // namespace
}  // namespace duet
