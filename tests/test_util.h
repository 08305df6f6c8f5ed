// Helpers for tests: comparing tensors with expected values and checking error messages.
#pragma once

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/tensor.h"

namespace duet::testing {

// Checks dtype, shape and every value of `actual` (any float/int/bool dtype, read as double)
// against `expected` within `tol` (absolute + relative). NaNs must match NaNs.
void ExpectTensor(const Tensor& actual, DType dtype, const Shape& shape,
                  const std::vector<double>& expected, double tol = 1e-6);
// Same, comparing two tensors.
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double tol = 1e-6);
// The values of any numeric tensor as doubles.
std::vector<double> ToDoubles(const Tensor& t);

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

// The path of a file under a test's testdata/ folder, e.g. Testdata("ops/math", "add.npy").
std::string Testdata(const std::string& folder, const std::string& file);

}  // namespace duet::testing
