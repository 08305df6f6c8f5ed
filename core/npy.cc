// .npy files: a magic string, a version, a little-endian header length and a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces to a multiple of
// 64 bytes, then the raw C-order data. See numpy/lib/format.py.
#include "core/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace duet {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
// The header (magic and lengths included) is padded to a multiple of this (numpy >= 1.15).
constexpr size_t kHeaderAlignment = 64;

// The NumPy type string of a dtype; bfloat16 has none.
absl::StatusOr<absl::string_view> Descr(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return "<f4";
    case kFloat64:
      return "<f8";
    case kFloat16:
      return "<f2";
    case kInt32:
      return "<i4";
    case kInt64:
      return "<i8";
    case kBool:
      return "|b1";
    case kUInt8:
      return "|u1";
    case kBFloat16:
      break;
    case kString:
      return absl::InvalidArgumentError(
          "a string tensor cannot be stored in .npy (duet writes numeric arrays only)");
    case kResource:
    case kVariant:
      return absl::InvalidArgumentError(absl::StrCat(
          "a ", DTypeName(dtype), " (a variable handle or a TensorList) cannot be stored in .npy"));
  }
  return absl::InvalidArgumentError(
      "bfloat16 has no NumPy dtype, so it cannot be stored in .npy; cast to float32 first");
}

// The dtype of a NumPy type string, with an error that says what is wrong with others.
absl::StatusOr<DType> DTypeFromDescr(absl::string_view descr) {
  for (DType d : {kFloat32, kFloat64, kFloat16, kInt32, kInt64, kBool, kUInt8}) {
    if (*Descr(d) == descr) return d;
  }
  if (absl::StartsWith(descr, ">")) {
    return absl::InvalidArgumentError(
        absl::StrCat("big-endian data ('", descr, "') is not supported; save it little-endian"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported dtype '", descr, "' (supported: <f4 <f8 <f2 <i4 <i8 |b1 |u1)"));
}

// Reads the Python literals of a .npy header dict: 'strings', True/False and tuples of ints.
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : rest_(text) {}

  struct Header {
    std::string descr;
    std::optional<bool> fortran_order;
    std::optional<Shape> shape;
  };

  absl::StatusOr<Header> Parse() {
    Header h;
    bool have_descr = false;
    if (!Consume("{")) return Malformed("expected '{'");
    while (!Consume("}")) {
      DUET_ASSIGN_OR_RETURN(const std::string key, String());
      if (!Consume(":")) return Malformed(absl::StrCat("expected ':' after '", key, "'"));
      if (key == "descr") {
        DUET_ASSIGN_OR_RETURN(h.descr, String());
        have_descr = true;
      } else if (key == "fortran_order") {
        DUET_ASSIGN_OR_RETURN(h.fortran_order, Bool());
      } else if (key == "shape") {
        DUET_ASSIGN_OR_RETURN(h.shape, Tuple());
      } else {
        return Malformed(absl::StrCat("unexpected key '", key, "'"));
      }
      if (!Consume(",") && !Peek("}")) return Malformed("expected ',' or '}'");
    }
    if (!have_descr || !h.fortran_order || !h.shape) {
      return Malformed("the header needs 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

 private:
  absl::Status Malformed(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed .npy header: ", what, " at \"", rest_.substr(0, 20), "\""));
  }
  bool Peek(absl::string_view token) {
    rest_ = absl::StripLeadingAsciiWhitespace(rest_);
    return absl::StartsWith(rest_, token);
  }
  bool Consume(absl::string_view token) {
    return Peek(token) && absl::ConsumePrefix(&rest_, token);
  }

  absl::StatusOr<std::string> String() {
    if (!Peek("'") && !Peek("\"")) return Malformed("expected a string");
    const char quote = rest_[0];
    const size_t end = rest_.find(quote, 1);
    if (end == absl::string_view::npos) return Malformed("unterminated string");
    std::string s(rest_.substr(1, end - 1));
    rest_.remove_prefix(end + 1);
    return s;
  }

  absl::StatusOr<bool> Bool() {
    if (Consume("True")) return true;
    if (Consume("False")) return false;
    return Malformed("expected True or False");
  }

  absl::StatusOr<Shape> Tuple() {
    if (!Consume("(")) return Malformed("expected a shape tuple");
    Shape shape;
    while (!Consume(")")) {
      const size_t n = rest_.find_first_not_of("0123456789");
      int64_t dim;
      if (n == 0 || !absl::SimpleAtoi(rest_.substr(0, n), &dim)) {
        return Malformed("expected a non-negative integer dimension");
      }
      shape.push_back(dim);
      rest_.remove_prefix(n);
      if (!Consume(",") && !Peek(")")) return Malformed("expected ',' or ')' in the shape");
    }
    return shape;
  }

  absl::string_view rest_;
};

// Reads a little-endian unsigned integer of `bytes` bytes.
uint32_t ReadLittleEndian(absl::string_view s, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[i]);
  return v;
}

// Splits a file into its header dict text and its data, checking magic, version and lengths.
absl::Status SplitFile(absl::string_view bytes, absl::string_view* header,
                       absl::string_view* data) {
  if (bytes.size() < kMagic.size() + 2 || !absl::StartsWith(bytes, kMagic)) {
    return absl::InvalidArgumentError("not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported .npy format version ", major, ".", minor, " (1.0-3.0 are)"));
  }
  const int len_bytes = major == 1 ? 2 : 4;
  const size_t start = 8 + len_bytes;
  if (bytes.size() < start) return absl::InvalidArgumentError("truncated .npy header");
  const size_t header_len = ReadLittleEndian(bytes.substr(8), len_bytes);
  if (bytes.size() - start < header_len) {
    return absl::InvalidArgumentError(absl::StrCat("truncated .npy header: it claims ", header_len,
                                                   " bytes, the file has ", bytes.size() - start));
  }
  *header = bytes.substr(start, header_len);
  *data = bytes.substr(start + header_len);
  return absl::OkStatus();
}

// The number of elements of `shape`, or nullopt when it exceeds `limit` (checked as it
// multiplies, so absurd shapes cannot overflow).
std::optional<size_t> ElementCount(const Shape& shape, size_t limit) {
  for (int64_t d : shape.dims()) {
    if (d == 0) return 0;
  }
  size_t n = 1;
  for (int64_t d : shape.dims()) {
    if (n > limit / static_cast<size_t>(d)) return std::nullopt;
    n *= static_cast<size_t>(d);
  }
  return n;
}

// OK when the data is exactly the size the shape and dtype call for.
absl::Status CheckDataSize(const Shape& shape, DType dtype, size_t data_bytes) {
  const size_t size = DTypeSize(dtype);
  const std::optional<size_t> n = ElementCount(shape, std::numeric_limits<int64_t>::max() / size);
  if (!n) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", shape.str(), " has too many elements to address"));
  }
  if (*n * size != data_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", shape.str(), " of ", DTypeName(dtype), " needs ", *n * size,
                     " data bytes but the file has ", data_bytes,
                     *n * size > data_bytes ? " (truncated file?)" : " (trailing bytes)"));
  }
  return absl::OkStatus();
}

// NumPy's spelling of a shape tuple: "()", "(3,)", "(2, 3)".
std::string PythonTuple(const Shape& shape) {
  return absl::StrCat("(", absl::StrJoin(shape.dims(), ", "), shape.rank() == 1 ? ",)" : ")");
}

absl::Status WithPath(const absl::Status& status, absl::string_view path) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::string> EncodeNpy(const Tensor& t) {
  if (!t.has_value() || !t.device().is_host()) {
    return absl::FailedPreconditionError(
        "only a tensor with a value on the CPU can be written to .npy");
  }
  DUET_ASSIGN_OR_RETURN(const absl::string_view descr, Descr(t.dtype()));
  std::string dict = absl::StrCat(
      "{'descr': '", descr, "', 'fortran_order': False, 'shape': ", PythonTuple(t.shape()), ", }");
  const size_t unpadded = kMagic.size() + 2 + 2 + dict.size() + 1;  // +1 for the '\n'
  dict.append((kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment, ' ');
  dict.push_back('\n');
  std::string out(kMagic);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  out.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  return out;
}

absl::StatusOr<Tensor> DecodeNpy(const std::string& bytes) {
  absl::string_view header_text, data;
  DUET_RETURN_IF_ERROR(SplitFile(bytes, &header_text, &data));
  DUET_ASSIGN_OR_RETURN(const HeaderParser::Header header, HeaderParser(header_text).Parse());
  DUET_ASSIGN_OR_RETURN(const DType dtype, DTypeFromDescr(header.descr));
  if (*header.fortran_order && header.shape->rank() > 1) {
    return absl::InvalidArgumentError(
        "Fortran-order arrays are not supported; save with np.ascontiguousarray first");
  }
  DUET_RETURN_IF_ERROR(CheckDataSize(*header.shape, dtype, data.size()));
  DUET_ASSIGN_OR_RETURN(Tensor t, Tensor::TryEmpty(dtype, *header.shape));
  if (dtype == kBool) {
    // Any nonzero byte is True; a bool holding another value would be undefined behavior.
    bool* out = t.mutable_data<bool>();
    for (size_t i = 0; i < data.size(); ++i) out[i] = data[i] != 0;
  } else if (!data.empty()) {
    std::memcpy(t.raw_data(), data.data(), data.size());
  }
  return t;
}

absl::Status WriteNpy(const Tensor& t, const std::string& path) {
  absl::StatusOr<std::string> bytes = EncodeNpy(t);
  if (!bytes.ok()) return WithPath(bytes.status(), path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write the file"));
  return absl::OkStatus();
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": error reading the file"));
  absl::StatusOr<Tensor> t = DecodeNpy(bytes);
  if (!t.ok()) return WithPath(t.status(), path);
  return t;
}

}  // namespace duet
