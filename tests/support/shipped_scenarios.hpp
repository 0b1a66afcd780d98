#pragma once
// Every shipped scenario (scenarios/**/*.yaml, sorted, relative to the source tree) with the overrides that
// scale the large plans down (fewer DP replicas, nodes and micro-batches, same shape otherwise), for tests
// that run them all.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace plansim::testing {

inline std::vector<std::pair<std::string, std::vector<std::string>>> shipped_scenarios_scaled_down() {
  const std::string src = PLANSIM_SOURCE_DIR;
  const std::map<std::string, std::vector<std::string>> sets = {
      {"scenarios/llama3-405b-16k-h100.yaml", {"parallel.dp=4", "training.global_batch=64", "nodes=64"}},
      {"scenarios/gpt3-175b-1024-a100.yaml", {"parallel.dp=2", "training.global_batch=32", "nodes=16"}},
      {"scenarios/bloom-176b-384-a100.yaml", {"parallel.dp=2", "training.global_batch=48"}},
      // 9,216-GPU MoE: 3 expert-DP replicas of TP2 EP16, 2 stages x 2 virtual stages of 2 layers.
      {"scenarios/bench/simai-moe-9216-h100.yaml",
       {"parallel.dp=48", "parallel.pp=2", "model.layers=8", "schedule.virtual_stages=2", "training.global_batch=192",
        "nodes=24"}},
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(src + "/scenarios"))
    if (f.path().extension() == ".yaml") {
      const std::string name = std::filesystem::relative(f.path(), src).string();
      const auto it = sets.find(name);
      out.emplace_back(name, it == sets.end() ? std::vector<std::string>{} : it->second);
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace plansim::testing
