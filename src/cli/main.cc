// The `carlos` command: one binary, subcommands, `-h` on each.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/env.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
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
  CLI::App* help =
      app.add_subcommand("help", "Print this help, or a command's (carlos help boxes)");
  auto help_of = std::make_shared<std::vector<std::string>>();
  help->add_option("command", *help_of, "The command whose help to print, e.g. boxes list");
  help->callback([&app, &action, help_of] {
    action = [&app, help_of] {
      CLI::App* cur = &app;
      for (const auto& name : *help_of) {
        CLI::App* next = nullptr;
        for (CLI::App* s : cur->get_subcommands([](CLI::App*) { return true; })) {
          if (s->check_name(name)) next = s;
        }
        if (!next) {
          std::vector<std::string> args = {"carlos"};
          args.insert(args.end(), help_of->begin(), help_of->end());
          std::fprintf(stderr, "%s\n", carlos::cli::UnknownCommandError(app, args).c_str());
          return carlos::cli::kExitUsage;
        }
        cur = next;
      }
      std::fputs(cur->help().c_str(), stdout);
      return carlos::cli::kExitOk;
    };
  });

  CLI::App* agent = app.add_subcommand("agent", "Run the box agent (joining, then hosting)");
  carlos::cli::AddAgentCommand(*agent, &action);
  CLI::App* store = app.add_subcommand("store", "Read and write the deployment store");
  carlos::cli::AddStoreCommands(*store, &action);
  CLI::App* system = app.add_subcommand("system", "Root's commands on a box: join, the guard");
  carlos::cli::AddSystemCommands(*system, &action);
  CLI::App* boxes = app.add_subcommand("boxes", "The enroller: invite, enroll, retire, list boxes");
  carlos::cli::AddKeygenCommand(*boxes, &action);
  carlos::cli::AddBoxesCommands(*boxes, &action);
  CLI::App* dev = app.add_subcommand("dev", "Development: the IMDS emulator and the local region");
  carlos::cli::AddDevImdsCommand(*dev, &action);
  carlos::cli::AddDevRegionCommand(*dev, &action);

  std::vector<std::string> args = carlos::cli::NormalizeGoFlags(argc, argv);
  if (std::string unknown = carlos::cli::UnknownCommandError(app, args); !unknown.empty()) {
    std::fprintf(stderr, "%s\n", unknown.c_str());
    return carlos::cli::kExitUsage;
  }
  std::vector<const char*> cargs;
  for (const auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // -h, --version.
    // CLI11's own errors, with the command they are about.
    const std::string path = carlos::cli::ParsedCommandPath(app);
    std::fprintf(stderr, "%s: %s\nRun '%s -h' for its options.\n", path.c_str(), e.what(),
                 path.c_str());
    return carlos::cli::kExitUsage;
  }
  if (!action) {
    // A group alone (carlos boxes): its help, which lists its subcommands.
    CLI::App* cur = &app;
    while (!cur->get_subcommands().empty()) cur = cur->get_subcommands().front();
    std::fputs(cur->help().c_str(), stdout);
    return cur == &app ? carlos::cli::kExitOk : carlos::cli::kExitUsage;
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
