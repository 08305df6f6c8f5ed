// The child process of checkpoint_crash_test: saves checkpoints of a ~16 MB model in a loop until
// it is killed. Before save k every variable is filled with k, so a consistent checkpoint holds
// the same value in every variable, equal to its save_counter.
//   checkpoint_saver DIR
#include <iostream>

#include "duet.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: checkpoint_saver DIR\n";
    return 2;
  }
  using namespace duet;  // NOLINT: a test program
  std::vector<Variable> variables;
  for (int i = 0; i < 4; ++i) {
    variables.emplace_back(zeros({1000, 1000}, kFloat32), "w" + std::to_string(i));
  }
  Variable w0 = variables[0], w1 = variables[1], w2 = variables[2], w3 = variables[3];
  Checkpoint ckpt({{"w0", &w0}, {"w1", &w1}, {"w2", &w2}, {"w3", &w3}});
  CheckpointManager manager(ckpt, argv[1], /*max_to_keep=*/2);
  for (int k = 1; k < 100000; ++k) {
    for (const Variable& v : variables) v.assign(fill({1000, 1000}, k, kFloat32));
    manager.save();
    std::cout << "saved " << k << std::endl;
  }
  return 0;
}
