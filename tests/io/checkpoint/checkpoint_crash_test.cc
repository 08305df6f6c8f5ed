// Killing a process mid-save never costs the previous checkpoint: a child saves in a loop and is
// killed (SIGKILL) after a range of delays, landing in every phase of a save (tensor data, the
// index, the renames, the "checkpoint" file, deleting old checkpoints); each time the latest
// checkpoint the directory names must restore completely and consistently.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "duet.h"

extern char** environ;

namespace duet {
namespace {

namespace fs = std::filesystem;

TEST_CASE("a save killed at any point leaves the latest checkpoint whole") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(tmp != nullptr ? tmp : "/tmp") / "checkpoint_crash";
  fs::remove_all(dir);
  // Each kill comes a different time after the child's first save (a save takes ~50 ms here),
  // so the kills land in different phases of the saves after it.
  for (int delay_ms : {0, 3, 7, 11, 16, 22, 29, 35, 41, 48, 55, 63, 80, 110}) {
    const std::string saver = "tests/io/checkpoint/checkpoint_saver";
    const std::string dir_arg = dir.string();
    char* argv[] = {const_cast<char*>(saver.c_str()), const_cast<char*>(dir_arg.c_str()), nullptr};
    int out[2];
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, saver.c_str(), &actions, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    char c = 0;  // the child prints "saved <k>" after each save: wait for the first line
    while (::read(out[0], &c, 1) == 1 && c != '\n') {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    ::close(out[0]);
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    INFO("killed after " << delay_ms << " ms");
    REQUIRE(WIFSIGNALED(wstatus));  // still saving when killed, not crashed on its own

    const std::string latest = latest_checkpoint(dir.string());
    REQUIRE_FALSE(latest.empty());
    std::vector<Variable> vars;
    for (int i = 0; i < 4; ++i) vars.emplace_back(zeros({1000, 1000}, kFloat32));
    Variable w0 = vars[0], w1 = vars[1], w2 = vars[2], w3 = vars[3];
    Checkpoint ckpt({{"w0", &w0}, {"w1", &w1}, {"w2", &w2}, {"w3", &w3}});
    ckpt.restore(latest).assert_consumed();
    const int64_t k = ckpt.save_counter().value().item<int64_t>();
    CHECK(latest == (dir / ("ckpt-" + std::to_string(k))).string());
    for (const Variable& v : vars) {
      const Tensor value = v.value();
      CHECK(reduce_min(value).item<float>() == static_cast<float>(k));
      CHECK(reduce_max(value).item<float>() == static_cast<float>(k));
    }
  }
}

}  // namespace
}  // namespace duet
