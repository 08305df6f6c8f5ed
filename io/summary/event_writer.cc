#include "io/summary/event_writer.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/error.h"

namespace duet::io {
namespace {

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

double WallTime() { return absl::ToUnixMicros(absl::Now()) * 1e-6; }

// TensorFlow's name, made unique within the directory when another writer took it this second.
std::string EventFilePath(const std::string& logdir, const std::string& suffix) {
  std::string base =
      absl::StrFormat("events.out.tfevents.%010d.%s", absl::ToUnixSeconds(absl::Now()), Hostname());
  std::filesystem::path path = std::filesystem::path(logdir) / (base + suffix);
  static std::atomic<int> counter{0};
  std::error_code error;
  while (std::filesystem::exists(path, error)) {
    path = std::filesystem::path(logdir) /
           absl::StrCat(base, ".", ::getpid(), ".", counter.fetch_add(1), suffix);
  }
  return path.string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<EventWriter>> EventWriter::Open(const std::string& logdir,
                                                               const std::string& filename_suffix,
                                                               Options options) {
  if (options.batch_size < 1 || options.capacity < options.batch_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("an event writer needs 1 <= batch_size <= capacity, got batch_size ",
                     options.batch_size, " and capacity ", options.capacity));
  }
  std::error_code error;
  std::filesystem::create_directories(logdir, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create the summary directory ", logdir, ": ", error.message()));
  }
  DUET_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> file,
                        RecordWriter::Open(EventFilePath(logdir, filename_suffix)));
  // The version record goes out at once: TensorBoard recognizes the file by it.
  DUET_RETURN_IF_ERROR(file->Write(FileVersionEvent(WallTime()).SerializeAsString()));
  DUET_RETURN_IF_ERROR(file->Flush());
  return std::unique_ptr<EventWriter>(new EventWriter(std::move(file), options));
}

EventWriter::EventWriter(std::unique_ptr<RecordWriter> file, Options options)
    : options_(options), path_(file->path()), file_(std::move(file)) {
  pending_.reserve(static_cast<size_t>(options_.batch_size));
  thread_ = std::thread([this] { Run(); });
}

EventWriter::~EventWriter() { Close().IgnoreError(); }

absl::Status EventWriter::Enqueue(SummaryRecord record) {
  absl::MutexLock lock(&mu_);
  while (pending_.size() >= static_cast<size_t>(options_.capacity) && status_.ok() && !closing_) {
    done_.Wait(&mu_);
  }
  if (!status_.ok()) return status_;
  if (closing_) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  pending_.push_back(std::move(record));
  if (pending_.size() == static_cast<size_t>(options_.batch_size)) work_.Signal();
  return absl::OkStatus();
}

absl::Status EventWriter::Flush() {
  absl::MutexLock lock(&mu_);
  if (closing_) return status_.ok() ? absl::FailedPreconditionError(path_ + " is closed") : status_;
  const int64_t generation = ++flush_requested_;
  work_.Signal();
  while (flush_done_ < generation && !closed_) done_.Wait(&mu_);
  return status_;
}

absl::Status EventWriter::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closing_) {  // closed, or another thread is closing: wait for it
      while (!closed_) done_.Wait(&mu_);
      return status_;
    }
    closing_ = true;
    work_.Signal();
    done_.SignalAll();  // callers blocked on a full queue see the close
  }
  thread_.join();
  absl::Status close_status = file_->Close();
  absl::MutexLock lock(&mu_);
  if (status_.ok()) status_ = close_status;
  closed_ = true;
  done_.SignalAll();
  return status_;
}

void EventWriter::Run() {
  std::vector<SummaryRecord> batch;
  batch.reserve(static_cast<size_t>(options_.batch_size));
  absl::Time next_flush = absl::Now() + options_.flush_interval;
  bool failed = false;
  for (bool closing = false; !closing;) {
    int64_t flush_generation;
    {
      absl::MutexLock lock(&mu_);
      while (pending_.size() < static_cast<size_t>(options_.batch_size) &&
             flush_requested_ == flush_done_ && !closing_) {
        if (work_.WaitWithDeadline(&mu_, next_flush)) break;  // the periodic flush
      }
      batch.swap(pending_);  // pending_ gets the emptied vector back, capacity and all
      flush_generation = flush_requested_;
      closing = closing_;
      done_.SignalAll();  // room in the queue
    }
    absl::Status status = failed ? absl::OkStatus() : WriteBatch(batch);
    batch.clear();
    next_flush = absl::Now() + options_.flush_interval;
    absl::MutexLock lock(&mu_);
    if (!status.ok() && status_.ok()) status_ = status;
    failed = !status_.ok();
    flush_done_ = flush_generation;
    done_.SignalAll();
  }
}

absl::Status EventWriter::WriteBatch(const std::vector<SummaryRecord>& batch) {
  for (const SummaryRecord& record : batch) {
    absl::StatusOr<tensorflow::Event> event = MakeEvent(record);
    if (!event.ok()) {
      return absl::Status(event.status().code(),
                          absl::StrCat("summary '", record.tag, "' at step ", record.step, " for ",
                                       path_, ": ", event.status().message()));
    }
    DUET_RETURN_IF_ERROR(file_->Write(event->SerializeAsString()));
  }
  return file_->Flush();
}

}  // namespace duet::io
