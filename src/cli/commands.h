// The `carlos` command's subcommands. main.cc makes the top-level groups
// (agent, store, system, boxes, dev, version); each part of the project adds
// its own commands to them from its own file, so that parts never edit a
// shared table.
//
// Every Add* function registers commands on the CLI11 app it is given and,
// for each command, a callback that stores the command's action in
// `*action`. main runs the action after parsing and exits with the int it
// returns (cli/exit_status.h: 0 success, 1 failure, 2 usage, 3 precondition
// failed or refused, 4 not found). Actions report their own errors
// (one clear line on stderr) before returning non-zero.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace carlos::cli {

using Action = std::function<int()>;

// `carlos version`.
void AddVersionCommand(CLI::App& root, Action* action);
// `carlos store get|put|ls|rm`.
void AddStoreCommands(CLI::App& store, Action* action);
// `carlos agent`.
void AddAgentCommand(CLI::App& agent, Action* action);
// `carlos system join|guard-exec|guard-status`.
void AddSystemCommands(CLI::App& system, Action* action);
// `carlos boxes keygen`.
void AddKeygenCommand(CLI::App& boxes, Action* action);
// `carlos boxes auto-enroll|invite|enroll|retire|list`.
void AddBoxesCommands(CLI::App& boxes, Action* action);
// `carlos dev imds`.
void AddDevImdsCommand(CLI::App& dev, Action* action);
// `carlos dev region`.
void AddDevRegionCommand(CLI::App& dev, Action* action);

// Rewrites Go-style long flags to GNU style so that CLI11 reads both, as the
// existing Go CLI's users type both: "-http" -> "--http", "-http=:80" ->
// "--http=:80". A single dash followed by one character ("-h") is left as a
// short flag; nothing after a bare "--" is touched (guard-exec passes the
// agent's own command line through). Returns the rewritten argv (argv[0]
// included).
std::vector<std::string> NormalizeGoFlags(int argc, const char* const* argv);

// The name in `names` nearest to `typed` for a "did you mean" hint: the one
// with the smallest edit distance (Levenshtein: insertions, deletions,
// substitutions), if it is at most 2 and less than typed's length, or the
// only one `typed` is a prefix of; "" when none is near. Ties: the first in
// `names`.
std::string NearestName(std::string_view typed, const std::vector<std::string>& names);

// The command `args` (NormalizeGoFlags' output, argv[0] first) names in
// `app`'s tree, checked before parsing: descends through subcommand names
// while the current command has subcommands. Returns "" when every name is
// known, else the one line to print for the first unknown one: "carlos
// boxes: unknown command \"lst\"; did you mean \"list\"? (carlos boxes -h
// lists them)" (without the hint when none is near).
std::string UnknownCommandError(CLI::App& app, const std::vector<std::string>& args);

// "carlos boxes list": the names of the parsed command path from `app`
// down (app's own name first).
std::string ParsedCommandPath(CLI::App& app);

}  // namespace carlos::cli
