// ResolveStridedSlice with what a shape function may not know: begin, end or strides values, and
// input dims. The output's rank is always known; its dims are known wherever the known values
// determine them. Fully known specs are covered through the ops in strided_slice_ops_test.cc.
#include "ops/array/strided_slice_spec.h"

#include <catch2/catch.hpp>

namespace duet {
namespace {

using Ints = std::optional<std::vector<int64_t>>;

Ints Known(std::vector<int64_t> values) { return values; }

Shape OutputOf(const Shape& input, int64_t entries, const Ints& begin, const Ints& end,
               const Ints& strides, const StridedSliceMasks& masks = {}) {
  const auto spec = ResolveStridedSlice(input, entries, begin, end, strides, masks);
  REQUIRE(spec.ok());
  return spec->output;
}

TEST_CASE("unknown begin and end: shrunk and new dims, full ranges and the ellipsis stay known") {
  const Shape in{5, 6, 7, 8};
  // x[b0:e0, ::-1, None, i, ...] with b0, e0 and i unknown.
  const StridedSliceMasks masks{.begin_mask = 0b0010,
                                .end_mask = 0b0010,
                                .ellipsis_mask = 0b10000,
                                .new_axis_mask = 0b0100,
                                .shrink_axis_mask = 0b1000};
  CHECK(OutputOf(in, 5, std::nullopt, std::nullopt, Known({1, 1, 1, 1, 1}), masks) ==
        Shape({-1, 6, 1, 8}));
  // Strides unknown too: only the dims whose size does not depend on them.
  CHECK(OutputOf(in, 5, std::nullopt, std::nullopt, std::nullopt, masks) == Shape({-1, -1, 1, 8}));
  // A full range with stride 2 holds ceil(6 / 2) elements whatever begin and end are.
  CHECK(
      OutputOf(in, 2, std::nullopt, std::nullopt, Known({1, -2}), {.begin_mask = 2, .end_mask = 2})
          .dims()[1] == 3);
}

TEST_CASE("unknown input dims stay unknown, except shrunk ones, which disappear") {
  const Shape in{-1, 4, -1};
  CHECK(OutputOf(in, 3, Known({0, 1, 2}), Known({2, 3, 3}), Known({1, 1, 1}),
                 {.shrink_axis_mask = 4}) == Shape({-1, 2}));
  CHECK(OutputOf(Shape{-1}, 2, Known({0, 0}), Known({0, 0}), Known({1, 1}), {.new_axis_mask = 1}) ==
        Shape({1, -1}));
}

TEST_CASE("the spec's begin and strides address the input, ready for a strided copy") {
  // x[::-2, 1] on (5, 3): rows 4, 2, 0 of column 1.
  const auto spec =
      ResolveStridedSlice(Shape{5, 3}, 2, Known({0, 1}), Known({0, 2}), Known({-2, 1}),
                          {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  REQUIRE(spec.ok());
  CHECK(std::vector<int64_t>(spec->begin.begin(), spec->begin.end()) == std::vector<int64_t>{4, 1});
  CHECK(std::vector<int64_t>(spec->strides.begin(), spec->strides.end()) ==
        std::vector<int64_t>{-2, 1});
  CHECK(spec->sizes == Shape({3, 1}));
  CHECK(spec->output == Shape({3}));
}

TEST_CASE("errors need only what decides them") {
  // A zero stride is an error even when begin, end and the dims are unknown.
  CHECK(!ResolveStridedSlice(Shape{-1}, 1, std::nullopt, std::nullopt, Known({0}), {}).ok());
  // Too many entries, known from the lengths alone.
  CHECK(!ResolveStridedSlice(Shape{-1}, 2, std::nullopt, std::nullopt, std::nullopt, {}).ok());
  // ... but not when the extra entries are new axes.
  CHECK(ResolveStridedSlice(Shape{-1}, 2, std::nullopt, std::nullopt, std::nullopt,
                            {.new_axis_mask = 1})
            .ok());
  // Values of the wrong length.
  CHECK(!ResolveStridedSlice(Shape{3}, 1, Known({0, 1}), std::nullopt, std::nullopt, {}).ok());
}

}  // namespace
}  // namespace duet
