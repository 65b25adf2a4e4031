// soak_fault_proxy: the store tests' fault proxy (tests/store/fault_proxy.h)
// as a process, for the soak (docs/protocol.md, "The fault soak"): it forwards every S3
// request to 127.0.0.1:<upstream>, or, as the control file says at the
// moment the request arrives, injects a fault. The soak runner rewrites the
// control file (atomically) to start and stop faults.
//
// Usage: soak_fault_proxy UPSTREAM_PORT CONTROL_FILE PORT_FILE
//   CONTROL_FILE: one word: none | 500 | 503 | 409 | lost500 | reset | hang
//   (a missing or unreadable file, or another word, is "none").
//   PORT_FILE: written (atomically) with the port it listens on.
// Runs until SIGTERM or SIGINT; exit 2 on a usage error.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fault_proxy.h"

using carlos::testing::Fault;

namespace {

Fault FaultNamed(const std::string& word) {
  if (word == "500") return Fault::k500;
  if (word == "503") return Fault::kSlowDown;
  if (word == "409") return Fault::kConflict409;
  if (word == "lost500") return Fault::kForwardThen500;
  if (word == "reset") return Fault::kForwardThenReset;
  if (word == "hang") return Fault::kHang;
  return Fault::kNone;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s UPSTREAM_PORT CONTROL_FILE PORT_FILE\n", argv[0]);
    return 2;
  }
  int upstream = std::atoi(argv[1]);
  if (upstream <= 0 || upstream > 65535) {
    std::fprintf(stderr, "soak_fault_proxy: %s is not a port\n", argv[1]);
    return 2;
  }
  std::string control = argv[2];
  std::string port_file = argv[3];
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // The proxy's threads inherit the mask.
  carlos::testing::FaultProxy proxy(upstream, [control](int, const std::string&) {
    std::ifstream in(control);
    std::string word;
    in >> word;
    return FaultNamed(word);
  });
  std::string tmp = port_file + ".tmp";
  {
    std::ofstream out(tmp);
    out << proxy.port() << "\n";
  }
  if (std::rename(tmp.c_str(), port_file.c_str()) != 0) {
    std::perror("soak_fault_proxy: rename");
    return 1;
  }
  int sig = 0;
  sigwait(&set, &sig);
  return 0;
}
