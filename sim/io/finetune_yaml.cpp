#include "sim/io/finetune_yaml.hpp"

#include <fmt/format.h>

namespace plansim {

namespace {

constexpr int kMaxRank = 65536;

std::optional<LoraTarget> target_from_string(const std::string& s) {
  for (LoraTarget t : {LoraTarget::qkv, LoraTarget::proj, LoraTarget::fc1, LoraTarget::fc2})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

}  // namespace

FinetuneSpec read_finetune(const io::YamlFile& f, const YAML::Node& n) {
  io::MapReader m(f, n, "training.finetune");
  FinetuneSpec s;
  s.declared = true;
  const std::string method = m.choice_or("method", {"full", "lora", "frozen_layers"}, "full");
  s.method = method == "lora" ? FinetuneMethod::lora
             : method == "frozen_layers" ? FinetuneMethod::frozen_layers
                                         : FinetuneMethod::full;
  // Keys of one method only: a stray one is most likely a mistake in the method.
  auto only_for = [&](const char* key, FinetuneMethod owner) {
    if (m.has(key) && s.method != owner)
      m.fail(m.get(key), fmt::format("'{}' applies to method: {}, not {}", key, to_string(owner), method));
  };
  for (const char* key : {"rank", "alpha", "targets"}) only_for(key, FinetuneMethod::lora);
  only_for("frozen_layers", FinetuneMethod::frozen_layers);
  if (s.method == FinetuneMethod::lora) {
    s.rank = m.positive_int_or("rank", 8, kMaxRank);
    s.alpha = m.real_or("alpha", {0, 1e9, true}, 2.0 * s.rank);
    if (m.has("targets")) {
      const YAML::Node t = m.get("targets");
      if (!t.IsSequence() || t.size() == 0)
        m.fail(t, "'targets' must list the GEMMs that get adapters, e.g. [qkv, proj] (qkv, proj, fc1, fc2)");
      s.targets = 0;
      for (const auto& item : t) {
        const auto target = target_from_string(item.IsScalar() ? item.Scalar() : std::string());
        if (!target) m.fail(item, "'targets' entries must be qkv, proj, fc1 or fc2");
        if (s.targets_has(*target)) m.fail(item, fmt::format("'{}' appears twice in 'targets'", to_string(*target)));
        s.targets |= static_cast<uint8_t>(*target);
      }
    }
  }
  if (s.method == FinetuneMethod::frozen_layers) {
    if (!m.has("frozen_layers")) m.fail(n, "method: frozen_layers needs 'frozen_layers' (how many of the first layers are frozen)");
    s.frozen_layers = static_cast<int>(m.integer("frozen_layers", {0, kMaxRank * 16}));
  }
  m.finish();
  return s;
}

void check_finetune(const io::YamlFile& f, const YAML::Node& finetune, const Scenario& s) {
  const FinetuneSpec& ft = s.training.finetune;
  const ModelSpec& m = s.model;
  if (ft.method == FinetuneMethod::frozen_layers && ft.frozen_layers >= m.layers)
    f.fail(finetune["frozen_layers"], fmt::format("frozen_layers {} leaves nothing to train below the output layer of "
                                                  "a {}-layer model; at most {}",
                                                  ft.frozen_layers, m.layers, m.layers - 1));
  if (ft.method != FinetuneMethod::lora) return;
  if (ft.rank >= m.hidden)
    f.fail(finetune["rank"], fmt::format("LoRA rank {} is not below hidden {}: a low-rank adapter needs r < h", ft.rank,
                                         m.hidden));
  if (m.moe && (ft.targets_has(LoraTarget::fc1) || ft.targets_has(LoraTarget::fc2)))
    f.fail(finetune["targets"], "LoRA on an MoE model is modelled for the attention GEMMs (qkv, proj) only; the "
                                "experts' fc1/fc2 adapters are not");
}

}  // namespace plansim
