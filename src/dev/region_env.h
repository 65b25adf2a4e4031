// The environments of the region's children: what
// /etc/carlos/host.env holds on a real box (DESIGN.md, "Switches and
// settings"), per box, and what the enroller's operator would set.
//
// A child gets the region's own environment (PATH, HOME, locale, AWS_*
// credentials for an S3 deployment) minus every CARLOS_* variable, then the
// region's settings. The timings (protocol/timings.h: CARLOS_JOIN_EVERY and the
// rest) are the exception: set in the region's environment they are passed
// on as they are, so `CARLOS_DRAIN=5s carlos dev region` works; unset, the
// region's short defaults (kRegionTimingDefaults) apply.
//
// Thread-safety: plain functions over values.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/env.h"

namespace carlos::dev {

// The region's timings when the environment does not set them: a region of
// three boxes is hosting within seconds (DESIGN.md's defaults are for a
// fleet: joinEvery 15 s, joinNudgeEvery 1 min, drain 10 s).
inline const std::vector<std::pair<std::string, std::string>> kRegionTimingDefaults = {
    {"CARLOS_JOIN_EVERY", "200ms"},          {"CARLOS_JOIN_NUDGE_EVERY", "1s"},
    {"CARLOS_HOSTING_REPORT_EVERY", "2s"},   {"CARLOS_DRAIN", "1s"},
    {"CARLOS_REPORT_FRESHNESS", "5m"},       {"CARLOS_INVITATION_LIFETIME", "24h"},
    {"CARLOS_HEALTH_HEADER_TIMEOUT", "10s"},
};

// `parent` ("NAME=value" entries, as environ) without the CARLOS_*
// variables that are not timings, then `set` (which wins), then each
// timing of kRegionTimingDefaults that neither `parent` nor `set` has.
// Sorted by name, one entry per name.
std::vector<std::string> ChildEnv(const std::vector<std::string>& parent,
                                  const std::map<std::string, std::string>& set);

// The process's environment as "NAME=value" entries.
std::vector<std::string> ProcessEnviron();

// The value `env` (as ChildEnv returns) gives `name`, "" when none.
std::string EnvValue(const std::vector<std::string>& env, const std::string& name);

}  // namespace carlos::dev
