// `carlos store get|put|ls|rm`: the deployment store from the shell, for
// operators and for tests that need real processes racing on one key.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "base/env.h"
#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/store_options.h"
#include "store/store.h"

namespace carlos::cli {

namespace {

constexpr const char* kFooter =
    "Exit codes: 0 ok, 1 error (the store, IMDS or credentials failed), 2 usage, 3 precondition "
    "failed (a create-only key exists, or the version tag no longer matches: only these), 4 "
    "not found (the key).\n"
    "The store is the one the environment names: CARLOS_DEPLOYMENT_DIR, or "
    "CARLOS_DEPLOYMENT_BUCKET (with CARLOS_S3_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, "
    "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).";

int Fail(const Status& s) {
  std::fprintf(stderr, "carlos store: %s\n", s.message().c_str());
  return ExitStatusOf(s);
}

bool WriteAll(std::string_view data) {
  return std::fwrite(data.data(), 1, data.size(), stdout) == data.size() &&
         std::fflush(stdout) == 0;
}

struct Flags {
  std::string key;
  std::string prefix;
  bool create_only = false;
  std::string if_match;
  bool tag_only = false;
  std::string timeout;
  std::string command;  // "carlos store get"
};

StatusOr<std::unique_ptr<Store>> Open(const Flags& f) {
  return OpenStore(ProcessGetenv(), CommandStoreOptions(f.command, f.timeout));
}

int RunGet(const Flags& f) {
  auto store = Open(f);
  if (!store.ok()) return Fail(store.status());
  auto obj = (*store)->Get(f.key);
  if (!obj.ok()) return Fail(obj.status());
  if (f.tag_only) return WriteAll(obj->version + "\n") ? kExitOk : kExitError;
  std::fprintf(stderr, "version %s\n", obj->version.c_str());
  return WriteAll(obj->data) ? kExitOk : kExitError;
}

int RunPut(const Flags& f) {
  if (f.create_only && !f.if_match.empty()) {
    std::fputs("carlos store: --create-only and --if-match exclude each other\n", stderr);
    return kExitUsage;
  }
  // Reads at most one byte more than the store allows, so that an oversized
  // input is refused by the store's own check without reading it all.
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    data.append(buf, n);
    if (data.size() > kMaxObjectBytes) break;
  }
  if (std::ferror(stdin)) {
    std::fputs("carlos store: reading stdin failed; nothing written\n", stderr);
    return kExitError;
  }
  PutOptions opts;
  if (f.create_only) opts.condition = PutCondition::kCreateOnly;
  if (!f.if_match.empty()) {
    opts.condition = PutCondition::kIfMatch;
    opts.if_match = f.if_match;
  }
  auto store = Open(f);
  if (!store.ok()) return Fail(store.status());
  auto tag = (*store)->Put(f.key, data, opts);
  if (!tag.ok()) return Fail(tag.status());
  return WriteAll(*tag + "\n") ? kExitOk : kExitError;
}

int RunList(const Flags& f) {
  auto store = Open(f);
  if (!store.ok()) return Fail(store.status());
  auto keys = ListAll(**store, f.prefix);
  if (!keys.ok()) return Fail(keys.status());
  std::string out;
  for (const auto& k : *keys) out += k + "\n";
  return WriteAll(out) ? kExitOk : kExitError;
}

int RunDelete(const Flags& f) {
  auto store = Open(f);
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->Delete(f.key);
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

}  // namespace

void AddStoreCommands(CLI::App& store, Action* action) {
  auto flags = std::make_shared<Flags>();
  store.footer(kFooter);

  CLI::App* get =
      store.add_subcommand("get", "Print KEY's bytes on stdout and 'version TAG' on stderr");
  get->footer(kFooter);
  get->add_option("KEY", flags->key, "The key, e.g. control/boxes/web-1.json")->required();
  get->add_flag("--tag", flags->tag_only,
                "Print only the version tag and a newline on stdout (for put --if-match)");
  AddTimeoutFlag(get, &flags->timeout);
  get->callback([action, flags] {
    flags->command = "carlos store get";
    *action = [flags] { return RunGet(*flags); };
  });

  CLI::App* put = store.add_subcommand(
      "put", "Write stdin's bytes (at most 1 MiB) at KEY; print the new version tag");
  put->footer(kFooter);
  put->add_option("KEY", flags->key, "The key, e.g. control/boxes/web-1.json")->required();
  put->add_flag("--create-only", flags->create_only,
                "Write only if KEY does not exist yet (S3 If-None-Match: *)");
  put->add_option("--if-match", flags->if_match,
                  "Write only if KEY's version tag is still TAG (compare-and-swap)")
      ->type_name("TAG");
  AddTimeoutFlag(put, &flags->timeout);
  put->callback([action, flags] {
    flags->command = "carlos store put";
    *action = [flags] { return RunPut(*flags); };
  });

  CLI::App* ls = store.add_subcommand("ls", "List the keys that start with PREFIX, one a line");
  ls->footer(kFooter);
  ls->add_option("PREFIX", flags->prefix, "The prefix, e.g. control/boxes/ (default: all keys)");
  AddTimeoutFlag(ls, &flags->timeout);
  ls->callback([action, flags] {
    flags->command = "carlos store ls";
    *action = [flags] { return RunList(*flags); };
  });

  CLI::App* rm = store.add_subcommand("rm", "Delete KEY (succeeds when it does not exist)");
  rm->footer(kFooter);
  rm->add_option("KEY", flags->key, "The key")->required();
  AddTimeoutFlag(rm, &flags->timeout);
  rm->callback([action, flags] {
    flags->command = "carlos store rm";
    *action = [flags] { return RunDelete(*flags); };
  });
}

}  // namespace carlos::cli
