// IDX files, the format of MNIST and Fashion-MNIST (gzipped or not).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace duet::io {

// Reads an IDX file: a big-endian header (two zero bytes, a type byte, the rank), the dimensions
// as big-endian uint32, then the elements row-major and big-endian. A gzipped file (.gz) is
// inflated as it is read. uint8 elements give a kUInt8 tensor, int32 kInt32, float32 kFloat32,
// float64 kFloat64; int8 and int16, which duet has no dtype for, widen to kInt32. Errors name the
// file and what is wrong (missing file, bad magic, truncated data).
absl::StatusOr<Tensor> ReadIdx(const std::string& path);

}  // namespace duet::io

namespace duet::data {

// The IDX file at `path` as a tensor (io::ReadIdx); throws Error.
Tensor read_idx(const std::string& path);

}  // namespace duet::data
