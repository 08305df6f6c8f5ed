// Unary elementwise ops: Neg, Abs, Square, Sign, Relu, Relu6, Round (also on integers) and Exp,
// Log, Log1p, Sqrt, Rsqrt, Tanh, Sigmoid, Elu, Selu, Softplus, Softsign, Floor, Ceil, Rint, Erf,
// Erfc, Erfinv, Sin, Cos (floating point).
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

const OpDef* const kNeg = RegisterUnaryOp("Neg", kArithmeticTypes, "-x elementwise.");
const OpDef* const kAbs =
    RegisterUnaryOp("Abs", kArithmeticTypes, "Absolute value of x, elementwise.");
const OpDef* const kSquare = RegisterUnaryOp("Square", kArithmeticTypes, "x * x elementwise.");
const OpDef* const kSign =
    RegisterUnaryOp("Sign", kArithmeticTypes, "-1, 0 or 1 by the sign of x (NaN stays NaN).");
const OpDef* const kRelu =
    RegisterUnaryOp("Relu", kArithmeticTypes, "max(features, 0).", "features", "activations");
const OpDef* const kRelu6 = RegisterUnaryOp("Relu6", kArithmeticTypes, "min(max(features, 0), 6).",
                                            "features", "activations");
const OpDef* const kExp = RegisterUnaryOp("Exp", kMathFloatTypes, "e^x elementwise.");
const OpDef* const kLog = RegisterUnaryOp("Log", kMathFloatTypes, "Natural logarithm of x.");
const OpDef* const kLog1p =
    RegisterUnaryOp("Log1p", kMathFloatTypes, "log(1 + x), accurate for small x.");
const OpDef* const kSqrt = RegisterUnaryOp("Sqrt", kMathFloatTypes, "Square root of x.");
const OpDef* const kRsqrt = RegisterUnaryOp("Rsqrt", kMathFloatTypes, "1 / sqrt(x).");
const OpDef* const kTanh = RegisterUnaryOp("Tanh", kMathFloatTypes, "Hyperbolic tangent of x.");
const OpDef* const kSigmoid =
    RegisterUnaryOp("Sigmoid", kMathFloatTypes, "1 / (1 + e^-x), the logistic function.");
const OpDef* const kElu = RegisterUnaryOp(
    "Elu", kMathFloatTypes, "features if > 0, else e^features - 1.", "features", "activations");
const OpDef* const kSoftplus = RegisterUnaryOp(
    "Softplus", kMathFloatTypes, "log(1 + e^features), stable for inputs of any magnitude.",
    "features", "activations");
const OpDef* const kFloor = RegisterUnaryOp("Floor", kMathFloatTypes, "Largest integer <= x.");
const OpDef* const kCeil = RegisterUnaryOp("Ceil", kMathFloatTypes, "Smallest integer >= x.");
const OpDef* const kRound =
    RegisterUnaryOp("Round", kArithmeticTypes,
                    "x rounded to the nearest integer, halves to even (ints unchanged).");
const OpDef* const kRint =
    RegisterUnaryOp("Rint", kMathFloatTypes, "x rounded to the nearest integer, halves to even.");
const OpDef* const kSelu = RegisterUnaryOp(
    "Selu", kMathFloatTypes,
    "scale * features if > 0, else scale * alpha * (e^features - 1), with TensorFlow's "
    "self-normalizing constants alpha = 1.6732632423543772, scale = 1.0507009873554805.",
    "features", "activations");
const OpDef* const kSoftsign = RegisterUnaryOp(
    "Softsign", kMathFloatTypes, "features / (1 + |features|).", "features", "activations");
const OpDef* const kErf =
    RegisterUnaryOp("Erf", kMathFloatTypes,
                    "The error function: 2 / sqrt(pi) times the integral of e^-t^2 over [0, x].");
const OpDef* const kErfc =
    RegisterUnaryOp("Erfc", kMathFloatTypes, "1 - erf(x), accurate where erf(x) is near 1.");
const OpDef* const kErfinv = RegisterUnaryOp(
    "Erfinv", kMathFloatTypes,
    "The inverse error function: erf(y) = x for x in (-1, 1); +-inf at +-1, NaN beyond.");
const OpDef* const kSin = RegisterUnaryOp("Sin", kMathFloatTypes, "Sine of x (radians).");
const OpDef* const kCos = RegisterUnaryOp("Cos", kMathFloatTypes, "Cosine of x (radians).");

}  // namespace

Tensor negative(const Tensor& x, OpSite site) { return CallUnaryOp(kNeg, x, site); }
Tensor abs(const Tensor& x, OpSite site) { return CallUnaryOp(kAbs, x, site); }
Tensor square(const Tensor& x, OpSite site) { return CallUnaryOp(kSquare, x, site); }
Tensor sign(const Tensor& x, OpSite site) { return CallUnaryOp(kSign, x, site); }
Tensor relu(const Tensor& x, OpSite site) { return CallUnaryOp(kRelu, x, site); }
Tensor relu6(const Tensor& x, OpSite site) { return CallUnaryOp(kRelu6, x, site); }
Tensor exp(const Tensor& x, OpSite site) { return CallUnaryOp(kExp, x, site); }
Tensor log(const Tensor& x, OpSite site) { return CallUnaryOp(kLog, x, site); }
Tensor log1p(const Tensor& x, OpSite site) { return CallUnaryOp(kLog1p, x, site); }
Tensor sqrt(const Tensor& x, OpSite site) { return CallUnaryOp(kSqrt, x, site); }
Tensor rsqrt(const Tensor& x, OpSite site) { return CallUnaryOp(kRsqrt, x, site); }
Tensor tanh(const Tensor& x, OpSite site) { return CallUnaryOp(kTanh, x, site); }
Tensor sigmoid(const Tensor& x, OpSite site) { return CallUnaryOp(kSigmoid, x, site); }
Tensor elu(const Tensor& x, OpSite site) { return CallUnaryOp(kElu, x, site); }
Tensor softplus(const Tensor& x, OpSite site) { return CallUnaryOp(kSoftplus, x, site); }
Tensor floor(const Tensor& x, OpSite site) { return CallUnaryOp(kFloor, x, site); }
Tensor ceil(const Tensor& x, OpSite site) { return CallUnaryOp(kCeil, x, site); }
Tensor round(const Tensor& x, OpSite site) { return CallUnaryOp(kRound, x, site); }
Tensor rint(const Tensor& x, OpSite site) { return CallUnaryOp(kRint, x, site); }
Tensor selu(const Tensor& x, OpSite site) { return CallUnaryOp(kSelu, x, site); }
Tensor softsign(const Tensor& x, OpSite site) { return CallUnaryOp(kSoftsign, x, site); }
Tensor erf(const Tensor& x, OpSite site) { return CallUnaryOp(kErf, x, site); }
Tensor erfc(const Tensor& x, OpSite site) { return CallUnaryOp(kErfc, x, site); }
Tensor erfinv(const Tensor& x, OpSite site) { return CallUnaryOp(kErfinv, x, site); }
Tensor sin(const Tensor& x, OpSite site) { return CallUnaryOp(kSin, x, site); }
Tensor cos(const Tensor& x, OpSite site) { return CallUnaryOp(kCos, x, site); }

}  // namespace duet
