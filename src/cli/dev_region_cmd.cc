// Placeholder until issue 8 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddDevRegionCommand(CLI::App& dev, Action* action) {
  (void)dev;
  (void)action;
}

}  // namespace carlos::cli
