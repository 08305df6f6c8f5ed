#include "io/summary/summary_event.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "io/summary/histogram.h"
#include "io/summary/png_image.h"
#include "proto/tensor.pb.h"
#include "proto/types.pb.h"

namespace duet::io {
namespace {

template <typename T>
double ToDouble(T value) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(value));
  } else {
    return static_cast<double>(value);
  }
}

absl::Status AddImages(const SummaryRecord& record, tensorflow::Summary& summary) {
  const Shape& shape = record.tensor.shape();  // (N, H, W, C), checked by the caller
  const int64_t height = shape.dim(1), width = shape.dim(2), channels = shape.dim(3);
  const int64_t pixels_per_image = height * width * channels;
  const int64_t count = std::min<int64_t>(shape.dim(0), record.max_outputs);
  const bool bytes = record.tensor.dtype() == kUInt8;  // else float32 in [0, 1]
  std::vector<uint8_t> pixels(static_cast<size_t>(pixels_per_image));
  for (int64_t n = 0; n < count; ++n) {
    if (bytes) {
      const uint8_t* image = record.tensor.data<uint8_t>() + n * pixels_per_image;
      std::copy(image, image + pixels_per_image, pixels.begin());
    } else {
      const float* image = record.tensor.data<float>() + n * pixels_per_image;
      for (int64_t i = 0; i < pixels_per_image; ++i) pixels[i] = FloatToPixel(image[i]);
    }
    DUET_ASSIGN_OR_RETURN(std::string png,
                          EncodePng(pixels, static_cast<int>(height), static_cast<int>(width),
                                    static_cast<int>(channels)));
    tensorflow::Summary::Value* value = summary.add_value();
    value->set_tag(record.max_outputs > 1 ? absl::StrCat(record.tag, "/image/", n)
                                          : absl::StrCat(record.tag, "/image"));
    tensorflow::Summary::Image* proto = value->mutable_image();
    proto->set_height(static_cast<int32_t>(height));
    proto->set_width(static_cast<int32_t>(width));
    proto->set_colorspace(static_cast<int32_t>(channels));
    *proto->mutable_encoded_image_string() = std::move(png);
  }
  return absl::OkStatus();
}

void AddText(const SummaryRecord& record, tensorflow::Summary& summary) {
  tensorflow::Summary::Value* value = summary.add_value();
  value->set_tag(record.tag);
  // tf.summary.text: plugin "text" with an empty TextPluginData (version 0) as content.
  value->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  tensorflow::TensorProto* tensor = value->mutable_tensor();
  tensor->set_dtype(tensorflow::DT_STRING);
  tensor->mutable_tensor_shape();  // a scalar: no dims
  tensor->add_string_val(record.bytes);
}

}  // namespace

std::vector<double> ValuesAsDoubles(const Tensor& tensor) {
  std::vector<double> values(static_cast<size_t>(tensor.num_elements()));
  VisitDType(tensor.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* data = tensor.data<T>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = ToDouble(data[i]);
  });
  return values;
}

absl::StatusOr<tensorflow::Event> MakeEvent(const SummaryRecord& record) {
  tensorflow::Event event;
  event.set_wall_time(record.wall_time);
  event.set_step(record.step);
  tensorflow::Summary* summary = event.mutable_summary();
  switch (record.kind) {
    case SummaryRecord::Kind::kScalar: {
      tensorflow::Summary::Value* value = summary->add_value();
      value->set_tag(record.tag);
      value->set_simple_value(static_cast<float>(record.scalar));
      break;
    }
    case SummaryRecord::Kind::kHistogram: {
      DUET_ASSIGN_OR_RETURN(tensorflow::HistogramProto histogram,
                            MakeHistogram(ValuesAsDoubles(record.tensor)));
      tensorflow::Summary::Value* value = summary->add_value();
      value->set_tag(record.tag);
      *value->mutable_histo() = std::move(histogram);
      break;
    }
    case SummaryRecord::Kind::kImage:
      DUET_RETURN_IF_ERROR(AddImages(record, *summary));
      break;
    case SummaryRecord::Kind::kText:
      AddText(record, *summary);
      break;
    case SummaryRecord::Kind::kGraph:
      event.set_graph_def(record.bytes);  // replaces the summary: `what` is a oneof
      break;
  }
  return event;
}

tensorflow::Event FileVersionEvent(double wall_time) {
  tensorflow::Event event;
  event.set_wall_time(wall_time);
  event.set_file_version(kEventFileVersion);
  return event;
}

}  // namespace duet::io
