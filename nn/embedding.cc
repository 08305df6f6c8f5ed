#include "nn/embedding.h"

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"

namespace duet::nn {

Embedding::Embedding(Module* parent, std::string name, int64_t input_dim, int64_t output_dim,
                     Initializer embeddings_initializer)
    : Layer(parent, std::move(name)),
      input_dim_(input_dim),
      output_dim_(output_dim),
      initializer_(embeddings_initializer ? std::move(embeddings_initializer)
                                          : initializers::random_uniform()) {}

Embedding::Embedding(int64_t input_dim, int64_t output_dim, Initializer embeddings_initializer)
    : Embedding(nullptr, "embedding", input_dim, output_dim, std::move(embeddings_initializer)) {}

void Embedding::build(const Shape&) {
  embeddings_ = add_variable("embeddings", Shape{input_dim_, output_dim_}, dtype(), initializer_);
}

Tensor Embedding::call(const Tensor& ids, bool, OpSite site) {
  if (ids.dtype() != kInt32 && ids.dtype() != kInt64) {
    Fail(absl::StrCat("takes int32 or int64 ids, got ", DTypeName(ids.dtype())), site);
  }
  return gather(embeddings_, ids, 0, site);
}

}  // namespace duet::nn
