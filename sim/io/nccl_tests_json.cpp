// nccl-tests' `-J FILE` JSON (src/util.cu of NVIDIA/nccl-tests, "version": 1; format: nccl_tests_reader.hpp),
// read with the mark-aware YAML reader (JSON is YAML 1.2) so that errors point at file:line:col. Keys
// this reader does not use are allowed: newer releases add fields.
#include <fmt/format.h>

#include "sim/io/nccl_tests_internal.hpp"
#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

std::string string_or(const YamlFile& f, const YAML::Node& map, const std::string& key) {
  const YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) f.fail(n, fmt::format("'{}' must be a string", key));
  return n.Scalar();
}

YAML::Node required(const YamlFile& f, const YAML::Node& map, const std::string& key, const std::string& what) {
  const YAML::Node n = map[key];
  if (!n) f.fail(map, fmt::format("{} has no '{}'", what, key));
  return n;
}

NcclTestsResult result(const YamlFile& f, const YAML::Node& n, const std::string& what, NcclTestsRun& run) {
  NcclTestsResult r;
  if (!n || n.IsNull()) return r;
  if (!n.IsMap()) f.fail(n, fmt::format("'{}' must be an object", what));
  r.present = true;
  // Two lookups, not one node reassigned: assigning to yaml-cpp's node for a missing key throws (fuzz finding).
  const YAML::Node gpu_time = n["time"], cpu_time = n["cpu_time"];
  if (!gpu_time && !cpu_time) f.fail(n, fmt::format("'{}' has no 'time'", what));
  if (!gpu_time) run.cputime = true;
  r.time_us = scalar_real(f, gpu_time ? gpu_time : cpu_time, "time", {0, 1e12});
  r.algbw_GBps = scalar_real(f, required(f, n, "alg_bw", "'" + what + "'"), "alg_bw", {0, 1e9});
  r.busbw_GBps = scalar_real(f, required(f, n, "bus_bw", "'" + what + "'"), "bus_bw", {0, 1e9});
  if (const YAML::Node w = n["nwrong"]; w && !w.IsNull()) r.wrong = scalar_real(f, w, "nwrong", {0, 1e18});
  return r;
}

NcclTestsDevice device(const YamlFile& f, const YAML::Node& n) {
  if (!n.IsMap()) f.fail(n, "each of 'devices' must be an object");
  NcclTestsDevice d;
  d.rank = static_cast<int>(scalar_integer(f, required(f, n, "rank", "a device"), "rank", {0, limits::kMaxGpus - 1}));
  d.host = string_or(f, n, "hostname");
  if (const YAML::Node dev = n["device"]; dev && !dev.IsNull())
    d.device = static_cast<int>(scalar_integer(f, dev, "device", {0, limits::kMaxGpusPerServer}));
  d.model = string_or(f, n, "device_info");
  d.pos = f.pos(n);
  return d;
}

NcclTestsRow row(const YamlFile& f, const YAML::Node& n, NcclTestsRun& run) {
  if (!n.IsMap()) f.fail(n, "each of 'results' must be an object");
  NcclTestsRow r;
  r.pos = f.pos(n);
  r.size_bytes = static_cast<double>(
      scalar_integer(f, required(f, n, "size", "a result"), "size", {0, static_cast<int64_t>(limits::kMaxBytes)}));
  if (const YAML::Node c = n["count"]; c && !c.IsNull()) r.count = scalar_integer(f, c, "count", {0, INT64_MAX});
  r.type = string_or(f, n, "type");
  r.redop = string_or(f, n, "redop");
  if (const YAML::Node root = n["root"]; root && !root.IsNull())  // printed as a padded string: "    -1"
    r.root = static_cast<int>(scalar_integer(f, root, "root", {-1, limits::kMaxGpus})), r.root_printed = true;
  r.out_of_place = result(f, n["out_of_place"], "out_of_place", run);
  r.in_place = result(f, n["in_place"], "in_place", run);
  if (!r.out_of_place.present && !r.in_place.present) f.fail(n, "a result with neither 'out_of_place' nor 'in_place'");
  return r;
}

}  // namespace

std::vector<NcclTestsRun> parse_nccl_tests_json(const std::string& text, const std::string& name) {
  const YamlFile f = YamlFile::parse(text, name);
  const YAML::Node& root = f.root();
  if (!root.IsMap()) f.fail(root, "an nccl-tests JSON file must be an object");
  NcclTestsRun run;
  run.file = name;
  run.format = "json";
  run.pos = f.pos(root);
  if (const YAML::Node v = root["version"]; v && !v.IsNull() && scalar_integer(f, v, "version", {0, 1000000}) != 1)
    f.fail(v, "unsupported nccl-tests JSON version (this plansim reads version 1)");
  if (const YAML::Node args = root["args"]; args && args.IsSequence() && args.size() > 0 && args[0].IsScalar()) {
    run.program = args[0].Scalar();
    run.op_source = "its args[0]";
  }
  if (const YAML::Node env = root["env"]; env && env.IsSequence())
    for (const auto& e : env) {
      if (!e.IsScalar()) continue;
      const std::string& kv = e.Scalar();
      if (kv.rfind("NCCL_ALGO=", 0) == 0) run.algorithm = kv.substr(10);
      if (kv.rfind("NCCL_PROTO=", 0) == 0) run.protocol = kv.substr(11);
    }
  if (const YAML::Node v = root["nccl_version"]; v && v.IsScalar()) {
    const int64_t code = scalar_integer(f, v, "nccl_version", {0, 100000000});
    if (code >= 10000) run.nccl_version = fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
  }
  const YAML::Node config = required(f, root, "config", "an nccl-tests JSON file");
  if (!config.IsMap()) f.fail(config, "'config' must be an object");
  if (const YAML::Node n = config["nthreads"]; n && !n.IsNull())
    run.nthreads = static_cast<int>(scalar_integer(f, n, "nthreads", {1, limits::kMaxGpus}));
  if (const YAML::Node n = config["ngpus"]; n && !n.IsNull())
    run.ngpus = static_cast<int>(scalar_integer(f, n, "ngpus", {1, limits::kMaxGpus}));
  if (const YAML::Node devices = config["devices"]; devices && !devices.IsNull()) {
    if (!devices.IsSequence()) f.fail(devices, "'devices' must be a list");
    for (const auto& d : devices) {
      NcclTestsDevice dev = device(f, d);
      for (const auto& other : run.devices)
        if (other.rank == dev.rank)
          f.fail(d, fmt::format("rank {} is listed twice (also at line {})", dev.rank, other.pos.line));
      run.devices.push_back(dev);
    }
  }
  const YAML::Node results = required(f, root, "results", "an nccl-tests JSON file");
  if (!results.IsSequence()) f.fail(results, "'results' must be a list");
  for (const auto& r : results) run.rows.push_back(row(f, r, run));
  if (run.rows.empty()) f.fail(results, "'results' is empty: the test printed no sizes");
  if (const YAML::Node oob = root["out_of_bounds"]; oob && oob.IsMap() && oob["count"]) {
    run.out_of_bounds = scalar_integer(f, oob["count"], "count", {0, INT64_MAX});
    run.out_of_bounds_pos = f.pos(oob["count"]);
  }
  if (const YAML::Node avg = root["average_bus_bandwidth"]; avg && avg.IsMap() && avg["bandwidth"])
    run.avg_busbw_GBps = scalar_real(f, avg["bandwidth"], "bandwidth", {0, 1e9});
  return {run};
}

}  // namespace plansim::io
