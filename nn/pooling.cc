#include "nn/pooling.h"

#include "absl/strings/ascii.h"
#include "ops/nn/nn_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::nn {
namespace {

std::vector<int64_t> Window(Size2 size) { return {size.h, size.w}; }

}  // namespace

Pool2D::Pool2D(Module* parent, std::string name, PoolOp op, Size2 pool_size, PoolOptions options)
    : Layer(parent, std::move(name)), op_(op), pool_size_(pool_size), options_(std::move(options)) {
  options_.padding = absl::AsciiStrToUpper(options_.padding);
}

Tensor Pool2D::call(const Tensor& x, bool, OpSite site) {
  return op_(x, Window(pool_size_), Window(options_.strides.value_or(pool_size_)), options_.padding,
             options_.data_format, site);
}

MaxPool2D::MaxPool2D(Module* parent, std::string name, Size2 pool_size, PoolOptions options)
    : Pool2D(parent, std::move(name), &max_pool, pool_size, std::move(options)) {}
MaxPool2D::MaxPool2D(Size2 pool_size, PoolOptions options)
    : MaxPool2D(nullptr, "max_pooling2d", pool_size, std::move(options)) {}

AvgPool2D::AvgPool2D(Module* parent, std::string name, Size2 pool_size, PoolOptions options)
    : Pool2D(parent, std::move(name), &avg_pool, pool_size, std::move(options)) {}
AvgPool2D::AvgPool2D(Size2 pool_size, PoolOptions options)
    : AvgPool2D(nullptr, "average_pooling2d", pool_size, std::move(options)) {}

GlobalAveragePooling2D::GlobalAveragePooling2D(Module* parent, std::string name, bool keep_dims,
                                               DataFormat data_format)
    : Layer(parent, std::move(name)), keep_dims_(keep_dims), data_format_(data_format) {}

GlobalAveragePooling2D::GlobalAveragePooling2D(bool keep_dims, DataFormat data_format)
    : GlobalAveragePooling2D(nullptr, "global_average_pooling2d", keep_dims, data_format) {}

Tensor GlobalAveragePooling2D::call(const Tensor& x, bool, OpSite site) {
  if (data_format_ == DataFormat::kChannelsFirst) return reduce_mean(x, {2, 3}, keep_dims_, site);
  return reduce_mean(x, {1, 2}, keep_dims_, site);
}

}  // namespace duet::nn
