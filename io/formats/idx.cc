#include "io/formats/idx.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/base/internal/endian.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "io/file.h"

namespace duet::io {
namespace {

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// The element types an IDX header names (its third byte).
struct IdxType {
  int bytes;
  DType dtype;  // the tensor's dtype: int8 and int16 widen to int32
};

absl::StatusOr<IdxType> TypeOf(uint8_t code, const std::string& path) {
  switch (code) {
    case 0x08:
      return IdxType{1, kUInt8};
    case 0x09:
      return IdxType{1, kInt32};
    case 0x0B:
      return IdxType{2, kInt32};
    case 0x0C:
      return IdxType{4, kInt32};
    case 0x0D:
      return IdxType{4, kFloat32};
    case 0x0E:
      return IdxType{8, kFloat64};
  }
  return absl::DataLossError(
      absl::StrCat(path, ": not an IDX file (unknown element type 0x", absl::Hex(code), ")"));
}

// Reads exactly n bytes; a short read means the file is truncated (or its gzip stream corrupt).
absl::Status ReadExactly(gzFile file, void* out, size_t n, const std::string& path,
                         const char* what) {
  char* dst = static_cast<char*>(out);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int got = gzread(file, dst, chunk);
    if (got < 0) {
      int err = 0;
      const char* message = gzerror(file, &err);
      return absl::DataLossError(absl::StrCat(path, ": cannot read the ", what, ": ", message));
    }
    if (got == 0) {
      return absl::DataLossError(absl::StrCat(path, ": truncated: the file ends inside the ", what,
                                              " (", n, " bytes missing)"));
    }
    dst += got;
    n -= static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

// Converts n big-endian elements (type `code`, wider than a byte or signed) in `raw` to the
// tensor's host-order elements.
void Decode(const char* raw, int64_t n, uint8_t code, Tensor& out) {
  switch (code) {
    case 0x09:
      for (int64_t i = 0; i < n; ++i) out.mutable_data<int32_t>()[i] = static_cast<int8_t>(raw[i]);
      return;
    case 0x0B:
      for (int64_t i = 0; i < n; ++i) {
        out.mutable_data<int32_t>()[i] =
            static_cast<int16_t>(absl::big_endian::Load16(raw + 2 * i));
      }
      return;
    case 0x0C:
    case 0x0D:  // float32: the same 4-byte swap, written into the float's bytes
      for (int64_t i = 0; i < n; ++i) {
        uint32_t bits = absl::big_endian::Load32(raw + 4 * i);
        std::memcpy(static_cast<char*>(out.raw_data()) + 4 * i, &bits, 4);
      }
      return;
    case 0x0E:
      for (int64_t i = 0; i < n; ++i) {
        uint64_t bits = absl::big_endian::Load64(raw + 8 * i);
        std::memcpy(static_cast<char*>(out.raw_data()) + 8 * i, &bits, 8);
      }
      return;
  }
}

}  // namespace

absl::StatusOr<Tensor> ReadIdx(const std::string& path) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (file == nullptr) return ErrnoError(errno, "cannot open IDX file", path);
  gzbuffer(file.get(), 1 << 20);
  unsigned char magic[4];
  DUET_RETURN_IF_ERROR(ReadExactly(file.get(), magic, 4, path, "header"));
  if (magic[0] != 0 || magic[1] != 0) {
    return absl::DataLossError(absl::StrCat(path, ": not an IDX file (bad magic number)"));
  }
  DUET_ASSIGN_OR_RETURN(IdxType type, TypeOf(magic[2], path));
  const int rank = magic[3];
  std::vector<int64_t> dims(rank);
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    char size[4];
    DUET_RETURN_IF_ERROR(ReadExactly(file.get(), size, 4, path, "dimensions"));
    dims[d] = absl::big_endian::Load32(size);
    // Dimensions are below 2^32 each; stop before the product passes what memory could hold.
    if (dims[d] != 0 && n > (int64_t{1} << 40) / dims[d]) {
      return absl::DataLossError(absl::StrCat(path, ": IDX dimensions too large"));
    }
    n *= dims[d];
  }
  DUET_ASSIGN_OR_RETURN(Tensor out, Tensor::TryEmpty(type.dtype, Shape(dims)));
  if (magic[2] == 0x08) {  // bytes need no conversion: read them straight into the tensor
    DUET_RETURN_IF_ERROR(ReadExactly(file.get(), out.raw_data(), n, path, "data"));
    return out;
  }
  std::string raw(static_cast<size_t>(n) * type.bytes, '\0');
  DUET_RETURN_IF_ERROR(ReadExactly(file.get(), raw.data(), raw.size(), path, "data"));
  Decode(raw.data(), n, magic[2], out);
  return out;
}

}  // namespace duet::io

namespace duet::data {

Tensor read_idx(const std::string& path) { return ValueOrThrow(io::ReadIdx(path)); }

}  // namespace duet::data
