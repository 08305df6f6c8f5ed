#include "tools/launch.h"

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "distribute/init.h"

namespace duet {
namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_signal = 0;  // SIGINT or SIGTERM received, to pass on

void OnSignal(int signal) { g_signal = signal; }

// One worker: its process, its output pipes and the partial lines read from them.
struct Worker {
  int rank = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr
  std::string pending[2];
  bool exited = false;
  int status = 0;
};

// Starts `command` with the worker's environment, its stdout and stderr into pipes.
void Start(Worker& worker, int local_rank, const LaunchOptions& options, int world,
           const std::string& dir) {
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) {
    throw std::runtime_error(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    const std::string rank = std::to_string(worker.rank), local = std::to_string(local_rank);
    const std::string size = std::to_string(world), local_size = std::to_string(options.nproc);
    setenv(distribute::kRankEnv, rank.c_str(), 1);
    setenv(distribute::kLocalRankEnv, local.c_str(), 1);
    setenv(distribute::kWorldSizeEnv, size.c_str(), 1);
    setenv("DUET_LOCAL_WORLD_SIZE", local_size.c_str(), 1);
    if (options.master_addr.empty()) {
      setenv(distribute::kRendezvousDirEnv, dir.c_str(), 1);
    } else {
      const std::string port = std::to_string(options.master_port);
      setenv(distribute::kMasterAddrEnv, options.master_addr.c_str(), 1);
      setenv(distribute::kMasterPortEnv, port.c_str(), 1);
      setenv("MASTER_ADDR", options.master_addr.c_str(), 1);
      setenv("MASTER_PORT", port.c_str(), 1);
    }
    setenv("RANK", rank.c_str(), 1);
    setenv("LOCAL_RANK", local.c_str(), 1);
    setenv("WORLD_SIZE", size.c_str(), 1);
    if (options.timeout_seconds > 0) {
      setenv(distribute::kTimeoutEnv, std::to_string(options.timeout_seconds).c_str(), 1);
    }
    std::vector<char*> argv;
    for (const std::string& a : options.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const std::string message = absl::StrCat("duet launch: cannot run '", options.command[0],
                                             "': ", std::strerror(errno), "\n");
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  worker.pid = pid;
  worker.fds[0] = out[0];
  worker.fds[1] = err[0];
}

// Writes the complete lines of `text` (and, at the end, the rest) with the rank's prefix.
void Emit(Worker& worker, int stream, const std::string& text, bool end, std::ostream& os) {
  std::string& pending = worker.pending[stream];
  pending += text;
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    os << "[" << worker.rank << "] " << std::string_view(pending).substr(start, nl + 1 - start);
  }
  pending.erase(0, start);
  if (end && !pending.empty()) {
    os << "[" << worker.rank << "] " << pending << "\n";
    pending.clear();
  }
  os.flush();
}

std::string Describe(int status) {
  if (WIFSIGNALED(status)) return absl::StrCat("was killed by signal ", WTERMSIG(status));
  return absl::StrCat("exited with status ", WEXITSTATUS(status));
}

int ExitCode(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace

int Launch(const LaunchOptions& options, std::ostream& out, std::ostream& err) {
  const int world = options.nproc * options.nnodes;
  std::string dir = options.rendezvous_dir;
  const bool own_dir = dir.empty() && options.master_addr.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/duet_launch_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      err << "duet launch: cannot make a rendezvous directory: " << std::strerror(errno) << "\n";
      return 1;
    }
    dir = tmpl;
  }
  struct sigaction action {};
  action.sa_handler = OnSignal;
  struct sigaction old_int {};
  struct sigaction old_term {};
  sigaction(SIGINT, &action, &old_int);
  sigaction(SIGTERM, &action, &old_term);
  g_signal = 0;

  std::vector<Worker> workers(options.nproc);
  int result = 0;
  std::optional<Clock::time_point> kill_at;
  try {
    for (int i = 0; i < options.nproc; ++i) {
      workers[i].rank = options.node_rank * options.nproc + i;
      Start(workers[i], i, options, world, dir);
    }
    auto stop_others = [&](int signal) {
      for (Worker& w : workers) {
        if (!w.exited) kill(w.pid, signal);
      }
    };
    while (true) {
      std::vector<pollfd> fds;
      std::vector<std::pair<Worker*, int>> owners;
      for (Worker& w : workers) {
        for (int s = 0; s < 2; ++s) {
          if (w.fds[s] >= 0) {
            fds.push_back({w.fds[s], POLLIN, 0});
            owners.emplace_back(&w, s);
          }
        }
      }
      bool all_exited = true;
      for (const Worker& w : workers) all_exited = all_exited && w.exited;
      if (fds.empty() && all_exited) break;
      if (!fds.empty())
        poll(fds.data(), fds.size(), 100);
      else
        usleep(100'000);
      for (size_t i = 0; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto [w, s] = owners[i];
        char buffer[4096];
        const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          Emit(*w, s, std::string(buffer, n), false, s == 0 ? out : err);
        } else if (n == 0 || errno != EINTR) {
          Emit(*w, s, "", true, s == 0 ? out : err);
          close(w->fds[s]);
          w->fds[s] = -1;
        }
      }
      if (g_signal != 0) {  // passed on; the workers decide how to end
        stop_others(g_signal);
        if (result == 0) result = 128 + g_signal;
        g_signal = 0;
      }
      for (Worker& w : workers) {
        int status = 0;
        if (!w.exited && waitpid(w.pid, &status, WNOHANG) == w.pid) {
          w.exited = true;
          w.status = status;
          if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
          err << "duet launch: rank " << w.rank << " " << Describe(status);
          if (result == 0) {
            // The first failure seen sets the exit status and stops the rest (a peer's
            // failure often follows at once: every failure is listed).
            result = ExitCode(status);
            err << "; stopping the other workers";
            stop_others(SIGTERM);
            kill_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(options.grace_seconds));
          }
          err << "\n";
          err.flush();
        }
      }
      if (kill_at && Clock::now() >= *kill_at) {
        stop_others(SIGKILL);
        kill_at.reset();
      }
    }
  } catch (const std::exception& e) {
    err << "duet launch: " << e.what() << "\n";
    for (Worker& w : workers) {
      if (w.pid > 0 && !w.exited) kill(w.pid, SIGKILL);
    }
    for (Worker& w : workers) {
      if (w.pid > 0 && !w.exited) waitpid(w.pid, nullptr, 0);
    }
    result = 1;
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (own_dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return result;
}

int LaunchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  LaunchOptions options;
  size_t i = 0;
  auto usage = [&](const std::string& why) {
    err << "duet launch: " << why
        << "\nusage: duet launch --nproc N [--nnodes M --node-rank K] [--rendezvous-dir DIR | "
           "--master-addr HOST [--master-port P]] [--timeout SECONDS] -- PROGRAM [ARGS...]\n";
    return 2;
  };
  for (; i < args.size() && args[i] != "--"; ++i) {
    const std::string& flag = args[i];
    if (i + 1 >= args.size()) return usage(absl::StrCat(flag, " needs a value"));
    const std::string& value = args[++i];
    int n = 0;
    if (flag == "--nproc" || flag == "--nnodes" || flag == "--node-rank") {
      if (!absl::SimpleAtoi(value, &n) || n < 0) {
        return usage(absl::StrCat(flag, " '", value, "' is not a count"));
      }
      (flag == "--nproc"    ? options.nproc
       : flag == "--nnodes" ? options.nnodes
                            : options.node_rank) = n;
    } else if (flag == "--rendezvous-dir") {
      options.rendezvous_dir = value;
    } else if (flag == "--timeout") {
      if (!absl::SimpleAtod(value, &options.timeout_seconds) || options.timeout_seconds <= 0) {
        return usage(absl::StrCat("--timeout '", value, "' is not a number of seconds"));
      }
    } else if (flag == "--master-addr") {
      options.master_addr = value;
    } else if (flag == "--master-port") {
      if (!absl::SimpleAtoi(value, &options.master_port) || options.master_port <= 0 ||
          options.master_port > 65535) {
        return usage(absl::StrCat("--master-port '", value, "' is not a port"));
      }
    } else {
      return usage(absl::StrCat("unknown flag ", flag));
    }
  }
  if (i >= args.size() || i + 1 >= args.size()) return usage("no program after --");
  options.command.assign(args.begin() + i + 1, args.end());
  if (options.nproc < 1) return usage("--nproc must be at least 1");
  if (options.nnodes < 1 || options.node_rank >= options.nnodes) {
    return usage("--node-rank must be below --nnodes");
  }
  if (options.nnodes > 1 && options.rendezvous_dir.empty() && options.master_addr.empty()) {
    return usage(
        "several nodes need --master-addr (node 0's host) or --rendezvous-dir on a file system "
        "they share");
  }
  if (!options.rendezvous_dir.empty() && !options.master_addr.empty()) {
    return usage("--rendezvous-dir and --master-addr are two ways to meet: give one");
  }
  return Launch(options, out, err);
}

}  // namespace duet
