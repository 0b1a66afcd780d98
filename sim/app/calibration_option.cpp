#include <filesystem>

#include "sim/app/command.hpp"

namespace plansim::app {

void add_calibration_option(CLI::App* sub, std::vector<std::string>& sets) {
  sub->add_option_function<std::string>(
         "--calibration",
         [&sets](const std::string& file) {
           const std::string value = file == "none" || file == "defaults"
                                          ? file
                                          : std::filesystem::absolute(file).lexically_normal().string();
           sets.push_back("calibration=" + value);
         },
         "calibration profile to use instead of the scenario's `calibration:` ('none': no profile, not even the "
         "shipped one for the GPU; 'defaults': the built-in compute model with the topology's collectives profile)")
      ->type_name("FILE");
}

}  // namespace plansim::app
