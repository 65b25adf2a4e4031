// Ed25519 keys (RFC 8032) through OpenSSL 3's EVP interface: the box's own
// key, which signs its identity record, edges file and status reports, and
// the deployment's enrollment key, which signs invitations, enrollments and
// retirements (DESIGN.md, "Identity" and "Enrollment").
//
// Text forms (docs/protocol.md, "Keys"):
//   public key   "ed25519:<base64 of the raw 32-byte key>", e.g.
//                "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
//                this is what CARLOS_ENROLLMENT_PUBKEY holds and what
//                documents embed;
//   private key  a PKCS #8 PEM file ("-----BEGIN PRIVATE KEY-----"), as
//                `openssl genpkey -algorithm ed25519` writes it, mode 0600.
//
// Private key material never appears in a Status message or a log line.
//
// Thread-safety: PublicKey and PrivateKey are immutable values once built;
// one object may be used from many threads at once (each Sign/Verify uses
// its own OpenSSL context). The file functions are safe across threads and
// processes: creation is create-only (link(2)), so two racing creators end
// with one key, which both load.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::identity {

// Sizes from RFC 8032 §5.1.5/5.1.6.
inline constexpr size_t kEd25519KeyBytes = 32;
inline constexpr size_t kEd25519SignatureBytes = 64;

// The prefix of a public key's text form.
inline constexpr std::string_view kPublicKeyPrefix = "ed25519:";

// The box key's file name under the data dir (DESIGN.md, "Identity").
inline constexpr std::string_view kBoxKeyFileName = "box.key";

// The largest private key file read (a PKCS #8 Ed25519 PEM is 119 bytes).
inline constexpr size_t kMaxPrivateKeyFileBytes = 4096;

class PublicKey {
 public:
  // The empty key (32 zero bytes), so that structs holding a PublicKey can be
  // default-constructed. It is never a valid signer: Verify refuses every
  // signature under it, and documents holding it are refused when signed.
  PublicKey() = default;

  // True for the empty key.
  bool empty() const;

  // From the raw 32 bytes. Errors: kInvalidArgument when `raw` is not 32
  // bytes or OpenSSL refuses it.
  static StatusOr<PublicKey> FromRaw(std::string_view raw);

  // From the text form "ed25519:<base64>"; surrounding ASCII white space is
  // ignored (an environment variable or a pasted line). Errors:
  // kInvalidArgument when the prefix is missing, the base64 is not canonical
  // or does not hold 32 bytes.
  static StatusOr<PublicKey> Parse(std::string_view text);

  // The text form "ed25519:<base64>" (44 base64 characters).
  std::string ToString() const;

  // The raw 32 bytes.
  std::string raw() const { return std::string(raw_.begin(), raw_.end()); }

  // OK when `signature` (raw 64 bytes) is this key's Ed25519 signature of
  // `message`. Errors: kCorrupt "bad signature" (any mismatch, a signature
  // of the wrong length included); kInternal when OpenSSL fails to run.
  Status Verify(std::string_view message, std::string_view signature) const;

  friend bool operator==(const PublicKey& a, const PublicKey& b) { return a.raw_ == b.raw_; }

 private:
  std::array<uint8_t, kEd25519KeyBytes> raw_{};
};

class PrivateKey {
 public:
  // A new random key (OpenSSL's CSPRNG). Errors: kInternal when OpenSSL fails.
  static StatusOr<PrivateKey> Generate();

  // From a PKCS #8 PEM text holding an Ed25519 key. Errors: kCorrupt when it
  // is not PEM, truncated, or a key of another type (the message never
  // repeats the text).
  static StatusOr<PrivateKey> FromPem(std::string_view pem);

  // From the raw 32-byte seed (RFC 8032's private key): tests use it for
  // fixed keys. Errors: kInvalidArgument when `seed` is not 32 bytes.
  static StatusOr<PrivateKey> FromSeed(std::string_view seed);

  // The PKCS #8 PEM text. Errors: kInternal when OpenSSL fails.
  StatusOr<std::string> ToPem() const;

  // The matching public key.
  const PublicKey& public_key() const { return public_; }

  // The raw 64-byte Ed25519 signature of `message`. Errors: kInternal when
  // OpenSSL fails (it does not for a valid key).
  StatusOr<std::string> Sign(std::string_view message) const;

 private:
  struct Handle;
  // Takes ownership of an OpenSSL EVP_PKEY* (passed as void* to keep OpenSSL
  // out of this header); refuses a key that is not Ed25519 (kCorrupt).
  static StatusOr<PrivateKey> Adopt(void* evp_pkey);
  PrivateKey(std::shared_ptr<Handle> handle, PublicKey pub)
      : handle_(std::move(handle)), public_(std::move(pub)) {}
  std::shared_ptr<Handle> handle_;  // The EVP_PKEY; freed with the last copy.
  PublicKey public_;
};

// Loads the private key at `path` (the enrollment key, CARLOS_ENROLLMENT_KEY,
// or the box key). The file must be a regular file (a symbolic link is
// refused) that neither group nor others may read or write (mode & 077 == 0).
// Errors: kNotFound when it does not exist; kDenied when its mode lets group
// or others in (the message gives the mode and says to chmod 600) or it
// cannot be read; kCorrupt when it is empty, truncated, larger than
// kMaxPrivateKeyFileBytes or not an Ed25519 PKCS #8 PEM.
StatusOr<PrivateKey> LoadPrivateKeyFile(const std::string& path);

// Writes `key` as a new PKCS #8 PEM file at `path`, mode 0600, atomically and
// never over an existing file (base/files.h CreateFileExclusive). Errors:
// kPreconditionFailed when `path` exists (it is left untouched); others as
// base/files.h ErrnoStatus.
Status WriteNewPrivateKeyFile(const std::string& path, const PrivateKey& key);

// The box's key, <data_dir>/box.key (DESIGN.md, "Identity"): loads it when
// the file exists, otherwise generates a key and creates the file with mode
// 0600 (create-only, so a racing second process loads the winner's key). A
// file that exists but is refused by LoadPrivateKeyFile (group/world-readable,
// truncated, not a key) is an error and is NEVER replaced: a box whose key
// changed would be a different box, and its record a conflict. `data_dir`
// must exist. Errors: as LoadPrivateKeyFile and WriteNewPrivateKeyFile
// (kNotFound when `data_dir` does not exist).
StatusOr<PrivateKey> LoadOrCreateBoxKey(const std::string& data_dir);

// "<data_dir>/box.key".
std::string BoxKeyPath(const std::string& data_dir);

}  // namespace carlos::identity
