// The EC2 instance identity document and its RSA-2048 PKCS #7 signature, as
// IMDS serves them at /latest/dynamic/instance-identity/document and
// /latest/dynamic/instance-identity/rsa2048 (AWS EC2 User Guide, "Instance
// identity documents" and "Verify the instance identity document using the
// RSA-2048 signature"). The identity record embeds both verbatim so that the
// enroller can check them against AWS's public certificate for the region.
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace carlos::identity {

// The largest document or signature accepted (AWS's are about 500 bytes and
// 1.5 KiB).
inline constexpr size_t kMaxInstanceIdentityBytes = 16 * 1024;

// The fields the protocol reads. Field names follow AWS's JSON names.
struct InstanceIdentityDocument {
  std::string raw;                         // The document's bytes, verbatim.
  std::string instance_id;                 // "instanceId", e.g. "i-1234567890abcdef0"; required.
  std::string region;                      // "region", e.g. "us-west-2"; required.
  std::string account_id;                  // "accountId"; required.
  std::string image_id;                    // "imageId"; "" when absent.
  std::string instance_type;               // "instanceType"; "" when absent.
  std::string availability_zone;           // "availabilityZone"; "" when absent.
  std::string private_ip;                  // "privateIp"; "" when absent.
  std::string architecture;                // "architecture"; "" when absent.
  std::optional<SystemTime> pending_time;  // "pendingTime" (RFC 3339 UTC), when present.
};

// Parses the document as IMDS serves it (pretty-printed JSON; keeps `raw`).
// Errors: kCorrupt when larger than kMaxInstanceIdentityBytes, not a JSON
// object, or instanceId/region/accountId are missing, not strings or empty,
// or another listed field is present with another type than string (null is
// taken as absent, as AWS serves null for some), or pendingTime is not RFC
// 3339 UTC.
StatusOr<InstanceIdentityDocument> ParseInstanceIdentityDocument(std::string_view raw);

// The largest certificate bundle read: AWS's RSA-2048 certificates are
// about 1.3 KiB each, one per region, so every region's fits many times over.
inline constexpr size_t kMaxCertificateBundleBytes = 256 * 1024;

// Checks a PEM certificate bundle — what CARLOS_AWS_IID_CERT's file (or one
// <region>.pem) holds: one or more "-----BEGIN CERTIFICATE-----" blocks, as
// operators concatenate AWS's per-region certificates (AWS EC2 User Guide,
// "Verify the instance identity document using the RSA-2048 signature":
// each region has its own certificate). Returns how many certificates it
// holds. Errors: kInvalidArgument saying what and on which line: no
// certificate at all, a PEM block of another type (a private key, a PKCS
// #7...), a block that does not end, a certificate that does not decode,
// or a line outside the blocks that is not blank.
StatusOr<size_t> CheckCertificateBundle(std::string_view pem);

// Reads the bundle file at `path` and checks it (CheckCertificateBundle),
// for a setting that must be refused at start rather than at the first box.
// Returns its text. Errors: kNotFound when it does not exist;
// kInvalidArgument (naming `path`) when it is larger than
// kMaxCertificateBundleBytes or CheckCertificateBundle refuses it; others
// as base/files.h ReadFileLimited.
StatusOr<std::string> ReadCertificateBundleFile(const std::string& path);

// Verifies `document` (the exact bytes) against `rsa2048` — IMDS's
// base64 (possibly line-wrapped, with or without "-----BEGIN PKCS7-----"
// armour) DER PKCS #7 signed-data — with the certificates of
// `certificate_pem` (a bundle as CheckCertificateBundle accepts: AWS's
// RSA-2048 certificates, one or several regions') as the only acceptable
// signers: it verifies when it verifies with any one of them, each tried in
// turn. For each this is `openssl smime -verify -noverify -certfile cert` with two
// hardenings: certificates carried inside the PKCS #7 are ignored
// (PKCS7_NOINTERN), so a signature by any other key fails even if its
// certificate rides along; and the content must be `document` byte for byte
// (embedded content is compared, detached content is verified against
// `document`). The certificate chain and dates are not checked (-noverify,
// as AWS's instructions say). Errors: kCorrupt when the signature is not
// base64/DER PKCS #7, the signature does not verify with this certificate,
// or the signed content differs from `document`, with every certificate
// (the message says how many were tried); kInvalidArgument when
// CheckCertificateBundle refuses `certificate_pem`.
Status VerifyInstanceIdentitySignature(std::string_view document, std::string_view rsa2048,
                                       std::string_view certificate_pem);

// Signs `document` as AWS does (for tests and the IMDS emulator, never for
// production trust): a DER PKCS #7 signed-data with the content embedded,
// SHA-256, no certificates included, returned as base64 wrapped at 64
// columns without armour, like IMDS's rsa2048. `cert_pem`/`key_pem` are the
// signer's certificate and RSA private key (MakeEmulatorCertificate).
// Errors: kInvalidArgument when the PEMs do not parse or do not match;
// kInternal when OpenSSL fails.
StatusOr<std::string> SignInstanceIdentityDocumentAsEmulator(std::string_view document,
                                                             std::string_view cert_pem,
                                                             std::string_view key_pem);

// A self-signed RSA-2048 certificate and its key, PEM, for tests and the
// IMDS emulator (standing in for AWS's regional certificate).
struct EmulatorCertificate {
  std::string cert_pem;
  std::string key_pem;  // PKCS #8 PEM, unencrypted.
};

// Makes one, subject CN=`common_name`, valid for ten years from now. Slow
// (RSA key generation, ~50-500 ms). Errors: kInternal when OpenSSL fails.
StatusOr<EmulatorCertificate> MakeEmulatorCertificate(std::string_view common_name);

}  // namespace carlos::identity
