// The compression of a TFRecord file: none, ZLIB or GZIP (TensorFlow's names for them).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace duet::io {

enum class Compression { kNone, kZlib, kGzip };

// "" or "NONE", "ZLIB", "GZIP", as tf.data.TFRecordDataset's compression_type spells them.
absl::StatusOr<Compression> ParseCompression(absl::string_view name);
absl::string_view CompressionName(Compression compression);

// zlib's windowBits for the stream format: 15 for a zlib stream, 31 for a gzip one.
int ZlibWindowBits(Compression compression);

}  // namespace duet::io
