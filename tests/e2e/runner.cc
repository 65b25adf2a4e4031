#include "runner.h"

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/env.h"
#include "base/strings.h"
#include "dev/region_env.h"

namespace carlos::e2e {

std::string CarlosBin() {
  const char* b = std::getenv("CARLOS_BIN");
  return b == nullptr ? "" : b;
}

StatusOr<std::unique_ptr<Child>> Child::Start(std::vector<std::string> argv,
                                              std::vector<std::string> env, std::string log_path) {
  dev::ProcessSpec spec{std::move(argv), std::move(env), log_path};
  CARLOS_ASSIGN_OR_RETURN(pid_t pid, dev::SpawnProcess(spec));
  auto c = std::make_unique<Child>();
  c->pid_ = pid;
  c->log_ = std::move(log_path);
  return c;
}

Child::~Child() {
  if (pid_ > 0 && !exit_) dev::StopProcesses({pid_}, Milliseconds(10'000));
}

void Child::Signal(int sig) const {
  if (pid_ > 0 && !exit_) kill(pid_, sig);
}

std::optional<dev::ExitInfo> Child::Wait(Milliseconds bound) {
  if (exit_) return exit_;
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto e = dev::TryReap(pid_)) {
      exit_ = e;
      return exit_;
    }
    std::this_thread::sleep_for(Milliseconds(20));
  }
  return std::nullopt;
}

StatusOr<RunResult> RunCommand(std::vector<std::string> argv, std::vector<std::string> env,
                               const std::string& log_path, Milliseconds bound) {
  std::string what = argv.size() > 2 ? argv[1] + " " + argv[2] : argv[0];
  CARLOS_ASSIGN_OR_RETURN(std::unique_ptr<Child> c,
                          Child::Start(std::move(argv), std::move(env), log_path));
  auto e = c->Wait(bound);
  if (!e) {
    return DeadlineExceeded("carlos " + what + " did not end within " + FormatDuration(bound));
  }
  return RunResult{*e, Slurp(log_path)};
}

StatusOr<std::map<std::string, std::string>> ReadEnvFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read " + path);
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    line = TrimSpace(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::vector<std::string> WithEnv(std::vector<std::string> base,
                                 const std::map<std::string, std::string>& set) {
  std::vector<std::string> out;
  for (auto& e : base) {
    size_t eq = e.find('=');
    if (eq != std::string::npos && set.count(e.substr(0, eq))) continue;
    out.push_back(std::move(e));
  }
  for (const auto& [k, v] : set) out.push_back(k + "=" + v);
  return out;
}

StatusOr<std::unique_ptr<Store>> OpenStoreFrom(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> vars;
  for (const char* name :
       {"CARLOS_DEPLOYMENT_DIR", "CARLOS_DEPLOYMENT_BUCKET", "CARLOS_S3_ENDPOINT",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) {
    auto it = settings.find(name);
    if (it != settings.end()) vars[name] = it->second;
  }
  return OpenStore(MapGetenv(vars));
}

bool Running(pid_t pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace carlos::e2e
