// `plansim collective` as a library call (api/commands.hpp): nccl-tests on the simulator. Same sizes
// (-b/-e/-f with K/M/G = powers of 1024), same columns (size, count, type, redop, root, time, algbw,
// busbw) plus the algorithm and protocol chosen per size; a compare file runs published tables.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/api/commands.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/measure.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/checked_number.hpp"
#include "sim/io/collective_calibration.hpp"
#include "sim/io/error_bands.hpp"
#include "sim/io/nccl_calibration.hpp"
#include "sim/io/nccl_compare.hpp"
#include "sim/io/topology_loader.hpp"

namespace plansim::api {
namespace {

// nccl-tests' parsesize: a number with an optional K/M/G suffix meaning powers of 1024 (io/checked_number.hpp).
Bytes parse_size(const std::string& flag, const std::string& text) {
  try {
    return io::parse_nccl_size(text);
  } catch (const io::UnitError& e) {
    throw ConfigError(SourcePos{flag, 0, 0}, e.what());
  }
}

// The sizes -b, ×f, ..., up to -e (nccl-tests' loop), each strictly larger than the one before (a
// factor that rounds back down, as 1 × 1.5, still advances by a byte), at most kMaxCollectiveRows.
std::vector<double> sweep_sizes(double lo, double hi, double factor) {
  if (lo > hi) throw ConfigError(SourcePos{"-b", 0, 0}, fmt::format("the smallest size ({:.0f} B) is above -e ({:.0f} B)", lo, hi));
  std::vector<double> sizes;
  for (double s = lo; s <= hi;) {
    if (static_cast<int64_t>(sizes.size()) == limits::kMaxCollectiveRows)
      throw ConfigError(SourcePos{"-f", 0, 0},
                        fmt::format("-b {:.0f} -e {:.0f} -f {:g} gives more than {} sizes, the cap (README 'Limits'): "
                                    "raise -f or narrow -b .. -e", lo, hi, factor, limits::kMaxCollectiveRows));
    sizes.push_back(s);
    const double next = std::floor(s * factor);
    s = next > s ? next : s + 1;
  }
  return sizes;
}

int dtype_bytes(const std::string& t) {
  if (t == "int8" || t == "uint8" || t == "char" || t == "fp8" || t == "f8e4m3" || t == "f8e5m2") return 1;
  if (t == "half" || t == "float16" || t == "bfloat16" || t == "bf16" || t == "fp16") return 2;
  if (t == "int32" || t == "uint32" || t == "int" || t == "float" || t == "float32") return 4;
  if (t == "int64" || t == "uint64" || t == "double" || t == "float64") return 8;
  throw ConfigError(SourcePos{"--dtype", 0, 0},
                    fmt::format("unknown type '{}' (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16)", t));
}

CollOp parse_op(const SourcePos& where, const std::string& s) {
  if (auto op = coll_op_from_string(s)) return *op;
  throw ConfigError(where,
                    fmt::format("unknown collective '{}' (all_reduce, all_gather, reduce_scatter, broadcast, reduce, gather, "
                                "scatter, all_to_all, send_recv)", s));
}

bool rooted(CollOp op) {
  return op == CollOp::broadcast || op == CollOp::reduce || op == CollOp::gather || op == CollOp::scatter;
}
bool reduces(CollOp op) {
  return op == CollOp::all_reduce || op == CollOp::reduce || op == CollOp::reduce_scatter;
}

// The shipped profile for the topology's GPU, the topology's `calibration:`, then --calibration.
NcclModelParams model_for(const std::filesystem::path& topology, const Topology& topo, const std::string& calibration) {
  return io::collective_calibration(topology, topo.gpu_spec().model, calibration).params;
}

CommandResult run_sweep(const CollectiveRequest& o) {
  if (o.topology.empty()) throw ConfigError(SourcePos{"--topology", 0, 0}, "give --topology FILE (or --compare FILE)");
  const CollOp op = parse_op(SourcePos{"--op", 0, 0}, o.op);
  const int word = dtype_bytes(o.dtype);
  const Bytes lo = parse_size("-b", o.min_bytes), hi = parse_size("-e", o.max_bytes);
  if (!(o.factor > 1.0)) throw ConfigError(SourcePos{"-f", 0, 0}, "the size factor must be greater than 1");
  const std::vector<double> sizes = sweep_sizes(lo.value(), hi.value(), o.factor);
  const Topology topo = load_topology(o.topology, o.nodes);
  const int gpus = o.gpus > 0 ? o.gpus : static_cast<int>(topo.num_gpus());
  if (static_cast<size_t>(gpus) > topo.num_gpus())
    throw ConfigError(SourcePos{"--gpus", 0, 0},
                      fmt::format("{} GPUs asked, but topology '{}' has {}", gpus, topo.name(), topo.num_gpus()));
  if (op == CollOp::send_recv && gpus < 2)
    throw ConfigError(SourcePos{"--gpus", 0, 0}, "send_recv needs at least 2 GPUs (from GPU 0 to GPU gpus-1)");
  const NcclModelParams m = model_for(o.topology, topo, o.calibration);
  const int n = op == CollOp::send_recv ? 2 : gpus;
  std::string text = fmt::format("# plansim collective: {} on {} GPU{} of {} (predicted; nccl-tests columns)\n", to_string(op),
                                 n, n == 1 ? "" : "s", topo.name());
  text += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>10} {:>8} {:>8}  {:<16} {}\n", "size", "count", "type", "redop",
                      "root", "time", "algbw", "busbw", "algorithm", "protocol");
  text += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>10} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "", "(us)",
                      "(GB/s)", "(GB/s)");
  nlohmann::json rows = nlohmann::json::array();
  for (const double s : sizes) {
    const CollectiveMeasurement r =
        measure_collective(topo, m, op, gpus, Bytes(s), o.algo, o.proto, *bench_harness_from_string(o.harness));
    const double alg = r.algbw_GBps(), bus = r.busbw_GBps(op, n);
    const auto count = static_cast<long long>(s / word);
    text += fmt::format("  {:>10.0f} {:>12} {:>8} {:>6} {:>6} {:>10.2f} {:>8.2f} {:>8.2f}  {:<16} {}\n", s, count, o.dtype,
                        reduces(op) ? "sum" : "none", rooted(op) ? 0 : -1, r.time.micros(), alg, bus, r.algorithm,
                        r.protocol);
    rows.push_back({{"bytes", s}, {"count", count}, {"type", o.dtype}, {"time_us", r.time.micros()}, {"algbw_GBps", alg},
                    {"busbw_GBps", bus}, {"algorithm", r.algorithm}, {"protocol", r.protocol}});
  }
  return CommandResult{
      0, text, nlohmann::json{{"op", to_string(op)}, {"gpus", n}, {"topology", topo.name()}, {"rows", rows}}.dump(2) + "\n", {}};
}

std::string human(Bytes b) {
  const double v = b.value();
  if (v >= 1073741824.0) return fmt::format("{:g} GiB", v / 1073741824.0);
  if (v >= 1048576.0) return fmt::format("{:g} MiB", v / 1048576.0);
  if (v >= 1024.0) return fmt::format("{:g} KiB", v / 1024.0);
  return fmt::format("{:g} B", v);
}

CommandResult run_compare(const CollectiveRequest& o) {
  const auto tables = io::load_nccl_compare(o.compare);
  std::string text;
  nlohmann::json json_tables = nlohmann::json::array();
  double all_big = 0, all_small = 0;
  io::ErrorBands all_bands;
  int n_big = 0, n_small = 0;
  for (const auto& t : tables) {
    const CollOp op = parse_op(t.op_pos, t.op);
    const Topology topo = load_topology(t.topology, t.nodes);
    for (const auto& row : t.rows)
      if (static_cast<size_t>(row.gpus) > topo.num_gpus() || (op == CollOp::send_recv && row.gpus < 2))
        throw ConfigError(row.pos, fmt::format("a row of {} GPUs, but table '{}' runs on topology '{}' of {} GPUs{}",
                                               row.gpus, t.name, topo.name(), topo.num_gpus(),
                                               op == CollOp::send_recv ? " (send_recv needs 2 or more)" : ""));
    const NcclModelParams m = t.calibration ? io::load_nccl_calibration(*t.calibration) : model_for(t.topology, topo, o.calibration);
    text += fmt::format("== {} ({} on {}{}; algo {}, proto {}{}{})\n", t.name, to_string(op), topo.name(),
                        t.nodes ? fmt::format(", {} nodes", *t.nodes) : "", t.algo, t.proto,
                        t.harness == BenchHarness::torch ? ", timed by a torch loop" : "",
                        t.calibration ? ", calibration " + t.calibration->filename().string() : "");
    text += fmt::format("  {:>10} {:>5} {:>12} {:>12} {:>8}  {}\n", "size", "GPUs", "predicted", "published", "error",
                        "algorithm/protocol");
    text += fmt::format("  {:>10} {:>5} {:>12} {:>12} {:>8}\n", "", "", "busbw GB/s", "busbw GB/s", "%");
    double big = 0, small = 0;
    int nb = 0, ns = 0;
    io::ErrorBands bands;
    nlohmann::json json_rows = nlohmann::json::array();
    for (const auto& row : t.rows) {
      CollectiveMeasurement r;
      try {
        r = measure_collective(topo, m, op, row.gpus, row.bytes, t.algo, t.proto, t.harness);
      } catch (const ConfigError& e) {  // the table's algo, proto or op for this group: at the row
        throw ConfigError(row.pos, fmt::format("table '{}': {}", t.name, e.message()));
      }
      const double bus = r.busbw_GBps(op, row.gpus);
      const double err = row.busbw_GBps > 0 ? (bus - row.busbw_GBps) / row.busbw_GBps * 100.0 : 0.0;
      text += fmt::format("  {:>10} {:>5} {:>12.2f} {:>12.2f} {:>+8.1f}  {}/{}\n", human(row.bytes), row.gpus, bus,
                          row.busbw_GBps, err, r.algorithm, r.protocol);
      json_rows.push_back({{"bytes", row.bytes.value()}, {"gpus", row.gpus}, {"busbw_GBps", bus},
                           {"published_busbw_GBps", row.busbw_GBps}, {"error_pct", err}, {"algorithm", r.algorithm},
                           {"protocol", r.protocol}});
      if (row.busbw_GBps <= 0) continue;
      bands.add(row.bytes, err);
      if (row.bytes.value() >= 1048576.0) big += std::abs(err), ++nb;
      else small += std::abs(err), ++ns;
    }
    auto mean = [](double s, int k) { return k ? fmt::format("{:.1f} % ({} rows)", s / k, k) : std::string("- (0 rows)"); };
    text += fmt::format("  mean |error|: >= 1 MiB {}, < 1 MiB {}\n", mean(big, nb), mean(small, ns));
    text += fmt::format("  by size: {}\n", bands.format());
    all_bands.merge(bands);
    all_big += big, n_big += nb, all_small += small, n_small += ns;
    json_tables.push_back({{"name", t.name}, {"op", to_string(op)}, {"topology", topo.name()}, {"rows", json_rows}});
  }
  auto mean = [](double s, int k) { return k ? fmt::format("{:.1f} %", s / k) : std::string("-"); };
  text += fmt::format("overall mean |error| ({}): >= 1 MiB {} over {} rows, < 1 MiB {} over {} rows\n", o.compare,
                      mean(all_big, n_big), n_big, mean(all_small, n_small), n_small);
  text += fmt::format("overall by size: {}\n", all_bands.format());
  return CommandResult{0, text, nlohmann::json{{"compare", o.compare}, {"tables", json_tables}}.dump(2) + "\n", {}};
}

}  // namespace

CommandResult collective(const CollectiveRequest& r) { return r.compare.empty() ? run_sweep(r) : run_compare(r); }

}  // namespace plansim::api
