#include "sim/app/collective_log_compare.hpp"

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include "sim/app/command.hpp"
#include "sim/coll/measure.hpp"
#include "sim/core/error.hpp"
#include "sim/io/collective_calibration.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "sim/io/topology_loader.hpp"

namespace plansim::app {
namespace {

// Size bands of the targets: < 1 MiB, 1-64 MiB, >= 64 MiB.
constexpr std::array<const char*, 3> kBands = {"< 1 MiB", "1-64 MiB", ">= 64 MiB"};
int band_of(double bytes) { return bytes < 1048576.0 ? 0 : bytes < 67108864.0 ? 1 : 2; }

struct Band {
  int rows = 0;
  double sum_abs = 0;
  double max_signed = 0;  // the error of largest magnitude, with its sign
  void add(double err) {
    ++rows;
    sum_abs += std::abs(err);
    if (std::abs(err) > std::abs(max_signed)) max_signed = err;
  }
};

std::string band_table(const std::array<Band, 3>& bands, const std::string& indent) {
  std::string t = fmt::format("{}{:<10} {:>5} {:>13} {:>12}\n", indent, "size band", "rows", "mean |error|", "max error");
  for (size_t b = 0; b < bands.size(); ++b) {
    const Band& x = bands[b];
    if (x.rows == 0) t += fmt::format("{}{:<10} {:>5} {:>13} {:>12}\n", indent, kBands[b], 0, "-", "-");
    else
      t += fmt::format("{}{:<10} {:>5} {:>11.1f} % {:>+10.1f} %\n", indent, kBands[b], x.rows, x.sum_abs / x.rows,
                       x.max_signed);
  }
  return t;
}

std::string human(double v) {
  if (v >= 1073741824.0) return fmt::format("{:g} GiB", v / 1073741824.0);
  if (v >= 1048576.0) return fmt::format("{:g} MiB", v / 1048576.0);
  if (v >= 1024.0) return fmt::format("{:g} KiB", v / 1024.0);
  return fmt::format("{:g} B", v);
}

// NCCL_ALGO / NCCL_PROTO as the model names them, when the log set exactly one; else auto.
std::string model_algorithm(const std::string& nccl) {
  if (nccl == "ring" || nccl == "tree" || nccl == "nvls") return nccl;
  return "auto";
}
std::string model_protocol(const std::string& nccl) {
  if (nccl == "LL" || nccl == "LL128" || nccl == "Simple") return nccl;
  std::string lower;
  for (const char c : nccl) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "ll") return "LL";
  if (lower == "ll128") return "LL128";
  if (lower == "simple") return "Simple";
  return "auto";
}

// The GPU family in CUDA's device name, to compare with the topology's `gpu:`: the first word (split at
// spaces and '-') of at most two letters then three or more digits ("NVIDIA H100 80GB HBM3" -> "H100",
// "NVIDIA A100-SXM4-80GB" -> "A100", "NVIDIA GeForce RTX 4090" -> "4090"). Empty when there is none.
std::string gpu_family(const std::string& name) {
  std::string word;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != ' ' && name[i] != '-') {
      word += name[i];
      continue;
    }
    size_t k = 0, letters = 0, digits = 0;
    while (k < word.size() && std::isalpha(static_cast<unsigned char>(word[k]))) ++k, ++letters;
    while (k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) ++k, ++digits;
    if (letters <= 2 && digits >= 3) return word.substr(0, letters + digits);
    word.clear();
  }
  return {};
}

}  // namespace

int run_log_compare(const LogCompareOptions& o) {
  const bool bench = io::looks_like_bench_file(o.log);
  if (bench && (!o.op.empty() || o.gpus > 0))
    throw ConfigError(SourcePos{o.op.empty() ? "--gpus" : "--op", 0, 0},
                      "a plansim-hw bench file names its op and ranks in every row: drop --op and --gpus");
  const auto runs = bench ? io::runs_from_bench_file(o.log) : io::load_nccl_tests(o.log, io::NcclTestsHints{o.op, o.gpus});
  if (o.topology.empty()) {
    const auto& r = runs.front();
    throw ConfigError(SourcePos{"--topology", 0, 0},
                      fmt::format("give --topology FILE for the system to predict: the log ran {} on {} ranks over {} "
                                  "node(s) ({}) of {}",
                                  r.op, r.nranks, r.nodes(), fmt::join(r.hosts, ", "),
                                  r.gpu_model.empty() ? std::string("an unnamed GPU") : r.gpu_model));
  }
  std::string text;
  std::array<Band, 3> overall{};
  for (const auto& run : runs) {
    const int nodes = o.nodes > 0 ? o.nodes : run.nodes();
    const Topology topo = load_topology(o.topology, nodes);
    if (static_cast<size_t>(run.nranks) > topo.num_gpus())
      throw ConfigError(run.pos, fmt::format("the log ran {} ranks, but topology '{}' with {} node(s) has {} GPUs: "
                                             "give --nodes",
                                             run.nranks, topo.name(), nodes, topo.num_gpus()));
    const CollOp op = *coll_op_from_string(run.op);
    if (op == CollOp::send_recv && run.nranks < 2)
      throw ConfigError(run.pos, "send_recv needs at least 2 ranks");
    const std::string family = gpu_family(run.gpu_model);
    if (!family.empty() && topo.gpu_spec().model.find(family) == std::string::npos)
      spdlog::warn("{}: the log ran on {}, but topology '{}' has {} GPUs", run.pos.to_string(), run.gpu_model,
                   topo.name(), topo.gpu_spec().model);
    const size_t per_server = topo.num_gpus() / static_cast<size_t>(nodes);
    if (run.nodes() > 1 && static_cast<size_t>(run.nranks) != per_server * static_cast<size_t>(run.nodes()))
      spdlog::warn("{}: the log ran {} ranks on {} nodes; plansim takes the first {} GPUs of '{}' host-major ({} per "
                   "server)",
                   run.pos.to_string(), run.nranks, run.nodes(), run.nranks, topo.name(), per_server);
    const io::CollectiveCalibration cal = io::collective_calibration(o.topology, topo.gpu_spec().model, o.calibration);
    // NCCL_ALGO picks among the collective algorithms; alltoall and sendrecv are point-to-point and ignore it.
    const bool p2p = op == CollOp::all_to_all || op == CollOp::send_recv;
    const std::string algo = o.algo != "auto" ? o.algo : p2p ? "auto" : model_algorithm(run.algorithm);
    const std::string proto = o.proto != "auto" ? o.proto : model_protocol(run.protocol);
    text += fmt::format("== {} {} ({}): {} rank{} on {} node{}{}{}{}\n", run.pos.to_string(), run.op, run.op_source,
                        run.nranks, run.nranks == 1 ? "" : "s", run.nodes(), run.nodes() == 1 ? "" : "s",
                        run.hosts.empty() ? "" : fmt::format(" ({})", fmt::join(run.hosts, ", ")),
                        run.gpu_model.empty() ? "" : ", " + run.gpu_model,
                        run.nccl_version.empty() ? "" : ", NCCL " + run.nccl_version);
    text += fmt::format("   predicted on {} ({} node{}), algo {}, proto {}, calibration {}{}\n", topo.name(), nodes,
                        nodes == 1 ? "" : "s", algo, proto, cal.from.empty() ? "none (model defaults)" : cal.from,
                        run.cputime ? "; NOTE: the log's times are CPU times (-C 1)" : "");
    if (run.algorithm != "auto" || run.protocol != "auto")
      text += fmt::format("   the log set NCCL_ALGO={} NCCL_PROTO={}\n", run.algorithm, run.protocol);
    text += fmt::format("  {:>10} {:>10} {:>10} {:>10} {:>8}  {}\n", "size", "predicted", "measured", "in-place", "error",
                        "algorithm/protocol");
    text += fmt::format("  {:>10} {:>10} {:>10} {:>10} {:>8}\n", "", "busbw GB/s", "busbw GB/s", "busbw GB/s",
                        "% (times)");
    std::array<Band, 3> bands{};
    int skipped_zero = 0;
    for (const auto& row : run.rows) {
      if (row.size_bytes <= 0 || !row.out_of_place.present) {
        ++skipped_zero;
        continue;
      }
      CollectiveMeasurement r;
      try {
        r = measure_collective(topo, cal.params, op, run.nranks, Bytes(row.size_bytes), algo, proto, run.harness);
      } catch (const ConfigError& e) {  // the log's algorithm or protocol cannot run this op here: at the row
        throw ConfigError(row.pos, e.message());
      }
      const double bus = r.busbw_GBps(op, run.nranks), measured = row.out_of_place.busbw_GBps;
      const std::string in_place = row.in_place.present ? fmt::format("{:.2f}", row.in_place.busbw_GBps) : "-";
      const bool wrong = row.out_of_place.wrong && *row.out_of_place.wrong != 0;
      if (wrong || row.out_of_place.time_us <= 0) {
        text += fmt::format("  {:>10} {:>10.2f} {:>10.2f} {:>10} {:>8}  {}/{}  ({})\n", human(row.size_bytes), bus,
                            measured, in_place, "-", r.algorithm, r.protocol,
                            wrong ? fmt::format("excluded: #wrong = {:g}", *row.out_of_place.wrong)
                                  : std::string("excluded: a time of 0"));
        continue;
      }
      // busbw is printed to 2 decimals (0.00 at small sizes); the time has 3-4 digits, so the error is
      // taken from the times: predicted/measured busbw - 1 = measured/predicted time - 1.
      const double err = (row.out_of_place.time_us / r.time.micros() - 1.0) * 100.0;
      text += fmt::format("  {:>10} {:>10.2f} {:>10.2f} {:>10} {:>+8.1f}  {}/{}\n", human(row.size_bytes), bus, measured,
                          in_place, err, r.algorithm, r.protocol);
      bands[static_cast<size_t>(band_of(row.size_bytes))].add(err);
      overall[static_cast<size_t>(band_of(row.size_bytes))].add(err);
    }
    if (skipped_zero > 0) text += fmt::format("  ({} row(s) of size 0 skipped)\n", skipped_zero);
    if (run.out_of_bounds && *run.out_of_bounds != 0)
      text += fmt::format("  NOTE: the log reports {} out-of-bounds value(s) ({})\n", *run.out_of_bounds,
                          run.out_of_bounds_pos.to_string());
    if (!run.avg_busbw_GBps && run.format == "text")  // (bench JSON and -J JSON are whole documents)
      text += "  NOTE: no 'Avg bus bandwidth' footer: the log may be cut short\n";
    text += band_table(bands, "  ");
  }
  if (runs.size() > 1) text += "overall (" + o.log + "):\n" + band_table(overall, "  ");
  write_output("-", text);
  return kExitOk;
}

}  // namespace plansim::app
