#include <fmt/format.h>

#include "sim/app/command.hpp"

namespace plansim::app {

void add_scale_options(CLI::App* sub, std::vector<std::string>& sets) {
  sub->add_option_function<int>(
         "--scale-layers", [&sets](int n) { sets.push_back(fmt::format("model.layers={}", n)); },
         "run N layers (= --set model.layers=N; as plansim-hw run takes it)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option_function<int>(
         "--scale-batch", [&sets](int n) { sets.push_back(fmt::format("training.global_batch={}", n)); },
         "a global batch of N sequences (= --set training.global_batch=N; as plansim-hw run takes it)")
      ->check(CLI::Range(1, 1 << 20));
}

}  // namespace plansim::app
