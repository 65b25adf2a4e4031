#include "protocol/mode.h"

namespace carlos::protocol {

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kNone:
      return "";
    case Stage::kRetired:
      return "retired";
    case Stage::kUnrecorded:
      return "unrecorded";
    case Stage::kConflict:
      return "conflict";
    case Stage::kHosting:
      return "hosting";
    case Stage::kGuardReady:
      return "guard-ready";
    case Stage::kGuardInstalled:
      return "guard-installed";
    case Stage::kInvited:
      return "invited";
    case Stage::kReferenced:
      return "referenced";
    case Stage::kRecorded:
      return "recorded";
  }
  return "";
}

Status ModeUnknown(std::string_view what, const Status& cause) {
  return Status(cause.code(), "mode unknown: " + std::string(what) + ": " + cause.message());
}

}  // namespace carlos::protocol
