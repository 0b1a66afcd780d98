// `plansim calibrate MEASURED.json... [-o PROFILE.yaml]`: fit link latency/bandwidth per collective,
// the GEMM efficiency curve and HBM bandwidth from plansim-hw bench JSON (see hw/README.md).
#include <spdlog/spdlog.h>

#include "sim/app/command.hpp"
#include "sim/calib/calibrate.hpp"
#include "sim/io/bench_reader.hpp"

namespace plansim::app {

Command add_calibrate_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output = "-";
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("calibrate", "fit simulator parameters to plansim-hw bench JSON files");
  sub->add_option("measured", args->inputs, "bench JSON files (plansim-hw bench ... --json FILE)")->required();
  sub->add_option("-o,--output", args->output, "profile YAML to write ('-' = stdout)")->capture_default_str();
  return {sub, [args] {
            check_output_path("--output", args->output);
            calib::Measurements m;
            for (const auto& path : args->inputs) io::read_bench_file(path, m);
            const calib::Profile profile = calib::calibrate(m);
            spdlog::info("calibrate: {} collective fit(s), {} GEMM fit(s), {} HBM fit(s) from {} file(s)",
                         profile.collectives.size(), profile.gemms.size(), profile.hbm.size(), m.sources.size());
            write_output(args->output, calib::profile_yaml(profile));
            return kExitOk;
          }};
}

}  // namespace plansim::app
