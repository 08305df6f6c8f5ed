// nn::Embedding: rows of a [input_dim, output_dim] table looked up by integer ids (op GatherV2).
#pragma once

#include <cstdint>
#include <string>

#include "nn/initializers.h"
#include "nn/layer.h"

namespace duet::nn {

class Embedding : public Layer {
 public:
  Embedding(Module* parent, std::string name, int64_t input_dim, int64_t output_dim,
            Initializer embeddings_initializer = {});  // empty: uniform(-0.05, 0.05), as Keras
  Embedding(int64_t input_dim, int64_t output_dim, Initializer embeddings_initializer = {});

  const Variable& embeddings() const { return embeddings_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& ids, bool training, OpSite site) override;

 private:
  int64_t input_dim_, output_dim_;
  Initializer initializer_;
  Variable embeddings_;
};

}  // namespace duet::nn
