// The floor for function_bench's MLP cases: the same math written straight against oneDNN, with
// every primitive built once up front and only executed per call, and the small loops (softmax
// cross-entropy, the relu mask, bias sums) by hand. No framework can do the matmuls with less
// work on this library, so traced / floor is the framework's whole cost.
#pragma once

#include <cmath>
#include <cstdint>
#include <dnnl.hpp>
#include <unordered_map>
#include <vector>

namespace duet_bench {

// A matmul primitive bound to fixed buffers: dst (+)= src x weights (+ bias), optionally relu.
class FloorMatMul {
 public:
  struct Operand {
    const float* data;
    int64_t rows, cols;
    bool transposed;  // stored as its transpose, row-major (dims rows x cols, read column-major)
  };
  FloorMatMul(const dnnl::engine& engine, Operand src, Operand weights, const float* bias,
              float* dst, bool relu, bool accumulate)
      : primitive_(Build(engine, src, weights, bias != nullptr, relu, accumulate)) {
    args_ = {{DNNL_ARG_SRC, Memory(engine, src)},
             {DNNL_ARG_WEIGHTS, Memory(engine, weights)},
             {DNNL_ARG_DST, Memory(engine, {dst, src.rows, weights.cols, false})}};
    if (bias != nullptr)
      args_.emplace(DNNL_ARG_BIAS, Memory(engine, {bias, 1, weights.cols, false}));
  }
  void Run(dnnl::stream& stream) { primitive_.execute(stream, args_); }

 private:
  static dnnl::memory::desc Desc(const Operand& o) {
    return {{o.rows, o.cols},
            dnnl::memory::data_type::f32,
            o.transposed ? dnnl::memory::format_tag::ba : dnnl::memory::format_tag::ab};
  }
  static dnnl::memory Memory(const dnnl::engine& engine, const Operand& o) {
    return dnnl::memory(Desc(o), engine, const_cast<float*>(o.data));
  }
  static dnnl::matmul Build(const dnnl::engine& engine, const Operand& src, const Operand& weights,
                            bool bias, bool relu, bool accumulate) {
    dnnl::post_ops ops;
    if (accumulate) ops.append_sum(1.0f);
    if (relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const dnnl::memory::desc dst = Desc({nullptr, src.rows, weights.cols, false});
    const dnnl::matmul::desc desc =
        bias ? dnnl::matmul::desc(Desc(src), Desc(weights), Desc({nullptr, 1, weights.cols, false}),
                                  dst)
             : dnnl::matmul::desc(Desc(src), Desc(weights), dst);
    return dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, engine));
  }

  dnnl::matmul primitive_;
  std::unordered_map<int, dnnl::memory> args_;
};

// A relu MLP forward: dims {in, hidden..., out}, batch rows of input.
class FloorMlpForward {
 public:
  FloorMlpForward(const std::vector<int64_t>& dims, int64_t batch,
                  const std::vector<const float*>& weights, const std::vector<const float*>& biases,
                  const float* input)
      : stream_(engine_) {
    const float* src = input;
    for (size_t layer = 0; layer + 1 < dims.size(); ++layer) {
      activations_.emplace_back(batch * dims[layer + 1]);
      const bool last = layer + 2 == dims.size();
      layers_.emplace_back(
          engine_, FloorMatMul::Operand{src, batch, dims[layer], false},
          FloorMatMul::Operand{weights[layer], dims[layer], dims[layer + 1], false}, biases[layer],
          activations_.back().data(), !last, false);
      src = activations_.back().data();
    }
  }
  const std::vector<float>& Run() {
    for (FloorMatMul& layer : layers_) layer.Run(stream_);
    stream_.wait();
    return activations_.back();
  }

 private:
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_;
  std::vector<std::vector<float>> activations_;  // moving an inner vector keeps its buffer
  std::vector<FloorMatMul> layers_;
};

// One SGD step of a relu MLP in -> hidden -> classes on mean sparse softmax cross-entropy, the
// weight gradients accumulated straight into the weights (as duet's fuse_gradient_update does).
class FloorTrainStep {
 public:
  FloorTrainStep(int64_t batch, int64_t in, int64_t hidden, int64_t classes, std::vector<float> w1,
                 std::vector<float> w2, const float* x, const int64_t* labels, float rate)
      : batch_(batch),
        hidden_(hidden),
        classes_(classes),
        rate_(rate),
        x_(x),
        labels_(labels),
        w1_(std::move(w1)),
        b1_(hidden),
        w2_(std::move(w2)),
        b2_(classes),
        h_(batch * hidden),
        logits_(batch * classes),
        dlogits_(batch * classes),
        scaled_dlogits_(batch * classes),
        dh_(batch * hidden),
        stream_(engine_),
        forward1_(engine_, {x, batch, in, false}, {w1_.data(), in, hidden, false}, b1_.data(),
                  h_.data(), true, false),
        forward2_(engine_, {h_.data(), batch, hidden, false}, {w2_.data(), hidden, classes, false},
                  b2_.data(), logits_.data(), false, false),
        backward_h_(engine_, {dlogits_.data(), batch, classes, false},
                    {w2_.data(), classes, hidden, true}, nullptr, dh_.data(), false, false),
        update2_(engine_, {h_.data(), hidden, batch, true},
                 {scaled_dlogits_.data(), batch, classes, false}, nullptr, w2_.data(), false, true),
        update1_(engine_, {x, in, batch, true}, {dh_.data(), batch, hidden, false}, nullptr,
                 w1_.data(), false, true) {}

  float Run() {
    forward1_.Run(stream_);
    forward2_.Run(stream_);
    stream_.wait();
    const float loss = SoftmaxCrossEntropyGrad();
    backward_h_.Run(stream_);
    stream_.wait();
    UpdateSmallParameters();
    update2_.Run(stream_);
    update1_.Run(stream_);  // reads dh_, scaled by -rate in UpdateSmallParameters
    stream_.wait();
    return loss;
  }

 private:
  // Mean loss; dlogits_ = (softmax - onehot) / batch and its copy scaled by -rate.
  float SoftmaxCrossEntropyGrad() {
    double total = 0;
    for (int64_t r = 0; r < batch_; ++r) {
      const float* z = &logits_[r * classes_];
      float* g = &dlogits_[r * classes_];
      float max = z[0];
      for (int64_t c = 1; c < classes_; ++c) max = std::max(max, z[c]);
      float sum = 0;
      for (int64_t c = 0; c < classes_; ++c) sum += g[c] = std::exp(z[c] - max);
      total += std::log(sum) - (z[labels_[r]] - max);
      for (int64_t c = 0; c < classes_; ++c) g[c] = g[c] / sum / static_cast<float>(batch_);
      g[labels_[r]] -= 1.0f / static_cast<float>(batch_);
      for (int64_t c = 0; c < classes_; ++c) scaled_dlogits_[r * classes_ + c] = -rate_ * g[c];
    }
    return static_cast<float>(total / static_cast<double>(batch_));
  }
  // dh = relu'(h) * dh, the biases' updates, then dh scaled by -rate for W1's update.
  void UpdateSmallParameters() {
    for (int64_t r = 0; r < batch_; ++r) {
      float* d = &dh_[r * hidden_];
      const float* h = &h_[r * hidden_];
      for (int64_t c = 0; c < hidden_; ++c) {
        d[c] = h[c] > 0 ? d[c] : 0.0f;
        b1_[c] -= rate_ * d[c];
        d[c] *= -rate_;
      }
      for (int64_t c = 0; c < classes_; ++c) b2_[c] -= rate_ * dlogits_[r * classes_ + c];
    }
  }

  int64_t batch_, hidden_, classes_;
  float rate_;
  const float* x_;
  const int64_t* labels_;
  std::vector<float> w1_, b1_, w2_, b2_, h_, logits_, dlogits_, scaled_dlogits_, dh_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_;
  FloorMatMul forward1_, forward2_, backward_h_, update2_, update1_;
};

}  // namespace duet_bench
