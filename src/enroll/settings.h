// The enroller's settings (DESIGN.md, "Enrollment" and "Timings";
// docs/enroll.md, "Settings"): which key signs, which AWS certificate
// attests instance identity documents, whether unattested boxes are
// allowed, the region it is scoped to, and its timings.
//
// Every setting lives in the enroller's own environment (or its flags),
// never in the deployment store: the store is written by every box (records,
// reports, edges files), so a setting there that loosens a check — allowing
// unattested boxes above all — could be written by any box that wants in.
//
// Environment (flags of `carlos boxes ...` override each):
//   CARLOS_ENROLLMENT_KEY      path to the enrollment key's private key file
//                              (`carlos boxes keygen --out`); needed to write
//   CARLOS_ENROLLMENT_PUBKEY   "ed25519:<base64>"; enough for `list`, and
//                              must match the private key when both are set
//   CARLOS_AWS_IID_CERT        path to AWS's RSA-2048 certificates (PEM) for
//                              instance identity documents: one file, which
//                              may be a bundle of several (each is tried), or
//                              a directory of <region>.pem files
//   CARLOS_ALLOW_UNATTESTED    on when not blank (base/env.h SwitchOn): boxes
//                              without a verifiable instance identity
//                              document may be invited (off by default)
//   CARLOS_AWS_ACCOUNTS        the AWS accounts whose instances may join:
//                              comma-separated 12-digit account ids ("" =
//                              any account; the enroller says so at start)
//   CARLOS_REGION              scope: only boxes of this region are invited
//                              and enrolled ("" = every region)
//   CARLOS_FLOOR_RELEASE       the guard policy's floor release written into
//                              new invitations ("" = none)
//   CARLOS_JOIN_EVERY, CARLOS_REPORT_FRESHNESS, CARLOS_INVITATION_LIFETIME
//                              (protocol/timings.h), CARLOS_REPORT_CLOCK_SKEW
//                              (Go duration, default 30s), CARLOS_ENROLL_WORKERS
//                              (1-64, default 8)
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/env.h"
#include "base/status.h"
#include "identity/keys.h"

namespace carlos::enroll {

// AWS's RSA-2048 certificates for instance identity documents: one for every
// region, or one per region (AWS EC2 User Guide, "Verify the instance
// identity document using the RSA-2048 signature": each region has its own).
struct IidCertificates {
  // The certificates used for every region (one PEM file, possibly a
  // bundle of several: each is tried), or "".
  std::string any_region_pem;
  // Region -> PEM, possibly a bundle (a directory of <region>.pem files).
  std::map<std::string, std::string, std::less<>> by_region;

  bool empty() const { return any_region_pem.empty() && by_region.empty(); }
  // The PEM for `region`, or nullptr when none is configured for it.
  const std::string* For(std::string_view region) const;
};

// Loads CARLOS_AWS_IID_CERT's form: `path` is a PEM file (every region; a
// bundle of one or more certificates) or a directory whose <region>.pem
// files each hold that region's certificates (other files are ignored).
// Each file is checked whole by identity::ReadCertificateBundleFile.
// Errors: kNotFound when `path` does not exist; kInvalidArgument when the
// file (or a <region>.pem) holds no certificate, or a block or line that is
// not one (naming the file and line), or the directory holds no
// <region>.pem; others as base/files.h.
StatusOr<IidCertificates> LoadIidCertificates(const std::string& path);

struct EnrollerSettings {
  // Signs invitations, enrollments and retirements; nullopt for a read-only
  // enroller (`carlos boxes list`).
  std::optional<identity::PrivateKey> enrollment_key;
  // Verifies them; the private key's public half when that is set.
  identity::PublicKey enrollment_public_key;
  IidCertificates iid_certificates;
  // DESIGN.md: "IID signature unless the deployment allows unattested boxes".
  bool allow_unattested = false;
  // The AWS accounts whose instances may join (an attested record's
  // document's accountId must be one: AwsAccountAllowed); nullopt = any
  // account. SPIRE's aws_iid node attestor and Teleport's EC2 join scope
  // attestation to the operator's accounts the same way.
  std::optional<std::set<std::string, std::less<>>> aws_accounts;
  // Only boxes of this region are invited and enrolled; nullopt = any.
  std::optional<std::string> region;
  // The guard policy written into new invitations.
  std::optional<std::string> floor_release;
  // DESIGN.md, "Timings": the watch interval (joinEvery), reportFreshness,
  // the invitation lifetime.
  Milliseconds every{15'000};
  // The watch loop's change check on a store without events (S3), and the
  // shortest time between two passes a change starts (wakeup.h;
  // CARLOS_ENROLL_CHECK_EVERY, 1s).
  Milliseconds check_every{1'000};
  Milliseconds report_freshness{5 * 60'000};
  Milliseconds invitation_lifetime{24 * 3600'000};
  // The clock skew between a box and the enroller (its report's stamp
  // against when the enroller saw the report written) beyond which the
  // enroller logs it, once per box. Freshness does not depend on it
  // (protocol::FreshnessOf; docs/protocol.md, "Clocks").
  Milliseconds report_clock_skew{30'000};
  // Store requests in flight at once, at most (a worker pool of this size).
  int workers = 8;
};

// What the process needs beyond reading the store.
enum class KeyNeed {
  kPublicOnly,  // `list`: CARLOS_ENROLLMENT_PUBKEY or the private key.
  kPrivate,     // Every command that writes: CARLOS_ENROLLMENT_KEY.
};

// Parses CARLOS_AWS_ACCOUNTS' value: account ids separated by commas,
// white space around each ignored, each exactly 12 ASCII digits (AWS
// account ids, "Your AWS account identifiers" in the AWS Account Management
// Reference Guide). "" (or only white space) gives nullopt: any account.
// Errors: kInvalidArgument naming the variable and the first entry that is
// empty or not 12 digits.
StatusOr<std::optional<std::set<std::string, std::less<>>>> ParseAwsAccounts(
    std::string_view value);

// Whether `account_id` (an instance identity document's accountId) may join
// under `settings`: always when aws_accounts is nullopt.
bool AwsAccountAllowed(const EnrollerSettings& settings, std::string_view account_id);

// The clause the enroller logs once at start about accounts: "any AWS
// account's instances are accepted (CARLOS_AWS_ACCOUNTS is not set)" or
// "only instances of AWS accounts 111111111111, 222222222222 are accepted
// (CARLOS_AWS_ACCOUNTS)".
std::string AwsAccountsClause(const EnrollerSettings& settings);

// Reads the settings from `getenv` (the variables above). Errors:
// kInvalidArgument naming the variable: a missing enrollment key for
// kPrivate (or neither key for kPublicOnly), a malformed duration or worker
// count, a malformed CARLOS_AWS_ACCOUNTS (ParseAwsAccounts), a region or
// floor release out of its limits, a public key that does
// not match the private key, and — for kPrivate — no CARLOS_AWS_IID_CERT
// while CARLOS_ALLOW_UNATTESTED is off (nothing could ever be attested);
// errors of LoadPrivateKeyFile and LoadIidCertificates, annotated with the
// variable's name ("CARLOS_ENROLLMENT_KEY: ..."), a missing file as
// kInvalidArgument (never kNotFound, which names a missing document).
StatusOr<EnrollerSettings> SettingsFromEnv(const Getenv& getenv, KeyNeed need);

}  // namespace carlos::enroll
