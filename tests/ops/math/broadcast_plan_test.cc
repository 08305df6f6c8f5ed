// The broadcast plan behind every elementwise kernel: dim merging, strides, and row walking from
// arbitrary start points (as threads do), checked against plain index arithmetic.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "kernels/common/broadcast.h"

namespace duet {
namespace {

// Input k's flat element offset for output flat index `flat`, by NumPy's rules.
int64_t ReferenceOffset(const Shape& in, const Shape& out, int64_t flat) {
  int64_t offset = 0, stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int64_t i = flat % out[d];
    flat /= out[d];
    const int in_d = d - (out.rank() - in.rank());
    if (in_d < 0) continue;
    if (in[in_d] != 1) offset += i * stride;
    stride *= in[in_d];
  }
  return offset;
}

// Walks [begin, end) with ForEachRow and checks every element's offsets.
void CheckWalk(const std::vector<Shape>& inputs, const Shape& out, int64_t begin, int64_t end) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : inputs) ptrs.push_back(&s);
  const BroadcastPlan plan = MakeBroadcastPlan(ptrs, out);
  int64_t next = begin;
  ForEachRow(plan, begin, end, [&](const auto& off, int64_t pos, int64_t len) {
    REQUIRE(pos == next);
    REQUIRE(len > 0);
    for (int64_t j = 0; j < len; ++j) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        INFO("input " << k << ", element " << pos + j);
        CHECK(off[k] + j * plan.inner_stride(static_cast<int>(k)) ==
              ReferenceOffset(inputs[k], out, pos + j));
      }
    }
    next = pos + len;
  });
  CHECK(next == end);
}

TEST_CASE("dims that broadcast alike merge into one") {
  const Shape x{4, 5, 6}, y{1, 1, 6}, out{4, 5, 6};
  const Shape* in[] = {&x, &y};
  const BroadcastPlan plan = MakeBroadcastPlan(in, out);
  REQUIRE(plan.rank() == 2);
  CHECK(plan.dims[0] == 20);
  CHECK(plan.dims[1] == 6);
  CHECK(plan.strides[0][0] == 6);
  CHECK(plan.strides[1][0] == 0);
  CHECK(plan.inner_stride(0) == 1);
  CHECK(plan.inner_stride(1) == 1);
}

TEST_CASE("size-1 output dims are dropped; a one-element output keeps one dim") {
  const Shape x{3, 1, 4}, y{4}, out{3, 1, 4};
  const Shape* in[] = {&x, &y};
  CHECK(MakeBroadcastPlan(in, out).rank() == 2);
  const Shape s{1, 1}, t{}, one{1, 1};
  const Shape* in1[] = {&s, &t};
  const BroadcastPlan plan = MakeBroadcastPlan(in1, one);
  REQUIRE(plan.rank() == 1);
  CHECK(plan.dims[0] == 1);
}

TEST_CASE("row walking matches NumPy indexing from any start and end") {
  const std::vector<std::pair<std::vector<Shape>, Shape>> cases = {
      {{{5, 3}, {3}}, {5, 3}},
      {{{5, 3}, {5, 1}}, {5, 3}},
      {{{5, 1}, {1, 3}}, {5, 3}},
      {{{2, 3, 4}, {3, 1}}, {2, 3, 4}},
      {{{2, 1, 4}, {1, 3, 1}}, {2, 3, 4}},
      {{{2, 1, 1}, {3, 1}, {2}}, {2, 3, 2}},
      {{{3, 1, 2, 1, 5}, {4, 1, 1, 5}, {1}}, {3, 4, 2, 1, 5}},
  };
  for (const auto& [inputs, out] : cases) {
    INFO("output " << out.str());
    const int64_t n = out.num_elements();
    for (int64_t begin = 0; begin < n; begin += 3) {
      for (int64_t end = begin + 1; end <= n; end += 7) CheckWalk(inputs, out, begin, end);
      CheckWalk(inputs, out, begin, n);
    }
  }
}

}  // namespace
}  // namespace duet
