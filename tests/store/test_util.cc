#include "test_util.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/env.h"
#include "base/files.h"
#include "base/strings.h"
#include "store/dir_store.h"

namespace carlos::testing {

TempDir::TempDir() {
  std::string base = EnvOr(ProcessGetenv(), "TMPDIR", "/tmp");
  std::string tmpl = base + "/carlos-store-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) std::abort();
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string S3EnvFile() {
  return EnvOr(ProcessGetenv(), "CARLOS_S3_ENV_FILE", CARLOS_S3_ENV_FILE_DEFAULT);
}

std::map<std::string, std::string> S3ServerEnv(std::string* error) {
  std::map<std::string, std::string> out;
  std::string file = S3EnvFile();
  std::ifstream in(file);
  if (!in) {
    *error = fmt::format(
        "no S3 test server: cannot read {} (run the S3 tests through ctest, whose carlos_s3 "
        "fixture starts the server, or set CARLOS_S3_ENV_FILE)",
        file);
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[TrimSpace(line.substr(0, eq))] = TrimSpace(line.substr(eq + 1));
  }
  if (out["CARLOS_S3_ENDPOINT"].empty()) *error = file + " has no CARLOS_S3_ENDPOINT";
  return out;
}

std::string UniqueBucket() {
  static std::atomic<int> counter{0};
  return fmt::format("t-{}-{}-{}", ::getpid(), counter++, std::rand() % 100000);
}

S3StoreOptions TestS3Options(const std::map<std::string, std::string>& server,
                             const std::string& bucket) {
  S3StoreOptions o;
  o.bucket = bucket;
  o.endpoint = server.at("CARLOS_S3_ENDPOINT");
  o.region = server.count("AWS_REGION") ? server.at("AWS_REGION") : "us-east-1";
  o.credentials = EnvCredentials(MapGetenv(server));
  o.deadline = Milliseconds(8000);
  o.connect_timeout = Milliseconds(1000);
  o.request_timeout = Milliseconds(5000);
  o.backoff_initial = Milliseconds(5);
  o.backoff_max = Milliseconds(100);
  return o;
}

StatusOr<std::unique_ptr<Store>> Reopen(const std::map<std::string, std::string>& env) {
  return OpenStore(MapGetenv(env));
}

namespace {

// The one AWS-like server of this process; stopped by the destructor of a
// static at exit (closing its standard input ends it), or by its own end
// when this process dies first.
class AwsLikeServer {
 public:
  static AwsLikeServer& Get() {
    static AwsLikeServer server;
    return server;
  }
  ~AwsLikeServer() {
    if (pid_ <= 0) return;
    ::close(stdin_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  const std::string& error() const { return error_; }
  int port() const { return port_; }

 private:
  AwsLikeServer() {
    std::string script = EnvOr(ProcessGetenv(), "CARLOS_SOURCE_DIR", CARLOS_SOURCE_DIR_DEFAULT) +
                         "/tests/harness/aws-s3-server";
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
      error_ = "pipe failed";
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::execl("/usr/bin/python3", "python3", script.c_str(), "--port", "0",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    std::string line;
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
    ::close(out[0]);
    if (!line.starts_with("port ")) {
      error_ = fmt::format("{} did not start (python3 from scripts/deps.sh?): {:?}", script, line);
      return;
    }
    port_ = std::atoi(line.c_str() + 5);
  }
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  std::string error_;
};

}  // namespace

std::map<std::string, std::string> AwsLikeServerEnv(std::string* error) {
  AwsLikeServer& s = AwsLikeServer::Get();
  if (!s.error().empty()) {
    *error = s.error();
    return {};
  }
  return {{"CARLOS_S3_ENDPOINT", fmt::format("http://127.0.0.1:{}", s.port())},
          {"AWS_ACCESS_KEY_ID", "TESTKEY"},
          {"AWS_SECRET_ACCESS_KEY", "TESTSECRET"},
          {"AWS_REGION", "us-east-1"}};
}

Status ScriptAwsLike(const std::string& bucket, const std::string& script) {
  std::string error;
  auto env = AwsLikeServerEnv(&error);
  if (!error.empty()) return Unavailable(error);
  CURL* h = curl_easy_init();
  std::string url = env["CARLOS_S3_ENDPOINT"] + "/_carlos/script/" + bucket;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, script.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(script.size()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
  long code = 0;
  CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(h);
  if (rc != CURLE_OK || code != 200) {
    return Unavailable(fmt::format("scripting {} on the AWS-like server: HTTP {}", script, code));
  }
  return OkStatus();
}

StatusOr<Backend> MakeBackend(const std::string& kind, const std::string& dir) {
  Backend b;
  if (kind == "dir") {
    std::string root = dir + "/store";
    CARLOS_RETURN_IF_ERROR(MakeDirs(root, 0755));
    b.env["CARLOS_DEPLOYMENT_DIR"] = root;
  } else {
    std::string error;
    auto server = kind == "awslike" ? AwsLikeServerEnv(&error) : S3ServerEnv(&error);
    if (!error.empty()) return Unavailable(error);
    b.env = server;
    b.env["CARLOS_DEPLOYMENT_BUCKET"] = UniqueBucket();
    CARLOS_ASSIGN_OR_RETURN(
        auto s3, S3Store::Open(TestS3Options(server, b.env["CARLOS_DEPLOYMENT_BUCKET"])));
    CARLOS_RETURN_IF_ERROR(s3->CreateBucket());
    b.store = std::move(s3);
    return b;
  }
  CARLOS_ASSIGN_OR_RETURN(b.store, Reopen(b.env));
  return b;
}

namespace {

size_t Append(char* p, size_t s, size_t n, void* ud) {
  static_cast<std::string*>(ud)->append(p, s * n);
  return s * n;
}

size_t Header(char* p, size_t s, size_t n, void* ud) {
  std::string_view line(p, s * n);
  if (line.size() > 5 && (line.starts_with("ETag:") || line.starts_with("etag:"))) {
    *static_cast<std::string*>(ud) = TrimSpace(line.substr(5));
  }
  return s * n;
}

}  // namespace

RawAnswer RawS3(const std::map<std::string, std::string>& server, const std::string& method,
                const std::string& path, const std::vector<std::string>& headers,
                const std::string& body) {
  RawAnswer a;
  CURL* h = curl_easy_init();
  std::string url = server.at("CARLOS_S3_ENDPOINT") + path;
  struct curl_slist* hs = nullptr;
  std::string sha = "x-amz-content-sha256: " + Sha256Hex(body);
  hs = curl_slist_append(hs, sha.c_str());
  for (const auto& x : headers) hs = curl_slist_append(hs, x.c_str());
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_AWS_SIGV4, "aws:amz:us-east-1:s3");
  curl_easy_setopt(h, CURLOPT_USERNAME, server.at("AWS_ACCESS_KEY_ID").c_str());
  curl_easy_setopt(h, CURLOPT_PASSWORD, server.at("AWS_SECRET_ACCESS_KEY").c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &a.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, Header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &a.etag);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 10000L);
  if (method == "PUT") {
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a.http);
  curl_slist_free_all(hs);
  curl_easy_cleanup(h);
  return a;
}

std::string CarlosBin() { return EnvOr(ProcessGetenv(), "CARLOS_BIN", CARLOS_BIN_DEFAULT); }

ChildResult RunCarlos(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, const std::string& input) {
  ChildResult r;
  ::signal(SIGPIPE, SIG_IGN);  // A child that exits early must not kill the test.
  int in[2], out[2], err[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) return r;
  std::string bin = CarlosBin();
  std::vector<std::string> argv_s = {bin};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s;
  for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    ::execve(bin.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  // Feed stdin and drain stdout and stderr together, so no pipe fills up.
  size_t written = 0;
  if (input.empty()) {
    ::close(in[1]);
    in[1] = -1;
  }
  bool out_open = true, err_open = true;
  while (out_open || err_open || in[1] >= 0) {
    struct pollfd fds[3] = {{out_open ? out[0] : -1, POLLIN, 0},
                            {err_open ? err[0] : -1, POLLIN, 0},
                            {in[1], POLLOUT, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    char buf[65536];
    if (fds[0].revents) {
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0)
        out_open = false;
      else
        r.out.append(buf, static_cast<size_t>(n));
    }
    if (fds[1].revents) {
      ssize_t n = ::read(err[0], buf, sizeof buf);
      if (n <= 0)
        err_open = false;
      else
        r.err.append(buf, static_cast<size_t>(n));
    }
    if (in[1] >= 0 && fds[2].revents) {
      ssize_t n = ::write(in[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == input.size()) {
        ::close(in[1]);
        in[1] = -1;
      }
    }
  }
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace carlos::testing
