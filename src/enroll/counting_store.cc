#include "enroll/counting_store.h"

namespace carlos::enroll {

StatusOr<Object> CountingStore::Get(std::string_view key) {
  gets_.fetch_add(1, std::memory_order_relaxed);
  return inner_->Get(key);
}

StatusOr<std::string> CountingStore::Put(std::string_view key, std::string_view data,
                                         const PutOptions& options) {
  puts_.fetch_add(1, std::memory_order_relaxed);
  return inner_->Put(key, data, options);
}

StatusOr<ListPage> CountingStore::List(std::string_view prefix, std::string_view token,
                                       int max_keys) {
  lists_.fetch_add(1, std::memory_order_relaxed);
  return inner_->List(prefix, token, max_keys);
}

Status CountingStore::Delete(std::string_view key) {
  deletes_.fetch_add(1, std::memory_order_relaxed);
  return inner_->Delete(key);
}

StoreCounts CountingStore::counts() const {
  return StoreCounts{gets_.load(), puts_.load(), lists_.load(), deletes_.load()};
}

void CountingStore::Reset() {
  gets_ = 0;
  puts_ = 0;
  lists_ = 0;
  deletes_ = 0;
}

}  // namespace carlos::enroll
