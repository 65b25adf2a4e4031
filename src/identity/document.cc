#include "identity/document.h"

#include <fmt/format.h>

#include "identity/canonical.h"
#include "identity/encoding.h"
#include "identity/refusal.h"

namespace carlos::identity {

namespace {

constexpr std::string_view kFormat = "format";
constexpr std::string_view kSigner = "signer";
constexpr std::string_view kSignature = "signature";

// Size, canonical JSON, an object, the format tag: what every document's
// parse checks first.
StatusOr<nlohmann::json> ParseObject(std::string_view bytes, std::string_view format,
                                     std::string_view what) {
  if (bytes.size() > kMaxDocumentBytes) {
    return Refuse(Refusal::kOversized, what,
                  fmt::format("it has {} bytes, more than the {} a document may have", bytes.size(),
                              kMaxDocumentBytes));
  }
  CARLOS_ASSIGN_OR_RETURN(nlohmann::json object, ParseCanonical(bytes, what));
  if (!object.is_object()) return Refuse(Refusal::kMalformed, what, "it is not a JSON object");
  auto tag = object.find(kFormat);
  if (tag == object.end()) {
    return Refuse(Refusal::kUnknownFormat, what,
                  fmt::format("it has no \"format\" tag (expected \"{}\")", format));
  }
  if (!tag->is_string() || tag->get_ref<const std::string&>() != format) {
    std::string got = tag->is_string() ? tag->get<std::string>() : std::string("a non-string");
    if (got.size() > 80) got = got.substr(0, 80) + "...";
    return Refuse(Refusal::kUnknownFormat, what,
                  fmt::format("its format is \"{}\", expected \"{}\"", got, format));
  }
  return object;
}

}  // namespace

StatusOr<std::string> SignObject(nlohmann::json object, const PrivateKey& key) {
  if (!object.is_object()) return InvalidArgument("only a JSON object can be signed");
  if (object.contains(kSigner) || object.contains(kSignature)) {
    return InvalidArgument("the object to sign already has \"signer\" or \"signature\"");
  }
  object[std::string(kSigner)] = key.public_key().ToString();
  CARLOS_ASSIGN_OR_RETURN(std::string payload, Canonicalize(object));
  CARLOS_ASSIGN_OR_RETURN(std::string signature, key.Sign(payload));
  object[std::string(kSignature)] = Base64Encode(signature);
  CARLOS_ASSIGN_OR_RETURN(std::string bytes, Canonicalize(object));
  if (bytes.size() > kMaxDocumentBytes) {
    return InvalidArgument(fmt::format("the signed document has {} bytes, more than the {} allowed",
                                       bytes.size(), kMaxDocumentBytes));
  }
  return bytes;
}

StatusOr<SignedObject> ParseSignedObject(std::string_view bytes, std::string_view format,
                                         std::string_view what) {
  CARLOS_ASSIGN_OR_RETURN(nlohmann::json object, ParseObject(bytes, format, what));
  auto signer = object.find(kSigner);
  if (signer == object.end() || !signer->is_string()) {
    return Refuse(Refusal::kMalformed, what, "\"signer\" is missing or not a string");
  }
  StatusOr<PublicKey> key = PublicKey::Parse(signer->get_ref<const std::string&>());
  if (!key.ok()) {
    return Refuse(Refusal::kMalformed, what,
                  "\"signer\" is not a valid public key: " + key.status().message());
  }
  if (signer->get_ref<const std::string&>() != key->ToString()) {
    return Refuse(Refusal::kMalformed, what,
                  "\"signer\" is not a public key written \"ed25519:<base64>\"");
  }
  auto sig = object.find(kSignature);
  if (sig == object.end() || !sig->is_string()) {
    return Refuse(Refusal::kMalformed, what, "\"signature\" is missing or not a string");
  }
  StatusOr<std::string> raw = Base64Decode(sig->get_ref<const std::string&>());
  if (!raw.ok() || raw->size() != kEd25519SignatureBytes) {
    return Refuse(Refusal::kMalformed, what,
                  "\"signature\" is not the base64 of a 64-byte Ed25519 signature");
  }
  SignedObject out;
  out.signer = *key;
  out.signature = std::move(*raw);
  nlohmann::json unsigned_object = object;
  unsigned_object.erase(std::string(kSignature));
  // Canonicalize cannot fail here: ParseCanonical already encoded the whole.
  CARLOS_ASSIGN_OR_RETURN(out.signed_payload, Canonicalize(unsigned_object));
  out.object = std::move(object);
  out.bytes = std::string(bytes);
  out.digest = Sha256Digest(bytes);
  return out;
}

StatusOr<nlohmann::json> ParseUnsignedObject(std::string_view bytes, std::string_view format,
                                             std::string_view what, std::string* digest) {
  CARLOS_ASSIGN_OR_RETURN(nlohmann::json object, ParseObject(bytes, format, what));
  if (digest != nullptr) *digest = Sha256Digest(bytes);
  return object;
}

Status VerifySignature(const std::optional<PublicKey>& signer, std::string_view signed_payload,
                       std::string_view signature, const PublicKey& expected,
                       std::string_view what) {
  if (!signer.has_value()) {
    return Refuse(Refusal::kMalformed, what, "it carries no signature");
  }
  if (!(*signer == expected)) {
    return Refuse(Refusal::kWrongKey, what,
                  fmt::format("it is signed by {}, not by the expected {}", signer->ToString(),
                              expected.ToString()));
  }
  std::optional<SignatureDefect> defect = expected.CheckSignature(signed_payload, signature);
  if (defect) {
    return Refuse(Refusal::kBadSignature, what,
                  fmt::format("its signature does not verify under {}: {}", expected.ToString(),
                              SignatureDefectName(*defect)));
  }
  return OkStatus();
}

}  // namespace carlos::identity
