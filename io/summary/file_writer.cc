#include "io/summary/file_writer.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/error.h"
#include "graph/graph_def.h"
#include "io/summary/event_writer.h"
#include "io/summary/summary_event.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/execution_context.h"

namespace duet::summary {
namespace {

using io::SummaryRecord;

double WallTime() { return absl::ToUnixMicros(absl::Now()) * 1e-6; }

std::string Describe(const Tensor& t) {
  return t.defined() ? absl::StrCat(DTypeName(t.dtype()), " ", t.shape().str())
                     : std::string("an undefined tensor");
}

[[noreturn]] void Fail(const io::EventWriter& writer, absl::string_view what, absl::string_view tag,
                       absl::string_view message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat("summary::FileWriter::", what, "('", tag,
                                                      "') for ", writer.path(), ": ", message)));
}

void Queue(io::EventWriter& writer, SummaryRecord record) {
  absl::Status status = writer.Enqueue(std::move(record));
  if (!status.ok()) throw Error(status);
}

bool IsReal(DType dtype) { return dtype != kBool && dtype != kResource && dtype != kVariant; }

Tensor OnCpu(const Tensor& t) { return t.device().is_host() ? t : t.cpu(); }

double ScalarOf(const io::EventWriter& writer, absl::string_view tag, const Tensor& value) {
  if (!value.defined() || !IsReal(value.dtype()) || value.num_elements() != 1 ||
      !value.has_value()) {
    Fail(writer, "scalar", tag,
         absl::StrCat("the value must be a one-element real tensor with a value, got ",
                      Describe(value)));
  }
  const Tensor cpu = OnCpu(value);
  double scalar = 0;
  VisitDType(cpu.dtype(), [&](auto zero) {  // one element: no vector as ValuesAsDoubles makes
    using T = decltype(zero);
    if constexpr (std::is_arithmetic_v<T>) {
      scalar = static_cast<double>(*cpu.data<T>());
    } else {
      scalar = static_cast<double>(static_cast<float>(*cpu.data<T>()));  // half, bfloat16
    }
  });
  return scalar;
}

int64_t StepOf(const io::EventWriter& writer, absl::string_view what, absl::string_view tag,
               const Tensor& step) {
  if (!step.defined() || (step.dtype() != kInt64 && step.dtype() != kInt32) ||
      step.num_elements() != 1) {
    Fail(writer, what, tag,
         absl::StrCat("the step must be an int32 or int64 scalar, got ", Describe(step)));
  }
  return step.dtype() == kInt64 ? step.item<int64_t>() : step.item<int32_t>();
}

SummaryRecord MakeRecord(SummaryRecord::Kind kind, absl::string_view tag, int64_t step) {
  SummaryRecord record;
  record.kind = kind;
  record.tag = std::string(tag);
  record.step = step;
  record.wall_time = WallTime();
  return record;
}

// Calls `record` with the values of `inputs`: at once when ops run eagerly; otherwise through a
// host_function node, each time the graph runs (Note [Summaries in traced functions]).
using RecordFn = std::function<void(const std::vector<Tensor>&)>;
void RecordNowOrWhenRun(const std::vector<Tensor>& inputs, RecordFn record) {
  if (executing_eagerly()) {
    record(inputs);
    return;
  }
  host_function(
      [record = std::move(record)](const std::vector<Tensor>& values) {
        record(values);
        return std::vector<Tensor>{};
      },
      inputs, /*output_dtypes=*/{});
}

void CheckImages(const io::EventWriter& writer, absl::string_view tag, const Tensor& images,
                 int max_outputs) {
  const bool shape_ok = images.defined() && (images.rank() == 3 || images.rank() == 4);
  const int64_t channels = shape_ok ? images.shape().dim(images.rank() - 1) : 0;
  if (!shape_ok || (channels != 1 && channels != 3 && channels != 4)) {
    Fail(writer, "image", tag,
         absl::StrCat("images must be (H, W, C) or (N, H, W, C) with C 1, 3 or 4, got ",
                      Describe(images)));
  }
  if (images.dtype() != kFloat32 && images.dtype() != kUInt8) {
    Fail(writer, "image", tag,
         absl::StrCat("images must be uint8, or float32 with values in [0, 1], got ",
                      Describe(images)));
  }
  if (max_outputs < 1) {
    Fail(writer, "image", tag, absl::StrCat("max_outputs must be positive, got ", max_outputs));
  }
}

void CheckFinite(const io::EventWriter& writer, absl::string_view tag, const Tensor& values) {
  VisitDType(values.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_integral_v<T>) {
      const T* data = values.data<T>();
      for (int64_t i = 0; i < values.num_elements(); ++i) {
        if (!std::isfinite(static_cast<float>(data[i]))) {
          Fail(writer, "histogram", tag,
               absl::StrCat("the values must be finite; element ", IndexString(i, values.shape()),
                            " of ", Describe(values), " is ", static_cast<float>(data[i])));
        }
      }
    }
  });
}

}  // namespace

FileWriter::FileWriter(const std::string& logdir, FileWriterOptions options)
    : options_(std::move(options)) {
  if (options_.record_every_n_steps < 1 || !(options_.flush_secs > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("summary::FileWriter(", logdir,
                     "): record_every_n_steps and flush_secs must be positive, "
                     "got ",
                     options_.record_every_n_steps, " and ", options_.flush_secs)));
  }
  io::EventWriter::Options writer_options;
  writer_options.batch_size = options_.max_queue;
  writer_options.capacity = std::max(options_.max_pending, options_.max_queue);
  writer_options.flush_interval = absl::Seconds(options_.flush_secs);
  writer_ = ValueOrThrow(io::EventWriter::Open(logdir, options_.filename_suffix, writer_options));
}

FileWriter::~FileWriter() {
  if (writer_ == nullptr) return;
  absl::Status status = writer_->Close();
  if (!status.ok()) std::fprintf(stderr, "summary::FileWriter: %s\n", status.ToString().c_str());
}

FileWriter::FileWriter(FileWriter&&) noexcept = default;
FileWriter& FileWriter::operator=(FileWriter&& other) noexcept {
  if (this != &other) {
    if (writer_ != nullptr) writer_->Close().IgnoreError();
    writer_ = std::move(other.writer_);
    options_ = std::move(other.options_);
  }
  return *this;
}

const std::string& FileWriter::path() const {
  if (writer_ == nullptr) throw Error(absl::FailedPreconditionError("a moved-from FileWriter"));
  return writer_->path();
}

void FileWriter::scalar(absl::string_view tag, double value, int64_t step) {
  if (!executing_eagerly()) {
    scalar(tag, Tensor(value), Tensor(step));
    return;
  }
  path();  // a moved-from writer throws
  if (step % options_.record_every_n_steps != 0) return;
  SummaryRecord record = MakeRecord(SummaryRecord::Kind::kScalar, tag, step);
  record.scalar = value;
  Queue(*writer_, std::move(record));
}

void FileWriter::scalar(absl::string_view tag, const Tensor& value, int64_t step) {
  if (executing_eagerly()) {  // the value is known now: no step tensor, no callback to build
    path();
    scalar(tag, ScalarOf(*writer_, tag, value), step);
    return;
  }
  scalar(tag, value, Tensor(step));
}

void FileWriter::scalar(absl::string_view tag, const Tensor& value, const Tensor& step) {
  path();
  RecordNowOrWhenRun({value, step},
                     [writer = writer_, tag = std::string(tag),
                      every = options_.record_every_n_steps](const std::vector<Tensor>& values) {
                       const double scalar = ScalarOf(*writer, tag, values[0]);
                       const int64_t step = StepOf(*writer, "scalar", tag, values[1]);
                       if (step % every != 0) return;
                       SummaryRecord record = MakeRecord(SummaryRecord::Kind::kScalar, tag, step);
                       record.scalar = scalar;
                       Queue(*writer, std::move(record));
                     });
}

void FileWriter::histogram(absl::string_view tag, const Tensor& values, int64_t step) {
  histogram(tag, values, Tensor(step));
}

void FileWriter::histogram(absl::string_view tag, const Tensor& values, const Tensor& step) {
  path();
  RecordNowOrWhenRun(
      {values, step}, [writer = writer_, tag = std::string(tag),
                       every = options_.record_every_n_steps](const std::vector<Tensor>& inputs) {
        if (!inputs[0].defined() || !IsReal(inputs[0].dtype())) {
          Fail(*writer, "histogram", tag,
               absl::StrCat("the values must be a real tensor, got ", Describe(inputs[0])));
        }
        const int64_t step = StepOf(*writer, "histogram", tag, inputs[1]);
        if (step % every != 0) return;
        SummaryRecord record = MakeRecord(SummaryRecord::Kind::kHistogram, tag, step);
        record.tensor = OnCpu(inputs[0]);  // immutable: the writer thread reads it later
        CheckFinite(*writer, tag, record.tensor);
        Queue(*writer, std::move(record));
      });
}

void FileWriter::image(absl::string_view tag, const Tensor& images, int64_t step, int max_outputs) {
  image(tag, images, Tensor(step), max_outputs);
}

void FileWriter::image(absl::string_view tag, const Tensor& images, const Tensor& step,
                       int max_outputs) {
  path();
  RecordNowOrWhenRun({images, step},
                     [writer = writer_, tag = std::string(tag), max_outputs,
                      every = options_.record_every_n_steps](const std::vector<Tensor>& inputs) {
                       CheckImages(*writer, tag, inputs[0], max_outputs);
                       const int64_t step = StepOf(*writer, "image", tag, inputs[1]);
                       if (step % every != 0) return;
                       SummaryRecord record = MakeRecord(SummaryRecord::Kind::kImage, tag, step);
                       Tensor batch = OnCpu(inputs[0]);
                       if (batch.rank() == 3) {
                         const Shape& s = batch.shape();
                         batch = batch.reshaped(Shape({1, s.dim(0), s.dim(1), s.dim(2)}));
                       }
                       record.tensor = std::move(batch);
                       record.max_outputs = max_outputs;
                       Queue(*writer, std::move(record));
                     });
}

void FileWriter::text(absl::string_view tag, const std::string& text, int64_t step) {
  this->text(tag, text, Tensor(step));
}

void FileWriter::text(absl::string_view tag, const std::string& text, const Tensor& step) {
  path();
  RecordNowOrWhenRun({step},
                     [writer = writer_, tag = std::string(tag), text,
                      every = options_.record_every_n_steps](const std::vector<Tensor>& inputs) {
                       const int64_t step = StepOf(*writer, "text", tag, inputs[0]);
                       if (step % every != 0) return;
                       SummaryRecord record = MakeRecord(SummaryRecord::Kind::kText, tag, step);
                       record.bytes = text;
                       Queue(*writer, std::move(record));
                     });
}

void FileWriter::graph(const Graph& graph) { this->graph(graph.to_graph_def()); }

void FileWriter::graph(const GraphDef& graph_def) {
  path();
  SummaryRecord record = MakeRecord(SummaryRecord::Kind::kGraph, "graph", 0);
  record.bytes = graph_def.SerializeAsString();
  Queue(*writer_, std::move(record));
}

void FileWriter::flush() {
  absl::Status status = writer_ == nullptr ? absl::OkStatus() : writer_->Flush();
  if (!status.ok()) throw Error(status);
}

void FileWriter::close() {
  if (writer_ == nullptr) return;
  absl::Status status = writer_->Close();
  if (!status.ok()) throw Error(status);
}

}  // namespace duet::summary
