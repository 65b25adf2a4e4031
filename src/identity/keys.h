// Ed25519 keys (RFC 8032): the box's own
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
// Keys are made, stored and used to sign through OpenSSL 3's EVP interface.
// Public keys are checked, and signatures verified, with libsodium, because
// RFC 8032's verification rule leaves room for keys and signatures with no
// private key behind them, and libsodium refuses them ("Taming the many
// EdDSAs", Chalkias et al. 2020; libsodium's crypto_sign_verify_detached):
//   - a public key must be the canonical encoding of a point of the curve's
//     prime-order subgroup: never one of the eight small-order points (the
//     identity point among them, which "verifies" a signature of anything),
//     never a y at or above p, never x = 0 with the sign bit set, never a
//     point with a small-order component (crypto_core_ed25519_is_valid_point);
//   - a signature's S must be below the group order L (RFC 8032 §5.1.7 step
//     1, so a signature cannot be altered into another valid one) and its R
//     must not be a small-order point.
// docs/identity.md, "Which keys and signatures are refused", has the list.
//
// Private key material never appears in a Status message or a log line.
//
// Thread-safety: PublicKey and PrivateKey are immutable values once built;
// one object may be used from many threads at once (each Sign uses its own
// OpenSSL context; libsodium's checks keep no state, and its one-time
// sodium_init runs under a function-local static). PublicKeyDefect and the
// *Name functions are plain functions, safe from any thread. The file functions are safe across
// threads and processes: creation is create-only (link(2)), so two racing creators end with one
// key, which both load.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
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

// Why 32 bytes are not a public key the protocol trusts (see above).
enum class KeyDefect {
  kNotCanonical,        // y >= p, or x = 0 encoded with the sign bit set.
  kSmallOrder,          // One of the eight points of order 1, 2, 4 or 8.
  kNotPrimeOrderPoint,  // Off the curve, or a point with a small-order component.
};

// The defect's name as messages give it: "not a canonical encoding",
// "a small-order point", "not a point of the prime-order subgroup".
std::string_view KeyDefectName(KeyDefect defect);

// The defect of `raw` as an Ed25519 public key, nullopt when it is a valid
// one. `raw` must be kEd25519KeyBytes long (any other length is
// kNotCanonical). The decision is libsodium's
// (crypto_core_ed25519_is_valid_point); this only names the reason.
std::optional<KeyDefect> PublicKeyDefect(std::string_view raw);

// Why a signature does not verify.
enum class SignatureDefect {
  kWrongLength,    // Not kEd25519SignatureBytes.
  kSNotCanonical,  // S (the last 32 bytes) is not below the group order L.
  kRSmallOrder,    // R (the first 32 bytes) is a small-order point.
  kKeyNotValid,    // The key is the empty key (the only invalid PublicKey).
  kDoesNotVerify,  // Well-formed, but not this key's signature of the message.
};

// "not 64 bytes", "S is not below the group order L", "R is a small-order
// point", "the key is not a valid key", "it does not verify".
std::string_view SignatureDefectName(SignatureDefect defect);

class PublicKey {
 public:
  // The empty key (32 zero bytes), so that structs holding a PublicKey can be
  // default-constructed. It is never a valid signer: Verify refuses every
  // signature under it, and documents holding it are refused when signed.
  PublicKey() = default;

  // True for the empty key.
  bool empty() const;

  // From the raw 32 bytes. Errors: kInvalidArgument when `raw` is not 32
  // bytes, or has a KeyDefect (the message names it: "the public key is a
  // small-order point").
  static StatusOr<PublicKey> FromRaw(std::string_view raw);

  // From the text form "ed25519:<base64>"; surrounding ASCII white space is
  // ignored (an environment variable or a pasted line). Every public key the
  // protocol reads comes through here: records, reports, edges files,
  // CARLOS_ENROLLMENT_PUBKEY. Errors: kInvalidArgument when the prefix is
  // missing, the base64 is not canonical or does not hold 32 bytes, or the
  // key has a KeyDefect (as FromRaw).
  static StatusOr<PublicKey> Parse(std::string_view text);

  // The text form "ed25519:<base64>" (44 base64 characters).
  std::string ToString() const;

  // The raw 32 bytes.
  std::string raw() const { return std::string(raw_.begin(), raw_.end()); }

  // nullopt when `signature` (raw 64 bytes) is this key's Ed25519 signature
  // of `message` by libsodium's crypto_sign_verify_detached (S < L, R not of
  // small order, the key valid); otherwise the first defect found, in the
  // enum's order.
  std::optional<SignatureDefect> CheckSignature(std::string_view message,
                                                std::string_view signature) const;

  // CheckSignature as a Status. Errors: kCorrupt "bad signature: <defect
  // name> ..." for any defect.
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
