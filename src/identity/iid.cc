#include "identity/iid.h"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/files.h"
#include "identity/encoding.h"
#include "identity/fields.h"

namespace carlos::identity {

namespace {

struct Free {
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(PKCS7* p) const { PKCS7_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(STACK_OF(X509) * p) const { sk_X509_free(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Free>;

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

Owned<BIO> MemBio(std::string_view data) {
  return Owned<BIO>(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

constexpr std::string_view kBeginCertificate = "-----BEGIN CERTIFICATE-----";
constexpr std::string_view kEndCertificate = "-----END CERTIFICATE-----";

std::string_view TrimLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

// Every certificate of a PEM bundle, in order (CheckCertificateBundle's rules).
StatusOr<std::vector<Owned<X509>>> ReadCertificates(std::string_view pem) {
  std::vector<Owned<X509>> certs;
  size_t line_no = 0;
  size_t block_start = 0;  // Byte offset of the open block's BEGIN line.
  size_t block_line = 0;   // Its line number; 0 when no block is open.
  size_t pos = 0;
  while (pos < pem.size()) {
    size_t eol = pem.find('\n', pos);
    size_t next = eol == std::string_view::npos ? pem.size() : eol + 1;
    std::string_view line =
        TrimLine(pem.substr(pos, next - pos - (eol == std::string_view::npos ? 0 : 1)));
    ++line_no;
    if (block_line == 0) {
      if (line == kBeginCertificate) {
        block_line = line_no;
        block_start = pos;
      } else if (line.starts_with("-----BEGIN ")) {
        return InvalidArgument(
            fmt::format("line {} begins a PEM block \"{}\" that is not a certificate; only "
                        "\"-----BEGIN CERTIFICATE-----\" blocks may be there",
                        line_no, std::string(line.substr(0, 64))));
      } else if (!line.empty()) {
        return InvalidArgument(fmt::format(
            "line {} is neither part of a certificate nor blank (a certificate file holds only "
            "\"-----BEGIN CERTIFICATE-----\" blocks)",
            line_no));
      }
    } else if (line == kEndCertificate) {
      std::string_view block = pem.substr(block_start, next - block_start);
      Owned<BIO> bio = MemBio(block);
      Owned<X509> cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
      ERR_clear_error();
      if (!cert) {
        return InvalidArgument(
            fmt::format("the certificate of lines {} to {} does not decode as an X.509 certificate",
                        block_line, line_no));
      }
      certs.push_back(std::move(cert));
      block_line = 0;
    } else if (line.starts_with("-----")) {
      return InvalidArgument(fmt::format(
          "the certificate that begins on line {} is cut off by line {}", block_line, line_no));
    }
    pos = next;
  }
  if (block_line != 0) {
    return InvalidArgument(fmt::format(
        "the certificate that begins on line {} has no \"-----END CERTIFICATE-----\"", block_line));
  }
  if (certs.empty()) {
    return InvalidArgument("it holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\")");
  }
  return certs;
}

StatusOr<Owned<X509>> ReadCert(std::string_view pem) {
  Owned<BIO> bio = MemBio(pem);
  Owned<X509> cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) {
    ERR_clear_error();
    return InvalidArgument("the certificate is not a PEM X.509 certificate");
  }
  return cert;
}

// The base64 of IMDS's rsa2048, with its "-----BEGIN/END PKCS7-----" armour
// (if an operator kept it) taken off.
std::string_view StripArmour(std::string_view text) {
  constexpr std::string_view kBegin = "-----BEGIN PKCS7-----";
  constexpr std::string_view kEnd = "-----END PKCS7-----";
  size_t b = text.find(kBegin);
  if (b == std::string_view::npos) return text;
  text.remove_prefix(b + kBegin.size());
  size_t e = text.find(kEnd);
  if (e != std::string_view::npos) text = text.substr(0, e);
  return text;
}

}  // namespace

StatusOr<InstanceIdentityDocument> ParseInstanceIdentityDocument(std::string_view raw) {
  if (raw.size() > kMaxInstanceIdentityBytes) {
    return Corrupt(fmt::format("the instance identity document has {} bytes, more than {}",
                               raw.size(), kMaxInstanceIdentityBytes));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(raw.begin(), raw.end());
  } catch (const nlohmann::json::exception& e) {
    return Corrupt("the instance identity document is not JSON");
  }
  if (!j.is_object()) return Corrupt("the instance identity document is not a JSON object");
  InstanceIdentityDocument doc;
  doc.raw = std::string(raw);
  std::string problem;
  auto get = [&](const char* name, std::string* out, bool required) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) {
      if (required && problem.empty()) problem = fmt::format("\"{}\" is missing", name);
      return;
    }
    if (!it->is_string()) {
      if (problem.empty()) problem = fmt::format("\"{}\" is not a string", name);
      return;
    }
    *out = it->get<std::string>();
    if (required && out->empty() && problem.empty()) problem = fmt::format("\"{}\" is empty", name);
  };
  get("instanceId", &doc.instance_id, true);
  get("region", &doc.region, true);
  get("accountId", &doc.account_id, true);
  get("imageId", &doc.image_id, false);
  get("instanceType", &doc.instance_type, false);
  get("availabilityZone", &doc.availability_zone, false);
  get("privateIp", &doc.private_ip, false);
  get("architecture", &doc.architecture, false);
  std::string pending;
  get("pendingTime", &pending, false);
  if (problem.empty() && !pending.empty()) {
    SystemTime t;
    if (!internal::ParseProtocolTime(pending, &t)) {
      problem = "\"pendingTime\" is not an RFC 3339 UTC time";
    } else {
      doc.pending_time = t;
    }
  }
  if (!problem.empty()) return Corrupt("the instance identity document is malformed: " + problem);
  return doc;
}

StatusOr<size_t> CheckCertificateBundle(std::string_view pem) {
  CARLOS_ASSIGN_OR_RETURN(std::vector<Owned<X509>> certs, ReadCertificates(pem));
  return certs.size();
}

StatusOr<std::string> ReadCertificateBundleFile(const std::string& path) {
  StatusOr<std::string> pem = ReadFileLimited(path, kMaxCertificateBundleBytes);
  if (!pem.ok()) {
    if (pem.status().code() == Code::kCorrupt) {
      return InvalidArgument(fmt::format("{} is larger than {} bytes; it is not a certificate file",
                                         path, kMaxCertificateBundleBytes));
    }
    return pem.status();
  }
  Status st = CheckCertificateBundle(*pem).status();
  if (!st.ok()) return InvalidArgument(fmt::format("{} is refused: {}", path, st.message()));
  return pem;
}

Status VerifyInstanceIdentitySignature(std::string_view document, std::string_view rsa2048,
                                       std::string_view certificate_pem) {
  CARLOS_ASSIGN_OR_RETURN(std::vector<Owned<X509>> certs, ReadCertificates(certificate_pem));
  if (rsa2048.size() > kMaxInstanceIdentityBytes * 2) {
    return Corrupt("the instance identity signature is too large");
  }
  StatusOr<std::string> der = Base64DecodeWrapped(StripArmour(rsa2048));
  if (!der.ok()) {
    return Corrupt("the instance identity signature is not base64: " + der.status().message());
  }
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der->data());
  Owned<PKCS7> p7(d2i_PKCS7(nullptr, &p, static_cast<long>(der->size())));
  if (!p7 || p != reinterpret_cast<const unsigned char*>(der->data()) + der->size()) {
    ERR_clear_error();
    return Corrupt("the instance identity signature is not a DER PKCS #7 structure");
  }
  if (!PKCS7_type_is_signed(p7.get())) {
    return Corrupt("the instance identity signature is not PKCS #7 signed-data");
  }
  // PKCS7_NOINTERN: only the given certificate may be the signer, never one
  // the PKCS #7 carries. PKCS7_NOVERIFY: AWS's certificate is self-standing
  // (AWS's instructions use -noverify). PKCS7_BINARY: no MIME text
  // translation of the content.
  const int flags = PKCS7_NOINTERN | PKCS7_NOVERIFY | PKCS7_BINARY;
  bool detached = PKCS7_get_detached(p7.get()) != 0;
  std::string why;
  // Each certificate on its own: two regions' certificates might share an
  // issuer and serial number, and OpenSSL picks a signer by those alone.
  for (const Owned<X509>& cert : certs) {
    Owned<STACK_OF(X509)> signers(sk_X509_new_null());
    Owned<X509_STORE> store(X509_STORE_new());
    Owned<BIO> out(BIO_new(BIO_s_mem()));
    if (!signers || !store || !out || sk_X509_push(signers.get(), cert.get()) == 0) {
      return Internal("allocating OpenSSL structures: " + OpenSslError());
    }
    int rc;
    if (detached) {
      Owned<BIO> content = MemBio(document);
      rc = PKCS7_verify(p7.get(), signers.get(), store.get(), content.get(), out.get(), flags);
    } else {
      rc = PKCS7_verify(p7.get(), signers.get(), store.get(), nullptr, out.get(), flags);
    }
    if (rc != 1) {
      why = OpenSslError();
      continue;
    }
    if (BioText(out.get()) != document) {
      return Corrupt("the instance identity signature signs another document than the one given");
    }
    return OkStatus();
  }
  if (certs.size() == 1) {
    return Corrupt("the instance identity signature does not verify with the given certificate (" +
                   why + ")");
  }
  return Corrupt(fmt::format(
      "the instance identity signature does not verify with any of the {} given certificates "
      "(last: {})",
      certs.size(), why));
}

StatusOr<std::string> SignInstanceIdentityDocumentAsEmulator(std::string_view document,
                                                             std::string_view cert_pem,
                                                             std::string_view key_pem) {
  CARLOS_ASSIGN_OR_RETURN(Owned<X509> cert, ReadCert(cert_pem));
  Owned<BIO> kbio = MemBio(key_pem);
  Owned<EVP_PKEY> key(kbio ? PEM_read_bio_PrivateKey(kbio.get(), nullptr, nullptr, nullptr)
                           : nullptr);
  if (!key) {
    ERR_clear_error();
    return InvalidArgument("the signing key is not a PEM private key");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgument("the signing key does not match the certificate");
  }
  Owned<BIO> content = MemBio(document);
  Owned<PKCS7> p7(
      PKCS7_sign(cert.get(), key.get(), nullptr, content.get(), PKCS7_BINARY | PKCS7_NOCERTS));
  if (!p7) return Internal("PKCS #7 signing: " + OpenSslError());
  unsigned char* der = nullptr;
  int len = i2d_PKCS7(p7.get(), &der);
  if (len <= 0) return Internal("PKCS #7 encoding: " + OpenSslError());
  std::string b64 =
      Base64Encode(std::string_view(reinterpret_cast<char*>(der), static_cast<size_t>(len)));
  OPENSSL_free(der);
  std::string wrapped;
  for (size_t i = 0; i < b64.size(); i += 64) {
    if (i > 0) wrapped.push_back('\n');
    wrapped += b64.substr(i, 64);
  }
  return wrapped;
}

StatusOr<EmulatorCertificate> MakeEmulatorCertificate(std::string_view common_name) {
  Owned<EVP_PKEY> key(EVP_RSA_gen(2048));
  if (!key) return Internal("RSA key generation: " + OpenSslError());
  Owned<X509> cert(X509_new());
  if (!cert) return Internal("allocating a certificate: " + OpenSslError());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  std::string cn(common_name);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) {
    return Internal("self-signing the certificate: " + OpenSslError());
  }
  Owned<BIO> cbio(BIO_new(BIO_s_mem()));
  Owned<BIO> kbio(BIO_new(BIO_s_mem()));
  if (!cbio || !kbio || PEM_write_bio_X509(cbio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(kbio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Internal("encoding the test certificate: " + OpenSslError());
  }
  return EmulatorCertificate{BioText(cbio.get()), BioText(kbio.get())};
}

}  // namespace carlos::identity
