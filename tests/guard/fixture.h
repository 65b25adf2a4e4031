// Shared pieces of the guard's tests: a temporary box (data dir, box key)
// and deployment (a directory store, an enrollment key), signed documents,
// a fake IMDS on a loopback socket, and running the real `carlos` binary.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "identity/keys.h"
#include "net/http_server.h"
#include "store/dir_store.h"

namespace carlos::guard_test {

// A directory under /tmp removed (recursively) when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Reads a whole file; "" when absent.
std::string ReadFile(const std::string& path);
bool Exists(const std::string& path);
// The file's modification time in nanoseconds; -1 when absent.
long long MtimeNs(const std::string& path);

// A box and its deployment on the local disk.
struct World {
  World();
  TempDir root;
  std::string data_dir;   // <root>/data, with box.key.
  std::string store_dir;  // <root>/store.
  std::unique_ptr<DirStore> store;
  identity::PrivateKey enrollment_key;  // Fixed seed.
  identity::PrivateKey box_key;         // Written to data_dir/box.key.
  std::string box = "web-1";
  std::string region = "eu-west-1";
  std::string instance_id = "i-0123456789abcdef0";
  SystemTime now;

  // Puts the box's identity record (attested when `attested`, with
  // `instance_id`) signed by `key` (the box key by default); returns its
  // digest.
  std::string PutRecord(bool attested, std::optional<identity::PrivateKey> key = std::nullopt,
                        std::optional<std::string> region_override = std::nullopt,
                        std::optional<std::string> instance_override = std::nullopt);
  // Puts an invitation (unconditional put) signed by `signer` (the
  // enrollment key by default); returns its digest.
  std::string PutInvitation(const std::string& record_digest, SystemTime issued,
                            std::optional<std::string> floor = std::nullopt,
                            std::optional<identity::PrivateKey> signer = std::nullopt,
                            std::optional<std::string> region_override = std::nullopt);
  std::string PutEnrollment(const std::string& record_digest, const std::string& invitation_digest,
                            const std::string& guard_digest);
  std::string PutRetirement(const std::string& record_digest);
  void Remove(const std::string& key);

  // The environment a `carlos system ...` process of this world gets.
  std::map<std::string, std::string> Env() const;
  std::string GuardPath() const;
  std::string ArmedPath() const;
};

// A fake IMDSv2 on 127.0.0.1: the token PUT, instance-id,
// placement/region and the instance's tags.
class FakeImds {
 public:
  FakeImds(std::string instance_id, std::string region,
           std::map<std::string, std::string> tags = {});
  ~FakeImds();
  std::string endpoint() const;

 private:
  std::unique_ptr<net::HttpServer> server_;
};

// `carlos dev imds` (the project's IMDS emulator) as a real process on a
// free loopback port, for one box in `region` whose carlos:group tag is
// `group`; stopped (SIGTERM) when destroyed.
class ImdsEmulator {
 public:
  ImdsEmulator(const std::string& region, const std::string& group);
  ~ImdsEmulator();
  // Empty when the emulator did not start (the test then fails).
  const std::string& endpoint() const { return endpoint_; }
  const std::string& instance_id() const { return instance_id_; }

 private:
  TempDir dir_;
  int pid_ = -1;
  std::string endpoint_, instance_id_;
};

struct ProcessResult {
  int exit_code = -1;  // -signal when killed by a signal.
  std::string out;
  std::string err;
};

// Runs `argv` with exactly `env` (plus PATH), waiting for it to end.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env);

// The built `carlos` binary ($CARLOS_BIN).
std::string CarlosBin();
// The source tree ($CARLOS_SOURCE_DIR).
std::string SourceDir();

// The lines of `text`, empty ones dropped.
std::vector<std::string> Lines(const std::string& text);

}  // namespace carlos::guard_test
