// The IMDS emulator's stand-in for AWS's signing: a self-signed RSA-2048
// certificate, and the instance identity document's rsa2048 signature made
// with it as AWS makes its own (AWS EC2 User Guide, "Verify the instance
// identity document using the RSA-2048 signature": a PKCS #7 signed-data
// with the document embedded, served base64 without armour). For
// development and tests only: nothing here is trusted in production.
//
// Thread-safety: plain functions over values.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::dev {

struct SignerPem {
  std::string cert_pem;  // X.509 certificate, PEM.
  std::string key_pem;   // RSA private key, PKCS #8 PEM, unencrypted.
};

// A new RSA-2048 key and a self-signed certificate for it (subject
// CN=`common_name`, SHA-256, valid ten years from now). Slow (key
// generation, up to a second). kInternal when OpenSSL fails.
StatusOr<SignerPem> MakeSelfSignedRsa2048(std::string_view common_name);

// Signs `document`: DER PKCS #7 signed-data, SHA-256, content embedded,
// no certificates included (AWS's carry none: the verifier supplies the
// certificate), base64 in 64-column lines without armour.
// kInvalidArgument when the PEMs do not parse or the key does not match the
// certificate; kInternal when OpenSSL fails.
StatusOr<std::string> SignIdentityDocument(std::string_view document, const SignerPem& signer);

// Loads the signer from `cert_path` and `key_path`, or, when neither file
// exists, makes one and writes both (the key mode 0600). Errors: one file
// without the other (kInvalidArgument), unreadable or unwritable files
// (the file error), PEMs that do not parse or match (kInvalidArgument).
StatusOr<SignerPem> LoadOrMakeSigner(const std::string& cert_path, const std::string& key_path);

}  // namespace carlos::dev
