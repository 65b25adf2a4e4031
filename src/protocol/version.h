// The release and platform this binary was built as; the identity record
// and the status report carry both (the seed's version.Build and
// runtime.GOOS + "-" + runtime.GOARCH).
#pragma once

#include <string>

namespace carlos::protocol {

// The release, from the build (CMake's CARLOS_RELEASE), e.g. "0.1.0".
std::string Release();

// The platform in Go's GOOS-GOARCH form: "linux-amd64", "linux-arm64".
std::string Platform();

// Compares two dotted releases ("1.10.0" > "1.9.2") numerically, part by
// part, a missing part counting as 0; returns <0, 0, >0. A part that is not a
// number compares as text after every number.
int CompareReleases(const std::string& a, const std::string& b);

}  // namespace carlos::protocol
