// Placeholder until issue 6 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddSystemCommands(CLI::App& system, Action* action) {
  (void)system;
  (void)action;
}

}  // namespace carlos::cli
