#include "dev/region_imds.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <climits>

#include "base/files.h"
#include "base/strings.h"
#include "dev/imds_emulator_signer.h"

namespace carlos::dev {

StatusOr<std::unique_ptr<ImdsEmulator>> StartRegionImds(const RegionLayout& layout, int boxes,
                                                        int base_port, const std::string& region,
                                                        Clock* clock) {
  auto signer = LoadOrMakeSigner(layout.imds_cert(), layout.imds_key());
  if (!signer.ok()) return signer.status().Annotate("the IMDS emulator's certificate");
  ImdsEmulatorOptions o;
  o.host = "127.0.0.1";
  // The emulator numbers its boxes from 0 at base_port; the region's box i
  // (from 1) is at BoxImdsPort(base_port, i).
  o.base_port = BoxImdsPort(base_port, 1);
  o.cert_pem = signer->cert_pem;
  o.key_pem = signer->key_pem;
  o.clock = clock;
  for (int i = 1; i <= boxes; ++i) {
    EmulatedBox b;
    b.instance_id = BoxInstanceId(i);
    b.region = region;
    b.availability_zone = region + "a";
    b.private_ip = "10.0.0." + std::to_string(10 + i);
    o.boxes.push_back(std::move(b));
  }
  auto emulator = ImdsEmulator::Start(std::move(o));
  if (!emulator.ok()) return emulator.status().Annotate("the IMDS emulator");
  return emulator;
}

RegionImdsFaults::RegionImdsFaults(const RegionLayout& layout, int boxes, int base_port,
                                   std::string region, Clock* clock,
                                   std::unique_ptr<ImdsEmulator>* imds, Logf logf)
    : layout_(layout),
      boxes_(boxes),
      base_port_(base_port),
      region_(std::move(region)),
      clock_(clock),
      imds_(imds),
      logf_(std::move(logf)) {}

void RegionImdsFaults::End() {
  if (kind_ == "refuse") {
    auto started = StartRegionImds(layout_, boxes_, base_port_, region_, clock_);
    if (!started.ok()) {
      // Tried again at the next tick: the fault lasts until it starts.
      logf_("region: IMDS fault: the emulator did not start again: " + started.status().ToString() +
            "; trying again");
      return;
    }
    *imds_ = std::move(*started);
  } else if (*imds_) {
    for (size_t i = 0; i < (*imds_)->boxes(); ++i) {
      (*imds_)->Update(i, [](EmulatedBox& b) {
        b.fail_first = 0;
        b.hang_first = 0;
      });
    }
  }
  logf_(fmt::format("region: IMDS fault: {} ended; IMDS answers again", kind_));
  kind_.clear();
  until_.reset();
}

void RegionImdsFaults::Tick(SystemTime now) {
  const std::string path = layout_.imds_fault();
  if (::access(path.c_str(), F_OK) == 0) {
    StatusOr<std::string> text = ReadFileLimited(path, 256);
    ::unlink(path.c_str());
    std::vector<std::string> f =
        text.ok() ? Split(TrimSpace(*text), ' ') : std::vector<std::string>{};
    int ms = 0;
    bool ok = f.size() == 2 && (f[0] == "500" || f[0] == "hang" || f[0] == "refuse");
    if (ok) {
      auto [end, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), ms);
      ok = ec == std::errc() && end == f[1].data() + f[1].size() && ms >= 1 && ms <= 600'000;
    }
    if (!ok) {
      logf_(fmt::format("region: IMDS fault: {} is not \"500|hang|refuse <1-600000 ms>\"; ignored",
                        path));
    } else {
      if (!kind_.empty()) End();
      if (kind_.empty()) {
        kind_ = f[0];
        until_ = now + Milliseconds(ms);
        if (kind_ == "refuse") {
          if (*imds_) (*imds_)->Shutdown();
          imds_->reset();
        } else {
          for (size_t i = 0; i < (*imds_)->boxes(); ++i) {
            (*imds_)->Update(i, [&](EmulatedBox& b) {
              b.fail_first = kind_ == "500" ? INT_MAX : 0;
              b.hang_first = kind_ == "hang" ? INT_MAX : 0;
              b.hang_delay = Milliseconds(ms);
            });
          }
        }
        logf_(fmt::format("region: IMDS fault: {} for {} ({})", kind_,
                          FormatDuration(Milliseconds(ms)), path));
      }
    }
  }
  if (until_ && now >= *until_) End();
}

}  // namespace carlos::dev
