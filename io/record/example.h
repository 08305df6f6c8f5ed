// tf.train.Example for users: feature specs, parse_example, and a builder (docs/records.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "proto/example.pb.h"

namespace duet::data {

// How to read one feature, as tf.io.FixedLenFeature / tf.io.VarLenFeature. The dtypes are
// kFloat32 (a float_list), kInt64 (an int64_list) and kString (a bytes_list).
struct FeatureSpec {
  DType dtype = kFloat32;
  Shape shape;           // FixedLen: the values of one Example, row-major
  bool var_len = false;  // VarLen: any number of values
  // FixedLen: the value where an Example lacks the feature (a tensor of `shape`, or a scalar to
  // fill it with); none: the feature is required.
  std::optional<Tensor> default_value;
};

FeatureSpec FixedLen(DType dtype, Shape shape, std::optional<Tensor> default_value = std::nullopt);
FeatureSpec VarLen(DType dtype);

using FeatureSpecs = std::map<std::string, FeatureSpec>;
// parse_example's result, by feature name. A VarLen feature "tags" gives two tensors, as
// tf.sparse.to_dense of TensorFlow's SparseTensor would with its row lengths: "tags", the
// values padded with 0 or "" to the longest Example's count, (N, max_len), and "tags/lengths",
// each Example's count, int64 (N,). duet has no SparseTensor.
using ParsedFeatures = std::map<std::string, Tensor>;

// Parses a batch of serialized Examples, as tf.io.parse_example: `serialized` is a kString
// tensor of shape (N,) and every output gets a leading N; a kString scalar is one Example, as
// tf.io.parse_single_example (no leading dim; a VarLen feature gives (len,) and a scalar
// length). Throws Error naming the Example's index and the feature: a malformed proto, a
// missing required feature, a list of another kind, a FixedLen feature with a different number
// of values.
ParsedFeatures parse_example(const Tensor& serialized, const FeatureSpecs& specs);
ParsedFeatures parse_example(absl::Span<const absl::string_view> serialized,
                             const FeatureSpecs& specs);
ParsedFeatures parse_example(const std::vector<std::string>& serialized, const FeatureSpecs& specs);
ParsedFeatures parse_single_example(absl::string_view serialized, const FeatureSpecs& specs);

// Builds one Example: `ExampleBuilder().add("image", pixels).add("label", int64_t{7})
// .add("tags", {"a", "b"}).serialize()`. A float32 tensor becomes a float_list, an integer or
// bool tensor an int64_list, a kString tensor a bytes_list (values row-major; the shape is not
// stored, as in TensorFlow). Adding a name twice replaces its feature.
class ExampleBuilder {
 public:
  ExampleBuilder& add(const std::string& name, const Tensor& values);
  ExampleBuilder& add(const std::string& name, const std::vector<std::string>& values);
  std::string serialize() const { return example_.SerializeAsString(); }
  const tensorflow::Example& proto() const { return example_; }

 private:
  tensorflow::Feature& feature(const std::string& name);  // a cleared feature of this name
  template <typename Integers>
  ExampleBuilder& add_int64s(const std::string& name, const Integers& values);
  tensorflow::Example example_;
};

}  // namespace duet::data
