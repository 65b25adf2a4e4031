// Whether this machine is an EC2 instance, told from the firmware's and the
// hypervisor's own marks rather than from IMDS answering: a box is recorded
// as unattested only when it can tell for certain it is not on EC2 (or is
// told so by CARLOS_IMDS_ENDPOINT=off), never because IMDS was slow.
//
// The marks, as AWS documents them (EC2 User Guide, "Detect whether a host
// is an EC2 instance", identify_ec2_instances.html) and as cloud-init reads
// them (tools/ds-identify, ec2_identify; cloudinit/sources/DataSourceEc2.py,
// identify_aws):
//   - DMI sys_vendor "Amazon EC2" (every Nitro instance);
//   - DMI board_asset_tag an instance id "i-…" (Nitro);
//   - DMI product_uuid starting with "ec2", in either byte order (SMBIOS
//     2.4 writes the first group little-endian: "45E12AEC-…");
//   - DMI product_version containing "amazon" (Xen HVM instances:
//     "4.11.amazon");
//   - /sys/hypervisor/uuid starting with "ec2" (Xen PV instances).
// product_uuid is readable by root only (mode 0400): the agent, running as
// its own user, usually cannot read it, and does without.
#pragma once

#include <string>

namespace carlos::imds {

enum class Ec2Platform {
  kEc2,      // A mark above says EC2.
  kNotEc2,   // The firmware is readable, names another vendor, and no mark says EC2.
  kUnknown,  // Cannot tell: no DMI (a container without /sys, a PV guest
             // without its hypervisor uuid), or a Xen guest whose
             // product_uuid is unreadable.
};

struct Ec2PlatformFacts {
  Ec2Platform platform = Ec2Platform::kUnknown;
  // One clause saying what was seen, for the log and the identity record:
  // `DMI sys_vendor is "Amazon EC2"`, `DMI sys_vendor is "QEMU" and no
  // EC2 mark is present (board_asset_tag, product_uuid, product_version,
  // /sys/hypervisor/uuid)`, `no DMI sys_vendor under /sys/class/dmi/id`.
  std::string evidence;
};

// Reads the marks under `sysfs_root` ("/sys" in production; a test's
// directory holding class/dmi/id/<file> and hypervisor/uuid otherwise).
// Never fails: an unreadable file is a mark not seen, and with none seen and
// no sys_vendor the answer is kUnknown. Reads a few small files each call
// (nothing cached); thread-safe.
Ec2PlatformFacts DetectEc2Platform(const std::string& sysfs_root);

}  // namespace carlos::imds
