// An in-memory Store for unit tests, with injected failures.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "store/store.h"

namespace carlos::testing {

class MemStore : public Store {
 public:
  StatusOr<Object> Get(std::string_view key) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++gets;
    if (!get_error.ok()) return get_error;
    auto it = objects.find(std::string(key));
    if (it == objects.end()) return NotFound("key " + std::string(key) + " not found");
    return Object{it->second, std::to_string(it->second.size())};
  }
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++puts;
    if (!put_error.ok()) return put_error;
    std::string k(key);
    if (options.condition == PutCondition::kCreateOnly && objects.count(k)) {
      return PreconditionFailed("key " + k + " already exists");
    }
    objects[k] = std::string(data);
    return std::to_string(data.size());
  }
  StatusOr<ListPage> List(std::string_view, std::string_view, int) override {
    return Internal("not used");
  }
  Status Delete(std::string_view key) override {
    std::lock_guard<std::mutex> lock(mu_);
    objects.erase(std::string(key));
    return OkStatus();
  }
  std::string Describe() const override { return "memory"; }

  std::mutex mu_;
  std::map<std::string, std::string> objects;
  Status get_error, put_error;
  int gets = 0, puts = 0;
};

}  // namespace carlos::testing
