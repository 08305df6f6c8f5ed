// `duet`: see tools/duet_cli.h.
#include <iostream>

#include "tools/duet_cli.h"

int main(int argc, char** argv) {
  return duet::RunCli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
