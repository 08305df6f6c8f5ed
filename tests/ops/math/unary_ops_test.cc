// Unary ops: values against NumPy, every dtype, special values (inf, NaN, huge |x|), vector tails
// of every length, the threaded path against the C library, and unsupported dtypes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

using UnaryFn = Tensor (*)(const Tensor&, OpSite);

const double kNaN = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();
const std::vector<DType> kFloats = {kFloat32, kFloat64};

TEST_CASE("neg, abs, square, sign, relu, relu6 on every arithmetic dtype") {
  const std::vector<std::pair<UnaryFn, std::vector<double>>> int_cases = {
      {negative, {7, 1, 0, -3, -8}}, {abs, {7, 1, 0, 3, 8}},  {square, {49, 1, 0, 9, 64}},
      {sign, {-1, -1, 0, 1, 1}},     {relu, {0, 0, 0, 3, 8}}, {relu6, {0, 0, 0, 3, 6}},
  };
  for (DType dtype : {kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    for (const auto& [fn, expected] : int_cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {5}, {-7, -1, 0, 3, 8}), {}), dtype, {5},
                            expected);
    }
  }
  const std::vector<std::pair<UnaryFn, std::vector<double>>> float_cases = {
      {negative, {2.5, 1, 0, -0.5, -3, -7.5}}, {abs, {2.5, 1, 0, 0.5, 3, 7.5}},
      {square, {6.25, 1, 0, 0.25, 9, 56.25}},  {sign, {-1, -1, 0, 1, 1, 1}},
      {relu, {0, 0, 0, 0.5, 3, 7.5}},          {relu6, {0, 0, 0, 0.5, 3, 6}},
  };
  for (DType dtype : kFloats) {
    INFO(DTypeName(dtype));
    for (const auto& [fn, expected] : float_cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 3}, {-2.5, -1, 0, 0.5, 3, 7.5}), {}), dtype,
                            {2, 3}, expected);
    }
  }
}

TEST_CASE("sign, relu and relu6 keep NaN") {
  for (UnaryFn fn : {sign, relu, relu6}) {
    testing::ExpectTensor(fn(constant({kNaN}), {}), kFloat64, {1}, {kNaN});
  }
}

TEST_CASE("exp, tanh, sigmoid, elu, softplus match NumPy") {
  const std::vector<double> x = {-3, -1.5, -0.5, 0, 0.25, 1, 2.5, 10};
  const std::vector<std::pair<UnaryFn, std::vector<double>>> cases = {
      {exp,
       {0.049787068367863944, 0.22313016014842982, 0.6065306597126334, 1.0, 1.2840254166877414,
        2.718281828459045, 12.182493960703473, 22026.465794806718}},
      {tanh,
       {-0.9950547536867305, -0.9051482536448665, -0.46211715726000974, 0.0, 0.24491866240370913,
        0.7615941559557649, 0.9866142981514303, 0.9999999958776927}},
      {sigmoid,
       {0.04742587317756678, 0.18242552380635635, 0.3775406687981454, 0.5, 0.5621765008857981,
        0.7310585786300049, 0.9241418199787566, 0.9999546021312976}},
      {elu,
       {-0.950212931632136, -0.7768698398515702, -0.3934693402873666, 0.0, 0.25, 1.0, 2.5, 10.0}},
      {softplus,
       {0.04858735157374206, 0.2014132779827524, 0.4740769841801067, 0.6931471805599453,
        0.8259394198788436, 1.3132616875182228, 2.5788897342925496, 10.000045398899218}},
  };
  for (DType dtype : kFloats) {
    const double tol = dtype == kFloat32 ? 1e-6 : 1e-14;
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 4}, x), {}), dtype, {2, 4}, expected, tol);
    }
  }
}

TEST_CASE("erf, erfc, sin, cos, selu, softsign, leaky_relu match NumPy and TensorFlow") {
  const std::vector<double> x = {-3, -1.5, -0.5, 0, 0.25, 1, 2.5, 10};
  // leaky_relu's alpha is a float attr: 0.2f, as in TensorFlow.
  const double alpha = 0.2f;
  const std::vector<std::pair<UnaryFn, std::vector<double>>> cases = {
      {erf,
       {-0.9999779095030014, -0.9661051464753108, -0.5204998778130465, 0.0, 0.2763263901682369,
        0.8427007929497149, 0.999593047982555, 1.0}},
      {erfc,
       {1.9999779095030015, 1.9661051464753108, 1.5204998778130465, 1.0, 0.7236736098317631,
        0.15729920705028513, 0.0004069520174449589, 2.088487583762545e-45}},
      {sin,
       {-0.1411200080598672, -0.9974949866040544, -0.479425538604203, 0.0, 0.24740395925452294,
        0.8414709848078965, 0.5984721441039565, -0.5440211108893698}},
      {cos,
       {-0.9899924966004454, 0.0707372016677029, 0.8775825618903728, 1.0, 0.9689124217106447,
        0.5403023058681398, -0.8011436155469337, -0.8390715290764524}},
      {selu,
       {-1.670568728767112, -1.3658143533672529, -0.6917581878028713, 0.0, 0.2626752468388701,
        1.0507009873554805, 2.626752468388701, 10.507009873554804}},
      {softsign,
       {-0.75, -0.6, -0.3333333333333333, 0.0, 0.2, 0.5, 0.7142857142857143, 0.9090909090909091}},
      {[](const Tensor& t, OpSite site) { return leaky_relu(t, 0.2f, site); },
       {-3 * alpha, -1.5 * alpha, -0.5 * alpha, 0.0, 0.25, 1.0, 2.5, 10.0}},
  };
  for (DType dtype : kFloats) {
    INFO(DTypeName(dtype));
    const double tol = dtype == kFloat32 ? 2e-6 : 1e-14;
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 4}, x), {}), dtype, {2, 4}, expected, tol);
    }
  }
  // The 16-bit types compute in float32 and round once.
  testing::ExpectTensor(leaky_relu(MakeTensor(kBFloat16, {2}, {-2, 3}), 0.5f), kBFloat16, {2},
                        {-1, 3});
  testing::ExpectTensor(erf(MakeTensor(kFloat16, {2}, {0, 10})), kFloat16, {2}, {0, 1});
}

TEST_CASE("round and rint round halves to even; round leaves integers alone") {
  const std::vector<double> x = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 3.49};
  const std::vector<double> expected = {-2, -2, -0.0, 0, 2, 2, -1, 3};
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(round(MakeTensor(dtype, {8}, x)), dtype, {8}, expected);
    testing::ExpectTensor(rint(MakeTensor(dtype, {8}, x)), dtype, {8}, expected);
  }
  for (DType dtype : {kInt32, kInt64}) {
    testing::ExpectTensor(round(MakeTensor(dtype, {3}, {-7, 0, 9})), dtype, {3}, {-7, 0, 9});
  }
  testing::ExpectError([] { rint(constant({1, 2})); }, {"Rint", "dtype int32 is not supported"});
}

TEST_CASE("log, log1p, sqrt, rsqrt match NumPy") {
  const std::vector<double> x = {0.25, 0.5, 1, 2, 4, 10, 100, 1e-3};
  const std::vector<std::pair<UnaryFn, std::vector<double>>> cases = {
      {log,
       {-1.3862943611198906, -0.6931471805599453, 0.0, 0.6931471805599453, 1.3862943611198906,
        2.302585092994046, 4.605170185988092, -6.907755278982137}},
      {log1p,
       {0.22314355131420976, 0.4054651081081644, 0.6931471805599453, 1.0986122886681098,
        1.6094379124341003, 2.3978952727983707, 4.61512051684126, 0.0009995003330835331}},
      {sqrt,
       {0.5, 0.7071067811865476, 1.0, 1.4142135623730951, 2.0, 3.1622776601683795, 10.0,
        0.03162277660168379}},
      {rsqrt,
       {2.0, 1.414213562373095, 1.0, 0.7071067811865475, 0.5, 0.31622776601683794, 0.1,
        31.622776601683796}},
  };
  for (DType dtype : kFloats) {
    const double tol = dtype == kFloat32 ? 1e-6 : 1e-14;
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {8}, x), {}), dtype, {8}, expected, tol);
    }
  }
}

TEST_CASE("floor and ceil") {
  const std::vector<double> x = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.0, -0.0, 7.9};
  for (DType dtype : kFloats) {
    testing::ExpectTensor(floor(MakeTensor(dtype, {8}, x)), dtype, {8},
                          {-3, -2, -1, 0, 1, 2, 0, 7});
    testing::ExpectTensor(ceil(MakeTensor(dtype, {8}, x)), dtype, {8}, {-2, -1, 0, 1, 2, 2, 0, 8});
  }
}

TEST_CASE("special values: infinities, NaN, domain edges") {
  const double inf = INFINITY;
  testing::ExpectTensor(exp(constant({100.f, -200.f, INFINITY, -INFINITY})), kFloat32, {4},
                        {inf, 0, inf, 0});
  testing::ExpectTensor(log(constant({0.0, -1.0, inf})), kFloat64, {3}, {-inf, kNaN, inf});
  testing::ExpectTensor(log1p(constant({-1.0, -2.0})), kFloat64, {2}, {-inf, kNaN});
  testing::ExpectTensor(sqrt(constant({-1.f, INFINITY})), kFloat32, {2}, {kNaN, inf});
  testing::ExpectTensor(rsqrt(constant({0.0, inf})), kFloat64, {2}, {inf, 0});
  testing::ExpectTensor(tanh(constant({-inf, 50.0, kNaN})), kFloat64, {3}, {-1, 1, kNaN});
  for (UnaryFn fn : {exp, log, log1p, sqrt, tanh, sigmoid, elu, softplus, floor}) {
    testing::ExpectTensor(fn(constant({std::nanf("")}), {}), kFloat32, {1}, {kNaN});
  }
  // Accurate near zero, where the naive log(1 + x) and exp(x) - 1 lose every digit.
  CHECK(log1p(constant(1e-10)).item<double>() == Approx(9.999999999500001e-11).epsilon(1e-14));
  CHECK(elu(constant(-1e-10)).item<double>() == Approx(-9.999999999500001e-11).epsilon(1e-14));
}

// Issue 37: SLEEF's log1p overflowed to inf above 1e38 (float) and 1e307 (double); TensorFlow
// gives Log1p(3.4e38f) = 88.72 (Note [Log1p of huge x] in kernels/cpu/math/functors.h).
TEST_CASE("log1p of huge x is finite, like TensorFlow's") {
  const std::vector<double> x = {3.4e38, 1e38, 1.8446744073709552e19, 2e19, kInf};
  testing::ExpectTensor(
      log1p(MakeTensor(kFloat32, {5}, x)), kFloat32, {5},
      {88.72200895132066, 87.4982335018023, 44.3614195558365, 44.44226394549746, kInf}, 1e-6);
  testing::ExpectTensor(log1p(constant({1.5e308, 1e307, 1e300})), kFloat64, {3},
                        {709.6016737502742, 706.893623549172, 690.7755278982137}, 1e-15);
  testing::ExpectTensor(log1p(MakeTensor(kBFloat16, {2}, {3.38e38, 1e30})), kBFloat16, {2},
                        {88.71499593, 69.07780831}, 1e-2);
}

TEST_CASE("sigmoid and softplus are stable for large |x|") {
  Tensor x = constant({-100.0, -30.0, 30.0, 100.0, -1000.0, 1000.0});
  std::vector<double> sp = softplus(x).to_vector<double>();
  CHECK(sp[0] == Approx(3.720075976020836e-44).epsilon(1e-12));
  CHECK(sp[1] == Approx(9.357622968839737e-14).epsilon(1e-12));
  CHECK(sp[2] == Approx(30.000000000000092).epsilon(1e-15));
  CHECK(sp[3] == 100.0);
  CHECK(sp[4] == 0.0);
  CHECK(sp[5] == 1000.0);
  std::vector<double> sg = sigmoid(x).to_vector<double>();
  CHECK(sg[0] == Approx(3.7200759760208356e-44).epsilon(1e-12));
  CHECK(sg[1] == Approx(9.357622968839299e-14).epsilon(1e-12));
  CHECK(sg[2] == Approx(0.9999999999999065).epsilon(1e-15));
  CHECK(sg[3] == 1.0);
  CHECK(sg[4] == 0.0);
  CHECK(sg[5] == 1.0);
  // float32: exp(100) overflows, yet softplus and sigmoid stay finite.
  testing::ExpectTensor(softplus(constant({100.f, -100.f})), kFloat32, {2}, {100, 0}, 1e-6);
  testing::ExpectTensor(sigmoid(constant({100.f, -100.f})), kFloat32, {2}, {1, 0}, 1e-6);
}

// Every length from 0 to 2 vectors + tail, so each tail size of the SLEEF loop is covered.
TEST_CASE("vector loops handle every tail length") {
  for (int n = 0; n <= 19; ++n) {
    INFO("n = " << n);
    std::vector<double> x(n), e(n);
    for (int i = 0; i < n; ++i) {
      x[i] = 0.37 * i - 2;
      e[i] = std::exp(x[i]);
    }
    testing::ExpectTensor(exp(MakeTensor(kFloat32, {n}, x)), kFloat32, {n}, e, 1e-6);
    testing::ExpectTensor(exp(MakeTensor(kFloat64, {n}, x)), kFloat64, {n}, e, 1e-14);
  }
}

// The same values through the threaded path (> 32K elements), against the C library.
TEST_CASE("large inputs take the threaded path and match the C library") {
  const int64_t n = 100003;
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = std::fmod(i * 0.013, 20.0) - 10.0;
  const std::vector<std::pair<UnaryFn, std::function<double(double)>>> cases = {
      {exp, [](double v) { return std::exp(v); }},
      {tanh, [](double v) { return std::tanh(v); }},
      {sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {softplus, [](double v) { return std::log1p(std::exp(v)); }},
      {elu, [](double v) { return v > 0 ? v : std::expm1(v); }},
      {abs, [](double v) { return std::abs(v); }},
      {relu6, [](double v) { return std::min(std::max(v, 0.0), 6.0); }},
      {floor, [](double v) { return std::floor(v); }},
      {erf, [](double v) { return std::erf(v); }},
      {erfc, [](double v) { return std::erfc(v); }},
      {sin, [](double v) { return std::sin(v); }},
      {cos, [](double v) { return std::cos(v); }},
      {rint, [](double v) { return std::nearbyint(v); }},
  };
  for (const auto& [fn, ref] : cases) {
    std::vector<double> expected(n);
    for (int64_t i = 0; i < n; ++i) expected[i] = ref(x[i]);
    testing::ExpectTensor(fn(MakeTensor(kFloat64, {n}, x), {}), kFloat64, {n}, expected, 1e-13);
  }
  std::vector<double> expected(n);
  for (int64_t i = 0; i < n; ++i) expected[i] = std::log(std::abs(x[i]) + 0.5);
  std::vector<double> shifted(n);
  for (int64_t i = 0; i < n; ++i) shifted[i] = std::abs(x[i]) + 0.5;
  testing::ExpectTensor(log(MakeTensor(kFloat32, {n}, shifted)), kFloat32, {n}, expected, 1e-6);
}

TEST_CASE("erfinv matches mpmath and inverts erf") {
  // Made by testdata/gen_erfinv_l2_clip_expected.py: mpmath at 40 digits. TensorFlow's float64
  // kernel agrees to 1e-15 except at -1e-8 (5e-9 relative off) and 0.999999999999 (1e-5 off);
  // its float32 kernel gives 0 for -1e-8.
  const std::vector<double> x = {-0.999999, -0.9, -0.5, -1e-08, 0.0,
                                 0.1,       0.5,  0.75, 0.99,   0.999999999999};
  testing::ExpectTensor(erfinv(MakeTensor(kFloat64, {10}, x)), kFloat64, {10},
                        {-3.458910737275499, -1.1630871536766743, -0.4769362762044699,
                         -8.86226925452758e-09, 0.0, 0.08885599049425769, 0.4769362762044699,
                         0.8134198475976185, 1.8213863677184494, 5.042031898572696},
                        2e-15);
  // float32 against the erfinv of the float32-rounded inputs; 0.999999999999 rounds to 1.
  testing::ExpectTensor(
      erfinv(MakeTensor(kFloat32, {10}, x)), kFloat32, {10},
      {-3.45707472603595, -1.1630870719457722, -0.4769362762044699, -8.862269200667396e-09, 0.0,
       0.08885599182530649, 0.4769362762044699, 0.8134198475976185, 1.8213866009002777, kInf},
      2e-7);
  // Edges: +-1, outside [-1, 1], NaN; the 16-bit types through float32.
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(erfinv(MakeTensor(dtype, {6}, {1, -1, 1.5, -2, kNaN, 0.5})), dtype, {6},
                          {kInf, -kInf, kNaN, kNaN, kNaN, 0.4769362762044699},
                          dtype == kFloat16    ? 1e-3
                          : dtype == kBFloat16 ? 8e-3
                                               : 1e-6);
  }
  // erf(erfinv(y)) == y across (-1, 1), tails included, in float64.
  std::vector<double> y;
  for (int i = -999; i <= 999; ++i) y.push_back(i / 1000.0);
  for (double e : {1e-3, 1e-6, 1e-9, 1e-12, 1e-15}) {
    y.push_back(1 - e);
    y.push_back(e - 1);
  }
  const int64_t n = static_cast<int64_t>(y.size());
  const std::vector<double> inv = testing::ToDoubles(erfinv(MakeTensor(kFloat64, {n}, y)));
  for (int64_t i = 0; i < n; ++i) {
    INFO("y " << std::setprecision(17) << y[i]);
    // Near +-1 compare 1 - |y| through erfc, which keeps the tails' relative accuracy. erfc's
    // relative slope there is 2x^2 (up to ~120), so rounding x alone moves erfc(x) by ~1e-14.
    if (std::abs(y[i]) > 0.5) {
      const double tail = 1 - std::abs(y[i]);
      INFO("relative error " << std::abs(std::erfc(std::abs(inv[i])) - tail) / tail);
      CHECK(std::abs(std::erfc(std::abs(inv[i])) - tail) <= 2e-14 * tail);
    } else {
      CHECK(std::abs(std::erf(inv[i]) - y[i]) <= 1e-15 * std::max(std::abs(y[i]), 1e-300));
    }
  }
}

TEST_CASE("unsupported dtypes are a clear error naming the op") {
  testing::ExpectError(
      [] {
        exp(constant({1, 2}));
      },
      {"Exp", "dtype int32 is not supported", "float32", "float64"});
  testing::ExpectError([] { relu(constant({true})); }, {"Relu", "dtype bool is not supported"});
  testing::ExpectError([] { sqrt(MakeTensor(kInt64, {1}, {1})); },
                       {"Sqrt", "dtype int64 is not supported", "unary_ops_test.cc"});
  testing::ExpectError([] { negative(Tensor()); }, {"Neg", "undefined"});
  testing::ExpectError(
      [] {
        erfinv(constant({1, 2}));
      },
      {"Erfinv", "dtype int32 is not supported", "x: int32 (2,)"});
}

}  // namespace
}  // namespace duet
