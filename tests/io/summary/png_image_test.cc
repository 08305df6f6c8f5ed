// Summary images: float pixels converted as tf.summary.image converts them (values printed by
// make_tf_summaries.py), and PNGs that libpng decodes back to the same pixels.
#include "io/summary/png_image.h"

#include <png.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "catch2/catch.hpp"

namespace duet {
namespace {

struct Decoded {
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

// Decodes with libpng's reader into the PNG's own format.
Decoded DecodePng(const std::string& png) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_memory(&image, png.data(), png.size()) != 0);
  Decoded out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.channels = static_cast<int>(PNG_IMAGE_PIXEL_CHANNELS(image.format));
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr) != 0);
  return out;
}

TEST_CASE("float pixels convert as tf.image.convert_image_dtype(saturate=True)") {
  // TensorFlow: [0.0, 0.2, 0.5, 0.999, 1.0, 1.5, -0.1] -> [0, 51, 127, 255, 255, 255, 0].
  const std::vector<float> in = {0.0f, 0.2f, 0.5f, 0.999f, 1.0f, 1.5f, -0.1f};
  const std::vector<int> tf = {0, 51, 127, 255, 255, 255, 0};
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("pixel " << in[i]);
    CHECK(static_cast<int>(io::FloatToPixel(in[i])) == tf[i]);
  }
  CHECK(io::FloatToPixel(std::nanf("")) == 0);
}

TEST_CASE("a PNG decodes back to its pixels, for 1, 3 and 4 channels") {
  for (int channels : {1, 3, 4}) {
    const int height = 5, width = 7;
    std::vector<uint8_t> pixels(height * width * channels);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 % 256);
    std::string png = io::EncodePng(pixels, height, width, channels).value();
    CHECK(png.substr(1, 3) == "PNG");
    Decoded decoded = DecodePng(png);
    CHECK(decoded.width == width);
    CHECK(decoded.height == height);
    CHECK(decoded.channels == channels);
    CHECK(decoded.pixels == pixels);
  }
}

TEST_CASE("EncodePng rejects bad channel counts and sizes") {
  std::vector<uint8_t> pixels(12);
  absl::StatusOr<std::string> two = io::EncodePng(pixels, 2, 3, 2);
  REQUIRE_FALSE(two.ok());
  CHECK(std::string(two.status().message()).find("1, 3 or 4 channels") != std::string::npos);
  absl::StatusOr<std::string> short_buffer = io::EncodePng(pixels, 2, 3, 3);
  REQUIRE_FALSE(short_buffer.ok());
  CHECK(std::string(short_buffer.status().message()).find("got 12") != std::string::npos);
}

}  // namespace
}  // namespace duet
