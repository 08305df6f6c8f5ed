#include "io/data/fashion_mnist.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "io/formats/idx.h"

namespace duet::data {
namespace {

std::string DatasetDir(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* from_env = std::getenv("DUET_FASHION_MNIST_DIR");
  return from_env != nullptr && *from_env != '\0' ? from_env : kFashionMnistDir;
}

Tensor ReadFile(const std::string& dir, const std::string& name) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  if (!std::filesystem::exists(path)) {
    throw Error(absl::NotFoundError(absl::StrCat(
        "Fashion-MNIST file ", path, " not found: install Debian's dataset-fashion-mnist package ",
        "(apt-get install dataset-fashion-mnist), or pass the directory holding ", name)));
  }
  return ValueOrThrow(io::ReadIdx(path));
}

// Labels are stored as bytes; models index with int64 (sparse cross-entropy, one_hot).
Tensor LabelsAsInt64(const Tensor& labels) {
  Tensor out = Tensor::Empty(kInt64, labels.shape());
  const uint8_t* in = labels.data<uint8_t>();
  int64_t* dst = out.mutable_data<int64_t>();
  for (int64_t i = 0; i < labels.num_elements(); ++i) dst[i] = in[i];
  return out;
}

std::vector<Tensor> ReadSplit(const std::string& dir, const std::string& prefix) {
  Tensor images = ReadFile(dir, prefix + "-images-idx3-ubyte.gz");
  Tensor labels = ReadFile(dir, prefix + "-labels-idx1-ubyte.gz");
  const int64_t n = labels.shape().num_elements();
  if (images.dtype() != kUInt8 || labels.dtype() != kUInt8 || images.rank() != 3 ||
      labels.rank() != 1 || images.shape().dim(0) != n) {
    throw Error(absl::DataLossError(
        absl::StrCat("Fashion-MNIST files in ", dir, " for '", prefix, "' do not match: images ",
                     DTypeName(images.dtype()), images.shape().str(), ", labels ",
                     DTypeName(labels.dtype()), labels.shape().str())));
  }
  return {images, LabelsAsInt64(labels)};
}

}  // namespace

FashionMnist fashion_mnist(const std::string& dir) {
  const std::string root = DatasetDir(dir);
  return {ReadSplit(root, "train"), ReadSplit(root, "t10k")};
}

}  // namespace duet::data
