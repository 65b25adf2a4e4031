// Shared by the fuzz targets and the corpus writer: fixed keys, a fixed
// stand-in for AWS's RSA-2048 certificate, and the crash helper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "identity/keys.h"

namespace carlos::identity::fuzz {

// The box key (seed 32 x 0x01) and the enrollment key (seed 32 x 0x02), the
// same as tests/identity/fixtures.cc.
const PrivateKey& BoxKey();
const PrivateKey& EnrollmentKey();

// A fixed self-signed RSA-2048 certificate and key (PEM) standing in for
// AWS's, so that seeds signed with it verify in every run.
extern const char kAwsCertPem[];
extern const char kAwsKeyPem[];

// The sample instance identity document the seeds embed.
std::string SampleIid();

// Reports a broken property and aborts, which libFuzzer records as a crash.
[[noreturn]] void Fail(std::string_view what);

// The fuzz input as a string_view.
inline std::string_view Bytes(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace carlos::identity::fuzz
