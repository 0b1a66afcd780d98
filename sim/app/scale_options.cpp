#include "sim/app/command.hpp"
#include "sim/io/scenario_loader.hpp"

namespace plansim::app {

void add_scale_options(CLI::App* sub, std::vector<std::string>& sets) {
  sub->add_option_function<int>(
         "--scale-layers", [&sets](int n) { sets.push_back(scale_overrides(n, 0).front()); },
         "run N layers (= --set model.layers=N; as plansim-hw run takes it)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option_function<int>(
         "--scale-batch", [&sets](int n) { sets.push_back(scale_overrides(0, n).front()); },
         "a global batch of N sequences (= --set training.global_batch=N; as plansim-hw run takes it)")
      ->check(CLI::Range(1, 1 << 20));
}

}  // namespace plansim::app
