// The end-to-end test's processes: `carlos dev region` (and the enroller or
// `carlos boxes` commands it runs by hand), each a real child of the test
// in its own process group, stopped at the end whatever happened.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "dev/region_process.h"
#include "store/store.h"

namespace carlos::e2e {

// The built `carlos` (CARLOS_BIN, set by CTest).
std::string CarlosBin();

// A child process stopped (SIGTERM to its group, then SIGKILL after 10 s)
// when the object goes, unless it already ended.
class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  static StatusOr<std::unique_ptr<Child>> Start(std::vector<std::string> argv,
                                                std::vector<std::string> env, std::string log_path);
  ~Child();
  pid_t pid() const { return pid_; }
  // Sends `sig` to the child only (not its group): what a terminal's Ctrl-C
  // does to the region.
  void Signal(int sig) const;
  // Waits up to `bound` for it to end; its exit, or nullopt on timeout.
  std::optional<dev::ExitInfo> Wait(Milliseconds bound);
  const std::string& log_path() const { return log_; }

 private:
  pid_t pid_ = 0;
  std::string log_;
  std::optional<dev::ExitInfo> exit_;
};

// Runs a command to its end (bounded by `bound`); its exit and output.
struct RunResult {
  dev::ExitInfo exit;
  std::string output;
};
StatusOr<RunResult> RunCommand(std::vector<std::string> argv, std::vector<std::string> env,
                               const std::string& log_path, Milliseconds bound);

// KEY=VALUE lines of a file (region.env, the S3 server's env file); lines
// starting with '#' and blank ones skipped.
StatusOr<std::map<std::string, std::string>> ReadEnvFile(const std::string& path);

// `base` (NAME=value entries) with `set` applied.
std::vector<std::string> WithEnv(std::vector<std::string> base,
                                 const std::map<std::string, std::string>& set);

// The store `settings` (NAME=value) name.
StatusOr<std::unique_ptr<Store>> OpenStoreFrom(const std::map<std::string, std::string>& settings);

// True when process `pid` exists and is not a zombie.
bool Running(pid_t pid);

// The file's whole content, "" when it cannot be read.
std::string Slurp(const std::string& path);

}  // namespace carlos::e2e
