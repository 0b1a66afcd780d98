#include "sim/io/bench_reader.hpp"

#include <fmt/format.h>

#include "sim/io/nccl_tests_ops.hpp"
#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

void check_row_correct(MapReader& r, const YAML::Node& row) {
  if (r.optional<long long>("wrong", 0) != 0)
    r.fail(row, "this row failed its correctness check (wrong > 0); rerun the bench before calibrating");
}

void read_rows(const YamlFile& file, const std::string& bench, const std::string& algorithm, BenchHarness harness,
               const YAML::Node& rows, calib::Measurements& m) {
  if (!rows.IsSequence()) file.fail(rows, "'rows' must be a list");
  for (const YAML::Node& row : rows) {
    MapReader r(file, row, fmt::format("a {} row", bench));
    check_row_correct(r, row);
    if (bench == "nccl") {
      calib::CollectiveSample s;
      s.op = r.choice("op", nccl_tests_ops());
      s.algorithm = algorithm;
      s.harness = harness;
      s.nranks = r.positive_int("nranks", limits::kMaxGpus);
      s.size_bytes = r.positive_double("size_bytes");
      s.time_s = r.positive_double("time_s");
      s.busbw_factor = nccl_tests_busbw_factor(s.op, s.nranks);  // recomputed, not trusted from the file
      if (s.busbw_factor <= 0) r.fail(row, fmt::format("{} over one rank moves nothing; it cannot be fitted", s.op));
      s.pos = file.pos(row);
      r.allow({"count", "dtype", "redop", "root", "placement", "algbw_Bps", "busbw_Bps", "busbw_factor"});
      m.collectives.push_back(s);
    } else if (bench == "p2p") {
      calib::CollectiveSample s;
      s.op = "p2p_copy";
      const int src = r.required<int>("src"), dst = r.required<int>("dst");
      s.algorithm = fmt::format("{}->{}", src, dst);
      s.nranks = 2;
      s.size_bytes = r.positive_double("size_bytes");
      s.time_s = r.positive_double("time_s");
      s.pos = file.pos(row);
      r.allow({"peer_access", "bandwidth_Bps"});
      m.collectives.push_back(s);
    } else if (bench == "gemm") {
      calib::GemmSample s;
      s.dtype = r.choice("dtype", {"bf16", "fp16", "fp32", "fp8"});
      s.flops = r.positive_double("flops");
      s.time_s = r.positive_double("time_s");
      const YAML::Node peak = r.get("peak_flops");
      if (peak && !peak.IsNull()) s.peak_flops = r.positive_double("peak_flops");
      s.pos = file.pos(row);
      const int given = int{r.has("m")} + int{r.has("n")} + int{r.has("k")};
      if (given != 0 && given != 3) r.fail(row, "a gemm row gives its shape as m, n and k together, or none of them");
      if (given == 3) {
        s.m = r.positive_double("m");
        s.n = r.positive_double("n");
        s.k = r.positive_double("k");
      }
      r.allow({"flops_per_s"});
      m.gemms.push_back(s);
    } else {  // hbm
      calib::HbmSample s;
      s.bytes_moved = r.positive_double("bytes_moved");
      s.time_s = r.positive_double("time_s");
      s.pos = file.pos(row);
      r.allow({"size_bytes", "bandwidth_Bps"});
      m.hbm.push_back(s);
    }
    r.finish();
  }
}

void read_document(const YamlFile& file, calib::Measurements& m) {
  MapReader root(file, file.root(), "a plansim-hw bench file");
  const std::string bench = root.choice("bench", {"nccl", "gemm", "hbm", "p2p"});
  const YAML::Node version = root.require("schema_version");
  if (root.required<int>("schema_version") != 1)
    file.fail(version, "unsupported schema_version (this plansim reads version 1)");
  std::string device;
  std::string algorithm = "auto";
  BenchHarness harness = BenchHarness::nccl_tests;
  if (YAML::Node dev = root.get("device"); dev && !dev.IsNull()) {
    MapReader d(file, dev, "'device'");
    device = d.optional<std::string>("name", "");
  }
  if (YAML::Node cfg = root.get("config"); cfg && !cfg.IsNull()) {
    MapReader c(file, cfg, "'config'");
    algorithm = c.optional<std::string>("algorithm", "auto");
    // The loop that timed the rows (nccl_model.hpp BenchHarness): plansim-hw's and nccl-tests' by default.
    harness = *bench_harness_from_string(c.choice_or("harness", {"nccl-tests", "torch"}, "nccl-tests"));
  }
  root.allow({"tool", "environment"});  // the measurement record (hw/environment.hpp): not read here
  read_rows(file, bench, algorithm, harness, root.require("rows"), m);
  root.finish();
  m.sources.push_back(file.name());
  if (m.device.empty()) m.device = device;
}

}  // namespace

void read_bench_file(const std::filesystem::path& path, calib::Measurements& m) {
  read_document(YamlFile::load(path), m);
}

void read_bench_text(const std::string& text, const std::string& name, calib::Measurements& m) {
  read_document(YamlFile::parse(text, name), m);
}

}  // namespace plansim::io
