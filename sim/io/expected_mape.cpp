#include "sim/io/expected_mape.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/io/yaml_reader.hpp"

namespace plansim::io {

ExpectedMape load_expected_mape(const std::filesystem::path& file) {
  const YamlFile f = YamlFile::load(file);
  MapReader m(f, f.root(), "an expected-MAPE file");
  const YAML::Node table = m.require("mape_pct");
  if (!table.IsMap()) m.fail(table, "'mape_pct' must map \"<gpu>/<data set>\" to a percentage");
  m.finish();
  ExpectedMape e;
  for (const auto& kv : table) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) f.fail(kv.first, "entries must read \"<gpu>/<data set>\": number");
    double v = 0;
    try {
      v = kv.second.as<double>();
    } catch (const YAML::Exception&) {
      f.fail(kv.second, "the MAPE must be a number (percent)");
    }
    if (!std::isfinite(v) || v < 0) f.fail(kv.second, "the MAPE must be a finite, non-negative percentage");
    e.mape_pct[kv.first.Scalar()] = v;
  }
  return e;
}

}  // namespace plansim::io
