#include "io/summary/png_image.h"

#include <png.h>

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace duet::io {

uint8_t FloatToPixel(float x) {
  float scaled = x * 255.5f;
  if (!(scaled > 0.0f)) return 0;  // negatives and NaN
  if (scaled >= 255.0f) return 255;
  return static_cast<uint8_t>(scaled);
}

absl::StatusOr<std::string> EncodePng(absl::Span<const uint8_t> pixels, int height, int width,
                                      int channels) {
  if (channels != 1 && channels != 3 && channels != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("a PNG image has 1, 3 or 4 channels, not ", channels));
  }
  if (height <= 0 || width <= 0 ||
      pixels.size() != static_cast<size_t>(height) * width * channels) {
    return absl::InvalidArgumentError(absl::StrCat("a ", height, "x", width, "x", channels,
                                                   " PNG image needs that many pixel values, got ",
                                                   pixels.size()));
  }
  // libpng's simplified API reports errors in image.message instead of longjmp-ing through C++.
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, /*convert_to_8_bit=*/0, pixels.data(),
                                 /*row_stride=*/0, nullptr)) {
    return absl::InternalError(absl::StrCat("libpng could not encode the image: ", image.message));
  }
  std::string png(size, '\0');
  if (!png_image_write_to_memory(&image, png.data(), &size, 0, pixels.data(), 0, nullptr)) {
    return absl::InternalError(absl::StrCat("libpng could not encode the image: ", image.message));
  }
  png.resize(size);
  return png;
}

}  // namespace duet::io
