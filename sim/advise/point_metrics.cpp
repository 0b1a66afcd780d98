#include "sim/advise/point_metrics.hpp"

#include <nlohmann/json.hpp>

namespace plansim::advise {

PointMetrics metrics_of(const Report& r) {
  PointMetrics m;
  m.iteration_s = r.iteration.seconds();
  m.tokens_per_s = r.tokens_per_s;
  m.mfu = r.mfu;
  m.bubble_fraction = r.bubble_fraction;
  m.bubble_overhead = r.bubble_overhead;
  m.exposed_comm_s = r.exposed_comm_s;
  m.memory_peak_gib = r.memory_peak.value() / 1073741824.0;
  m.hbm_capacity_gib = r.hbm_capacity.value() / 1073741824.0;
  m.oom = r.oom;
  m.world = r.world;
  m.micro_batches = r.micro_batches;
  return m;
}

const std::array<const char*, 5>& dim_names() {
  static constexpr std::array<const char*, 5> names{"tp", "cp", "ep", "dp", "pp"};
  return names;
}

std::string metrics_json(const PointMetrics& m) {
  nlohmann::ordered_json j;
  j["iteration_s"] = m.iteration_s;
  j["tokens_per_s"] = m.tokens_per_s;
  j["mfu"] = m.mfu;
  j["bubble_fraction"] = m.bubble_fraction;
  j["bubble_overhead"] = m.bubble_overhead;
  nlohmann::ordered_json e;
  for (size_t d = 0; d < 5; ++d) e[dim_names()[d]] = m.exposed_comm_s[d];
  j["exposed_comm_s"] = e;
  j["memory_peak_GiB"] = m.memory_peak_gib;
  j["hbm_capacity_GiB"] = m.hbm_capacity_gib;
  j["oom"] = m.oom;
  j["world"] = m.world;
  j["micro_batches"] = m.micro_batches;
  return j.dump();
}

PointMetrics metrics_from_json(const std::string& json) {
  const auto j = nlohmann::json::parse(json);
  PointMetrics m;
  m.iteration_s = j.at("iteration_s").get<double>();
  m.tokens_per_s = j.at("tokens_per_s").get<double>();
  m.mfu = j.at("mfu").get<double>();
  m.bubble_fraction = j.at("bubble_fraction").get<double>();
  m.bubble_overhead = j.at("bubble_overhead").get<double>();
  for (size_t d = 0; d < 5; ++d) m.exposed_comm_s[d] = j.at("exposed_comm_s").at(dim_names()[d]).get<double>();
  m.memory_peak_gib = j.at("memory_peak_GiB").get<double>();
  m.hbm_capacity_gib = j.at("hbm_capacity_GiB").get<double>();
  m.oom = j.at("oom").get<bool>();
  m.world = j.at("world").get<int>();
  m.micro_batches = j.at("micro_batches").get<int>();
  return m;
}

}  // namespace plansim::advise
