#include "status/report.h"

#include "base/files.h"
#include "base/strings.h"
#include "identity/store_keys.h"

namespace carlos::status {

identity::StatusReport BuildReport(const Probes& probes, SystemTime now, bool hosting,
                                   std::string_view stage,
                                   std::optional<identity::GuardFacts> guard) {
  identity::StatusReport r;
  r.box = probes.box;
  r.region = probes.region;
  r.machine_id = probes.machine_id;
  r.instance_id = probes.instance_id;
  r.release = probes.release;
  r.platform = probes.platform;
  r.system_channel = probes.system_channel;
  r.reported_at = now;
  r.hosting = hosting;
  r.stage = std::string(stage);
  r.guard = std::move(guard);
  return r;
}

Status PublishReport(Store& store, const identity::PrivateKey& box_key,
                     const identity::StatusReport& report) {
  const std::string key = identity::StatusKey(report.box);
  StatusOr<std::string> bytes = identity::SignStatusReport(report, box_key);
  if (!bytes.ok()) return bytes.status().Annotate("sign " + key);
  StatusOr<std::string> put = store.Put(key, *bytes, PutOptions{});
  if (!put.ok()) return put.status().Annotate("publish " + key);
  return OkStatus();
}

StatusOr<std::string> ReadMachineId(const std::string& path) {
  StatusOr<std::string> data = ReadFileLimited(path, 4096);
  if (!data.ok()) return data.status();
  std::string id = TrimSpace(data->substr(0, data->find('\n')));
  if (id.empty()) return Corrupt(path + " is empty");
  if (id.size() > 128) return Corrupt(path + " holds more than 128 bytes on its first line");
  return id;
}

std::string MachineIdPath(const Getenv& getenv) {
  return EnvOr(getenv, "CARLOS_MACHINE_ID_FILE", "/etc/machine-id");
}

}  // namespace carlos::status
