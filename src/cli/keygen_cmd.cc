// `carlos boxes keygen --out PATH`: makes the deployment's
// enrollment key. The private key goes to PATH (mode 0600, never over an
// existing file: losing an enrollment key silently would orphan every
// invitation and enrollment signed with it); the public key is printed on
// stdout in the form CARLOS_ENROLLMENT_PUBKEY takes ("ed25519:<base64>"), so
// `carlos boxes keygen --out k > pub` captures it. `--public KEYFILE` prints
// the public key of an existing key file the same way, and writes nothing.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "identity/keys.h"

namespace carlos::cli {

void AddKeygenCommand(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "keygen",
      "Make the deployment's enrollment key: write the private key to --out (mode 0600, never "
      "over an existing file) and print the public key for CARLOS_ENROLLMENT_PUBKEY; or, with "
      "--public KEYFILE, print an existing key's public key");
  auto out = std::make_shared<std::string>();
  auto pub = std::make_shared<std::string>();
  CLI::Option* out_opt =
      cmd->add_option("--out", *out, "Where to write the new private key (PKCS #8 PEM)")
          ->type_name("PATH");
  CLI::Option* pub_opt =
      cmd->add_option("--public", *pub,
                      "Print the public key of this existing private key file, and write nothing")
          ->type_name("KEYFILE");
  out_opt->excludes(pub_opt);
  cmd->footer(
      "Exit codes: 0 ok, 1 the key could not be made, written (--out names a file that exists: "
      "it is left untouched) or read (the line says why), 2 usage (neither or both of --out and "
      "--public).");
  cmd->callback([action, out, pub] {
    if (out->empty() && pub->empty()) {
      throw CLI::RequiredError("--out PATH (a new key) or --public KEYFILE (an existing one)");
    }
    *action = [out, pub] {
      if (!pub->empty()) {
        StatusOr<identity::PrivateKey> key = identity::LoadPrivateKeyFile(*pub);
        if (!key.ok()) {
          std::fprintf(stderr, "carlos boxes keygen: %s: %s\n", pub->c_str(),
                       key.status().message().c_str());
          return kExitError;
        }
        std::printf("%s\n", key->public_key().ToString().c_str());
        return std::fflush(stdout) == 0 ? kExitOk : kExitError;
      }
      auto key = identity::PrivateKey::Generate();
      if (!key.ok()) {
        std::fprintf(stderr, "carlos boxes keygen: %s\n", key.status().ToString().c_str());
        return kExitError;
      }
      Status written = identity::WriteNewPrivateKeyFile(*out, *key);
      if (!written.ok()) {
        std::fprintf(stderr, "carlos boxes keygen: the enrollment key was not written: %s\n",
                     written.ToString().c_str());
        return kExitError;
      }
      std::fprintf(stderr,
                   "carlos boxes keygen: wrote the enrollment key to %s; set "
                   "CARLOS_ENROLLMENT_PUBKEY on every box to the public key below\n",
                   out->c_str());
      std::printf("%s\n", key->public_key().ToString().c_str());
      return std::fflush(stdout) == 0 ? kExitOk : kExitError;
    };
  });
}

}  // namespace carlos::cli
