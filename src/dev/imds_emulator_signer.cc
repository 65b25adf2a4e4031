#include "dev/imds_emulator_signer.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>

#include "base/files.h"

namespace carlos::dev {

namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Pkcs7Ptr = std::unique_ptr<PKCS7, Deleter<PKCS7, PKCS7_free>>;

std::string BioString(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return std::string(data, static_cast<size_t>(n));
}

BioPtr MemBio(std::string_view s) {
  return BioPtr(BIO_new_mem_buf(s.data(), static_cast<int>(s.size())));
}

}  // namespace

StatusOr<SignerPem> MakeSelfSignedRsa2048(std::string_view common_name) {
  KeyPtr key(EVP_RSA_gen(2048));
  if (!key) return Internal("emulator signer: RSA-2048 key generation failed");
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  std::string cn(common_name);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) {
    return Internal("emulator signer: self-signing the certificate failed");
  }
  BioPtr cb(BIO_new(BIO_s_mem())), kb(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cb.get(), cert.get()) ||
      !PEM_write_bio_PrivateKey(kb.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return Internal("emulator signer: writing PEM failed");
  }
  return SignerPem{BioString(cb.get()), BioString(kb.get())};
}

StatusOr<std::string> SignIdentityDocument(std::string_view document, const SignerPem& signer) {
  auto cb = MemBio(signer.cert_pem);
  X509Ptr cert(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
  if (!cert) return InvalidArgument("emulator signer: the certificate is not a PEM certificate");
  auto kb = MemBio(signer.key_pem);
  KeyPtr key(PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
  if (!key) return InvalidArgument("emulator signer: the key is not a PEM private key");
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return InvalidArgument("emulator signer: the key does not match the certificate");
  }
  auto content = MemBio(document);
  Pkcs7Ptr p7(
      PKCS7_sign(cert.get(), key.get(), nullptr, content.get(), PKCS7_BINARY | PKCS7_NOCERTS));
  if (!p7) return Internal("emulator signer: PKCS7_sign failed");
  unsigned char* der = nullptr;
  int len = i2d_PKCS7(p7.get(), &der);
  if (len <= 0) return Internal("emulator signer: DER encoding failed");
  std::string raw(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  std::string b64(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  b64.resize(static_cast<size_t>(n));
  std::string out;
  for (size_t i = 0; i < b64.size(); i += 64) {
    if (i) out += '\n';
    out += b64.substr(i, 64);
  }
  return out;
}

StatusOr<SignerPem> LoadOrMakeSigner(const std::string& cert_path, const std::string& key_path) {
  struct stat st;
  bool have_cert = ::stat(cert_path.c_str(), &st) == 0;
  bool have_key = ::stat(key_path.c_str(), &st) == 0;
  if (have_cert != have_key) {
    return InvalidArgument("emulator signer: " + (have_cert ? cert_path : key_path) +
                           " exists but " + (have_cert ? key_path : cert_path) +
                           " does not; give both or neither");
  }
  SignerPem s;
  if (have_cert) {
    CARLOS_ASSIGN_OR_RETURN(s.cert_pem, ReadFileLimited(cert_path, 64 * 1024));
    CARLOS_ASSIGN_OR_RETURN(s.key_pem, ReadFileLimited(key_path, 64 * 1024));
    // Prove the pair works now rather than at the first request.
    auto probe = SignIdentityDocument("{}", s);
    if (!probe.ok()) return probe.status().Annotate(cert_path + " / " + key_path);
    return s;
  }
  CARLOS_ASSIGN_OR_RETURN(s, MakeSelfSignedRsa2048("carlos dev imds (not AWS)"));
  for (const std::string& p : {key_path, cert_path}) {
    auto parent = std::filesystem::path(p).parent_path();
    if (!parent.empty()) CARLOS_RETURN_IF_ERROR(MakeDirs(parent.string(), 0755));
  }
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(key_path, s.key_pem, 0600));
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(cert_path, s.cert_pem, 0644));
  return s;
}

}  // namespace carlos::dev
