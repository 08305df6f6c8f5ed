// Helpers for tests: making input tensors, comparing tensors with expected values and checking
// error messages.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/constant.h"
#include "core/tensor.h"

namespace duet::testing {

// Checks dtype, shape and every value of `actual` (any float/int/bool dtype, read as double)
// against `expected` within `tol` (absolute + relative). NaNs must match NaNs.
void ExpectTensor(const Tensor& actual, DType dtype, const Shape& shape,
                  const std::vector<double>& expected, double tol = 1e-6);
// Same, comparing two tensors.
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double tol = 1e-6);
// The values of any numeric tensor as doubles (a string tensor fails the test).
std::vector<double> ToDoubles(const Tensor& t);
// The sum of the products of the values of `a` and `b` (as doubles; same element count), for
// checking adjoint identities <op(x), y> = <x, adjoint(y)>.
double Dot(const Tensor& a, const Tensor& b);

// Runs `fn`, requires it to throw duet::Error, and requires the message to contain every one of
// `fragments`.
template <typename Fn>
void ExpectError(Fn&& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    FAIL("expected duet::Error, nothing was thrown");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO("message: " << message);
    for (const auto& f : fragments) CHECK(message.find(f) != std::string::npos);
  }
}

// A tensor of `dtype` and `shape` holding `values`, each converted from double (bool: != 0).
Tensor MakeTensor(DType dtype, const Shape& shape, const std::vector<double>& values);
// `values` as a tensor of `dtype` stores them, read back as doubles.
std::vector<double> RoundTo(DType dtype, const std::vector<double>& values);
// ((i * mul) % mod - shift) / div for i in [0, n): the inputs the nn tests' gen_expected.py uses.
std::vector<double> ModPattern(int64_t n, int mul, int mod, int shift, double div);

// Every dtype, for TEMPLATE_TEST_CASE over the ops that accept them all (e.g. data movement).
#define DUET_ALL_TYPES float, double, float16, bfloat16, int32_t, int64_t, bool, uint8_t

// The integer `i` as a T (bool: odd = true), so that every dtype holds a small integer sequence.
template <typename T>
T SequenceValue(int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 2 != 0;
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(i));
  } else {
    return static_cast<T>(i);
  }
}

// A tensor of `shape` holding SequenceValue<T>(start), SequenceValue<T>(start + 1), ...
template <typename T>
Tensor SequenceTensor(const Shape& shape, int64_t start = 0) {
  std::vector<T> v;
  for (int64_t i = 0; i < shape.num_elements(); ++i) v.push_back(SequenceValue<T>(start + i));
  return from_vector(v, shape);
}

// Expected integer values as SequenceValue<T> stores them, read back as doubles (bool: i % 2).
template <typename T>
std::vector<double> SequenceExpected(std::vector<double> values) {
  if constexpr (std::is_same_v<T, bool>) {
    for (double& x : values) x = static_cast<int64_t>(x) % 2;
  }
  return values;
}

// The path of a file under a test's testdata/ folder, e.g. Testdata("ops/math", "add.npy").
std::string Testdata(const std::string& folder, const std::string& file);

// The values of the line "key : v1 v2 ..." of fixture file `path` (from Testdata), as written by a
// generator script beside it; fails the current test when the file or the key is missing.
std::vector<double> FixtureValues(const std::string& path, const std::string& key);

}  // namespace duet::testing
