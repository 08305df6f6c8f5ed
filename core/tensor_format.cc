// Tensor printing. Values follow NumPy's str(ndarray) (numpy/_core/arrayprint.py, default
// options: precision 8, floatmode 'maxprec', linewidth 75), which is what tf.Tensor prints; the
// comments name the NumPy function each piece mirrors so the two can be compared.
#include "core/tensor_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace duet {
namespace {

// NumPy's default print precision: at most this many fractional digits.
constexpr int kPrecision = 8;
// Unlimited precision, for scalars (NumPy prints scalars with all their unique digits).
constexpr int kUnlimited = 1 << 20;

// The floating types NumPy formats with their own shortest round-trip digits.
enum class FloatKind { kHalf, kSingle, kDouble };

// A finite value in decimal scientific notation: (-1)^negative * d.ddd * 10^exponent.
struct Decimal {
  bool negative = false;
  std::string digits;  // no trailing zeros except for zero itself ("0")
  int exponent = 0;
};

// Parses "[-]d[.ddd]e[+-]xx" as printed by to_chars/printf into a Decimal.
Decimal ParseScientific(absl::string_view s) {
  Decimal d;
  if (!s.empty() && s[0] == '-') {
    d.negative = true;
    s.remove_prefix(1);
  }
  const size_t e = s.find('e');
  for (char c : s.substr(0, e)) {
    if (c != '.') d.digits.push_back(c);
  }
  d.exponent = std::atoi(std::string(s.substr(e + 1)).c_str());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// printf("%.*e", precision, v): correctly rounded to `precision` fractional mantissa digits.
Decimal RoundedScientific(double v, int precision) {
  return ParseScientific(absl::StrFormat("%.*e", precision, v));
}

// True when `s` read as a number and rounded to float16 gives back `bits`.
bool RoundTripsAsHalf(const std::string& s, uint16_t bits) {
  return float16(static_cast<float>(std::strtod(s.c_str(), nullptr))).bits == bits;
}

// The shortest float16 digits: tries 1, 2, ... significant digits (float16 needs at most 5).
Decimal ShortestHalf(double v) {
  const uint16_t bits = float16(static_cast<float>(v)).bits;
  for (int precision = 0; precision < 5; ++precision) {
    const std::string nearest = absl::StrFormat("%.*e", precision, v);
    if (RoundTripsAsHalf(nearest, bits)) return ParseScientific(nearest);
    // At a power of two the gap below is half the gap above, so the nearest candidate can miss
    // while the next one up in magnitude still reads back (0.015625 -> "1.563e-02").
    const Decimal d = RoundedScientific(v, precision);
    int64_t mantissa = 0;
    for (int i = 0; i <= precision; ++i) {
      mantissa = mantissa * 10 + (i < static_cast<int>(d.digits.size()) ? d.digits[i] - '0' : 0);
    }
    const std::string up =
        absl::StrCat(d.negative ? "-" : "", mantissa + 1, "e", d.exponent - precision);
    if (RoundTripsAsHalf(up, bits)) {
      return ParseScientific(absl::StrFormat("%.*e", precision, std::strtod(up.c_str(), nullptr)));
    }
  }
  return RoundedScientific(v, 4);
}

// The shortest digits that read back as the same value of `kind` (NumPy's Dragon4 "unique").
Decimal Shortest(double v, FloatKind kind) {
  if (kind == FloatKind::kHalf) return ShortestHalf(v);
  char buf[64];
  const auto r = kind == FloatKind::kDouble
                     ? std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific)
                     : std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v),
                                     std::chars_format::scientific);
  return ParseScientific(absl::string_view(buf, r.ptr - buf));
}

// The shortest digits, or the value rounded to `precision` fractional mantissa digits when the
// shortest form has more.
Decimal ShortestWithin(double v, FloatKind kind, int precision) {
  Decimal d = Shortest(v, kind);
  if (static_cast<int>(d.digits.size()) - 1 > precision) d = RoundedScientific(v, precision);
  return d;
}

// A number split at the decimal point (sign in `int_part`), and for scientific its exponent.
struct Parts {
  std::string int_part;
  std::string frac_part;
  int exponent = 0;
};

// "[-]ddd.ddd" -> {"[-]ddd", "ddd"} with trailing fractional zeros dropped (NumPy's trim='.').
Parts SplitFixed(const std::string& fixed) {
  const size_t dot = fixed.find('.');
  Parts p;
  p.int_part = fixed.substr(0, dot);
  if (dot != std::string::npos) p.frac_part = fixed.substr(dot + 1);
  while (!p.frac_part.empty() && p.frac_part.back() == '0') p.frac_part.pop_back();
  return p;
}

// The exact positional text of a Decimal: digits shifted by the exponent.
std::string ToFixed(const Decimal& d) {
  const int n = static_cast<int>(d.digits.size());
  std::string s = d.negative ? "-" : "";
  if (d.exponent < 0) return s + "0." + std::string(-d.exponent - 1, '0') + d.digits;
  for (int i = 0; i <= d.exponent; ++i) s.push_back(i < n ? d.digits[i] : '0');
  if (n > d.exponent + 1) s += "." + d.digits.substr(d.exponent + 1);
  return s;
}

// dragon4_positional(v, precision, unique=True, trim='.'): 12.5 -> {"12", "5"}, 7 -> {"7", ""}.
Parts Positional(double v, FloatKind kind, int precision) {
  const Decimal d = Shortest(v, kind);
  if (static_cast<int>(d.digits.size()) - 1 - d.exponent > precision) {
    // Rounds the exact binary value, as Dragon4's cutoff does (ties to even).
    return SplitFixed(absl::StrFormat("%.*f", precision, v));
  }
  return SplitFixed(ToFixed(d));
}

// dragon4_scientific(v, precision, unique=True, trim='.'): "1.5e-05" -> {"1", "5", -5}.
Parts Scientific(double v, FloatKind kind, int precision) {
  const Decimal d = ShortestWithin(v, kind, precision);
  Parts p;
  p.int_part = std::string(d.negative ? "-" : "") + d.digits[0];
  p.frac_part = d.digits.substr(1);
  p.exponent = d.exponent;
  return p;
}

// "+05", "-100": the exponent with a sign and at least `digits` digits.
std::string Exponent(int exponent, int digits) {
  return absl::StrFormat("%c%0*d", exponent < 0 ? '-' : '+', digits, std::abs(exponent));
}

std::string NonFinite(double v) { return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"); }

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string PadRight(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// One element in scientific notation with exactly `precision` mantissa digits (NumPy's
// min_digits): digits past the unique ones are the value's true digits, rounded, not zeros
// (float16's 6e-08 prints as "5.96e-08" next to "6.55e+04").
std::string ScientificWord(double v, int precision, size_t pad_left, int exp_size) {
  const Decimal d = RoundedScientific(v, precision);
  const std::string digits = d.digits + std::string(precision + 1 - d.digits.size(), '0');
  const std::string int_part = (d.negative ? "-" : "") + digits.substr(0, 1);
  return absl::StrCat(PadLeft(int_part, pad_left), ".", digits.substr(1), "e",
                      Exponent(d.exponent, exp_size));
}

// Arrays switch to scientific notation from 10^min(8, decimal precision of the type): 1e3 for
// float16, 1e6 for float32, 1e8 for float64 (NumPy >= 2.3; before, 1e8 for all).
double ExpCutoff(FloatKind kind) {
  return kind == FloatKind::kHalf ? 1e3 : kind == FloatKind::kSingle ? 1e6 : 1e8;
}

// numpy's FloatingFormat: one width for every element, decimal points aligned; scientific
// notation when a magnitude is >= ExpCutoff or < 1e-4, or they span more than a factor of 1000.
std::vector<std::string> FormatFloats(const std::vector<double>& values, FloatKind kind) {
  std::vector<double> finite;
  double max_abs = 0, min_abs = INFINITY;
  bool negative_inf = false;
  for (double v : values) {
    if (!std::isfinite(v)) {
      negative_inf |= std::isinf(v) && v < 0;
      continue;
    }
    finite.push_back(v);
    if (v != 0) {
      max_abs = std::max(max_abs, std::abs(v));
      min_abs = std::min(min_abs, std::abs(v));
    }
  }
  const bool exp_format =
      max_abs > 0 && (max_abs >= ExpCutoff(kind) || min_abs < 1e-4 || max_abs / min_abs > 1000);
  // First pass: the widest integer part, fraction and exponent.
  size_t pad_left = 0, pad_right = 0;
  int exp_size = 2, precision = 0;
  for (double v : finite) {
    const Parts p = exp_format ? Scientific(v, kind, kPrecision) : Positional(v, kind, kPrecision);
    pad_left = std::max(pad_left, p.int_part.size());
    pad_right = std::max(pad_right, p.frac_part.size());
    exp_size = std::max(exp_size, p.exponent <= -100 || p.exponent >= 100 ? 3 : 2);
  }
  if (exp_format) {
    precision = static_cast<int>(pad_right);
    pad_right = exp_size + 2 + precision;  // only used to size "nan" and "inf"
  }
  if (finite.size() != values.size()) {
    const size_t offset = pad_right + 1;
    const size_t inf_len = 3 + (negative_inf ? 1 : 0);
    pad_left =
        std::max({pad_left, 3 > offset ? 3 - offset : 0, inf_len > offset ? inf_len - offset : 0});
  }
  std::vector<std::string> words;
  words.reserve(values.size());
  for (double v : values) {
    if (!std::isfinite(v)) {
      words.push_back(PadLeft(NonFinite(v), pad_left + pad_right + 1));
    } else if (exp_format) {
      words.push_back(ScientificWord(v, precision, pad_left, exp_size));
    } else {
      const Parts p = Positional(v, kind, kPrecision);
      words.push_back(
          absl::StrCat(PadLeft(p.int_part, pad_left), ".", PadRight(p.frac_part, pad_right)));
    }
  }
  return words;
}

// numpy's IntegerFormat: right-aligned to the widest value.
std::vector<std::string> FormatInts(const std::vector<int64_t>& values) {
  std::vector<std::string> words;
  size_t width = 0;
  for (int64_t v : values) {
    words.push_back(absl::StrCat(v));
    width = std::max(width, words.back().size());
  }
  for (std::string& w : words) w = PadLeft(w, width);
  return words;
}

// numpy's BoolFormat: " True" keeps columns aligned with "False".
std::vector<std::string> FormatBools(const std::vector<bool>& values) {
  std::vector<std::string> words;
  for (bool v : values) words.push_back(v ? " True" : "False");
  return words;
}

// repr() of Python bytes, as NumPy prints the bytes objects TensorFlow hands it for a string
// tensor: b'abc', printable ASCII as is, \t \n \r \\ escaped, other bytes as \xNN; double
// quotes when the bytes hold ' and no ".
std::string BytesRepr(absl::string_view bytes) {
  const char quote =
      bytes.find('\'') != absl::string_view::npos && bytes.find('"') == absl::string_view::npos
          ? '"'
          : '\'';
  std::string out = absl::StrCat("b", std::string(1, quote));
  for (unsigned char c : bytes) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\' || c == quote) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += absl::StrFormat("\\x%02x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
  return out;
}

// bfloat16 has no NumPy dtype; TensorFlow prints it through ml_dtypes, whose elements are
// "%g" of the float value, unaligned. We do the same so the text matches TensorFlow's.
std::string BFloat16Word(float v) {
  if (std::isnan(v)) return "nan";
  return absl::StrFormat("%g", v);
}

// str() of a NumPy float scalar: every unique digit, "3.0" positional inside
// [1e-4, 10^k) (k = 3, 6, 16 for float16/32/64), else "1.5e-05".
std::string FloatScalar(double v, FloatKind kind) {
  if (!std::isfinite(v)) return NonFinite(v);
  const double max_positional = kind == FloatKind::kHalf     ? 1e3
                                : kind == FloatKind::kSingle ? 1e6
                                                             : 1e16;
  const double a = std::abs(v);
  if (a == 0 || (a >= 1e-4 && a < max_positional)) {
    const Parts p = Positional(v, kind, kUnlimited);
    return absl::StrCat(p.int_part, ".", p.frac_part.empty() ? "0" : p.frac_part);
  }
  const Parts p = Scientific(v, kind, kUnlimited);
  return absl::StrCat(p.int_part, p.frac_part.empty() ? "" : ".", p.frac_part, "e",
                      Exponent(p.exponent, 2));
}

// Which indices of each axis are shown: all, or the first and last `edge` when summarizing.
struct Selection {
  std::vector<std::vector<int64_t>> indices;  // per axis
  std::vector<bool> elided;                   // per axis: "..." after the leading half
};

// numpy's _leading_trailing: the elements that will be printed.
Selection Select(const Shape& shape, bool summarize, int64_t edge) {
  Selection sel;
  for (int axis = 0; axis < shape.rank(); ++axis) {
    const int64_t n = shape.dim(axis);
    const bool elide = summarize && n > 2 * edge;
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < n; ++i) {
      if (!elide || i < edge || i >= n - edge) idx.push_back(i);
    }
    sel.indices.push_back(std::move(idx));
    sel.elided.push_back(elide);
  }
  return sel;
}

// The selected elements, row-major, as C++ values of type T.
template <typename T>
std::vector<T> Gather(const Tensor& t, const Selection& sel) {
  const auto strides = RowMajorStrides(t.shape());
  const T* data = t.data<T>();
  std::vector<T> out;
  std::vector<size_t> pos(sel.indices.size(), 0);
  const int rank = t.rank();
  while (true) {
    int64_t offset = 0;
    for (int a = 0; a < rank; ++a) offset += sel.indices[a][pos[a]] * strides[a];
    out.push_back(data[offset]);
    int a = rank - 1;
    while (a >= 0 && ++pos[a] == sel.indices[a].size()) pos[a--] = 0;
    if (a < 0) return out;
  }
}

std::vector<double> ToDoubles(const std::vector<float16>& v) {
  std::vector<double> out;
  for (float16 h : v) out.push_back(static_cast<float>(h));
  return out;
}

// One string per selected element, formatted as NumPy formats the dtype.
std::vector<std::string> FormatWords(const Tensor& t, const Selection& sel) {
  switch (t.dtype()) {
    case kFloat32: {
      const auto v = Gather<float>(t, sel);
      return FormatFloats(std::vector<double>(v.begin(), v.end()), FloatKind::kSingle);
    }
    case kFloat64:
      return FormatFloats(Gather<double>(t, sel), FloatKind::kDouble);
    case kFloat16:
      return FormatFloats(ToDoubles(Gather<float16>(t, sel)), FloatKind::kHalf);
    case kBFloat16: {
      std::vector<std::string> words;
      for (bfloat16 b : Gather<bfloat16>(t, sel)) words.push_back(BFloat16Word(float(b)));
      return words;
    }
    case kInt32: {
      const auto v = Gather<int32_t>(t, sel);
      return FormatInts(std::vector<int64_t>(v.begin(), v.end()));
    }
    case kInt64:
      return FormatInts(Gather<int64_t>(t, sel));
    case kBool: {
      const auto v = Gather<bool>(t, sel);
      return FormatBools(std::vector<bool>(v.begin(), v.end()));
    }
    case kUInt8: {
      const auto v = Gather<uint8_t>(t, sel);
      return FormatInts(std::vector<int64_t>(v.begin(), v.end()));
    }
    case kString: {
      // NumPy prints object arrays unaligned, each element's repr().
      std::vector<std::string> words;
      for (const std::string& b : Gather<std::string>(t, sel)) words.push_back(BytesRepr(b));
      return words;
    }
    case kResource:
    case kVariant:
      break;  // FormatTensor prints objects itself
  }
  return {};
}

// str() of a 0-d array: the NumPy scalar's str.
std::string FormatScalar(const Tensor& t) {
  switch (t.dtype()) {
    case kFloat32:
      return FloatScalar(*t.data<float>(), FloatKind::kSingle);
    case kFloat64:
      return FloatScalar(*t.data<double>(), FloatKind::kDouble);
    case kFloat16:
      return FloatScalar(static_cast<float>(*t.data<float16>()), FloatKind::kHalf);
    case kBFloat16:
      return BFloat16Word(static_cast<float>(*t.data<bfloat16>()));
    case kInt32:
      return absl::StrCat(*t.data<int32_t>());
    case kInt64:
      return absl::StrCat(*t.data<int64_t>());
    case kBool:
      return *t.data<bool>() ? "True" : "False";
    case kUInt8:
      return absl::StrCat(*t.data<uint8_t>());
    case kString:
      return BytesRepr(*t.data<std::string>());
    case kResource:
    case kVariant:
      break;  // FormatTensor prints objects itself
  }
  return "";
}

// numpy's _formatArray: nested brackets, rows wrapped at the line width, blank lines between
// blocks of rank >= 3, "..." where rows or columns are elided.
class ArrayLayout {
 public:
  ArrayLayout(const Selection& sel, const std::vector<std::string>& words, int64_t edge)
      : sel_(sel), words_(words), edge_(edge) {}

  std::string Format(int line_width) { return Recurse(0, 0, " ", line_width); }

 private:
  // The items of one axis: selected indices, with "..." (-1) after the leading half.
  std::vector<int64_t> Items(int axis) const {
    std::vector<int64_t> items;
    const int64_t n = static_cast<int64_t>(sel_.indices[axis].size());
    for (int64_t i = 0; i < n; ++i) {
      if (sel_.elided[axis] && i == edge_) items.push_back(-1);
      items.push_back(i);
    }
    return items;
  }

  // Number of selected elements in one item of `axis`.
  int64_t Stride(int axis) const {
    int64_t s = 1;
    for (size_t a = axis + 1; a < sel_.indices.size(); ++a) s *= sel_.indices[a].size();
    return s;
  }

  // numpy's _extendLine: starts a new line when `word` would pass the width.
  void ExtendLine(std::string& s, std::string& line, const std::string& word, size_t width,
                  const std::string& indent) {
    if (line.size() + word.size() > width && line.size() > indent.size()) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s += line + "\n";
      line = indent;
    }
    line += word;
  }

  std::string Recurse(int axis, int64_t base, const std::string& indent, int width) {
    const int axes_left = static_cast<int>(sel_.indices.size()) - axis;
    if (axes_left == 0) return words_[base];
    const std::vector<int64_t> items = Items(axis);
    const int64_t stride = Stride(axis);
    std::string s;
    if (axes_left == 1) {
      const size_t elem_width = width - 1;  // room for the closing "]"
      std::string line = indent;
      for (size_t k = 0; k < items.size(); ++k) {
        ExtendLine(s, line, items[k] < 0 ? "..." : words_[base + items[k]], elem_width, indent);
        if (k + 1 < items.size()) line += " ";
      }
      s += line;
    } else {
      const std::string line_sep(axes_left - 1, '\n');
      for (size_t k = 0; k < items.size(); ++k) {
        s += indent;
        s += items[k] < 0 ? "..."
                          : Recurse(axis + 1, base + items[k] * stride, indent + " ", width - 1);
        if (k + 1 < items.size()) s += line_sep;
      }
    }
    return "[" + s.substr(indent.size()) + "]";
  }

  const Selection& sel_;
  const std::vector<std::string>& words_;
  int64_t edge_;
};

// str() of the NumPy array with the tensor's values.
std::string FormatValues(const Tensor& t, const TensorFormatOptions& options) {
  if (t.rank() == 0) return FormatScalar(t);
  if (t.num_elements() == 0) return "[]";
  const bool summarize = t.num_elements() > options.threshold;
  const Selection sel = Select(t.shape(), summarize, options.edge_items);
  const std::vector<std::string> words = FormatWords(t, sel);
  return ArrayLayout(sel, words, options.edge_items).Format(options.line_width);
}

}  // namespace

std::string FormatTensor(const Tensor& t, const TensorFormatOptions& options) {
  if (!t.defined()) return "Tensor(<undefined>)";
  const std::string suffix =
      absl::StrCat("shape=", t.shape().str(), ", dtype=", DTypeName(t.dtype()),
                   t.device().is_host() ? "" : absl::StrCat(", device=", t.device().str()), ")");
  if (!t.has_value()) return absl::StrCat("Tensor(", suffix);
  if (IsObjectDType(t.dtype())) {
    return absl::StrCat("Tensor(<", DTypeName(t.dtype()), ">, ", suffix);
  }
  std::string values = FormatValues(t.cpu(), options);  // a GPU tensor is copied back
  // As tf.Tensor does: multi-line values start on their own line.
  if (values.find('\n') != std::string::npos) values = "\n" + values;
  return absl::StrCat("Tensor(", values, ", ", suffix);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << FormatTensor(t); }

}  // namespace duet
