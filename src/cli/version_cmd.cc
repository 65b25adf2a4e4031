#include <cstdio>

#include "cli/commands.h"
#include "protocol/version.h"

namespace carlos::cli {

void AddVersionCommand(CLI::App& root, Action* action) {
  CLI::App* cmd = root.add_subcommand("version", "Print the release and the platform");
  root.set_version_flag(
      "--version", "carlos " + carlos::protocol::Release() + " " + carlos::protocol::Platform(),
      "Print the release and the platform (as carlos version)");
  cmd->callback([action] {
    *action = [] {
      std::printf("carlos %s %s\n", carlos::protocol::Release().c_str(),
                  carlos::protocol::Platform().c_str());
      return 0;
    };
  });
}

}  // namespace carlos::cli
