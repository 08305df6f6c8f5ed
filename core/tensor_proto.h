// TensorProto codec: duet tensors to and from TensorFlow's TensorProto (same wire format).
#pragma once

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "proto/tensor.pb.h"
#include "proto/tensor_shape.pb.h"

namespace duet {

// Writes dtype, shape and values; values go in tensor_content (raw little-endian bytes), which
// TensorFlow accepts for every numeric dtype, and a string tensor's in string_val (one entry per
// element). The tensor must have a value (copied from a GPU if needed).
absl::Status TensorToProto(const Tensor& t, tensorflow::TensorProto* proto);
// Reads a TensorProto written by duet or TensorFlow: tensor_content or the typed *_val fields
// (fewer values than elements repeat the last one; none means zeros). Malformed protos (unknown
// dtype, negative dims, wrong content size) give InvalidArgument, never a crash.
absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto);

void ShapeToProto(const Shape& shape, tensorflow::TensorShapeProto* proto);
absl::StatusOr<Shape> ShapeFromProto(const tensorflow::TensorShapeProto& proto);

}  // namespace duet
