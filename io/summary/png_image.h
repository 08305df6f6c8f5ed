// Summary images: pixels from tensors as tf.summary.image makes them, encoded as PNG with libpng.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace duet::io {

// A float pixel as tf.summary.image stores it (tf.image.convert_image_dtype(x, tf.uint8,
// saturate=True)): x * 255.5 in float32, truncated toward zero and clamped to [0, 255], so 0.5
// becomes 127 and 1.0 becomes 255. NaN becomes 0.
uint8_t FloatToPixel(float x);

// The PNG file of a height x width image with `channels` (1 gray, 3 RGB, 4 RGBA) 8-bit values per
// pixel, rows top to bottom, channels interleaved.
absl::StatusOr<std::string> EncodePng(absl::Span<const uint8_t> pixels, int height, int width,
                                      int channels);

}  // namespace duet::io
