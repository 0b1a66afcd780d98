#pragma once
// io-internal: the `training.finetune` keys (README "Fine-tuning"), read by the scenario reader.
#include "sim/io/yaml_reader.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

// The mapping itself: method, rank, alpha, targets, frozen_layers, each checked at its position.
FinetuneSpec read_finetune(const io::YamlFile& f, const YAML::Node& n);
// Checks against the model (`finetune` is the training.finetune node): frozen_layers below the layer
// count, rank below the hidden size, no MLP targets on MoE models.
void check_finetune(const io::YamlFile& f, const YAML::Node& finetune, const Scenario& s);

}  // namespace plansim
