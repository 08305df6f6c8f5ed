#include "io/record/compression.h"

#include "absl/strings/str_cat.h"

namespace duet::io {

absl::StatusOr<Compression> ParseCompression(absl::string_view name) {
  if (name.empty() || name == "NONE") return Compression::kNone;
  if (name == "ZLIB") return Compression::kZlib;
  if (name == "GZIP") return Compression::kGzip;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown TFRecord compression \"", name, "\" (expected \"\", ZLIB or GZIP)"));
}

absl::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "NONE";
    case Compression::kZlib:
      return "ZLIB";
    case Compression::kGzip:
      return "GZIP";
  }
  return "NONE";
}

int ZlibWindowBits(Compression compression) {
  constexpr int kMaxWindowBits = 15;  // the 32 KiB window TensorFlow uses too
  constexpr int kGzipHeader = 16;     // zlib adds 16 to ask for a gzip wrapper
  return compression == Compression::kGzip ? kMaxWindowBits + kGzipHeader : kMaxWindowBits;
}

}  // namespace duet::io
