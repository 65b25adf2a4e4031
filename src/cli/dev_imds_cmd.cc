// Placeholder until issue 4 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddDevImdsCommand(CLI::App& dev, Action* action) {
  (void)dev;
  (void)action;
}

}  // namespace carlos::cli
