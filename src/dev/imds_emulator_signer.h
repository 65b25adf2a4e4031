// The IMDS emulator's stand-in for AWS's signing key: a self-signed
// RSA-2048 certificate kept in two files, so that the enroller can be given
// the same certificate across emulator restarts. The signing itself is
// identity's (SignInstanceIdentityDocumentAsEmulator: PKCS #7 signed-data,
// content embedded, base64, as AWS serves rsa2048); nothing here is trusted
// in production.
//
// Thread-safety: plain functions over values.
#pragma once

#include <string>

#include "base/status.h"
#include "identity/iid.h"

namespace carlos::dev {

// The signer's certificate and key, PEM.
using SignerPem = identity::EmulatorCertificate;

// Loads the signer from `cert_path` and `key_path`, or, when neither file
// exists, makes one (identity::MakeEmulatorCertificate) and writes
// both, creating their directories (the key mode 0600, the certificate
// 0644). Errors: one file without the other (kInvalidArgument), unreadable
// or unwritable files (the file error), PEMs that do not parse or do not
// match (kInvalidArgument, naming the files).
StatusOr<SignerPem> LoadOrMakeSigner(const std::string& cert_path, const std::string& key_path);

}  // namespace carlos::dev
