// Gradients of the math family. Every function is written with op functions only, so that a tape
// recording the backward pass can differentiate it again, and graph mode can later build it as
// nodes. Conventions (subgradients at kinks, Pow's gradient at x <= 0) follow TensorFlow.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_grads.h"

namespace duet {
namespace {

// ---- Binary arithmetic ----

TensorList AddGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  return {ReduceToShape(g, ctx, 0), ReduceToShape(g, ctx, 1)};
}

// AddN does not broadcast: every input gets the gradient as it is.
TensorList AddNGrad(const GradientContext& ctx) {
  return TensorList(ctx.num_inputs(), ctx.grad(0));
}

TensorList SubGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  return {ReduceToShape(g, ctx, 0), ReduceToShape(negative(g), ctx, 1)};
}

TensorList MulGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  return {ReduceToShape(g * y, ctx, 0), ReduceToShape(x * g, ctx, 1)};
}

// RealDiv, and Div on floats (integer divisions never carry gradients).
TensorList DivGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  return {ReduceToShape(g / y, ctx, 0), ReduceToShape(g * (negative(x) / y / y), ctx, 1)};
}

// x mod y = x - floor(x / y) * y, and floor's derivative is 0 between its jumps.
TensorList FloorModGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  return {ReduceToShape(g, ctx, 0), ReduceToShape(negative(g) * floor(x / y), ctx, 1)};
}

TensorList PowGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  const Tensor& z = ctx.output(0);
  const DType dtype = x.dtype();
  const Tensor gx = g * y * pow(x, y - 1);
  // d/dy x^y = x^y log(x) is real only for x > 0; elsewhere the gradient is 0 (TensorFlow). The
  // inner where keeps log's own gradient finite there too, so second derivatives are not NaN.
  const Tensor positive = x > 0;
  const Tensor log_x = where(positive, log(where(positive, x, scalar(1, dtype))), scalar(0, dtype));
  const Tensor gy = g * z * log_x;
  return {ReduceToShape(gx, ctx, 0), ReduceToShape(gy, ctx, 1)};
}

// The gradient goes to x where `x_wins` (ties included, as in TensorFlow), else to y.
TensorList SelectBetweenGrad(const GradientContext& ctx, const Tensor& x_wins) {
  const Tensor& g = ctx.grad(0);
  const Tensor zero = scalar(0, g.dtype());
  return {ReduceToShape(where(x_wins, g, zero), ctx, 0),
          ReduceToShape(where(x_wins, zero, g), ctx, 1)};
}

// TensorFlow's _ClipByValueGrad: the gradient goes to t where t is within the bounds (ties
// included), else to the bound that clipped it, summed to the bound's shape.
TensorList ClipByValueGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& t = ctx.input(0);
  const Tensor zero = scalar(0, g.dtype());
  const Tensor below = less(t, ctx.input(1));
  const Tensor above = greater(t, ctx.input(2));
  return {where(logical_or(below, above), zero, g), ReduceToShape(where(below, g, zero), ctx, 1),
          ReduceToShape(where(above, g, zero), ctx, 2)};
}

TensorList MaximumGrad(const GradientContext& ctx) {
  return SelectBetweenGrad(ctx, ctx.input(0) >= ctx.input(1));
}

TensorList MinimumGrad(const GradientContext& ctx) {
  return SelectBetweenGrad(ctx, ctx.input(0) <= ctx.input(1));
}

// d(x - y)^2 = 2 (x - y) (dx - dy).
TensorList SquaredDifferenceGrad(const GradientContext& ctx) {
  const Tensor d = ctx.grad(0) * (ctx.input(0) - ctx.input(1)) * 2;
  return {ReduceToShape(d, ctx, 0), ReduceToShape(negative(d), ctx, 1)};
}

// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
TensorList Atan2Grad(const GradientContext& ctx) {
  const Tensor& y = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor scaled = ctx.grad(0) / (x * x + y * y);
  return {ReduceToShape(scaled * x, ctx, 0), ReduceToShape(negative(scaled * y), ctx, 1)};
}

// ---- Unary ----

TensorList NegGrad(const GradientContext& ctx) { return {negative(ctx.grad(0))}; }

TensorList AbsGrad(const GradientContext& ctx) { return {ctx.grad(0) * sign(ctx.input(0))}; }

TensorList SquareGrad(const GradientContext& ctx) { return {ctx.grad(0) * (ctx.input(0) * 2)}; }

// From the output: y > 0 exactly where x > 0, and keeping y lets the tape free x.
TensorList ReluGrad(const GradientContext& ctx) { return {relu_grad(ctx.grad(0), ctx.output(0))}; }

// Linear in `gradients` with the same mask; piecewise constant in `features`, which gets none.
TensorList ReluGradGrad(const GradientContext& ctx) {
  return {relu_grad(ctx.grad(0), ctx.input(1)), Tensor()};
}

TensorList Relu6Grad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& y = ctx.output(0);
  return {where(logical_and(y > 0, y < 6), g, scalar(0, g.dtype()))};
}

TensorList ExpGrad(const GradientContext& ctx) { return {ctx.grad(0) * ctx.output(0)}; }

TensorList LogGrad(const GradientContext& ctx) { return {ctx.grad(0) / ctx.input(0)}; }

TensorList Log1pGrad(const GradientContext& ctx) { return {ctx.grad(0) / (ctx.input(0) + 1)}; }

// d sqrt(x) = 1 / (2 sqrt(x)).
TensorList SqrtGrad(const GradientContext& ctx) { return {ctx.grad(0) * 0.5 / ctx.output(0)}; }

// d x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2.
TensorList RsqrtGrad(const GradientContext& ctx) {
  const Tensor& y = ctx.output(0);
  return {ctx.grad(0) * (y * y * y * -0.5)};
}

TensorList TanhGrad(const GradientContext& ctx) {
  const Tensor& y = ctx.output(0);
  return {ctx.grad(0) * (1 - y * y)};
}

TensorList SigmoidGrad(const GradientContext& ctx) {
  const Tensor& y = ctx.output(0);
  return {ctx.grad(0) * (y * (1 - y))};
}

// For x <= 0, y = e^x - 1, so dy/dx = e^x = y + 1.
TensorList EluGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& y = ctx.output(0);
  return {where(y > 0, g, g * (y + 1))};
}

TensorList SoftplusGrad(const GradientContext& ctx) {
  return {ctx.grad(0) * sigmoid(ctx.input(0))};
}

// The slope is 1 where features > 0, else alpha (the subgradient at 0 is alpha, as TensorFlow's).
TensorList LeakyReluGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const double alpha = ctx.attr(LeakyReluAttrs::kAlpha);
  return {where(ctx.input(0) > 0, g, g * alpha)};
}

// From the output: for x <= 0, y = scale alpha (e^x - 1), so dy/dx = scale alpha e^x =
// y + scale alpha (TensorFlow's SeluGrad, which also takes the slope scale at 0).
TensorList SeluGrad(const GradientContext& ctx) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  const Tensor& g = ctx.grad(0);
  const Tensor& y = ctx.output(0);
  return {where(y < 0, g * (y + kScale * kAlpha), g * kScale)};
}

// d x / (1 + |x|) = 1 / (1 + |x|)^2.
TensorList SoftsignGrad(const GradientContext& ctx) {
  const Tensor denominator = abs(ctx.input(0)) + 1;
  return {ctx.grad(0) / (denominator * denominator)};
}

// d erf(x) = 2 / sqrt(pi) e^(-x^2); erfc is its negation.
Tensor ErfSlope(const Tensor& x) {
  constexpr double kTwoOverSqrtPi = 1.1283791670955125738961589031215;
  return exp(negative(x * x)) * kTwoOverSqrtPi;
}

TensorList ErfGrad(const GradientContext& ctx) { return {ctx.grad(0) * ErfSlope(ctx.input(0))}; }

// d erfinv(x) = sqrt(pi) / 2 e^(erfinv(x)^2), from the output.
TensorList ErfinvGrad(const GradientContext& ctx) {
  constexpr double kSqrtPiOverTwo = 0.88622692545275801364908374167057;
  const Tensor& y = ctx.output(0);
  return {ctx.grad(0) * (exp(y * y) * kSqrtPiOverTwo)};
}

// TensorFlow's _CheckNumericsGrad: the gradient passes through, checked in turn.
TensorList CheckNumericsGrad(const GradientContext& ctx) {
  return {check_numerics(ctx.grad(0),
                         "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                             ctx.attr(CheckNumericsAttrs::kMessage))};
}

TensorList ErfcGrad(const GradientContext& ctx) {
  return {negative(ctx.grad(0) * ErfSlope(ctx.input(0)))};
}

TensorList SinGrad(const GradientContext& ctx) { return {ctx.grad(0) * cos(ctx.input(0))}; }

TensorList CosGrad(const GradientContext& ctx) {
  return {negative(ctx.grad(0) * sin(ctx.input(0)))};
}

// ---- Selection and conversion ----

TensorList SelectV2Grad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor& condition = ctx.input(0);
  const Tensor zero = scalar(0, g.dtype());
  return {Tensor(), ReduceToShape(where(condition, g, zero), ctx, 1),
          ReduceToShape(where(condition, zero, g), ctx, 2)};
}

// Only conversions between floating types pass a gradient: through an integer or bool the value
// is piecewise constant (and such tensors carry no gradient anyway).
TensorList CastGrad(const GradientContext& ctx) {
  const DType src = ctx.attr(CastAttrs::kSrcT);
  const DType dst = ctx.attr(CastAttrs::kDstT);
  if (!IsFloating(src) || !IsFloating(dst)) return {Tensor()};
  return {cast(ctx.grad(0), src)};
}

const GradientRegistrar kAddV2Grad("AddV2", AddGrad);
const GradientRegistrar kAddNGrad("AddN", AddNGrad);
const GradientRegistrar kSubGrad("Sub", SubGrad);
const GradientRegistrar kMulGrad("Mul", MulGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kRealDivGrad("RealDiv", DivGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kDivGrad("Div", DivGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kFloorModGrad("FloorMod", FloorModGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kPowGrad("Pow", PowGrad, /*keep_inputs=*/{0, 1}, /*keep_outputs=*/{0});
const GradientRegistrar kMaximumGrad("Maximum", MaximumGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kMinimumGrad("Minimum", MinimumGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kSquaredDifferenceGrad("SquaredDifference", SquaredDifferenceGrad,
                                               /*keep_inputs=*/{0, 1});
const GradientRegistrar kAtan2Grad("Atan2", Atan2Grad, /*keep_inputs=*/{0, 1});

const GradientRegistrar kNegGrad("Neg", NegGrad);
const GradientRegistrar kAbsGrad("Abs", AbsGrad, /*keep_inputs=*/{0});
const GradientRegistrar kSquareGrad("Square", SquareGrad, /*keep_inputs=*/{0});
const GradientRegistrar kReluGrad("Relu", ReluGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kReluGradGrad("ReluGrad", ReluGradGrad, /*keep_inputs=*/{1});
const GradientRegistrar kRelu6Grad("Relu6", Relu6Grad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kExpGrad("Exp", ExpGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kLogGrad("Log", LogGrad, /*keep_inputs=*/{0});
const GradientRegistrar kLog1pGrad("Log1p", Log1pGrad, /*keep_inputs=*/{0});
const GradientRegistrar kSqrtGrad("Sqrt", SqrtGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kRsqrtGrad("Rsqrt", RsqrtGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kTanhGrad("Tanh", TanhGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kSigmoidGrad("Sigmoid", SigmoidGrad, /*keep_inputs=*/{},
                                     /*keep_outputs=*/{0});
const GradientRegistrar kEluGrad("Elu", EluGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kSoftplusGrad("Softplus", SoftplusGrad, /*keep_inputs=*/{0});
const GradientRegistrar kLeakyReluGrad("LeakyRelu", LeakyReluGrad, /*keep_inputs=*/{0});
const GradientRegistrar kSeluGrad("Selu", SeluGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
const GradientRegistrar kSoftsignGrad("Softsign", SoftsignGrad, /*keep_inputs=*/{0});
const GradientRegistrar kErfGrad("Erf", ErfGrad, /*keep_inputs=*/{0});
const GradientRegistrar kErfcGrad("Erfc", ErfcGrad, /*keep_inputs=*/{0});
const GradientRegistrar kClipByValueGrad("ClipByValue", ClipByValueGrad,
                                         /*keep_inputs=*/{0, 1, 2});
const GradientRegistrar kErfinvGrad("Erfinv", ErfinvGrad, /*keep_inputs=*/{},
                                    /*keep_outputs=*/{0});
const GradientRegistrar kCheckNumericsGrad("CheckNumerics", CheckNumericsGrad, /*keep_inputs=*/{});
const GradientRegistrar kSinGrad("Sin", SinGrad, /*keep_inputs=*/{0});
const GradientRegistrar kCosGrad("Cos", CosGrad, /*keep_inputs=*/{0});

const GradientRegistrar kSelectV2Grad("SelectV2", SelectV2Grad, /*keep_inputs=*/{0});
const GradientRegistrar kCastGrad("Cast", CastGrad);

// Piecewise constant: their derivative is 0 almost everywhere, so, like TensorFlow's None, no
// gradient flows through them.
const NotDifferentiable kSign("Sign");
const NotDifferentiable kFloor("Floor");
const NotDifferentiable kCeil("Ceil");
const NotDifferentiable kRound("Round");
const NotDifferentiable kRint("Rint");
const NotDifferentiable kBucketize("Bucketize");
const NotDifferentiable kFloorDiv("FloorDiv");
const NotDifferentiable kTruncateDiv("TruncateDiv");

// Bool results.
const NotDifferentiable kEqual("Equal");
const NotDifferentiable kNotEqual("NotEqual");
const NotDifferentiable kLess("Less");
const NotDifferentiable kLessEqual("LessEqual");
const NotDifferentiable kGreater("Greater");
const NotDifferentiable kGreaterEqual("GreaterEqual");
const NotDifferentiable kLogicalAnd("LogicalAnd");
const NotDifferentiable kLogicalOr("LogicalOr");
const NotDifferentiable kLogicalNot("LogicalNot");
const NotDifferentiable kIsNan("IsNan");
const NotDifferentiable kIsInf("IsInf");
const NotDifferentiable kIsFinite("IsFinite");
// Made by the fusion pass, which runs after gradients are built (like _FusedMatMul).
const NotDifferentiable kFusedElementwise("_FusedElementwise");

}  // namespace
}  // namespace duet
