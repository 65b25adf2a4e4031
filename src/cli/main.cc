// The `carlos` command: one binary, subcommands, `-h` on each.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "cli/commands.h"
#include "imds/client.h"
#include "imds/role_credentials.h"

int main(int argc, char** argv) {
  using carlos::cli::Action;
  CLI::App app{
      "carlos: the CARLOS box agent and the commands around its region-HA join lifecycle.\n"
      "Run 'carlos COMMAND -h' for a command's options.",
      "carlos"};
  app.require_subcommand(0, 1);
  app.set_help_all_flag("--help-all", "Print help for every command");
  Action action;

  carlos::cli::AddVersionCommand(app, &action);
  CLI::App* help = app.add_subcommand("help", "Print this help");
  help->callback([&] {
    action = [&] {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    };
  });

  CLI::App* agent = app.add_subcommand("agent", "Run the box agent (joining, then hosting)");
  carlos::cli::AddAgentCommand(*agent, &action);
  CLI::App* store = app.add_subcommand("store", "Read and write the deployment store");
  store->require_subcommand(1);
  carlos::cli::AddStoreCommands(*store, &action);
  CLI::App* system = app.add_subcommand("system", "Root's commands on a box: join, the guard");
  system->require_subcommand(1);
  carlos::cli::AddSystemCommands(*system, &action);
  CLI::App* boxes = app.add_subcommand("boxes", "The enroller: invite, enroll, retire, list boxes");
  boxes->require_subcommand(1);
  carlos::cli::AddKeygenCommand(*boxes, &action);
  carlos::cli::AddBoxesCommands(*boxes, &action);
  CLI::App* dev = app.add_subcommand("dev", "Development: the IMDS emulator and the local region");
  dev->require_subcommand(1);
  carlos::cli::AddDevImdsCommand(*dev, &action);
  carlos::cli::AddDevRegionCommand(*dev, &action);

  std::vector<std::string> args = carlos::cli::NormalizeGoFlags(argc, argv);
  std::vector<const char*> cargs;
  for (const auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!action) {
    std::fputs(app.help().c_str(), stdout);
    return app.get_subcommands().empty() ? 0 : 2;
  }
  // The S3 backend's credentials: the AWS_* variables first, then the
  // instance role from IMDS (DESIGN.md, "Switches and settings"), as the AWS
  // SDKs' default chain does. Nothing is asked of IMDS until a store request
  // needs keys the environment does not have.
  carlos::Getenv getenv = carlos::ProcessGetenv();
  if (carlos::SwitchOn(getenv, "CARLOS_DEPLOYMENT_BUCKET")) {
    carlos::imds::InstallImdsRoleCredentialsFallback(std::make_shared<carlos::imds::ImdsClient>(
        carlos::imds::ImdsOptionsFromEnv(getenv), carlos::RealClock()));
  }
  return action();
}
