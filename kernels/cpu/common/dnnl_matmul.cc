#include "kernels/cpu/common/dnnl_matmul.h"

#include "kernels/cpu/common/dnnl_engine.h"

namespace duet {
namespace {

using dnnl::memory;

// A row-major rows x cols matrix, or its transpose when `transposed` (stored cols x rows).
memory::desc MatrixDesc(int64_t rows, int64_t cols, bool transposed) {
  return memory::desc({rows, cols}, memory::data_type::f32,
                      transposed ? memory::dims{1, rows} : memory::dims{cols, 1});
}

}  // namespace

DirectDnnlMatMul::DirectDnnlMatMul(int64_t m, int64_t k, int64_t n, bool transpose_a,
                                   bool transpose_b) {
  const memory::desc a = MatrixDesc(m, k, transpose_a);
  const memory::desc b = MatrixDesc(k, n, transpose_b);
  const memory::desc c = MatrixDesc(m, n, false);
  primitive_ =
      dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), DnnlEngine()));
  a_ = memory(a, DnnlEngine(), DNNL_MEMORY_NONE);
  b_ = memory(b, DnnlEngine(), DNNL_MEMORY_NONE);
  c_ = memory(c, DnnlEngine(), DNNL_MEMORY_NONE);
}

void DirectDnnlMatMul::Run(const float* a, const float* b, float* c) {
  a_.set_data_handle(const_cast<float*>(a));
  b_.set_data_handle(const_cast<float*>(b));
  c_.set_data_handle(c);
  dnnl::stream& stream = DnnlStream();
  primitive_.execute(stream, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
  stream.wait();
}

absl::Status DnnlMatMulF32(const float* a, const float* b, float* c, int64_t m, int64_t k,
                           int64_t n) {
  try {
    DirectDnnlMatMul(m, k, n).Run(a, b, c);
  } catch (const dnnl::error& e) {
    return DnnlErrorToStatus(e, "direct f32 matmul");
  }
  return absl::OkStatus();
}

}  // namespace duet
