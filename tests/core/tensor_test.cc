#include "core/tensor.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("Empty allocates an aligned CPU tensor") {
  const Tensor t = Tensor::Empty(kFloat64, {3, 5});
  CHECK(t.defined());
  CHECK(t.has_value());
  CHECK(t.dtype() == kFloat64);
  CHECK(t.shape() == Shape{3, 5});
  CHECK(t.rank() == 2);
  CHECK(t.num_elements() == 15);
  CHECK(t.nbytes() == 120);
  CHECK(t.device() == Device::cpu());
  CHECK(reinterpret_cast<uintptr_t>(t.raw_data()) % kBufferAlignment == 0);
}

TEST_CASE("TryEmpty rejects partially known shapes and devices without an allocator") {
  absl::StatusOr<Tensor> t = Tensor::TryEmpty(kFloat32, {Shape::kUnknownDim, 2});
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().message().find("(None, 2)") != absl::string_view::npos);
  // //core alone registers no CUDA allocator.
  absl::StatusOr<Tensor> g = Tensor::TryEmpty(kFloat32, {2}, Device::cuda(0));
  REQUIRE_FALSE(g.ok());
  CHECK(g.status().message().find("cuda:0") != absl::string_view::npos);
  testing::ExpectError([] { Tensor::Empty(kFloat32, Shape::UnknownRank()); }, {"<unknown>"});
}

TEST_CASE("reshaped is a view sharing the buffer") {
  const Tensor a = constant({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  const Tensor b = a.reshaped({3, 2});
  CHECK(b.shape() == Shape{3, 2});
  CHECK(a.shape() == Shape{2, 3});
  CHECK(b.shares_buffer_with(a));
  CHECK(b.raw_data() == a.raw_data());
  CHECK(b.to_vector<float>() == a.to_vector<float>());
  CHECK_FALSE(constant({1.f}).shares_buffer_with(a));
  testing::ExpectError([&] { a.reshaped({4}); }, {"(2, 3)", "(4,)", "element counts differ"});
}

TEST_CASE("Copies of a handle share the tensor") {
  const Tensor a = constant({1, 2});
  const Tensor b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(b.impl() == a.impl());
  CHECK(b.shares_buffer_with(a));
}

TEST_CASE("to_vector and item check the dtype") {
  const Tensor t = constant({1.5f, 2.5f});
  CHECK(t.to_vector<float>() == std::vector<float>{1.5f, 2.5f});
  testing::ExpectError([&] { t.to_vector<double>(); },
                       {"to_vector<float64>", "dtype is float32", "cast"});
  testing::ExpectError([&] { constant(1).item<int64_t>(); }, {"item<int64>", "int32"});
  CHECK(constant(7).item<int32_t>() == 7);
  CHECK(constant({true}).item<bool>());
  CHECK(constant({{3.0}}).item<double>() == 3.0);  // any one-element shape
}

TEST_CASE("item needs exactly one element") {
  testing::ExpectError([] { constant({1.f, 2.f}).item<float>(); }, {"item", "(2,)", "2 elements"});
  testing::ExpectError([] { zeros({0}).item<float>(); }, {"(0,)", "0 elements"});
}

TEST_CASE("Reading an undefined or symbolic tensor is an error, not a crash") {
  testing::ExpectError([] { Tensor().to_vector<float>(); }, {"undefined"});
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = Shape{Shape::kUnknownDim};
  const Tensor symbolic(impl);
  CHECK(symbolic.defined());
  CHECK_FALSE(symbolic.has_value());
  testing::ExpectError([&] { symbolic.item<float>(); }, {"symbolic", "(None,)", "Session::run"});
  CHECK_FALSE(symbolic.shares_buffer_with(symbolic));
}

TEST_CASE("String tensors hold std::string elements: empty, with NULs, long") {
  const std::string with_nuls("a\0b\0", 4);
  const std::string long_string(3 << 20, 'x');  // 3 MiB, far past any small-string buffer
  const Tensor t = from_vector<std::string>({"", with_nuls, long_string, "abc"}, {2, 2});
  CHECK(t.dtype() == kString);
  CHECK(t.shape() == Shape{2, 2});
  const std::vector<std::string> v = t.to_vector<std::string>();
  REQUIRE(v.size() == 4);
  CHECK(v[0].empty());
  CHECK(v[1] == with_nuls);
  CHECK(v[1].size() == 4);
  CHECK(v[2] == long_string);
  CHECK(v[3] == "abc");
  CHECK(constant("hello").item<std::string>() == "hello");
  CHECK(constant(with_nuls).item<std::string>().size() == 4);
  CHECK(constant({{"a", "b"}, {"c", "d"}}).shape() == Shape{2, 2});
  CHECK(constant({"a", "b", "c"}).to_vector<std::string>() ==
        std::vector<std::string>{"a", "b", "c"});
  // Two literals: a vector, not std::string's (first, last) constructor.
  CHECK(constant({"ab", "c"}).to_vector<std::string>() == std::vector<std::string>{"ab", "c"});
  testing::ExpectError([&] { t.to_vector<float>(); }, {"to_vector<float32>", "dtype is string"});
  testing::ExpectError([&] { constant(1).item<std::string>(); }, {"item<string>", "int32"});
  testing::ExpectError([&] { from_vector<std::string>({"a"}, {2}); }, {"1 values", "(2,)"});
}

TEST_CASE("A fresh string tensor holds empty strings; zeros does too, fill refuses") {
  const Tensor e = Tensor::Empty(kString, {3});
  CHECK(e.to_vector<std::string>() == std::vector<std::string>{"", "", ""});
  CHECK(zeros({2}, kString).to_vector<std::string>() == std::vector<std::string>{"", ""});
  CHECK(Tensor::Empty(kString, {0}).to_vector<std::string>().empty());
  testing::ExpectError([] { fill({2}, 1, kString); }, {"fill", "string"});
  testing::ExpectError([] { ones({2}, kString); }, {"fill", "string"});
}

TEST_CASE("Views of a string tensor share its elements and keep them alive") {
  Tensor view;
  {
    const Tensor owner = from_vector<std::string>({std::string(100, 'a'), "b", "c", "d"}, {4});
    view = owner.reshaped({2, 2});
    CHECK(view.shares_buffer_with(owner));
  }
  // The owner handle is gone; the view still reads its strings.
  CHECK(view.to_vector<std::string>() ==
        std::vector<std::string>{std::string(100, 'a'), "b", "c", "d"});
  testing::ExpectError([&] { view.ViewAs(kUInt8, {4}, Device::cpu()); }, {"string", "uint8"});
  const Tensor bytes = Tensor::Empty(kUInt8, {64});
  testing::ExpectError([&] { bytes.ViewAs(kString, {1}, Device::cpu()); }, {"uint8", "string"});
}

TEST_CASE("String tensors live on the CPU only") {
  const absl::StatusOr<Tensor> t = Tensor::TryEmpty(kString, {2}, Device::cuda(0));
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().message().find("CPU only") != absl::string_view::npos);
}

TEST_CASE("uint8 tensors") {
  const Tensor t = from_vector<uint8_t>({0, 255, 7}, {3});
  CHECK(t.dtype() == kUInt8);
  CHECK(t.nbytes() == 3);
  CHECK(t.to_vector<uint8_t>() == std::vector<uint8_t>{0, 255, 7});
  CHECK(constant(uint8_t{200}).item<uint8_t>() == 200);
  CHECK(constant({{uint8_t{1}, uint8_t{2}}}).shape() == Shape{1, 2});
  testing::ExpectTensor(fill({2}, 255, kUInt8), kUInt8, {2}, {255, 255});
}

}  // namespace
}  // namespace duet
