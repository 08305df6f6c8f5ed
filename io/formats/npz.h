// NumPy .npz archives (np.savez, np.savez_compressed): a zip of .npy files.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace duet::io {

// Every array in the archive, keyed by its name without ".npy" (np.load(path).files). Stored and
// deflated members are read through libzip; each member is decoded as core/npy.h decodes a
// .npy file. Errors name the archive and the member.
absl::StatusOr<std::map<std::string, Tensor>> ReadNpz(const std::string& path);

}  // namespace duet::io

namespace duet::data {

// The arrays of the .npz file at `path` (io::ReadNpz); throws Error.
std::map<std::string, Tensor> load_npz(const std::string& path);

}  // namespace duet::data
