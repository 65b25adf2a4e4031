// The deployment store (DESIGN.md, "The deployment store"): the
// deployment's only durable state, one interface over two backends — a
// directory (CARLOS_DEPLOYMENT_DIR, the embedded default) and an S3 bucket
// (CARLOS_DEPLOYMENT_BUCKET). Keys are '/'-separated paths such as
// "control/boxes/web-1.json".
//
// Create-only and compare-and-swap puts are what make the protocol safe with
// many writers (agents, root, several enrollers): a writer that loses a race
// gets kPreconditionFailed and nothing of the winner's document is lost.
//
// Errors every method may return (Status codes, see base/status.h):
//   kInvalidArgument  the key is not valid (ValidateKey says why);
//   kNotFound         the key does not exist (Get only: Delete of a missing
//                     key is OK, and Put with kIfMatch on a missing key is
//                     kPreconditionFailed — the condition did not hold — on
//                     both backends, whatever the S3 server answers: AWS
//                     answers 404 NoSuchKey, Ceph RGW 412; s3_store.h);
//   kPreconditionFailed  a Put's condition did not hold;
//   kUnavailable      transient (network, 5xx, SlowDown, disk full): the
//                     backend already retried with backoff within its
//                     deadline before returning this;
//   kDenied           credentials or permissions refused it;
//   kCorrupt          the backend answered something unreadable, or a
//                     listing that cannot be right (ListAll);
//   kUnknownOutcome   a conditional write's answer was lost and reading the
//                     key back could not tell whether it landed.
//
// Thread-safety: every Store implementation is safe for concurrent use from
// many threads, and the directory backend's conditions hold across
// processes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"

namespace carlos {

// The most bytes one stored object may have. DESIGN.md caps protocol
// documents at 64 KiB; the store allows more so that it can refuse those
// with the documents' own error, but bounds what a reader will pull.
inline constexpr size_t kMaxObjectBytes = 1 << 20;

// A key's most bytes (S3's own limit is 1024).
inline constexpr size_t kMaxKeyBytes = 1024;

// Returns OK when `key` is a valid store key: 1 to 1024 bytes of printable
// ASCII (0x21-0x7e, so no spaces or control bytes), '/'-separated segments,
// none empty, none "." or "..", no leading or trailing '/'. Otherwise
// kInvalidArgument naming the rule broken.
Status ValidateKey(std::string_view key);

// Returns OK when `prefix` is a valid list prefix: "" (everything) or a
// string that ValidateKey would accept once completed — printable ASCII, no
// empty segment, no "." or ".." segment, no leading '/'; a trailing '/' is
// allowed.
Status ValidatePrefix(std::string_view prefix);

// An object as read: its bytes and its version tag. The tag is opaque to
// callers: it changes whenever the object's bytes change and is what
// PutCondition::kIfMatch compares. (S3: the ETag without quotes. Directory:
// a SHA-256 of the bytes, hex.)
struct Object {
  std::string data;
  std::string version;
  // How long before this read the object was last written, by the store's
  // own clock, so that a reader can judge a document's age without trusting
  // the writer's clock (docs/protocol.md, "Clocks"): S3, the answer's `Date`
  // minus its `Last-Modified` (both the server's, whole seconds; RFC 9110
  // §6.6.1, §8.8.2); directory, the reader's clock minus the file's mtime
  // (the same machine's clock when the directory is local). Never negative;
  // nullopt when the backend did not say.
  std::optional<Milliseconds> age = std::nullopt;
};

enum class PutCondition {
  kNone,        // Write unconditionally (last writer wins).
  kCreateOnly,  // Write only when the key does not exist (S3 If-None-Match: *).
  kIfMatch,     // Write only when the key's version tag equals `if_match` (S3 If-Match).
};

struct PutOptions {
  PutCondition condition = PutCondition::kNone;
  std::string if_match;  // The version tag, for kIfMatch only.
};

// What a conditional read (Store::GetIfNoneMatch) found.
struct Revalidated {
  // True when the key's version tag still equals the one the caller holds:
  // the object is unchanged, and no bytes were transferred (S3: 304 Not
  // Modified). `object` is then empty.
  bool not_modified = false;
  // The object as it is now, when it changed.
  Object object;
};

// One page of a listing: keys in ascending byte order, and the token for the
// next page ("" when this is the last page).
struct ListPage {
  std::vector<std::string> keys;
  std::string next_token;
  // Each key's version tag, in the order of `keys` — the tag Get would
  // return for it at listing time — when the listing carries them (always
  // from ListVersions; S3's List fills them too, since ListObjectsV2 gives
  // each key's ETag), else empty.
  std::vector<std::string> versions = {};
};

class Store {
 public:
  virtual ~Store() = default;

  // Reads `key`. Errors: kNotFound when absent; kCorrupt when it is larger
  // than kMaxObjectBytes; others as above.
  virtual StatusOr<Object> Get(std::string_view key) = 0;

  // Writes `data` at `key` under `options`; returns the new version tag.
  // Errors: kPreconditionFailed when the condition does not hold (an
  // existing key for kCreateOnly; a missing key or another version for
  // kIfMatch); kInvalidArgument for data larger than kMaxObjectBytes;
  // kUnknownOutcome as above; others as above. A failed Put leaves the key
  // exactly as it was.
  virtual StatusOr<std::string> Put(std::string_view key, std::string_view data,
                                    const PutOptions& options) = 0;

  // Lists up to `max_keys` (1..1000) keys that start with `prefix`, in
  // ascending order, after the page named by `token` ("" for the first
  // page). Errors: kInvalidArgument for a bad prefix or max_keys; others as
  // above.
  virtual StatusOr<ListPage> List(std::string_view prefix, std::string_view token,
                                  int max_keys) = 0;

  // List with each key's version tag in `versions` (a change to a key's
  // bytes changes its tag, so a reader that kept what it read can tell
  // which keys changed from a listing alone: docs/store.md, "Listing with
  // version tags"). S3: ListObjectsV2's ETag per key (Amazon S3 API
  // Reference, ListObjectsV2, "Contents", "ETag"), no more requests than
  // List. Directory: the SHA-256 its Get returns, computed once per file
  // version (dir_store.h). This default, for a store without a cheaper way,
  // is List and then a Get per key (a key deleted meanwhile is left out).
  // Errors: as List and Get.
  virtual StatusOr<ListPage> ListVersions(std::string_view prefix, std::string_view token,
                                          int max_keys);

  // Deletes `key`. OK when it did not exist (as S3's DELETE is); errors as
  // above.
  virtual Status Delete(std::string_view key) = 0;

  // Reads `key` unless its version tag still equals `version` (what the
  // caller read last): then answers not_modified, without the bytes. An
  // empty `version` is a plain Get. Errors as Get's (kNotFound when the key
  // no longer exists). S3 sends `If-None-Match: "<etag>"` and a 304 Not
  // Modified is the not_modified answer (Amazon S3 API Reference,
  // GetObject, "If-None-Match": "Return the object only if its entity tag
  // (ETag) is different from the one specified in this header; otherwise,
  // return a 304 Not Modified error"); the directory store (this default)
  // reads the file and compares its version tag, which costs it no more
  // than a Get. A decorator must forward it, so that an S3 store below it
  // still answers 304.
  virtual StatusOr<Revalidated> GetIfNoneMatch(std::string_view key, std::string_view version);

  // A short description for log lines: "dir /srv/deploy" or
  // "s3://bucket (endpoint http://127.0.0.1:7480)".
  virtual std::string Describe() const = 0;

  // Get with absence as a value: the object, nullopt when `key` does not
  // exist, or Get's other errors unchanged (kUnavailable, kDenied, kCorrupt
  // ...: the store could not say, which is never read as absent). Every
  // reader of the protocol's documents reads a key through this.
  StatusOr<std::optional<Object>> GetIfExists(std::string_view key);
};

// The most keys ListAll returns: a deployment of 10,000 boxes has under
// 100,000 (DESIGN.md, "The deployment store"); a listing past this is a
// server that does not stop, not a deployment.
inline constexpr size_t kMaxListedKeys = 1'000'000;

// The pages ListAll accepts beyond one per key listed. S3 may answer a page
// with fewer keys than asked, even none, and IsTruncated true (Amazon S3 API
// Reference, ListObjectsV2, "MaxKeys": "the response might contain fewer
// keys but will never contain more"), so a page without keys is not an error
// by itself; this many of them is.
inline constexpr size_t kListPageAllowance = 100;

// Lists every key under `prefix`, following pages of 1,000 keys, in
// ascending order. The listing must make progress, so that a server that
// never says "done" costs bounded time and memory (Amazon S3 API Reference,
// ListObjectsV2: keys come "in ascending order of the respective key
// names", and NextContinuationToken continues the listing): every key must
// start with `prefix` and sort after every key before it (a repeated page
// or one that goes back is refused), no continuation token may come twice,
// a page may hold at most the keys asked for, the pages may number at most
// the keys listed plus kListPageAllowance, and the keys at most
// kMaxListedKeys. Errors: kCorrupt naming the rule broken and the backend;
// others as Store::List.
StatusOr<std::vector<std::string>> ListAll(Store& store, std::string_view prefix);

// A listed key and its version tag.
struct ListedKey {
  std::string key;
  std::string version;
};

// ListAll through ListVersions: every key under `prefix` with its version
// tag, in ascending order, with ListAll's bounds. Errors: as ListAll;
// kCorrupt when a page's tags do not match its keys one for one.
StatusOr<std::vector<ListedKey>> ListAllVersions(Store& store, std::string_view prefix);

// Opens the deployment store the environment names (DESIGN.md, "Switches
// and settings"): CARLOS_DEPLOYMENT_BUCKET (S3; with CARLOS_S3_ENDPOINT,
// AWS_* credentials and AWS_REGION) or else CARLOS_DEPLOYMENT_DIR
// (directory). Errors: kInvalidArgument when neither or both are set, or a
// setting is malformed, with a message that says which variable to set.
StatusOr<std::unique_ptr<Store>> OpenStore(const Getenv& getenv);

// A store call's attempt that failed and will be tried again (or, `ended`,
// the end of a call that was retried): what a command on a terminal shows
// while it waits (docs/operator.md, "Exit statuses": --timeout).
struct RetryNote {
  // The store and the request: "s3://b (endpoint http://...): GET control/boxes/web-1.json".
  std::string what;
  // The attempt that failed, from 1.
  int attempt = 0;
  // Why it failed, without counters ("Couldn't connect to server ...").
  std::string cause;
  // The wait before the next try.
  Milliseconds next_in{0};
  // True once for a call that was retried, when it returns (whatever its
  // result): a progress line can be taken away. The other fields are then
  // those of its last failed attempt.
  bool ended = false;
};
// Called on the thread of the store call; must be thread-safe when the store
// is used from many threads at once.
using RetryObserver = std::function<void(const RetryNote&)>;

struct StoreOpenOptions {
  // The most time one store call spends, retries and backoff included (the
  // S3 backend's deadline, 20 s by default; the directory store's calls do
  // not wait, so it has no use for one). nullopt: the default.
  std::optional<Milliseconds> deadline;
  // Told of each retry (S3); empty: nothing is told.
  RetryObserver on_retry;
};

// OpenStore with `options`. Errors: OpenStore's; kInvalidArgument for a
// deadline that is not positive.
StatusOr<std::unique_ptr<Store>> OpenStore(const Getenv& getenv, const StoreOpenOptions& options);

}  // namespace carlos
