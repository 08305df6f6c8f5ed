// The two inner loops of every reduction: along a contiguous row, and down the columns of a
// row-major block. Both sum pairwise (recursive halving over vectorizable blocks), so float32
// sums of millions of elements keep an error of O(log n) roundings instead of O(n). They read
// elements of type S and combine them in the reducer's accumulator type R::Acc (S itself, but
// double for float32 products: Note [float32 products in double] in reducers.h).
#pragma once

#include <algorithm>
#include <cstdint>

namespace duet {

// Rows of a block reduced in one straight pass before the column reduction halves.
inline constexpr int64_t kColumnLeafRows = 16;
// Elements of a row reduced in one straight pass (per lane: kRowLeaf / lanes) before halving.
inline constexpr int64_t kRowLeaf = 1024;

// Reduces n contiguous elements. The leaf keeps one 64-byte vector of independent accumulators
// so that the compiler vectorizes it without reassociating (no -ffast-math needed).
template <typename R, typename S, typename A = typename R::Acc>
A ReduceRow(const S* p, int64_t n) {
  constexpr int64_t kLanes = 64 / sizeof(A);
  if (n > kRowLeaf) {
    const int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return R::Combine(ReduceRow<R>(p, half), ReduceRow<R>(p + half, n - half));
  }
  A acc[kLanes];
  std::fill(acc, acc + kLanes, R::Identity());
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) acc[j] = R::Combine(acc[j], static_cast<A>(p[i + j]));
  }
  for (int64_t j = 0; i < n; ++i, ++j) acc[j] = R::Combine(acc[j], static_cast<A>(p[i]));
  for (int64_t w = kLanes / 2; w > 0; w /= 2) {
    for (int64_t j = 0; j < w; ++j) acc[j] = R::Combine(acc[j], acc[j + w]);
  }
  return acc[0];
}

// out[j] = Combine(out[j], in[j]) for j < n. Fixed-size blocks on non-aliasing pointers let GCC
// vectorize at -O2, whose cheap cost model skips loops that need alias checks or epilogues.
template <typename R, typename A, typename S>
void CombineInto(A* __restrict out, const S* __restrict in, int64_t n) {
  constexpr int64_t kLanes = 64 / sizeof(A);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) {
      out[j + k] = R::Combine(out[j + k], static_cast<A>(in[j + k]));
    }
  }
  for (; j < n; ++j) out[j] = R::Combine(out[j], static_cast<A>(in[j]));
}

// Scratch elements ReduceColumns needs for `rows` rows of `width` columns.
inline int64_t ColumnScratchSize(int64_t rows, int64_t width) {
  int64_t depth = 0;
  for (int64_t r = rows; r > kColumnLeafRows; r = (r + 1) / 2) ++depth;
  return depth * width;
}

// out[j] = reduction over r < rows of src[r * stride + j], for j < width. The inner loop runs
// along a contiguous row, so it vectorizes; `scratch` holds ColumnScratchSize(rows, width).
template <typename R, typename S, typename A>
void ReduceColumns(const S* src, int64_t rows, int64_t width, int64_t stride, A* out, A* scratch) {
  if (rows <= kColumnLeafRows) {
    std::copy(src, src + width, out);
    for (int64_t r = 1; r < rows; ++r) CombineInto<R>(out, src + r * stride, width);
    return;
  }
  const int64_t half = rows / 2;
  ReduceColumns<R>(src, half, width, stride, out, scratch + width);
  ReduceColumns<R>(src + half * stride, rows - half, width, stride, scratch, scratch + width);
  CombineInto<R>(out, scratch, width);
}

}  // namespace duet
