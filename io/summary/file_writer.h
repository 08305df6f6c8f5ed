// summary::FileWriter: TensorBoard event files (docs/summaries.md; API.md, "Summaries"), as
// tf.summary.create_file_writer writes them:
//
//   summary::FileWriter w("logs/run1");
//   w.scalar("loss", loss, step);                       // a Tensor or a C++ number
//   w.histogram("w", model.d1.kernel(), step);          // a Variable or Tensor of any real dtype
//   w.image("x", images, step);                         // (H, W, C) or (N, H, W, C), C in {1,3,4}
//   w.text("notes", "lr 0.01", step);
//   w.graph(g);                                         // a Graph, a GraphDef or a traced function
//   w.flush();
//
// Then `tensorboard --logdir logs`.
//
// Threads: each call only queues a record (Note [Summaries off the step] in event_writer.h); a
// background thread writes the file. flush() waits until everything queued is on disk, and the
// destructor flushes and joins. A call blocks while max_pending records wait. A write that fails
// on the writer thread is thrown, as a duet::Error naming the file, by the next call, flush(),
// or close() (the destructor prints it to stderr): the writer stops writing after an error.
//
// Note [Summaries in traced functions]: eagerly a call records at once. While a graph is being
// built (inside duet::function, a cond branch or a GraphScope) a call adds a host_function node
// (DuetHostFunction, stateful) that records the values its inputs have each time the graph runs.
// duet::function runs every stateful node of its graph on every call (Note [Functions] in
// graph/function.h), so `w.scalar("loss", loss, step)` inside a traced step writes one scalar
// per step. Pass the step as a tensor there (an argument, or a Variable such as an optimizer's
// iterations): a C++ integer is fixed when the function is traced. In a plain Session graph the
// node runs only when a run names it as a target. Exported graphs keep the node, but only this
// process can run it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/traced_function.h"
#include "io/summary/record_every.h"
#include "proto/graph.pb.h"

namespace duet {
namespace io {
class EventWriter;
}  // namespace io

namespace summary {

struct FileWriterOptions {
  // Records queued before the writer thread wakes to write them (tf.summary.create_file_writer's
  // max_queue). The file is also flushed every flush_secs seconds, on flush() and at the end.
  int max_queue = 10;
  double flush_secs = 120;
  // A call blocks while this many records wait for the writer thread (a slow disk).
  int max_pending = 1024;
  // Only steps divisible by this are written (scalars, histograms, images, text; graphs always).
  int64_t record_every_n_steps = 1;
  // Appended to the event file's name (TensorFlow's filename_suffix).
  std::string filename_suffix;
};

class FileWriter {
 public:
  // Creates `logdir` and `logdir/events.out.tfevents.<epoch seconds>.<hostname>` (plus
  // ".<pid>.<n>" when another writer made that name in the same second) and writes its
  // file_version record. Throws Error naming the directory or the file when that fails.
  explicit FileWriter(const std::string& logdir, FileWriterOptions options = {});
  ~FileWriter();  // flushes and closes; prints an error to stderr
  FileWriter(FileWriter&&) noexcept;
  FileWriter& operator=(FileWriter&&) noexcept;
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // A scalar (TF1's simple_value, a float32): a C++ number, or a one-element tensor of any real
  // dtype. The step is an int64, or an int32/int64 scalar tensor.
  void scalar(absl::string_view tag, double value, int64_t step);
  void scalar(absl::string_view tag, const Tensor& value, int64_t step);
  void scalar(absl::string_view tag, const Tensor& value, const Tensor& step);

  // A histogram of all values of a real tensor over TensorFlow's default buckets
  // (io/summary/histogram.h). NaN or infinity throws Error, as TensorFlow's op fails.
  void histogram(absl::string_view tag, const Tensor& values, int64_t step);
  void histogram(absl::string_view tag, const Tensor& values, const Tensor& step);

  // Images as PNG: a uint8 or float32 tensor (H, W, C) or (N, H, W, C), C = 1 (gray), 3 (RGB)
  // or 4 (RGBA); uint8 pixels are written as they are, float32 values in [0, 1] are scaled by
  // 255.5 and saturated, as tf.summary.image does. The first
  // max_outputs images are written, tagged "<tag>/image/<i>" ("<tag>/image" when max_outputs is
  // 1), as TF1's image summary names them.
  void image(absl::string_view tag, const Tensor& images, int64_t step, int max_outputs = 3);
  void image(absl::string_view tag, const Tensor& images, const Tensor& step, int max_outputs = 3);

  // Text (tf.summary.text): a DT_STRING scalar tensor with plugin "text"; TensorBoard renders it
  // as Markdown.
  void text(absl::string_view tag, const std::string& text, int64_t step);
  void text(absl::string_view tag, const std::string& text, const Tensor& step);

  // The graph TensorBoard's Graphs tab shows (Event.graph_def).
  void graph(const Graph& graph);
  void graph(const GraphDef& graph_def);
  // A traced function's optimized graph for these arguments (tracing it if need be).
  template <typename F, typename... Args>
  void graph(const TracedFunction<F>& function, const Args&... args) {
    graph(function.graph_def(args...));
  }

  // Waits until every record queued so far is written and the file flushed.
  void flush();
  // flush(), then closes the file and stops the thread; later calls throw.
  void close();

  // The event file.
  const std::string& path() const;

 private:
  std::shared_ptr<io::EventWriter> writer_;  // shared with the graph nodes of traced summaries
  FileWriterOptions options_;
};

}  // namespace summary
}  // namespace duet
