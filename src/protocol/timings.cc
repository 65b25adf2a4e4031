#include "protocol/timings.h"

#include <string>

#include "base/duration.h"
#include "base/strings.h"

namespace carlos::protocol {

namespace {

// Applies variable `name`, when set, to `*out`; `allow_zero` for the drain.
Status Apply(const Getenv& getenv, const char* name, bool allow_zero, Milliseconds* out) {
  std::string v = TrimSpace(getenv(name));
  if (v.empty()) return OkStatus();
  StatusOr<std::chrono::nanoseconds> d = ParseDuration(v);
  if (!d.ok()) return d.status().Annotate(name);
  Milliseconds ms = std::chrono::duration_cast<Milliseconds>(*d);
  if (d->count() < 0) return InvalidArgument(std::string(name) + ": " + v + " is negative");
  if (!allow_zero && ms.count() < 1) {
    return InvalidArgument(std::string(name) + ": " + v + " is under a millisecond");
  }
  *out = ms;
  return OkStatus();
}

}  // namespace

StatusOr<Timings> TimingsFromEnv(const Getenv& getenv) {
  Timings t;
  CARLOS_RETURN_IF_ERROR(Apply(getenv, "CARLOS_JOIN_EVERY", false, &t.join_every));
  CARLOS_RETURN_IF_ERROR(Apply(getenv, "CARLOS_JOIN_NUDGE_EVERY", false, &t.join_nudge_every));
  CARLOS_RETURN_IF_ERROR(Apply(getenv, "CARLOS_REPORT_FRESHNESS", false, &t.report_freshness));
  CARLOS_RETURN_IF_ERROR(
      Apply(getenv, "CARLOS_HOSTING_REPORT_EVERY", false, &t.hosting_report_every));
  CARLOS_RETURN_IF_ERROR(Apply(getenv, "CARLOS_DRAIN", true, &t.drain));
  CARLOS_RETURN_IF_ERROR(
      Apply(getenv, "CARLOS_INVITATION_LIFETIME", false, &t.invitation_lifetime));
  CARLOS_RETURN_IF_ERROR(
      Apply(getenv, "CARLOS_HEALTH_HEADER_TIMEOUT", false, &t.health_header_timeout));
  CARLOS_RETURN_IF_ERROR(Apply(getenv, "CARLOS_REPORT_CLOCK_SKEW", true, &t.report_clock_skew));
  return t;
}

}  // namespace carlos::protocol
