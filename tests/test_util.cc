#include "tests/test_util.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace duet::testing {

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out;
  REQUIRE(IsNumeric(t.dtype()));
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        out.push_back(static_cast<float>(p[i]));
      } else {
        out.push_back(static_cast<double>(p[i]));
      }
    }
  });
  return out;
}

void ExpectTensor(const Tensor& actual, DType dtype, const Shape& shape,
                  const std::vector<double>& expected, double tol) {
  REQUIRE(actual.defined());
  REQUIRE(DTypeName(actual.dtype()) == DTypeName(dtype));
  REQUIRE(actual.shape().str() == shape.str());
  std::vector<double> got = ToDoubles(actual);
  REQUIRE(got.size() == expected.size());
  // A plain loop, and Catch2 only for the elements that differ: an INFO and a CHECK per element
  // cost microseconds each, which made comparing a million elements take seconds.
  constexpr int kReported = 10;
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::isnan(expected[i]) ? std::isnan(got[i])
                    : std::isinf(expected[i])
                        ? got[i] == expected[i]
                        : std::abs(got[i] - expected[i]) <= tol * (1 + std::abs(expected[i]));
    if (ok) continue;
    if (++wrong <= kReported) {
      FAIL_CHECK("element " << i << ": got " << got[i] << ", expected " << expected[i]
                            << " (tolerance " << tol << ", absolute + relative)");
    }
  }
  if (wrong > kReported) {
    FAIL_CHECK(wrong << " of " << got.size() << " elements differ (the first " << kReported
                     << " are above)");
  }
}

void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double tol) {
  ExpectTensor(actual, expected.dtype(), expected.shape(), ToDoubles(expected), tol);
}

Tensor MakeTensor(DType dtype, const Shape& shape, const std::vector<double>& values) {
  return VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v;
    for (double d : values) v.push_back(static_cast<T>(d));
    return from_vector(v, shape);
  });
}

std::vector<double> RoundTo(DType dtype, const std::vector<double>& values) {
  return ToDoubles(MakeTensor(dtype, Shape{static_cast<int64_t>(values.size())}, values));
}

double Dot(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = ToDoubles(a), y = ToDoubles(b);
  REQUIRE(x.size() == y.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += x[i] * y[i];
  return sum;
}

std::vector<double> ModPattern(int64_t n, int mul, int mod, int shift, double div) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = ((i * mul) % mod - shift) / div;
  return v;
}

std::string Testdata(const std::string& folder, const std::string& file) {
  const char* dir = std::getenv("TEST_SRCDIR");
  const std::string rel = "tests/" + folder + "/testdata/" + file;
  return dir ? std::string(dir) + "/duet/" + rel : rel;
}

std::vector<double> FixtureValues(const std::string& path, const std::string& key) {
  std::ifstream file(path);
  INFO("fixture " << path);
  REQUIRE(file.good());
  const std::string prefix = key + " : ";
  for (std::string line; std::getline(file, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream in(line.substr(prefix.size()));
    std::vector<double> values;
    for (double v; in >> v;) values.push_back(v);
    return values;
  }
  FAIL("no line for key '" << key << "'");
  return {};
}

}  // namespace duet::testing
