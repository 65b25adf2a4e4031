#include "enroll/settings.h"

#include <dirent.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <memory>

#include "base/duration.h"
#include "base/files.h"
#include "base/strings.h"
#include "identity/iid.h"
#include "protocol/settings.h"
#include "protocol/timings.h"

namespace carlos::enroll {

namespace {

constexpr std::string_view kPemSuffix = ".pem";

}  // namespace

const std::string* IidCertificates::For(std::string_view region) const {
  auto it = by_region.find(region);
  if (it != by_region.end()) return &it->second;
  if (!any_region_pem.empty()) return &any_region_pem;
  return nullptr;
}

StatusOr<IidCertificates> LoadIidCertificates(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", path);
  IidCertificates certs;
  if (!S_ISDIR(st.st_mode)) {
    CARLOS_ASSIGN_OR_RETURN(certs.any_region_pem, identity::ReadCertificateBundleFile(path));
    return certs;
  }
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) return ErrnoStatus(errno, "opendir", path);
  while (dirent* e = readdir(dir.get())) {
    std::string_view name = e->d_name;
    if (name.size() <= kPemSuffix.size() || !name.ends_with(kPemSuffix)) continue;
    std::string region(name.substr(0, name.size() - kPemSuffix.size()));
    if (!IsLabel(region)) continue;
    CARLOS_ASSIGN_OR_RETURN(certs.by_region[region],
                            identity::ReadCertificateBundleFile(path + "/" + e->d_name));
  }
  if (certs.by_region.empty()) {
    return InvalidArgument(path + " is a directory without any <region>.pem certificate");
  }
  return certs;
}

StatusOr<std::optional<std::set<std::string, std::less<>>>> ParseAwsAccounts(
    std::string_view value) {
  if (TrimSpace(value).empty()) return std::optional<std::set<std::string, std::less<>>>();
  std::set<std::string, std::less<>> accounts;
  for (const std::string& part : Split(value, ',')) {
    std::string id = TrimSpace(part);
    const bool digits = id.size() == 12 && id.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      return InvalidArgument(fmt::format(
          "CARLOS_AWS_ACCOUNTS: \"{}\" is not an AWS account id (12 digits); give the accounts "
          "whose instances may join, separated by commas (e.g. 111111111111,222222222222), or "
          "leave it unset to accept any account",
          id));
    }
    accounts.insert(std::move(id));
  }
  return std::optional(std::move(accounts));
}

bool AwsAccountAllowed(const EnrollerSettings& settings, std::string_view account_id) {
  return !settings.aws_accounts || settings.aws_accounts->contains(account_id);
}

std::string AwsAccountsClause(const EnrollerSettings& settings) {
  if (!settings.aws_accounts) {
    return "any AWS account's instances are accepted (CARLOS_AWS_ACCOUNTS is not set)";
  }
  return fmt::format("only instances of AWS accounts {} are accepted (CARLOS_AWS_ACCOUNTS)",
                     fmt::join(*settings.aws_accounts, ", "));
}

namespace {

// A setting's file that cannot be used: the setting is wrong, so a missing
// file is kInvalidArgument, never kNotFound (which the commands report as a
// missing box document, exit 4); other codes stay (a read that may succeed
// later stays kUnavailable).
Status SettingFileError(std::string_view var, const Status& st) {
  Status named = st.Annotate(var);
  if (st.code() == Code::kNotFound) return InvalidArgument(named.message());
  return named;
}

}  // namespace

StatusOr<EnrollerSettings> SettingsFromEnv(const Getenv& getenv, KeyNeed need) {
  EnrollerSettings s;

  std::string key_path = TrimSpace(getenv("CARLOS_ENROLLMENT_KEY"));
  std::string pub_text = TrimSpace(getenv(protocol::kEnrollmentPubkeyVar));
  if (!key_path.empty()) {
    StatusOr<identity::PrivateKey> key = identity::LoadPrivateKeyFile(key_path);
    if (!key.ok()) return SettingFileError("CARLOS_ENROLLMENT_KEY", key.status());
    s.enrollment_public_key = key->public_key();
    s.enrollment_key = std::move(*key);
  } else if (need == KeyNeed::kPrivate) {
    return InvalidArgument(
        "CARLOS_ENROLLMENT_KEY is not set: set it to the enrollment key's file (carlos boxes "
        "keygen --out)");
  }
  if (!pub_text.empty()) {
    StatusOr<identity::PublicKey> pub = protocol::EnrollmentPublicKeyFromEnv(getenv);
    if (!pub.ok()) return pub.status();
    if (s.enrollment_key && !(*pub == s.enrollment_public_key)) {
      return InvalidArgument("CARLOS_ENROLLMENT_PUBKEY is " + pub->ToString() +
                             ", but the key in CARLOS_ENROLLMENT_KEY is " +
                             s.enrollment_public_key.ToString());
    }
    s.enrollment_public_key = *pub;
  } else if (!s.enrollment_key) {
    return InvalidArgument(
        "neither CARLOS_ENROLLMENT_KEY nor CARLOS_ENROLLMENT_PUBKEY is set: the enroller cannot "
        "check invitations and enrollments without the enrollment key");
  }

  s.allow_unattested = SwitchOn(getenv, "CARLOS_ALLOW_UNATTESTED");
  std::string cert_path = TrimSpace(getenv("CARLOS_AWS_IID_CERT"));
  if (!cert_path.empty()) {
    StatusOr<IidCertificates> certs = LoadIidCertificates(cert_path);
    if (!certs.ok()) return SettingFileError("CARLOS_AWS_IID_CERT", certs.status());
    s.iid_certificates = std::move(*certs);
  } else if (need == KeyNeed::kPrivate && !s.allow_unattested) {
    return InvalidArgument(
        "CARLOS_AWS_IID_CERT is not set: set it to AWS's RSA-2048 instance identity certificate "
        "(a PEM file, or a directory of <region>.pem), or set CARLOS_ALLOW_UNATTESTED=1 to "
        "admit boxes without one");
  }

  StatusOr<std::optional<std::set<std::string, std::less<>>>> accounts =
      ParseAwsAccounts(getenv("CARLOS_AWS_ACCOUNTS"));
  if (!accounts.ok()) return accounts.status();
  s.aws_accounts = std::move(*accounts);

  std::string region = TrimSpace(getenv("CARLOS_REGION"));
  if (!region.empty()) {
    if (!IsLabel(region)) {
      return InvalidArgument("CARLOS_REGION: " + region +
                             " is not a region label ([a-z0-9-]{1,63})");
    }
    s.region = region;
  }
  std::string floor = TrimSpace(getenv("CARLOS_FLOOR_RELEASE"));
  if (!floor.empty()) {
    if (floor.size() > 128) return InvalidArgument("CARLOS_FLOOR_RELEASE: longer than 128 bytes");
    s.floor_release = floor;
  }

  StatusOr<protocol::Timings> timings = protocol::TimingsFromEnv(getenv);
  if (!timings.ok()) return timings.status();
  s.every = timings->join_every;
  s.report_freshness = timings->report_freshness;
  s.invitation_lifetime = timings->invitation_lifetime;
  s.report_clock_skew = timings->report_clock_skew;

  std::string check = TrimSpace(getenv("CARLOS_ENROLL_CHECK_EVERY"));
  if (!check.empty()) {
    StatusOr<std::chrono::nanoseconds> d = ParseDuration(check);
    if (!d.ok() || *d < std::chrono::milliseconds(10)) {
      return InvalidArgument("CARLOS_ENROLL_CHECK_EVERY: " + check +
                             " is not a duration of 10ms or more (e.g. 1s)");
    }
    s.check_every = std::chrono::duration_cast<Milliseconds>(*d);
  }

  std::string workers = TrimSpace(getenv("CARLOS_ENROLL_WORKERS"));
  if (!workers.empty()) {
    int n = 0;
    auto [end, ec] = std::from_chars(workers.data(), workers.data() + workers.size(), n);
    if (ec != std::errc() || end != workers.data() + workers.size() || n < 1 || n > 64) {
      return InvalidArgument("CARLOS_ENROLL_WORKERS: " + workers + " is not a number from 1 to 64");
    }
    s.workers = n;
  }
  return s;
}

}  // namespace carlos::enroll
