// `carlos boxes keygen --out PATH`: makes the deployment's
// enrollment key. The private key goes to PATH (mode 0600, never over an
// existing file: losing an enrollment key silently would orphan every
// invitation and enrollment signed with it); the public key is printed on
// stdout in the form CARLOS_ENROLLMENT_PUBKEY takes ("ed25519:<base64>"), so
// `carlos boxes keygen --out k > pub` captures it.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "identity/keys.h"

namespace carlos::cli {

void AddKeygenCommand(CLI::App& boxes, Action* action) {
  CLI::App* cmd = boxes.add_subcommand(
      "keygen",
      "Make the deployment's enrollment key: write the private key to --out (mode 0600, never "
      "over an existing file) and print the public key for CARLOS_ENROLLMENT_PUBKEY");
  auto out = std::make_shared<std::string>();
  cmd->add_option("--out", *out, "Where to write the new private key (PKCS #8 PEM)")->required();
  cmd->callback([action, out] {
    *action = [out] {
      auto key = identity::PrivateKey::Generate();
      if (!key.ok()) {
        std::fprintf(stderr, "carlos boxes keygen: %s\n", key.status().ToString().c_str());
        return 1;
      }
      Status written = identity::WriteNewPrivateKeyFile(*out, *key);
      if (!written.ok()) {
        std::fprintf(stderr, "carlos boxes keygen: the enrollment key was not written: %s\n",
                     written.ToString().c_str());
        return 1;
      }
      std::fprintf(stderr,
                   "carlos boxes keygen: wrote the enrollment key to %s; set "
                   "CARLOS_ENROLLMENT_PUBKEY on every box to the public key below\n",
                   out->c_str());
      std::printf("%s\n", key->public_key().ToString().c_str());
      return 0;
    };
  });
}

}  // namespace carlos::cli
