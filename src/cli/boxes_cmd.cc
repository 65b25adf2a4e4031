// Placeholder until issue 7 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddBoxesCommands(CLI::App& boxes, Action* action) {
  (void)boxes;
  (void)action;
}

}  // namespace carlos::cli
