#include "base/status.h"

namespace carlos {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kNotFound:
      return "not found";
    case Code::kPreconditionFailed:
      return "precondition failed";
    case Code::kUnavailable:
      return "unavailable";
    case Code::kDenied:
      return "denied";
    case Code::kInvalidArgument:
      return "invalid argument";
    case Code::kCorrupt:
      return "corrupt";
    case Code::kDeadlineExceeded:
      return "deadline exceeded";
    case Code::kCancelled:
      return "cancelled";
    case Code::kUnknownOutcome:
      return "unknown outcome";
    case Code::kInternal:
      return "internal";
  }
  return "unknown code";
}

std::string Status::ToString() const { return ok() ? "ok" : message_; }

Status Status::Annotate(std::string_view prefix) const {
  if (ok()) return *this;
  Status s = *this;
  s.message_ = std::string(prefix) + ": " + message_;
  return s;
}

Status Status::WithMessage(std::string message) const {
  if (ok()) return *this;
  Status s = *this;
  s.message_ = std::move(message);
  return s;
}

}  // namespace carlos
