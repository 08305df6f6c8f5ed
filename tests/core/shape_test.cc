#include "core/shape.h"

#include <catch2/catch.hpp>

namespace duet {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

TEST_CASE("Shapes print as Python tuples") {
  CHECK(Shape{}.str() == "()");
  CHECK(Shape{4}.str() == "(4,)");
  CHECK(Shape{2, 3}.str() == "(2, 3)");
  CHECK(Shape{kUnknown, 784}.str() == "(None, 784)");
  CHECK(Shape::UnknownRank().str() == "<unknown>");
}

TEST_CASE("num_elements and is_fully_defined") {
  CHECK(Shape{}.num_elements() == 1);
  CHECK(Shape{2, 3, 4}.num_elements() == 24);
  CHECK(Shape{5, 0}.num_elements() == 0);
  CHECK(Shape{kUnknown, 3}.num_elements() == -1);
  CHECK(Shape::UnknownRank().num_elements() == -1);
  CHECK(Shape{2, 3}.is_fully_defined());
  CHECK_FALSE(Shape{2, kUnknown}.is_fully_defined());
  CHECK_FALSE(Shape::UnknownRank().is_fully_defined());
}

TEST_CASE("Accessors, set_dim and equality") {
  Shape s{2, 3};
  CHECK(s.rank() == 2);
  CHECK(s.dim(1) == 3);
  CHECK(s[0] == 2);
  s.set_dim(1, 5);
  s.push_back(7);
  CHECK(s == Shape{2, 5, 7});
  CHECK(s != Shape{2, 5});
  CHECK(Shape::UnknownRank() == Shape::UnknownRank());
  CHECK(Shape::UnknownRank() != Shape{});
  const int64_t dims[] = {4, 1};
  CHECK(Shape(absl::MakeConstSpan(dims)) == Shape{4, 1});
}

TEST_CASE("Compatibility treats unknown dims and rank as wildcards") {
  CHECK(Shape{2, 3}.IsCompatibleWith(Shape{2, 3}));
  CHECK(Shape{kUnknown, 3}.IsCompatibleWith(Shape{8, 3}));
  CHECK_FALSE(Shape{2, 3}.IsCompatibleWith(Shape{3, 3}));
  CHECK_FALSE(Shape{2, 3}.IsCompatibleWith(Shape{2, 3, 1}));
  CHECK(Shape::UnknownRank().IsCompatibleWith(Shape{1, 2, 3}));
}

// The broadcast of a and b, which must succeed.
Shape Broadcast(const Shape& a, const Shape& b) {
  absl::StatusOr<Shape> s = BroadcastShapes(a, b);
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *s;
}

TEST_CASE("NumPy broadcasting") {
  CHECK(Broadcast({2, 3}, {2, 3}) == Shape{2, 3});
  CHECK(Broadcast({2, 3}, {}) == Shape{2, 3});
  CHECK(Broadcast({}, {}) == Shape{});
  CHECK(Broadcast({3}, {2, 1}) == Shape{2, 3});
  CHECK(Broadcast({8, 1, 6, 1}, {7, 1, 5}) == Shape{8, 7, 6, 5});
  CHECK(Broadcast({5, 0}, {1}) == Shape{5, 0});
  CHECK(Broadcast({0}, {1, 1}) == Shape{1, 0});
}

TEST_CASE("Broadcasting with unknown dims keeps what is known") {
  CHECK(Broadcast({kUnknown, 3}, {1, 3}) == Shape{kUnknown, 3});
  CHECK(Broadcast({1, 3}, {kUnknown, 3}) == Shape{kUnknown, 3});
  CHECK(Broadcast({kUnknown, 3}, {4, 3}) == Shape{4, 3});
  CHECK(Broadcast({kUnknown}, {kUnknown}) == Shape{kUnknown});
  CHECK(Broadcast(Shape::UnknownRank(), {2}) == Shape::UnknownRank());
}

TEST_CASE("Incompatible broadcasts name both shapes") {
  for (const auto& [a, b] : {std::pair<Shape, Shape>{{2, 3}, {4}}, {{2, 3}, {3, 3}}, {{0}, {2}}}) {
    absl::StatusOr<Shape> s = BroadcastShapes(a, b);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.status().message().find(a.str()) != absl::string_view::npos);
    CHECK(s.status().message().find(b.str()) != absl::string_view::npos);
  }
}

TEST_CASE("NormalizeAxis wraps negative axes and rejects out-of-range ones") {
  CHECK(*NormalizeAxis(-1, 3) == 2);
  CHECK(*NormalizeAxis(-3, 3) == 0);
  CHECK(*NormalizeAxis(2, 3) == 2);
  for (int64_t bad : {3, -4, 100}) {
    absl::StatusOr<int> a = NormalizeAxis(bad, 3);
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().message().find(std::to_string(bad)) != absl::string_view::npos);
  }
}

TEST_CASE("Row-major strides") {
  const auto strides = RowMajorStrides(Shape{2, 3, 4});
  CHECK(std::vector<int64_t>(strides.begin(), strides.end()) == std::vector<int64_t>{12, 4, 1});
  CHECK(RowMajorStrides(Shape{}).empty());
}

}  // namespace
}  // namespace duet

namespace duet {
namespace {

TEST_CASE("Shape::Unknown has the rank and no known dims") {
  CHECK(Shape::Unknown(2).str() == "(None, None)");
  CHECK(Shape::Unknown(0) == Shape());
  CHECK(Shape::Unknown(-1).unknown_rank());
  CHECK_FALSE(Shape::Unknown(1).is_fully_defined());
}

}  // namespace
}  // namespace duet
