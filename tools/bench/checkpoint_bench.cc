// Checkpoint save and restore of a 100M-parameter float32 model (four nn::Dense 5000 -> 5000
// layers: 100,020,000 parameters, 400.08 MB) against this machine's file bandwidth measured in the
// same run on the same file system: a plain POSIX write of the same bytes + fsync (save fsyncs,
// Note [Checkpoints] in io/checkpoint/checkpoint.h) and a plain read of them.
//
// Cache state is explicit. "hot": the file was just written, so its pages are in the page cache
// and a read copies from memory. "cold": posix_fadvise(POSIX_FADV_DONTNEED) on the files first
// (their pages are clean after the fsync, so the kernel drops them), then the read goes to the
// disk; cold_resident_fraction reports what mincore saw left after dropping. Baseline and duet are
// measured in the same state, repetitions interleaved (baseline, duet, duet, baseline, ...), and
// each figure is the median (and "_best" the fastest) over DUET_BENCH_REPS (default 5) repetitions
// after one warm-up each
// (DUET_BENCH_VERBOSE=1 prints every repetition as a `#` line).
//
// Deferred restoration (Note [Deferred restoration] in nn/module.h): restore into a model whose
// layers are not built, then the first call builds them, against the same first call without a
// restore plus a restore into a built model, and against a restore into a built model plus a
// forward call; the differences are given in units of one memcpy of the 400 MB.
//
//   bazel build //tools/bench:checkpoint_bench
//   bazel-bin/tools/bench/checkpoint_bench [--dir DIR]   # DIR: default a new one under /tmp
//
// tools/bench/checkpoint_bench.py runs this and TensorFlow's tf.train.Checkpoint on the same
// variables and prints the ratios.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::Print;

constexpr int64_t kUnits = 5000;
constexpr int kLayers = 4;
constexpr int64_t kParameters = kLayers * (kUnits * kUnits + kUnits);
constexpr size_t kBytes = static_cast<size_t>(kParameters) * sizeof(float);
// The plain peers move the bytes in calls of 4 MiB, as BundleWriter and BundleReader do (Note
// [Chunked crc] in io/checkpoint/tensor_bundle.cc). One 400 MB write() or read() was slower and
// far more erratic on this machine (0.4-2.5 s per write under other jobs' I/O), which would
// flatter duet.
constexpr size_t kIoChunk = size_t{4} << 20;

// 100M parameters: four Dense layers, built by the first call on a [1, 5000] input.
struct Model : nn::Module {
  nn::Dense d1{this, "d1", kUnits}, d2{this, "d2", kUnits}, d3{this, "d3", kUnits},
      d4{this, "d4", kUnits};
  Tensor operator()(const Tensor& x) { return d4(d3(d2(d1(x)))); }
};

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "checkpoint_bench: %s\n", what.c_str());
    std::exit(1);
  }
}

void CheckErrno(bool ok, const std::string& what) { Check(ok, what + ": " + std::strerror(errno)); }

double Seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Repetitions() {
  const char* reps = std::getenv("DUET_BENCH_REPS");
  return reps != nullptr ? std::max(1, std::atoi(reps)) : 5;
}

// A timed case: `setup` (untimed: drop the page cache, make a fresh model) then `run` (timed).
struct Case {
  std::string name;
  std::function<void()> setup, run;
};

struct Timing {
  double median, min;  // seconds
};

// Median (and fastest) seconds of each case's run; one untimed warm-up each, then the
// repetitions interleaved so load that comes and goes hits every case alike.
std::vector<Timing> Interleaved(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    if (c.setup) c.setup();
    c.run();
  }
  std::vector<std::vector<double>> times(cases.size());
  for (int r = 0; r < Repetitions(); ++r) {
    // A, B, B, A, A, B, ...: neither case always runs right after the other (a save's freed
    // blocks, its journal commit, are then on whichever case follows it).
    for (size_t k = 0; k < cases.size(); ++k) {
      const size_t i = r % 2 == 0 ? k : cases.size() - 1 - k;
      if (cases[i].setup) cases[i].setup();
      times[i].push_back(Seconds(cases[i].run));
    }
  }
  std::vector<Timing> medians;
  for (size_t i = 0; i < cases.size(); ++i) {
    medians.push_back({Median(times[i]), *std::min_element(times[i].begin(), times[i].end())});
    if (std::getenv("DUET_BENCH_VERBOSE") != nullptr) {  // every repetition, as a comment line
      std::printf("# %s ms:", cases[i].name.c_str());
      for (double t : times[i]) std::printf(" %.1f", t * 1e3);
      std::printf("\n");
    }
  }
  return medians;
}

// The plain-file peers: what save and restore do at the least (write + fsync; read).
void PlainWrite(const std::string& path, const char* data, size_t n) {
  // A new file renamed over the old one and the directory fsynced, as BundleWriter publishes its
  // files, so both free the previous file's blocks alike and wait for the same journal commits.
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  CheckErrno(fd >= 0, "open " + temp);
  for (size_t done = 0; done < n;) {
    const ssize_t w = ::write(fd, data + done, std::min(n - done, kIoChunk));
    CheckErrno(w > 0, "write " + temp);
    done += static_cast<size_t>(w);
  }
  CheckErrno(::fsync(fd) == 0, "fsync " + temp);
  CheckErrno(::close(fd) == 0, "close " + temp);
  CheckErrno(::rename(temp.c_str(), path.c_str()) == 0, "rename " + temp);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CheckErrno(dir_fd >= 0 && ::fsync(dir_fd) == 0, "fsync " + dir);
  ::close(dir_fd);
}

void PlainRead(const std::string& path, char* data, size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CheckErrno(fd >= 0, "open " + path);
  for (size_t done = 0; done < n;) {
    const ssize_t r = ::read(fd, data + done, std::min(n - done, kIoChunk));
    CheckErrno(r > 0, "read " + path);
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  DoNotOptimize(data[n - 1]);
}

// Drops a file's pages from the page cache (they are clean: every file here was fsynced).
void DropCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CheckErrno(fd >= 0, "open " + path);
  Check(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0, "posix_fadvise " + path);
  ::close(fd);
}

// The fraction of a file's pages in the page cache (mincore of a mapping).
double ResidentFraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CheckErrno(fd >= 0, "open " + path);
  struct stat st;
  CheckErrno(::fstat(fd, &st) == 0, "fstat " + path);
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  CheckErrno(map != MAP_FAILED, "mmap " + path);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  CheckErrno(::mincore(map, size, resident.data()) == 0, "mincore " + path);
  ::munmap(map, size);
  ::close(fd);
  size_t in = 0;
  for (unsigned char r : resident) in += r & 1;
  return resident.empty() ? 0.0 : static_cast<double>(in) / static_cast<double>(resident.size());
}

const Tensor& Input() {
  static const Tensor x = [] {
    std::vector<float> v(kUnits);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
    return from_vector(v, {1, kUnits});
  }();
  return x;
}

// The first few values of the first kernel, to check a restore really assigned the values.
std::vector<float> Head(Model& model) {
  const Tensor value = model.d1.kernel().value();
  const float* p = value.data<float>();
  return std::vector<float>(p, p + 16);
}

double GBPerSecond(double seconds) { return static_cast<double>(kBytes) / seconds / 1e9; }

// duet's case against its plain-file peer: both in GB/s, duet's time, and the ratio duet/peer in
// GB/s (above 1: duet is faster), of the medians and of the fastest repetitions ("best": on a
// busy machine the median moves with other jobs' I/O, the fastest repetition less).
void PrintAgainst(const std::string& name, const Timing& duet, const std::string& peer_name,
                  const Timing& peer) {
  Print(peer_name, GBPerSecond(peer.median), "GB/s");
  Print(name, GBPerSecond(duet.median), "GB/s");
  Print(name + "_ms", duet.median * 1e3, "ms");
  Print("ratio." + name + "_to_" + peer_name, peer.median / duet.median, "x");
  Print(peer_name + "_best", GBPerSecond(peer.min), "GB/s");
  Print(name + "_best", GBPerSecond(duet.min), "GB/s");
  Print("ratio." + name + "_to_" + peer_name + "_best", peer.min / duet.min, "x");
}

void Run(const std::string& dir) {
  std::printf("# %lld float32 parameters (%.2f MB) in %d Dense layers; files under %s\n",
              static_cast<long long>(kParameters), kBytes / 1e6, kLayers, dir.c_str());
  std::printf("# %d repetitions per case, interleaved, medians\n", Repetitions());
  const std::string ckpt_path = dir + "/ckpt";
  const std::string data_path = ckpt_path + ".data-00000-of-00001";
  const std::string index_path = ckpt_path + ".index";
  const std::string plain_path = dir + "/plain.bin";

  // The saved model: built, glorot-initialized. Its checkpoint is restored into `target`.
  Model source;
  source(Input());
  Checkpoint save_ckpt({{"model", &source}});
  Model target;
  target(Input());
  Checkpoint restore_ckpt({{"model", &target}});

  // Plain buffers, written once so no page faults are timed. The plain write writes the model's
  // own bytes (a virtual disk may treat runs of zeros differently).
  std::vector<char> plain_out(kBytes), plain_in(kBytes, 0), copy_dst(kBytes, 0);
  size_t filled = 0;
  for (const Variable& v : source.variables()) {
    const Tensor value = v.value();
    std::memcpy(plain_out.data() + filled, value.raw_data(), value.nbytes());
    filled += value.nbytes();
  }
  Check(filled == kBytes, "the model does not hold kBytes");

  // memcpy of the 400 MB, the unit of the deferred-restore comparison.
  const double memcpy_s = duet_bench::InterleavedMedianSecondsPerCall(
      {[&] {
        std::memcpy(copy_dst.data(), plain_out.data(), kBytes);
        DoNotOptimize(copy_dst[kBytes - 1]);
      }},
      {.repetitions = Repetitions(), .min_repetition_seconds = 0})[0];
  Print("memcpy_400MB", memcpy_s * 1e3, "ms");
  Print("memcpy_400MB", GBPerSecond(memcpy_s), "GB/s");

  // Save: plain write + fsync against Checkpoint::write.
  {
    const std::vector<Timing> s = Interleaved({
        {"plain_write_fsync", nullptr, [&] { PlainWrite(plain_path, plain_out.data(), kBytes); }},
        {"checkpoint_save", nullptr, [&] { save_ckpt.write(ckpt_path); }},
    });
    PrintAgainst("checkpoint_save", s[1], "plain_write_fsync", s[0]);
  }
  Check(std::filesystem::file_size(data_path) >= kBytes, "the checkpoint holds too few bytes");

  // Restore into the built model, hot: both files were just written and fsynced.
  auto restore = [&] { restore_ckpt.restore(ckpt_path); };
  {
    // The plain read into a buffer that was used before (no page faults), and into a fresh one
    // (as restore reads into new tensors: page faults included).
    const std::vector<Timing> s = Interleaved({
        {"plain_read_hot", nullptr, [&] { PlainRead(plain_path, plain_in.data(), kBytes); }},
        {"plain_read_hot_fresh_buffer", nullptr,
         [&] {
           std::unique_ptr<char[]> fresh(new char[kBytes]);
           PlainRead(plain_path, fresh.get(), kBytes);
         }},
        {"checkpoint_restore_hot", nullptr, restore},
    });
    Print("cache_resident_fraction_hot",
          std::min(ResidentFraction(plain_path), ResidentFraction(data_path)), "fraction");
    PrintAgainst("checkpoint_restore_hot", s[2], "plain_read_hot", s[0]);
    Print("plain_read_hot_fresh_buffer", GBPerSecond(s[1].median), "GB/s");
    Print("ratio.checkpoint_restore_hot_to_plain_read_hot_fresh_buffer", s[1].median / s[2].median,
          "x");
  }
  Check(Head(target) == Head(source), "restore did not assign the saved values");
  restore_ckpt.restore(ckpt_path).assert_consumed();

  // Restore, cold: the files' pages dropped before each read.
  {
    const std::vector<Timing> s = Interleaved({
        {"plain_read_cold", [&] { DropCache(plain_path); },
         [&] { PlainRead(plain_path, plain_in.data(), kBytes); }},
        {"checkpoint_restore_cold",
         [&] {
           DropCache(data_path);
           DropCache(index_path);
         },
         restore},
    });
    DropCache(plain_path);
    DropCache(data_path);
    Print("cache_resident_fraction_cold",
          std::max(ResidentFraction(plain_path), ResidentFraction(data_path)), "fraction");
    PrintAgainst("checkpoint_restore_cold", s[1], "plain_read_cold", s[0]);
  }
  PlainRead(data_path, plain_in.data(), kBytes);  // hot again for what follows

  // Deferred restoration, hot. Each repetition makes a fresh unbuilt model (untimed) and drops it
  // afterwards (untimed: the next setup replaces it once the times are taken).
  {
    std::unique_ptr<Model> fresh;
    std::unique_ptr<Checkpoint> fresh_ckpt;
    auto make_fresh = [&] {
      fresh_ckpt.reset();
      fresh.reset();
      fresh = std::make_unique<Model>();
      fresh_ckpt = std::make_unique<Checkpoint>(
          std::vector<std::pair<std::string, Trackable>>{{"model", fresh.get()}});
    };
    const std::vector<Timing> s = Interleaved({
        // Restore before the layers exist; the first call builds them and assigns the values.
        {"checkpoint_restore_deferred", make_fresh,
         [&] {
           fresh_ckpt->restore(ckpt_path);
           (*fresh)(Input());
         }},
        // The same first call without a restore: initializers + forward.
        {"build_first_call", make_fresh, [&] { (*fresh)(Input()); }},
        // A restore into the built model, as above.
        {"checkpoint_restore_built", nullptr, restore},
        // A call of the built model: the forward the deferred case's first call includes.
        {"forward_built", nullptr, [&] { target(Input()); }},
    });
    make_fresh();
    fresh_ckpt->restore(ckpt_path);
    (*fresh)(Input());
    Check(Head(*fresh) == Head(source), "deferred restore did not assign the saved values");
    const double deferred = s[0].median, build = s[1].median, restored = s[2].median,
                 forward = s[3].median;
    Print("checkpoint_restore_deferred_ms", deferred * 1e3, "ms");
    Print("build_first_call_ms", build * 1e3, "ms");
    Print("checkpoint_restore_built_ms", restored * 1e3, "ms");
    Print("forward_built_ms", forward * 1e3, "ms");
    Print("checkpoint_restore_deferred", GBPerSecond(deferred), "GB/s");
    // Against building without a restore, then restoring into the built model.
    Print("deferred_extra_vs_build_then_restore", (deferred - build - restored) / memcpy_s,
          "memcpys");
    // Against a restore into a built model plus the forward call (TensorFlow's deferred restore
    // makes the variables from the checkpoint's values, without running their initializers).
    Print("deferred_extra_vs_restore_built_plus_forward",
          (deferred - restored - forward) / memcpy_s, "memcpys");
  }
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg.rfind("--dir=", 0) == 0) {
      dir = arg.substr(6);
    } else {
      std::fprintf(stderr, "usage: %s [--dir DIR]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty()) {
    char pattern[] = "/tmp/checkpoint_bench_XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    dir = pattern;
  } else {
    dir += "/checkpoint_bench_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
  }
  try {
    duet::Run(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpoint_bench: %s\n", e.what());
    std::filesystem::remove_all(dir);
    return 1;
  }
  std::filesystem::remove_all(dir);  // only what this run made
  return 0;
}
