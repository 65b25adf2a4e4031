// A real `carlos agent` process for the integration test: spawned from
// $CARLOS_BIN with a given environment, its log captured to a file, its
// health check asked over a real socket.
#pragma once

#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace carlos::testing {

// A free loopback port (bound then released: the agent binds it next).
inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

struct Health {
  long code = 0;  // 0: no answer.
  std::string body;
};

inline size_t AppendBody(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

inline Health AskHealth(int port) {
  Health h;
  CURL* c = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/_carlos/lb";
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &h.body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &h.code);
  curl_easy_cleanup(c);
  return h;
}

class AgentProcess {
 public:
  // Starts `carlos agent -http 127.0.0.1:<port>` with `env` added to this
  // process's environment; stderr goes to `log_path` (appended).
  AgentProcess(const std::map<std::string, std::string>& env, int port, const std::string& log_path)
      : log_path_(log_path) {
    const char* bin = std::getenv("CARLOS_BIN");
    EXPECT_NE(bin, nullptr) << "CARLOS_BIN is not set";
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      if (!env.count(kv.substr(0, kv.find('=')))) envs.push_back(kv);
    }
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : envs) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string addr = "127.0.0.1:" + std::to_string(port);
    std::vector<std::string> args = {bin ? bin : "carlos", "agent", "-http", addr};
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    EXPECT_GT(pid_, 0) << "could not start " << argv[0];
    posix_spawn_file_actions_destroy(&fa);
  }

  ~AgentProcess() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Signals the agent; nothing when it was never started (never kill(-1)).
  void Signal(int sig) {
    if (pid_ > 0 && !exited_) kill(pid_, sig);
  }

  // Waits up to `timeout` for the process to exit; its exit code, or -1
  // when it is still running (or died of a signal: -100 - signal).
  int WaitExit(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return -2;
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return -100 - WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  bool running() {
    if (exited_) return false;
    return WaitExit(std::chrono::milliseconds(0)) == -1;
  }

  std::string log() const { return ReadAll(log_path_); }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

// Polls `pred` every 20 ms for up to `timeout`; true once it holds.
template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(15000)) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

}  // namespace carlos::testing
