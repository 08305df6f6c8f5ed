// The Events of an event file, one per summary, as TensorFlow's summary ops make them
// (docs/summaries.md, "What is written"). The writer thread builds them from SummaryRecords, so
// the caller's thread only copies a few words (Note [Summaries off the step] in event_writer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "proto/event.pb.h"

namespace duet::io {

// What TensorFlow writes first in every event file.
inline constexpr char kEventFileVersion[] = "brain.Event:2";

// One summary waiting for the writer thread: what the caller knew when it asked for it.
struct SummaryRecord {
  enum class Kind : uint8_t { kScalar, kHistogram, kImage, kText, kGraph };
  Kind kind = Kind::kScalar;
  std::string tag;
  int64_t step = 0;
  double wall_time = 0;  // seconds since the epoch, when the summary was asked for
  double scalar = 0;     // kScalar
  // kHistogram: a CPU tensor of any real dtype; kImage: a float32 CPU tensor (N, H, W, C) with
  // C in {1, 3, 4} and values in [0, 1].
  Tensor tensor;
  int max_outputs = 3;  // kImage: the first images of the batch that are written
  std::string bytes;    // kText: the text; kGraph: a serialized GraphDef
};

// The Event for `record`:
//   kScalar     Summary.Value{tag, simple_value} (TF1's scalar summary)
//   kHistogram  Summary.Value{tag, histo} over TensorFlow's default buckets
//   kImage      one Summary.Value{tag + "/image/<i>", image (PNG)} per image, i < max_outputs
//               ("tag/image" when max_outputs is 1), as TF1's image summary
//   kText       Summary.Value{tag, tensor: DT_STRING scalar, metadata plugin "text"}
//   (tf.summary.text) kGraph      Event.graph_def
absl::StatusOr<tensorflow::Event> MakeEvent(const SummaryRecord& record);

// The values of a CPU tensor of any real dtype, as doubles.
std::vector<double> ValuesAsDoubles(const Tensor& tensor);

// The Event that opens an event file (file_version "brain.Event:2").
tensorflow::Event FileVersionEvent(double wall_time);

}  // namespace duet::io
