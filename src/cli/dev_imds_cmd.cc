// `carlos dev imds`: the IMDS emulator (src/dev/imds_emulator.h) for one
// or more boxes on one machine, box i on port base-port + i.
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <memory>

#include "base/clock.h"
#include "base/files.h"
#include "base/signals.h"
#include "cli/commands.h"
#include "dev/imds_emulator.h"
#include "dev/imds_emulator_config.h"
#include "dev/imds_emulator_signer.h"

namespace carlos::cli {

namespace {

struct DevImdsFlags {
  int boxes = 1;
  int base_port = 8169;
  std::string host = "127.0.0.1";
  std::string config;
  std::string cert = "carlos-dev-imds-cert.pem";
  std::string key = "carlos-dev-imds-key.pem";
  std::string region = "us-east-1";
  std::string group = "dev";
  std::string asg_group;
  std::vector<std::string> tags;
  bool no_tags = false;
  std::string role = "carlos-box";
  bool no_role = false;
  std::string access_key_id = "AKIAEMULATEDIMDS0001";
  std::string secret_access_key = "emulated/secret/access/key/000000000000";
  std::string session_token = "emulated-session-token";
  int credentials_lifetime_seconds = 6 * 3600;
  int fail_first = 0;
  int hang_first = 0;
  int hang_delay_ms = 10'000;
  std::vector<std::string> not_found;
  bool imdsv1 = false;
};

StatusOr<dev::EmulatedBox> BoxFromFlags(const DevImdsFlags& f, size_t i) {
  dev::EmulatedBox b;
  char id[32];
  std::snprintf(id, sizeof id, "i-%017" PRIx64, UINT64_C(0xde00000000000000) + i);
  b.instance_id = id;
  b.region = f.region;
  b.availability_zone = f.region + "a";
  b.private_ip = "10.0." + std::to_string(i / 250) + "." + std::to_string(10 + i % 250);
  if (!f.group.empty()) b.tags["carlos:group"] = f.group;
  if (!f.asg_group.empty()) b.tags["aws:autoscaling:groupName"] = f.asg_group;
  for (const auto& t : f.tags) {
    size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--tag \"" + t + "\": want KEY=VALUE");
    }
    b.tags[t.substr(0, eq)] = t.substr(eq + 1);
  }
  b.tags_enabled = !f.no_tags;
  b.role = f.no_role ? "" : f.role;
  b.access_key_id = f.access_key_id;
  b.secret_access_key = f.secret_access_key;
  b.session_token = f.session_token;
  b.credentials_lifetime = Seconds(f.credentials_lifetime_seconds);
  b.fail_first = f.fail_first;
  b.hang_first = f.hang_first;
  b.hang_delay = Milliseconds(f.hang_delay_ms);
  b.not_found = {f.not_found.begin(), f.not_found.end()};
  b.allow_imdsv1 = f.imdsv1;
  return b;
}

int RunDevImds(const DevImdsFlags& f) {
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "carlos dev imds: %s\n", s.ToString().c_str());
    return 1;
  };
  auto stop = std::make_shared<Stop>();
  StopOnSignals(stop);  // Before any thread starts, so every thread inherits the mask.

  std::vector<dev::EmulatedBox> boxes;
  Status flag_error;
  auto defaults = [&](size_t i) {
    auto b = BoxFromFlags(f, i);
    if (!b.ok()) {
      flag_error = b.status();
      return dev::EmulatedBox{};
    }
    return *b;
  };
  if (!f.config.empty()) {
    auto text = ReadFileLimited(f.config, 1 << 20);
    if (!text.ok()) return fail(text.status().Annotate("--config"));
    auto parsed = dev::ParseEmulatorConfig(*text, defaults);
    if (!parsed.ok()) return fail(parsed.status().Annotate(f.config));
    boxes = std::move(parsed).value();
  } else {
    if (f.boxes < 1) return fail(InvalidArgument("--boxes must be at least 1"));
    for (int i = 0; i < f.boxes; i++) boxes.push_back(defaults(static_cast<size_t>(i)));
  }
  if (!flag_error.ok()) return fail(flag_error);

  auto signer = dev::LoadOrMakeSigner(f.cert, f.key);
  if (!signer.ok()) return fail(signer.status());

  dev::ImdsEmulatorOptions o;
  o.host = f.host;
  o.base_port = f.base_port;
  o.boxes = boxes;
  o.cert_pem = signer->cert_pem;
  o.key_pem = signer->key_pem;
  o.clock = RealClock();
  auto emu = dev::ImdsEmulator::Start(std::move(o));
  if (!emu.ok()) return fail(emu.status());

  std::printf(
      "carlos dev imds: the certificate that signs the identity documents is %s\n"
      "  (give it to the enroller as the AWS certificate; it is not AWS's)\n",
      f.cert.c_str());
  for (size_t i = 0; i < (*emu)->boxes(); i++) {
    std::printf("box %zu: %s on CARLOS_IMDS_ENDPOINT=%s\n", i, boxes[i].instance_id.c_str(),
                (*emu)->endpoint(i).c_str());
  }
  std::fflush(stdout);
  while (!stop->WaitFor(Milliseconds(3'600'000))) {
  }
  (*emu)->Shutdown();
  return 0;
}

}  // namespace

void AddDevImdsCommand(CLI::App& dev, Action* action) {
  auto f = std::make_shared<DevImdsFlags>();
  CLI::App* cmd = dev.add_subcommand(
      "imds",
      "Run an IMDS emulator (IMDSv2 tokens, a signed instance identity document, instance tags,\n"
      "role credentials, faults to order) for one or more boxes on this machine. Box i listens\n"
      "on --base-port + i; give agent i CARLOS_IMDS_ENDPOINT=http://HOST:PORT. Runs until\n"
      "SIGTERM or SIGINT.");
  cmd->add_option("--boxes", f->boxes, "Number of boxes (ignored with --config)")
      ->capture_default_str();
  cmd->add_option("--base-port", f->base_port, "Box i listens on this port + i (0: any free port)")
      ->capture_default_str();
  cmd->add_option("--host", f->host, "Address to listen on (keep it loopback)")
      ->capture_default_str();
  cmd->add_option("--config", f->config,
                  "JSON file of per-box settings, {\"boxes\":[{...}]}, each box's fields optional: "
                  "instance_id, region, availability_zone, account_id, image_id, instance_type, "
                  "private_ip, architecture, tags (object), tags_enabled, role, access_key_id, "
                  "secret_access_key, session_token, credentials_lifetime_seconds, fail_first, "
                  "hang_first, hang_delay_ms, not_found (paths), allow_imdsv1; flags give each "
                  "box's defaults");
  cmd->add_option("--cert", f->cert,
                  "Signing certificate (PEM); made with --key on first start when neither exists")
      ->capture_default_str();
  cmd->add_option("--key", f->key, "Signing RSA-2048 private key (PEM, written mode 0600)")
      ->capture_default_str();
  cmd->add_option("--region", f->region, "Every box's region")->capture_default_str();
  cmd->add_option("--group", f->group, "The carlos:group tag's value (\"\": no such tag)")
      ->capture_default_str();
  cmd->add_option("--asg-group", f->asg_group,
                  "The aws:autoscaling:groupName tag's value (\"\": no such tag)");
  cmd->add_option("--tag", f->tags, "Another instance tag, KEY=VALUE (repeatable)");
  cmd->add_flag("--no-tags", f->no_tags,
                "Instance tags not enabled in metadata: the tags paths answer 404");
  cmd->add_option("--role", f->role, "The instance role's name")->capture_default_str();
  cmd->add_flag("--no-role", f->no_role, "No instance role: the credentials paths answer 404");
  cmd->add_option("--access-key-id", f->access_key_id, "The role credentials' AccessKeyId")
      ->capture_default_str();
  cmd->add_option("--secret-access-key", f->secret_access_key,
                  "The role credentials' SecretAccessKey")
      ->capture_default_str();
  cmd->add_option("--session-token", f->session_token, "The role credentials' Token")
      ->capture_default_str();
  cmd->add_option("--credentials-lifetime", f->credentials_lifetime_seconds,
                  "Seconds until served role credentials expire")
      ->capture_default_str();
  cmd->add_option("--fail-first", f->fail_first, "The first N requests to each box answer 500")
      ->capture_default_str();
  cmd->add_option("--hang-first", f->hang_first,
                  "The next N requests to each box answer only after --hang-delay-ms")
      ->capture_default_str();
  cmd->add_option("--hang-delay-ms", f->hang_delay_ms, "How long a hanging request hangs, ms")
      ->capture_default_str();
  cmd->add_option("--not-found", f->not_found,
                  "A path that answers 404, e.g. /latest/meta-data/instance-id (repeatable)");
  cmd->add_flag("--imdsv1", f->imdsv1,
                "Also answer requests without a token (IMDSv1 optional; default: v2 required)");
  cmd->callback([action, f] { *action = [f] { return RunDevImds(*f); }; });
}

}  // namespace carlos::cli
