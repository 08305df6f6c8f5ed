// Elementwise math op functions and the C++ operators on tensors (operators.h).
//
// Binary ops broadcast NumPy-style and need both inputs of one dtype (cast one of them first).
// Dtypes: float32/float64 everywhere; int32/int64 where noted; bool where noted.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/math/operators.h"
#include "ops/op_site.h"

namespace duet {

// ---- Binary arithmetic (float32, float64, int32, int64) ----

// x + y (op AddV2).
Tensor add(const Tensor& x, const Tensor& y, OpSite site = {});
// x - y (op Sub).
Tensor subtract(const Tensor& x, const Tensor& y, OpSite site = {});
// x * y (op Mul).
Tensor multiply(const Tensor& x, const Tensor& y, OpSite site = {});
// x / y: RealDiv for floats; Div for integers, truncating toward zero (a zero divisor is an error).
Tensor divide(const Tensor& x, const Tensor& y, OpSite site = {});
// floor(x / y) (op FloorDiv; integer y == 0 is an error): integers round toward -inf like
// Python's //; floats take the floor of the rounded quotient, as TensorFlow does (not Python's
// exact floor: -1e-3 // inf is -0.0, where Python gives -1.0).
Tensor floor_div(const Tensor& x, const Tensor& y, OpSite site = {});
// x / y rounded toward zero (op TruncateDiv; integer y == 0 is an error).
Tensor truncate_div(const Tensor& x, const Tensor& y, OpSite site = {});
// Remainder with the divisor's sign, like Python's % (op FloorMod; integer y == 0 is an error).
Tensor floor_mod(const Tensor& x, const Tensor& y, OpSite site = {});
// x ** y (op Pow; negative integer exponents are an error).
Tensor pow(const Tensor& x, const Tensor& y, OpSite site = {});
// Elementwise max; NaN if either is NaN (op Maximum).
Tensor maximum(const Tensor& x, const Tensor& y, OpSite site = {});
// Elementwise min; NaN if either is NaN (op Minimum).
Tensor minimum(const Tensor& x, const Tensor& y, OpSite site = {});
// (x - y) * (x - y) (op SquaredDifference).
Tensor squared_difference(const Tensor& x, const Tensor& y, OpSite site = {});
// The angle in radians, in [-pi, pi], of the point (x, y): note y comes first, as in std::atan2
// (op Atan2; floats only).
Tensor atan2(const Tensor& y, const Tensor& x, OpSite site = {});

// t limited to [clip_value_min, clip_value_max]: max(min(t, max), min) elementwise, so the lower
// bound wins where max < min, as in TensorFlow (op ClipByValue; also float16, bfloat16). Each
// bound is a scalar or has t's shape (TensorFlow's rule; anything else is an InvalidArgument
// error). NaN in t or a bound gives NaN (TensorFlow ignores some NaN bounds). The gradient
// goes to t where it is inside the bounds (ties included), else to the bound that clipped it.
Tensor clip_by_value(const Tensor& t, const Tensor& clip_value_min, const Tensor& clip_value_max,
                     OpSite site = {});

// The bucket of each element: how many of the sorted `boundaries` are <= it, as int32 (op
// Bucketize; Keras' Discretization). The element is compared with each float boundary after the
// usual arithmetic conversions, as TensorFlow does. Unsorted boundaries are an InvalidArgument
// error. Not differentiable.
Tensor bucketize(const Tensor& input, std::vector<float> boundaries, OpSite site = {});

// The elementwise sum of one or more tensors of one dtype and shape, no broadcasting (op AddN).
// Also float16 and bfloat16 (summed in float32, rounded once). Differing shapes or dtypes, or no
// tensors, are an InvalidArgument error.
Tensor add_n(const std::vector<Tensor>& values, OpSite site = {});

// ---- Comparisons: bool results (float32, float64, int32, int64; equal/not_equal also bool) ----

// x == y (op Equal).
Tensor equal(const Tensor& x, const Tensor& y, OpSite site = {});
// x != y (op NotEqual).
Tensor not_equal(const Tensor& x, const Tensor& y, OpSite site = {});
// x < y (op Less).
Tensor less(const Tensor& x, const Tensor& y, OpSite site = {});
// x <= y (op LessEqual).
Tensor less_equal(const Tensor& x, const Tensor& y, OpSite site = {});
// x > y (op Greater).
Tensor greater(const Tensor& x, const Tensor& y, OpSite site = {});
// x >= y (op GreaterEqual).
Tensor greater_equal(const Tensor& x, const Tensor& y, OpSite site = {});

// ---- Logic on bool tensors ----

// x AND y (op LogicalAnd).
Tensor logical_and(const Tensor& x, const Tensor& y, OpSite site = {});
// x OR y (op LogicalOr).
Tensor logical_or(const Tensor& x, const Tensor& y, OpSite site = {});
// NOT x (op LogicalNot).
Tensor logical_not(const Tensor& x, OpSite site = {});

// ---- Unary (float32, float64; those marked "ints too" also int32, int64) ----

// -x (op Neg; ints too).
Tensor negative(const Tensor& x, OpSite site = {});
// |x| (op Abs; ints too).
Tensor abs(const Tensor& x, OpSite site = {});
// x * x (op Square; ints too).
Tensor square(const Tensor& x, OpSite site = {});
// -1, 0 or 1 by the sign of x (op Sign; ints too).
Tensor sign(const Tensor& x, OpSite site = {});
// max(x, 0) (op Relu; ints too).
Tensor relu(const Tensor& x, OpSite site = {});
// gradients where features > 0, else 0: Relu's gradient, from its input or output (op
// ReluGrad; ints too). Shapes must be equal.
Tensor relu_grad(const Tensor& gradients, const Tensor& features, OpSite site = {});
// min(max(x, 0), 6) (op Relu6; ints too).
Tensor relu6(const Tensor& x, OpSite site = {});
// e^x (op Exp).
Tensor exp(const Tensor& x, OpSite site = {});
// Natural logarithm (op Log).
Tensor log(const Tensor& x, OpSite site = {});
// log(1 + x), accurate near 0 (op Log1p).
Tensor log1p(const Tensor& x, OpSite site = {});
// Square root (op Sqrt).
Tensor sqrt(const Tensor& x, OpSite site = {});
// 1 / sqrt(x) (op Rsqrt).
Tensor rsqrt(const Tensor& x, OpSite site = {});
// Hyperbolic tangent (op Tanh).
Tensor tanh(const Tensor& x, OpSite site = {});
// 1 / (1 + e^-x) (op Sigmoid).
Tensor sigmoid(const Tensor& x, OpSite site = {});
// x if x > 0 else e^x - 1 (op Elu).
Tensor elu(const Tensor& x, OpSite site = {});
// log(1 + e^x), stable for large |x| (op Softplus).
Tensor softplus(const Tensor& x, OpSite site = {});
// Largest integer <= x (op Floor).
Tensor floor(const Tensor& x, OpSite site = {});
// Smallest integer >= x (op Ceil).
Tensor ceil(const Tensor& x, OpSite site = {});
// The nearest integer, halves to even (op Round; ints too, unchanged).
Tensor round(const Tensor& x, OpSite site = {});
// The nearest integer, halves to even (op Rint).
Tensor rint(const Tensor& x, OpSite site = {});
// x if x > 0 else alpha * x (op LeakyRelu; Keras' and TensorFlow's default alpha is 0.2).
Tensor leaky_relu(const Tensor& x, float alpha = 0.2f, OpSite site = {});
// scale * (x if x > 0 else alpha * (e^x - 1)), the self-normalizing constants (op Selu).
Tensor selu(const Tensor& x, OpSite site = {});
// x / (1 + |x|) (op Softsign).
Tensor softsign(const Tensor& x, OpSite site = {});
// The error function (op Erf).
Tensor erf(const Tensor& x, OpSite site = {});
// 1 - erf(x), accurate for large x (op Erfc).
Tensor erfc(const Tensor& x, OpSite site = {});
// The inverse error function: the y with erf(y) = x, for x in [-1, 1] (+-inf at +-1, NaN outside)
// (op Erfinv). Float32 results are within an ulp or so, float64 within a few ulps.
Tensor erfinv(const Tensor& x, OpSite site = {});
// Sine, x in radians (op Sin).
Tensor sin(const Tensor& x, OpSite site = {});
// Cosine, x in radians (op Cos).
Tensor cos(const Tensor& x, OpSite site = {});

// ---- Float classification (float32, float64, float16, bfloat16; not differentiable) ----

// x is NaN, elementwise (op IsNan; bool result).
Tensor is_nan(const Tensor& x, OpSite site = {});
// x is +inf or -inf (op IsInf; bool result).
Tensor is_inf(const Tensor& x, OpSite site = {});
// x is neither NaN nor infinite (op IsFinite; bool result).
Tensor is_finite(const Tensor& x, OpSite site = {});
// x itself when it holds no NaN and no infinity; otherwise an InvalidArgument error naming the op,
// `message` and what was found ("<message> : Tensor had NaN values", or Inf, or Inf and NaN), as
// TensorFlow's tf.debugging.check_numerics (op CheckNumerics). Its gradient checks the gradient.
Tensor check_numerics(const Tensor& x, const std::string& message, OpSite site = {});

// ---- Selection and conversion ----

// condition ? x : y elementwise, all three broadcast together; condition is bool, x and y any
// one dtype (op SelectV2).
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y, OpSite site = {});
// x converted to `dtype` (op Cast; all seven dtypes): float -> int truncates toward zero (NaN -> 0,
// out of range saturates), x -> bool is x != 0. Returns x itself when it already has `dtype`.
Tensor cast(const Tensor& x, DType dtype, OpSite site = {});

}  // namespace duet
