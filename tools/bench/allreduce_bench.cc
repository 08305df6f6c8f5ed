// All-reduce of 1, 25 and 100 MB of float32 among the workers of a job: duet's collective op
// (Communicator::all_reduce, CollectiveReduceV2 eagerly) against the collective library called
// directly (gloo::allreduce on a Gloo context of its own, or MPI_Allreduce) with the same
// buffers: out of place (the input kept, a result buffer beside it: what the op does, as
// TensorFlow's) and in place (the input overwritten, which costs one copy of S less); all against
// the ring bound 2 (N - 1) / N * S / B, where B is a memcpy's bandwidth on this machine (what
// moving bytes between processes over loopback cannot beat).
//
//   duet launch --nproc 2 -- bazel-bin/tools/bench/allreduce_bench     # Gloo
//   mpirun -np 2 --oversubscribe bazel-bin/tools/bench/allreduce_bench # MPI
//
// Every rank runs the same fixed number of calls (a calibration per process could differ between
// ranks and deadlock); the repetitions alternate duet and the library. Rank 0 prints
// `allreduce_<backend>_<N>p_<S>MB_<what><TAB>value<TAB>unit` lines (medians).
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "duet.h"

namespace {

using namespace duet;
using Clock = std::chrono::steady_clock;

double Seconds(const std::function<void()>& fn, int calls) {
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) fn();
  return std::chrono::duration<double>(Clock::now() - start).count() / calls;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A single-threaded memcpy's bandwidth in bytes per second (100 MB, median of 7).
double MemcpyBandwidth() {
  const size_t bytes = 100 << 20;
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {
    times.push_back(Seconds([&] { std::memcpy(b.data(), a.data(), bytes); }, 1));
  }
  return static_cast<double>(bytes) / Median(times);
}

// The library itself: a sum all-reduce of `in` into `out` (in place when they are the same).
using DirectFn = std::function<void(float* in, float* out, size_t n)>;

DirectFn DirectAllReduce(const distribute::Communicator& comm) {
  if (comm.backend() == "mpi") {
    return [](float* in, float* out, size_t n) {
      MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    };
  }
  const char* dir = std::getenv(distribute::kRendezvousDirEnv);
  gloo::transport::tcp::attr attr;
  attr.hostname = "localhost";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  const std::string store_dir = std::string(dir != nullptr ? dir : "/tmp") + "/bench_gloo";
  std::filesystem::create_directories(store_dir);
  gloo::rendezvous::FileStore store(store_dir);
  auto context = std::make_shared<gloo::rendezvous::Context>(comm.rank(), comm.size());
  context->connectFullMesh(store, device);
  return [context](float* in, float* out, size_t n) {
    gloo::AllreduceOptions opts(context);
    if (in != out) opts.setInput<float>(in, n);
    opts.setOutput<float>(out, n);
    opts.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    gloo::allreduce(opts);
  };
}

}  // namespace

int main() {
  const distribute::Communicator comm = distribute::init();
  const auto direct = DirectAllReduce(comm);
  const double bandwidth = MemcpyBandwidth();
  const std::string prefix =
      "allreduce_" + comm.backend() + "_" + std::to_string(comm.size()) + "p_";
  if (comm.rank() == 0) {
    std::printf("%smemcpy_bandwidth\t%.2f\tGB/s\n", prefix.c_str(), bandwidth / 1e9);
  }
  for (int mb : {1, 25, 100}) {
    const int64_t n = (int64_t{mb} << 20) / 4;
    const Tensor x = fill({n}, 1.0f);
    std::vector<float> input(n, 1.0f), output(n, 0.0f);
    const int calls = mb == 1 ? 20 : mb == 25 ? 3 : 1;
    auto duet_call = [&] { comm.all_reduce(x); };
    auto out_of_place = [&] { direct(input.data(), output.data(), input.size()); };
    auto in_place = [&] { direct(output.data(), output.data(), output.size()); };
    std::vector<double> duet_times, out_times, in_times;
    for (int r = 0; r < 2; ++r) {  // warm-up: connections, pools, first-touch pages
      duet_call();
      out_of_place();
      in_place();
    }
    for (int r = 0; r < 7; ++r) {
      comm.barrier();
      duet_times.push_back(Seconds(duet_call, calls));
      comm.barrier();
      out_times.push_back(Seconds(out_of_place, calls));
      comm.barrier();
      in_times.push_back(Seconds(in_place, calls));
    }
    if (comm.rank() != 0) continue;
    const double duet_s = Median(duet_times), out_s = Median(out_times), in_s = Median(in_times);
    const double bytes = static_cast<double>(n) * 4;
    const double bound_s = 2.0 * (comm.size() - 1) / comm.size() * bytes / bandwidth;
    const std::string name = prefix + std::to_string(mb) + "MB_";
    std::printf("%sduet\t%.3f\tms\n", name.c_str(), duet_s * 1e3);
    std::printf("%slibrary_out_of_place\t%.3f\tms\n", name.c_str(), out_s * 1e3);
    std::printf("%slibrary_in_place\t%.3f\tms\n", name.c_str(), in_s * 1e3);
    std::printf("%sduet_over_library_out_of_place\t%.3f\tratio\n", name.c_str(), duet_s / out_s);
    std::printf("%sduet_over_library_in_place\t%.3f\tratio\n", name.c_str(), duet_s / in_s);
    std::printf("%sbound_over_duet\t%.3f\tratio\n", name.c_str(), bound_s / duet_s);
    std::printf("%sbound_over_library_in_place\t%.3f\tratio\n", name.c_str(), bound_s / in_s);
  }
  return 0;
}
