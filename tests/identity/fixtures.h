// Fixed keys, times and sample documents for the identity tests.
#pragma once

#include <string>

#include "base/clock.h"
#include "identity/edges_file.h"
#include "identity/enrollment.h"
#include "identity/guard_files.h"
#include "identity/identity_record.h"
#include "identity/iid.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/retirement.h"
#include "identity/status_report.h"

namespace carlos::identity::testing {

// A key from a fixed seed byte (seed = 32 copies of `b`).
PrivateKey FixedKey(char b);
// The box's key and the enrollment key the samples use.
PrivateKey BoxKey();
PrivateKey EnrollmentKeyForTest();

// 2026-11-29T18:00:00Z.
SystemTime T0();

// A pretty-printed IID like IMDS's for instance i-0abc, us-west-2.
std::string SampleIidDocument(const std::string& instance_id = "i-0123456789abcdef0",
                              const std::string& region = "us-west-2");
// One test certificate per process (RSA generation is slow).
const EmulatorCertificate& AwsCertForTest();

IdentityRecord SampleRecord(bool attested);
Invitation SampleInvitation(const std::string& record_digest);
Enrollment SampleEnrollment(const std::string& record_digest);
Retirement SampleRetirement(const std::string& record_digest);
EdgesFile SampleEdges();
StatusReport SampleReport(bool with_guard);
GuardFile SampleGuard();

// A digest of `s`, for fields that need one.
std::string DigestOf(const std::string& s);

// Aborts the test (ADD_FAILURE + empty) when `v` is an error.
template <typename T>
T Must(StatusOr<T> v) {
  if (!v.ok()) {
    fprintf(stderr, "Must: %s\n", v.status().ToString().c_str());
    abort();
  }
  return std::move(v).value();
}

}  // namespace carlos::identity::testing
