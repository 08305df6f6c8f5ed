// Random numbers have no gradient (as in TensorFlow). The scaled forms' mean/stddev and
// minval/maxval operands come from C++ numbers in random_normal/random_uniform, so no gradient
// could reach them either.
#include "ops/gradient.h"

namespace duet {
namespace {

const NotDifferentiable kStatelessRandomNormal("StatelessRandomNormal");
const NotDifferentiable kStatelessRandomUniform("StatelessRandomUniform");
const NotDifferentiable kStatelessRandomNormalScaled("_StatelessRandomNormalScaled");
const NotDifferentiable kStatelessRandomUniformScaled("_StatelessRandomUniformScaled");
const NotDifferentiable kStatefulStandardNormalV2("StatefulStandardNormalV2");
const NotDifferentiable kStatefulUniform("StatefulUniform");

}  // namespace
}  // namespace duet
