// Expected bit patterns are TensorFlow 2.21's tf.random.stateless_normal / stateless_uniform
// output for the same seed pair (seed=[s, 0] for duet's single seed).
#include "ops/random/random_ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

std::vector<uint32_t> Bits32(const Tensor& t) {
  std::vector<float> v = t.to_vector<float>();
  std::vector<uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * 4);
  return bits;
}

std::vector<uint64_t> Bits64(const Tensor& t) {
  std::vector<double> v = t.to_vector<double>();
  std::vector<uint64_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * 8);
  return bits;
}

struct Moments {
  double mean = 0, stddev = 0;
};

Moments MomentsOf(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= v.size();
  for (double x : v) m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / v.size());
  return m;
}

TEST_CASE("random_normal gives TensorFlow's numbers for the same seed") {
  CHECK(Bits32(random_normal({10}, 7)) ==
        std::vector<uint32_t>{3207370390, 3199706765, 3220215330, 3216803779, 3221251702,
                              3213956176, 3214524510, 1052085080, 3211938870, 3203368414});
  CHECK(Bits64(random_normal({5}, 7, kFloat64)) ==
        std::vector<uint64_t>{4587527621411898502u, 13820155805757714862u, 13829420278267881921u,
                              13827149280388160442u, 4606486781427285907u});
  CHECK(Bits32(random_normal({6}, 7, kFloat32, 2.5, 0.3)) ==
        std::vector<uint32_t>{1074990670, 1075387636, 1073206006, 1073985648, 1072887225,
                              1074412788});
}

TEST_CASE("random_uniform gives TensorFlow's numbers for the same seed") {
  CHECK(Bits32(random_uniform({5}, 7)) ==
        std::vector<uint32_t>{1061109902, 1059853312, 1030531648, 1059384104, 1032846832});
  CHECK(Bits64(random_uniform({5}, 7, kFloat64)) ==
        std::vector<uint64_t>{4606971922917102592u, 4601998539626239568u, 4603241488857107506u,
                              4604044069550404078u, 4603416227588426718u});
  CHECK(Bits32(random_uniform({6}, 7, kFloat32, -2, 5)) ==
        std::vector<uint32_t>{1078898936, 1076699904, 3217832642, 1075878790, 3217096935,
                              1076581720});
  CHECK(Bits64(random_uniform({3}, 7, kFloat64, -2, 5)) ==
        std::vector<uint64_t>{4617131334064050560u, 4608243729407489804u, 4611403562509314736u});
}

TEST_CASE("The raw ops take both halves of the seed pair, int32 or int64") {
  const Tensor seed = constant({int64_t{-1}, int64_t{123456789012}});
  CHECK(Bits32(stateless_random_normal(constant({2, 5}), seed)) ==
        std::vector<uint32_t>{1058545418, 3205812118, 1069270140, 1069586858, 3169679914,
                              3210696785, 3186249645, 1063800603, 1059399483, 3211606934});
  CHECK(Bits32(stateless_random_uniform(constant({5}), seed)) ==
        std::vector<uint32_t>{1060452010, 1052711560, 1038163536, 1039916000, 1060037856});
  CHECK(stateless_random_normal(constant({2, 5}), seed).shape() == Shape{2, 5});
  // An int32 seed is the same pair as the equal int64 seed.
  const Tensor a = stateless_random_uniform(constant({4}), constant({7, 3}));
  const Tensor b =
      stateless_random_uniform(constant({int64_t{4}}), constant({int64_t{7}, int64_t{3}}));
  testing::ExpectTensorNear(a, b, 0);
}

TEST_CASE("Same seed, same numbers; different seeds, different numbers") {
  const auto a = random_normal({1000}, 42).to_vector<float>();
  CHECK(random_normal({1000}, 42).to_vector<float>() == a);
  CHECK(random_normal({1000}, 43).to_vector<float>() != a);
  // A longer request starts with the shorter one's values (block i depends only on i).
  const auto longer = random_normal({1003}, 42).to_vector<float>();
  CHECK(std::vector<float>(longer.begin(), longer.begin() + 1000) == a);
}

TEST_CASE("Large outputs split across threads give the same numbers as a serial fill") {
  // 10^6 values is well past the parallel threshold; the first values equal a small request's.
  const auto big = random_uniform({1000, 1000}, 5).to_vector<float>();
  const auto small = random_uniform({10}, 5).to_vector<float>();
  CHECK(std::vector<float>(big.begin(), big.begin() + 10) == small);
  const auto tail = random_uniform({1000, 1000}, 5, kFloat64).to_vector<double>();
  CHECK(tail.size() == 1000000);
}

TEST_CASE("Sample moments of 10^5 values") {
  // Standard errors: mean sigma/sqrt(n) ~ 0.003 sigma; the bounds are > 5 standard errors.
  const Moments n = MomentsOf(testing::ToDoubles(random_normal({100000}, 1)));
  CHECK(std::abs(n.mean) < 0.02);
  CHECK(std::abs(n.stddev - 1) < 0.02);
  const Moments s = MomentsOf(testing::ToDoubles(random_normal({100000}, 2, kFloat64, 3, 0.5)));
  CHECK(std::abs(s.mean - 3) < 0.01);
  CHECK(std::abs(s.stddev - 0.5) < 0.01);
  const Moments u = MomentsOf(testing::ToDoubles(random_uniform({100000}, 3)));
  CHECK(std::abs(u.mean - 0.5) < 0.01);
  CHECK(std::abs(u.stddev - std::sqrt(1.0 / 12)) < 0.01);
}

TEST_CASE("Uniform values stay in [minval, maxval)") {
  for (const double v : testing::ToDoubles(random_uniform({100000}, 9))) {
    REQUIRE(v >= 0);
    REQUIRE(v < 1);
  }
  for (const double v : testing::ToDoubles(random_uniform({10000}, 9, kFloat64, -3, -1))) {
    REQUIRE(v >= -3);
    REQUIRE(v < -1);
  }
}

TEST_CASE("Scalars, empty shapes and dtypes") {
  const Tensor s = random_normal({}, 1, kFloat64);
  CHECK(s.dtype() == kFloat64);
  CHECK(s.shape() == Shape{});
  CHECK(random_uniform({0, 3}, 1).shape() == Shape{0, 3});
  CHECK(random_normal({3}, 1, kFloat64, 1, 2).dtype() == kFloat64);
}

TEST_CASE("Bad arguments are errors naming the op and values") {
  testing::ExpectError([] { stateless_random_normal(constant({3}), constant({int64_t{1}})); },
                       {"StatelessRandomNormal", "seed must have shape (2,)", "(1,)"});
  testing::ExpectError(
      [] {
        stateless_random_uniform(constant({3}), constant({{int64_t{1}, int64_t{2}}}));
      },
      {"StatelessRandomUniform", "seed must have shape (2,)", "(1, 2)"});
  testing::ExpectError(
      [] {
        random_normal({2, -3}, 1);
      },
      {"StatelessRandomNormal", "[2, -3]", "negative dimension"});
  testing::ExpectError(
      [] {
        random_normal({int64_t{1} << 40, int64_t{1} << 40}, 1);
      },
      {"too many elements"});
  testing::ExpectError([] { random_uniform({2}, 1, kInt32); },
                       {"StatelessRandomUniform", "int32", "not supported"});
  testing::ExpectError([] { random_normal({2}, 1, kFloat16, 1, 2); },
                       {"_StatelessRandomNormalScaled", "float16", "not supported"});
  testing::ExpectError(
      [] {
        stateless_random_normal(constant({{2, 2}}), constant({1, 2}));
      },
      {"shape must be a vector", "(1, 2)"});
  testing::ExpectError(
      [] {
        stateless_random_normal(constant({2.f}), constant({1, 2}));
      },
      {"StatelessRandomNormal", "float32"});
}

}  // namespace
}  // namespace duet
