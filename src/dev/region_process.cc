#include "dev/region_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "base/files.h"

namespace carlos::dev {

namespace {

ExitInfo FromWaitStatus(int status) {
  ExitInfo e;
  if (WIFSIGNALED(status)) {
    e.signaled = true;
    e.signal = WTERMSIG(status);
  } else {
    e.code = WEXITSTATUS(status);
  }
  return e;
}

// posix_spawn's attributes and file actions, freed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

std::string ExitInfo::Describe() const {
  if (!signaled) return "exit " + std::to_string(code);
  if (signal == 0) return "ended (not our child)";
  const char* name = strsignal(signal);
  return "signal " + std::to_string(signal) + " (" + (name ? name : "?") + ")";
}

StatusOr<pid_t> SpawnProcess(const ProcessSpec& spec) {
  if (spec.argv.empty()) return InvalidArgument("spawn: empty argv");
  // The log is opened here, not in the child, so that an unwritable log is
  // this call's error rather than a child that dies unseen.
  int log_fd = -1;
  if (!spec.log_path.empty()) {
    log_fd = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) return ErrnoStatus(errno, "open log", spec.log_path);
  }
  SpawnSetup s;
  posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
  if (log_fd >= 0) {
    posix_spawn_file_actions_adddup2(&s.actions, log_fd, 1);
    posix_spawn_file_actions_adddup2(&s.actions, log_fd, 2);
  } else {
    posix_spawn_file_actions_addopen(&s.actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&s.actions, 1, 2);
  }
  // Nothing else of the region's reaches the child, whatever was opened
  // without close-on-exec (a library's descriptor, say): a child that
  // outlives the region must not hold its ports or files.
  posix_spawn_file_actions_addclosefrom_np(&s.actions, 3);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &defaults);
  posix_spawnattr_setpgroup(&s.attr, 0);
  posix_spawnattr_setflags(&s.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = 0;
  int err = posix_spawn(&pid, argv[0], &s.actions, &s.attr, argv.data(), envp.data());
  if (log_fd >= 0) close(log_fd);
  if (err != 0) {
    return Unavailable("spawn " + spec.argv[0] + ": " + strerror(err));
  }
  return pid;
}

std::optional<ExitInfo> TryReap(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return std::nullopt;
  if (r < 0) {
    ExitInfo gone;
    gone.signaled = true;
    gone.signal = 0;
    return gone;
  }
  return FromWaitStatus(status);
}

bool SignalGroup(pid_t pgid, int sig) {
  if (pgid <= 1) return false;  // Never kill(-1) or kill(0): every process or our own group.
  return kill(-pgid, sig) == 0;
}

std::vector<ExitInfo> StopProcesses(const std::vector<pid_t>& pids, Milliseconds grace) {
  std::vector<std::optional<ExitInfo>> done(pids.size());
  for (size_t i = 0; i < pids.size(); ++i) {
    done[i] = TryReap(pids[i]);
    if (!done[i]) SignalGroup(pids[i], SIGTERM);
  }
  auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < pids.size(); ++i) {
      if (!done[i]) done[i] = TryReap(pids[i]);
      all = all && done[i].has_value();
    }
    if (all || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(Milliseconds(20));
  }
  std::vector<ExitInfo> out;
  for (size_t i = 0; i < pids.size(); ++i) {
    if (!done[i]) {
      SignalGroup(pids[i], SIGKILL);
      int status = 0;
      pid_t r;
      do {
        r = waitpid(pids[i], &status, 0);
      } while (r < 0 && errno == EINTR);
      if (r == pids[i]) {
        done[i] = FromWaitStatus(status);
      } else {
        done[i] = ExitInfo{true, 0, 0};
      }
    }
    // A leader that exited may leave members of its group behind.
    SignalGroup(pids[i], SIGKILL);
    out.push_back(*done[i]);
  }
  return out;
}

StatusOr<std::string> SelfExecutable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n < 0) return ErrnoStatus(errno, "readlink", "/proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace carlos::dev
