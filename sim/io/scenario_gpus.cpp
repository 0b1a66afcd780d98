#include "sim/io/scenario_gpus.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/core/limits.hpp"

namespace plansim::io {

Topology select_plan_gpus(const YamlFile& file, const YAML::Node& list, Topology topo, int world) {
  const size_t have = topo.num_gpus();
  std::vector<GpuId> gpus;
  if (!list || list.IsNull()) {
    if (static_cast<size_t>(world) == have) return topo;
    for (int i = 0; i < world; ++i) gpus.push_back(GpuId::from(i));
    return std::move(topo).with_gpus(gpus);
  }
  if (!list.IsSequence())
    file.fail(list, "'gpus' must list the GPUs the plan runs on (numbers in the topology's host-major order), "
                    "e.g. [0, 1, 2, 3]");
  std::vector<size_t> entry_of(have, 0);  // 1-based entry that named each GPU; 0: none yet
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node e = list[i];
    const int64_t g = scalar_integer(file, e, "gpus", {0, limits::kMaxGpus});
    if (static_cast<size_t>(g) >= have)
      file.fail(e, fmt::format("GPU {} is not in the topology ({} GPUs, numbered 0 to {})", g, have, have - 1));
    if (const size_t before = entry_of[static_cast<size_t>(g)])
      file.fail(e, fmt::format("GPU {} is listed twice in 'gpus' (entries {} and {})", g, before, i + 1));
    entry_of[static_cast<size_t>(g)] = i + 1;
    gpus.push_back(GpuId::from(g));
  }
  if (gpus.size() != static_cast<size_t>(world))
    file.fail(list, fmt::format("'gpus' lists {} GPUs, but the plan has tp·pp·dp·cp = {} ranks (one GPU each)",
                                gpus.size(), world));
  return std::move(topo).with_gpus(gpus);
}

}  // namespace plansim::io
