// Placeholder until issue 2 lands: registers nothing, so the command's
// help does not list what is not built yet.
#include "cli/commands.h"

namespace carlos::cli {

void AddStoreCommands(CLI::App& store, Action* action) {
  (void)store;
  (void)action;
}

}  // namespace carlos::cli
