#include "imds/ec2_platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "base/files.h"
#include "base/strings.h"

namespace carlos::imds {

namespace {

// A sysfs attribute is a line; anything longer than this is not one.
constexpr size_t kMaxAttributeBytes = 4096;

std::optional<std::string> ReadAttribute(const std::string& path) {
  StatusOr<std::string> s = ReadFileLimited(path, kMaxAttributeBytes);
  if (!s.ok()) return std::nullopt;
  return TrimSpace(*s);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "ec2…" as written, or with the first group byte-swapped (SMBIOS 2.4's
// little-endian UUID: 45E12AEC-… is EC2AE145-…).
bool IsEc2Uuid(const std::string& uuid) {
  const std::string u = Lower(uuid);
  if (u.rfind("ec2", 0) == 0) return true;
  return u.size() >= 8 && u.compare(6, 2, "ec") == 0 && u[4] == '2';
}

}  // namespace

Ec2PlatformFacts DetectEc2Platform(const std::string& sysfs_root) {
  const std::string dmi = sysfs_root + "/class/dmi/id/";
  const std::optional<std::string> vendor = ReadAttribute(dmi + "sys_vendor");
  const std::optional<std::string> asset = ReadAttribute(dmi + "board_asset_tag");
  const std::optional<std::string> uuid = ReadAttribute(dmi + "product_uuid");
  const std::optional<std::string> version = ReadAttribute(dmi + "product_version");
  const std::optional<std::string> hv_uuid = ReadAttribute(sysfs_root + "/hypervisor/uuid");

  auto ec2 = [](std::string evidence) {
    return Ec2PlatformFacts{Ec2Platform::kEc2, std::move(evidence)};
  };
  if (vendor && *vendor == "Amazon EC2") return ec2("DMI sys_vendor is \"Amazon EC2\"");
  if (asset && asset->rfind("i-", 0) == 0) {
    return ec2(fmt::format("DMI board_asset_tag is the instance id \"{}\"", *asset));
  }
  if (uuid && IsEc2Uuid(*uuid)) return ec2(fmt::format("DMI product_uuid \"{}\" is EC2's", *uuid));
  if (version && Lower(*version).find("amazon") != std::string::npos) {
    return ec2(fmt::format("DMI product_version is \"{}\"", *version));
  }
  if (hv_uuid && IsEc2Uuid(*hv_uuid)) {
    return ec2(fmt::format("/sys/hypervisor/uuid \"{}\" is EC2's", *hv_uuid));
  }
  if (!vendor || vendor->empty()) {
    return {Ec2Platform::kUnknown,
            fmt::format("no DMI sys_vendor under {} and no EC2 hypervisor uuid", dmi)};
  }
  // A Xen guest whose product_uuid cannot be read may be an older EC2
  // instance type: only its uuid would say so.
  if (Lower(*vendor).find("xen") != std::string::npos && !uuid) {
    return {Ec2Platform::kUnknown,
            fmt::format("DMI sys_vendor is \"{}\" and its product_uuid is unreadable", *vendor)};
  }
  return {Ec2Platform::kNotEc2,
          fmt::format("DMI sys_vendor is \"{}\" and no EC2 mark is present (board_asset_tag, "
                      "product_uuid, product_version, /sys/hypervisor/uuid)",
                      *vendor)};
}

}  // namespace carlos::imds
