#include "identity/keys.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/files.h"
#include "identity/encoding.h"

namespace carlos::identity {

struct PrivateKey::Handle {
  EVP_PKEY* pkey = nullptr;
  ~Handle() { EVP_PKEY_free(pkey); }
};

namespace {

// The last OpenSSL error as text (never key material), and the queue cleared.
std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

// libsodium's own set-up (sodium_init: CPU features, implementations); safe
// to call from many threads, and once is enough. False when it failed: then
// every key and signature is refused (fail closed).
bool SodiumReady() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// The y coordinates (little-endian, sign bit clear) of the eight points of
// small order: 0 (order 4, two points: x = +-sqrt(-1)), 1 (the identity,
// order 1), p - 1 (order 2), and two of order 8 (two points each). The same
// table as libsodium's ge25519_has_small_order, which makes the decision;
// this one only names it.
constexpr unsigned char kSmallOrderY[5][32] = {
    {0},
    {1},
    {0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
    {0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4,
     0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6,
     0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05},
    {0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b,
     0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39,
     0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a},
};

// The group order L = 2^252 + 27742317777372353535851937790883648493,
// little-endian (RFC 8032 §5.1).
constexpr unsigned char kGroupOrder[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10};

// Whether the 32-byte point encoding's y (sign bit masked) is that of a
// small-order point.
bool SmallOrderY(const unsigned char* p) {
  for (const auto& y : kSmallOrderY) {
    if (std::memcmp(p, y, 31) == 0 && (p[31] & 0x7f) == y[31]) return true;
  }
  return false;
}

// Whether a point encoding is not canonical: y >= p = 2^255 - 19, or x = 0
// (y = 1 or y = p - 1) with the sign bit set (RFC 8032 §5.1.3, steps 1 and 4).
bool NonCanonicalPoint(const unsigned char* p) {
  bool y_at_least_p = (p[31] & 0x7f) == 0x7f && p[0] >= 0xed;
  for (int i = 1; i < 31 && y_at_least_p; ++i) y_at_least_p = p[i] == 0xff;
  if (y_at_least_p) return true;
  if ((p[31] & 0x80) == 0) return false;
  return SmallOrderY(p) &&
         (std::memcmp(p, kSmallOrderY[1], 31) == 0 || std::memcmp(p, kSmallOrderY[2], 31) == 0);
}

// Whether the little-endian 32-byte scalar is below L.
bool BelowGroupOrder(const unsigned char* s) {
  for (int i = 31; i >= 0; --i) {
    if (s[i] != kGroupOrder[i]) return s[i] < kGroupOrder[i];
  }
  return false;  // Equal to L.
}

}  // namespace

std::string_view KeyDefectName(KeyDefect defect) {
  switch (defect) {
    case KeyDefect::kNotCanonical:
      return "not a canonical encoding";
    case KeyDefect::kSmallOrder:
      return "a small-order point";
    case KeyDefect::kNotPrimeOrderPoint:
      return "not a point of the prime-order subgroup";
  }
  return "not a valid key";
}

std::optional<KeyDefect> PublicKeyDefect(std::string_view raw) {
  if (raw.size() != kEd25519KeyBytes) return KeyDefect::kNotCanonical;
  const unsigned char* p = Bytes(raw);
  if (SodiumReady() && crypto_core_ed25519_is_valid_point(p) == 1) return std::nullopt;
  if (NonCanonicalPoint(p)) return KeyDefect::kNotCanonical;
  if (SmallOrderY(p)) return KeyDefect::kSmallOrder;
  return KeyDefect::kNotPrimeOrderPoint;
}

std::string_view SignatureDefectName(SignatureDefect defect) {
  switch (defect) {
    case SignatureDefect::kWrongLength:
      return "not 64 bytes";
    case SignatureDefect::kSNotCanonical:
      return "S is not below the group order L";
    case SignatureDefect::kRSmallOrder:
      return "R is a small-order point";
    case SignatureDefect::kKeyNotValid:
      return "the key is not a valid key";
    case SignatureDefect::kDoesNotVerify:
      return "it does not verify";
  }
  return "it does not verify";
}

StatusOr<PublicKey> PublicKey::FromRaw(std::string_view raw) {
  if (raw.size() != kEd25519KeyBytes) {
    return InvalidArgument(
        fmt::format("an Ed25519 public key is {} bytes, not {}", kEd25519KeyBytes, raw.size()));
  }
  if (std::optional<KeyDefect> defect = PublicKeyDefect(raw)) {
    return InvalidArgument(fmt::format(
        "the public key is {}: no private key is behind it, so it proves nothing; refusing it",
        KeyDefectName(*defect)));
  }
  PublicKey key;
  std::memcpy(key.raw_.data(), raw.data(), kEd25519KeyBytes);
  return key;
}

StatusOr<PublicKey> PublicKey::Parse(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  if (text.substr(0, kPublicKeyPrefix.size()) != kPublicKeyPrefix) {
    return InvalidArgument("a public key must read \"ed25519:<base64>\"");
  }
  StatusOr<std::string> raw = Base64Decode(text.substr(kPublicKeyPrefix.size()));
  if (!raw.ok()) {
    return InvalidArgument("the public key's base64 is not valid: " + raw.status().message());
  }
  if (raw->size() == kEd25519KeyBytes && raw->find_first_not_of('\0') == std::string::npos) {
    return InvalidArgument("the public key is all zero bytes");
  }
  return FromRaw(*raw);
}

std::string PublicKey::ToString() const {
  return std::string(kPublicKeyPrefix) +
         Base64Encode(std::string_view(reinterpret_cast<const char*>(raw_.data()), raw_.size()));
}

bool PublicKey::empty() const {
  for (auto b : raw_) {
    if (b != 0) return false;
  }
  return true;
}

std::optional<SignatureDefect> PublicKey::CheckSignature(std::string_view message,
                                                         std::string_view signature) const {
  if (signature.size() != kEd25519SignatureBytes) return SignatureDefect::kWrongLength;
  const unsigned char* sig = Bytes(signature);
  if (!BelowGroupOrder(sig + 32)) return SignatureDefect::kSNotCanonical;
  if (SmallOrderY(sig)) return SignatureDefect::kRSmallOrder;
  if (empty() || !SodiumReady()) return SignatureDefect::kKeyNotValid;
  // The decision: libsodium checks all of the above again, and the equation.
  if (crypto_sign_verify_detached(sig, Bytes(message), message.size(), raw_.data()) != 0) {
    return SignatureDefect::kDoesNotVerify;
  }
  return std::nullopt;
}

Status PublicKey::Verify(std::string_view message, std::string_view signature) const {
  std::optional<SignatureDefect> defect = CheckSignature(message, signature);
  if (!defect) return OkStatus();
  if (*defect == SignatureDefect::kWrongLength) {
    return Corrupt(fmt::format("bad signature: an Ed25519 signature is {} bytes, not {}",
                               kEd25519SignatureBytes, signature.size()));
  }
  return Corrupt(
      fmt::format("bad signature: {} (under {})", SignatureDefectName(*defect), ToString()));
}

StatusOr<PrivateKey> PrivateKey::Adopt(void* evp_pkey) {
  auto handle = std::make_shared<Handle>();
  handle->pkey = static_cast<EVP_PKEY*>(evp_pkey);
  if (EVP_PKEY_get_base_id(handle->pkey) != EVP_PKEY_ED25519) {
    return Corrupt("the key is not an Ed25519 key");
  }
  unsigned char raw[kEd25519KeyBytes];
  size_t len = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(handle->pkey, raw, &len) != 1 || len != kEd25519KeyBytes) {
    return Internal("reading an Ed25519 public key: " + OpenSslError());
  }
  StatusOr<PublicKey> pub =
      PublicKey::FromRaw(std::string_view(reinterpret_cast<const char*>(raw), kEd25519KeyBytes));
  if (!pub.ok()) return pub.status();
  return PrivateKey(std::move(handle), *pub);
}

StatusOr<PrivateKey> PrivateKey::Generate() {
  EVP_PKEY* pkey = nullptr;
  std::unique_ptr<EVP_PKEY_CTX, void (*)(EVP_PKEY_CTX*)> ctx(
      EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr), EVP_PKEY_CTX_free);
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &pkey) != 1) {
    return Internal("generating an Ed25519 key: " + OpenSslError());
  }
  return Adopt(pkey);
}

StatusOr<PrivateKey> PrivateKey::FromPem(std::string_view pem) {
  if (pem.size() > kMaxPrivateKeyFileBytes) {
    return Corrupt(fmt::format("the private key is larger than {} bytes", kMaxPrivateKeyFileBytes));
  }
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Internal("allocating a BIO: " + OpenSslError());
  // An empty passphrase callback: an encrypted key is refused, never prompted for.
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(
      bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr);
  if (pkey == nullptr) {
    ERR_clear_error();
    return Corrupt("not a PKCS #8 PEM private key (empty, truncated, encrypted or damaged)");
  }
  return Adopt(pkey);
}

StatusOr<PrivateKey> PrivateKey::FromSeed(std::string_view seed) {
  if (seed.size() != kEd25519KeyBytes) {
    return InvalidArgument(fmt::format("an Ed25519 private key seed is {} bytes, not {}",
                                       kEd25519KeyBytes, seed.size()));
  }
  EVP_PKEY* pkey = EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(seed.data()), seed.size());
  if (pkey == nullptr) return Internal("loading an Ed25519 seed: " + OpenSslError());
  return Adopt(pkey);
}

StatusOr<std::string> PrivateKey::ToPem() const {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), handle_->pkey, nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    return Internal("encoding an Ed25519 private key: " + OpenSslError());
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  std::string pem(data, static_cast<size_t>(len));
  OPENSSL_cleanse(data, static_cast<size_t>(len));
  return pem;
}

StatusOr<std::string> PrivateKey::Sign(std::string_view message) const {
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, handle_->pkey) != 1) {
    return Internal("starting an Ed25519 signature: " + OpenSslError());
  }
  std::string sig(kEd25519SignatureBytes, '\0');
  size_t len = sig.size();
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      len != kEd25519SignatureBytes) {
    return Internal("making an Ed25519 signature: " + OpenSslError());
  }
  return sig;
}

std::string BoxKeyPath(const std::string& data_dir) {
  return data_dir + "/" + std::string(kBoxKeyFileName);
}

StatusOr<PrivateKey> LoadPrivateKeyFile(const std::string& path) {
  // O_NOFOLLOW: a key reached through a symbolic link is refused, so the
  // mode checked is the key file's own.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) {
      return Denied(fmt::format("the private key {} is a symbolic link; refusing it", path));
    }
    return ErrnoStatus(errno, "open private key", path);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "stat private key", path);
  if (!S_ISREG(st.st_mode)) {
    return Denied(fmt::format("the private key {} is not a regular file; refusing it", path));
  }
  if ((st.st_mode & 077) != 0) {
    return Denied(fmt::format(
        "the private key {} has mode {:04o}: group or others may use it; refusing it (chmod 600 "
        "it if it was never exposed, otherwise replace the key)",
        path, st.st_mode & 07777));
  }
  if (static_cast<size_t>(st.st_size) > kMaxPrivateKeyFileBytes) {
    return Corrupt(fmt::format("the private key {} is larger than {} bytes; it is not a key", path,
                               kMaxPrivateKeyFileBytes));
  }
  std::string pem;
  char buf[1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read private key", path);
    }
    if (n == 0) break;
    pem.append(buf, static_cast<size_t>(n));
    if (pem.size() > kMaxPrivateKeyFileBytes) {
      OPENSSL_cleanse(pem.data(), pem.size());
      return Corrupt(fmt::format("the private key {} is larger than {} bytes; it is not a key",
                                 path, kMaxPrivateKeyFileBytes));
    }
  }
  OPENSSL_cleanse(buf, sizeof buf);
  StatusOr<PrivateKey> key = PrivateKey::FromPem(pem);
  OPENSSL_cleanse(pem.data(), pem.size());
  if (!key.ok()) {
    if (key.status().code() == Code::kCorrupt) {
      return Corrupt(
          fmt::format("the private key {} is refused: {}", path, key.status().message()));
    }
    return key.status();
  }
  return key;
}

Status WriteNewPrivateKeyFile(const std::string& path, const PrivateKey& key) {
  CARLOS_ASSIGN_OR_RETURN(std::string pem, key.ToPem());
  Status st = CreateFileExclusive(path, pem, 0600);
  OPENSSL_cleanse(pem.data(), pem.size());
  if (st.code() == Code::kPreconditionFailed) {
    return PreconditionFailed(
        fmt::format("{} already exists; a key file is never overwritten", path));
  }
  return st;
}

StatusOr<PrivateKey> LoadOrCreateBoxKey(const std::string& data_dir) {
  std::string path = BoxKeyPath(data_dir);
  StatusOr<PrivateKey> key = LoadPrivateKeyFile(path);
  if (key.ok() || key.status().code() != Code::kNotFound) {
    if (!key.ok()) {
      return key.status().Annotate(
          "the box key is unusable and is left as it is (an operator must repair or remove it)");
    }
    return key;
  }
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) != 0) {
    return ErrnoStatus(errno, "the box key's data dir", data_dir);
  }
  CARLOS_ASSIGN_OR_RETURN(PrivateKey fresh, PrivateKey::Generate());
  Status st2 = WriteNewPrivateKeyFile(path, fresh);
  if (st2.code() == Code::kPreconditionFailed) {
    // Another process created it first: its key is the box's key.
    return LoadPrivateKeyFile(path);
  }
  if (!st2.ok()) return st2.Annotate("creating the box key");
  return fresh;
}

}  // namespace carlos::identity
