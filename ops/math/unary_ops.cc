// Unary elementwise ops: Neg, Abs, Square, Sign, Relu, Relu6 (also on integers) and Exp, Log,
// Log1p, Sqrt, Rsqrt, Tanh, Sigmoid, Elu, Softplus, Floor, Ceil (floating point).
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

}  // namespace duet
