// NumPy .npy files (format versions 1.0-3.0, little-endian, C order).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace duet {

// Writes `t` as a version 1.0 .npy file (float16 as '<f2'; bfloat16, which NumPy lacks, is an
// error). Errors name the path.
absl::Status WriteNpy(const Tensor& t, const std::string& path);
absl::StatusOr<Tensor> ReadNpy(const std::string& path);

// The same on in-memory bytes.
absl::StatusOr<std::string> EncodeNpy(const Tensor& t);
absl::StatusOr<Tensor> DecodeNpy(const std::string& bytes);

}  // namespace duet
