// Placeholder until issue 5 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddAgentCommand(CLI::App& agent, Action* action) {
  (void)agent;
  (void)action;
}

}  // namespace carlos::cli
