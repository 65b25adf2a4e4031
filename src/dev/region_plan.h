// The region's units, as systemd units on a box would be: per box
// the agent (carlos-edge.service: `carlos system guard-exec -- carlos agent
// -http 127.0.0.1:<port>`, Restart=always) and root's join
// (carlos-system-join.service: `carlos system join`, a oneshot), and the
// enroller (`carlos boxes auto-enroll --watch`), each with the environment
// /etc/carlos/host.env would give it (region_env.h).
//
// Pure: builds specs from options, so what the region runs is tested
// without running it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dev/region.h"
#include "dev/region_layout.h"
#include "dev/region_supervisor.h"

namespace carlos::dev {

// The environment variable naming the certificate the enroller checks
// instance identity documents against (the IMDS emulator's stand-in for
// AWS's public certificate; enroll/settings.h).
inline constexpr const char* kIidCertEnv = "CARLOS_AWS_IID_CERT";

struct RegionPlan {
  // The settings every process shares: the store, CARLOS_REGION, the
  // enrollment public key. region.env holds these and the key's path.
  std::map<std::string, std::string> shared;
  std::vector<std::string> boxes;  // "box-1".."box-N".
  std::vector<UnitSpec> agents;    // One per box, in order.
  std::vector<UnitSpec> joins;     // One per box, in order.
  UnitSpec enroller;
};

// The plan for `options` under `layout`. `environ` is the region's own
// environment (the children's base); `pubkey` the enrollment public key
// ("ed25519:..."); `imds_endpoints[i]` box i+1's emulated IMDS
// ("http://127.0.0.1:8501"). options.carlos_bin must be set.
RegionPlan PlanRegion(const RegionOptions& options, const RegionLayout& layout,
                      const std::vector<std::string>& environ, const std::string& pubkey,
                      const std::vector<std::string>& imds_endpoints);

}  // namespace carlos::dev
