// Shared pieces of the store's tests: temporary directories, the S3 test
// server's settings (tests/harness/README.md), the two backends made the
// same way, raw signed S3 requests, and child processes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/s3_store.h"
#include "store/store.h"

namespace carlos::testing {

// A fresh directory under $TMPDIR (default /tmp), removed with its contents
// when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The S3 test server's env file: $CARLOS_S3_ENV_FILE, by default the one
// the carlos_s3 fixture writes under the build directory.
std::string S3EnvFile();

// The S3 test server's settings read from S3EnvFile() (KEY=VALUE lines).
// When the file cannot be read (the test binary was run outside ctest and
// no server is up), `*error` says why.
std::map<std::string, std::string> S3ServerEnv(std::string* error);

// The AWS-like S3 server (tests/harness/aws-s3-server): started once per
// test process on a free 127.0.0.1 port, on first use, and stopped when the
// process exits (it also stops by itself when its standard input closes).
// Its settings, as S3ServerEnv's; `*error` says why when it cannot start.
std::map<std::string, std::string> AwsLikeServerEnv(std::string* error);

// Scripts a fault on the AWS-like server for `bucket` (the script names are
// in tests/harness/aws-s3-server; "normal" undoes it). Errors: kUnavailable
// when the server does not take it.
Status ScriptAwsLike(const std::string& bucket, const std::string& script);

// A bucket name no other test process uses on this server run.
std::string UniqueBucket();

// Options for an S3 store on the test server (short deadline and backoff, so
// fault tests take well under a second each).
S3StoreOptions TestS3Options(const std::map<std::string, std::string>& server,
                             const std::string& bucket);

// A backend under test: the store, and the environment that makes
// `carlos store` (or OpenStore) open the same store in another process.
struct Backend {
  std::unique_ptr<Store> store;
  std::map<std::string, std::string> env;
};

// Makes a fresh, empty store of `kind` ("dir": a directory under `dir`;
// "s3": a new bucket on the test server (Ceph RGW); "awslike": a new bucket
// on the AWS-like server). Errors: the server's or the file system's.
StatusOr<Backend> MakeBackend(const std::string& kind, const std::string& dir);

// Opens the backend `env` names again, as another process would.
StatusOr<std::unique_ptr<Store>> Reopen(const std::map<std::string, std::string>& env);

// One signed S3 request sent with libcurl as-is (no retries, no quote
// stripping): for tests that document what the server itself answers.
struct RawAnswer {
  long http = 0;
  std::string body;
  std::string etag;
};
RawAnswer RawS3(const std::map<std::string, std::string>& server, const std::string& method,
                const std::string& path, const std::vector<std::string>& headers,
                const std::string& body);

// The result of a child process.
struct ChildResult {
  int exit_code = -1;  // -1 when killed by a signal.
  std::string out;
  std::string err;
};

// Runs $CARLOS_BIN with `args` and `env` (only those variables), feeding
// `input` on stdin, and waits for it.
ChildResult RunCarlos(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, const std::string& input);

// The built carlos binary: $CARLOS_BIN, by default the build's.
std::string CarlosBin();

// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
int UnusedPort();

}  // namespace carlos::testing
