#include "dev/imds_emulator_signer.h"

#include <sys/stat.h>

#include <filesystem>

#include "base/files.h"

namespace carlos::dev {

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
    auto probe = identity::SignInstanceIdentityDocumentAsEmulator("{}", s.cert_pem, s.key_pem);
    if (!probe.ok()) return probe.status().Annotate(cert_path + " / " + key_path);
    return s;
  }
  CARLOS_ASSIGN_OR_RETURN(s, identity::MakeEmulatorCertificate("carlos dev imds (not AWS)"));
  for (const std::string& p : {key_path, cert_path}) {
    auto parent = std::filesystem::path(p).parent_path();
    if (!parent.empty()) CARLOS_RETURN_IF_ERROR(MakeDirs(parent.string(), 0755));
  }
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(key_path, s.key_pem, 0600));
  CARLOS_RETURN_IF_ERROR(WriteFileAtomic(cert_path, s.cert_pem, 0644));
  return s;
}

}  // namespace carlos::dev
