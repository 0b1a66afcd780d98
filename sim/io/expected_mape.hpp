#pragma once
// The recorded MAPE per "<gpu>/<data set>" that `plansim validate --runs --expect` holds the model to
// (validate/expected_mape.yaml).
#include <filesystem>
#include <map>
#include <string>

namespace plansim::io {

struct ExpectedMape {
  std::map<std::string, double> mape_pct;
};

ExpectedMape load_expected_mape(const std::filesystem::path& file);

}  // namespace plansim::io
