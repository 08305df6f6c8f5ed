// EventWriter: an event file written by a background thread (the engine of summary::FileWriter).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "io/record/record_writer.h"
#include "io/summary/summary_event.h"

namespace duet::io {

// Note [Summaries off the step]: a training step that records a scalar must not wait for
// protobuf serialization, PNG encoding or write(2). Enqueue only moves a SummaryRecord (a tag, a
// step, a number or a tensor handle) into a vector under a mutex; the writer thread builds the
// Events, frames them and writes them. It wakes when `batch_size` records wait (one CondVar
// signal per batch, not per record), on Flush, on Close, and every `flush_interval`, and it
// flushes the file after every batch it writes, so a reader sees whole records. The queue is
// bounded: Enqueue blocks while `capacity` records wait (the writer is that far behind), so a
// slow disk slows the loop down instead of growing memory without end.
//
// Errors: a failed write makes the writer stop writing; that status (naming the file) is returned
// by every later Enqueue, Flush and Close. Tensors in records are immutable, so the writer reads
// them without copying (Note [Variables copy on write]).
class EventWriter {
 public:
  struct Options {
    int batch_size = 10;
    int capacity = 1024;
    absl::Duration flush_interval = absl::Seconds(120);
  };

  // Creates `logdir` (and its parents) and `logdir/events.out.tfevents.<10-digit epoch
  // seconds>.<hostname>[<suffix>]`, writes and flushes the file_version event, and starts the
  // thread. If that file exists (another writer in the same second), ".<pid>.<n>" is added.
  static absl::StatusOr<std::unique_ptr<EventWriter>> Open(const std::string& logdir,
                                                           const std::string& filename_suffix,
                                                           Options options);
  ~EventWriter();  // Close(), ignoring its status
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  absl::Status Enqueue(SummaryRecord record);
  // Returns once every record enqueued before the call is written and the file flushed.
  absl::Status Flush();
  // Writes what is queued, closes the file and joins the thread. Later calls return the status.
  absl::Status Close();

  const std::string& path() const { return path_; }

 private:
  EventWriter(std::unique_ptr<RecordWriter> file, Options options);
  void Run();
  // Writes `batch` and flushes the file; the first error sticks.
  absl::Status WriteBatch(const std::vector<SummaryRecord>& batch);

  const Options options_;
  const std::string path_;
  std::unique_ptr<RecordWriter> file_;  // used by the writer thread only

  absl::Mutex mu_;
  absl::CondVar work_;  // the writer waits on it: a batch is full, a flush or close is asked
  absl::CondVar done_;  // callers wait on it: room in the queue, a flush is done
  std::vector<SummaryRecord> pending_ ABSL_GUARDED_BY(mu_);
  int64_t flush_requested_ ABSL_GUARDED_BY(mu_) = 0;  // flush generations asked for
  int64_t flush_done_ ABSL_GUARDED_BY(mu_) = 0;       // and completed
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace duet::io
