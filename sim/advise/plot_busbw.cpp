// `plansim plot busbw`: simulated bus bandwidth against message size, one line per published
// nccl-tests series (a validate/nccl table and GPU count), with the published points overlaid in the
// same colour. Each table is simulated on its own topology, node count and calibration profile, exactly
// as `plansim collective --compare` does.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/advise/plot.hpp"
#include "sim/coll/measure.hpp"
#include "sim/core/error.hpp"
#include "sim/io/nccl_calibration.hpp"
#include "sim/io/nccl_compare.hpp"
#include "sim/io/topology_loader.hpp"

namespace plansim::advise {
namespace {

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// The published sizes plus every power of two between the smallest and the largest, so the
// simulated line shows the shape between published points.
std::vector<double> line_sizes(const std::set<double>& published) {
  std::set<double> sizes(published);
  for (double s = std::exp2(std::ceil(std::log2(*published.begin()))); s < *published.rbegin(); s *= 2) sizes.insert(s);
  return {sizes.begin(), sizes.end()};
}

}  // namespace

PlotSpec plot_busbw(const std::vector<std::filesystem::path>& table_files) {
  PlotSpec p;
  p.title = "bus bandwidth vs message size: plansim (lines) vs published nccl-tests (points)";
  p.xlabel = "message size (bytes, nccl-tests convention)";
  p.ylabel = "busbw (GB/s = 1e9 B/s)";
  // Log y so the PCIe boxes (a few GB/s) and NVLS (~480 GB/s) both read; noenhanced keeps the
  // tables' underscores literal in the legend.
  p.setup = "set termoption noenhanced\nset logscale x 2\n"
            "set xtics ('32 B' 32, '1 KiB' 1024, "
            "'32 KiB' 32768, '1 MiB' 1048576, '32 MiB' 33554432, '1 GiB' 1073741824, '32 GiB' 34359738368.0)\nset logscale y 10\n"
            "set key outside right top font ',8'\nset grid\n";
  std::string body;
  size_t series = 0;
  for (const auto& file : table_files) {
    for (const io::CompareTable& t : io::load_nccl_compare(file)) {
      const auto op = coll_op_from_string(t.op);
      if (!op) throw ConfigError(SourcePos{file.string(), 0, 0}, fmt::format("table '{}': unknown op '{}'", t.name, t.op));
      const Topology topo = load_topology(t.topology, t.nodes);
      const NcclModelParams model = t.calibration ? io::load_nccl_calibration(*t.calibration) : NcclModelParams{};
      std::map<int, std::set<double>> by_gpus;  // published sizes per GPU count
      std::map<int, std::string> published;
      for (const io::CompareRow& r : t.rows) {
        by_gpus[r.gpus].insert(r.bytes.value());
        if (r.busbw_GBps > 0) published[r.gpus] += fmt::format("{},{}\n", r.bytes.value(), r.busbw_GBps);
      }
      for (const auto& [gpus, sizes] : by_gpus) {
        if (sizes.size() < 2) continue;  // a single size is a bar, not a curve: `collective --compare` shows it
        std::string line;
        for (double s : line_sizes(sizes))
          line += fmt::format("{},{}\n", s, measure_collective(topo, model, *op, gpus, Bytes(s), t.algo, t.proto)
                                                .busbw_GBps(*op, gpus));
        const char* color = kColors[series % std::size(kColors)];
        const std::string label = fmt::format("{} ({} GPUs)", t.name, gpus);
        p.blocks.push_back(line);
        body += fmt::format("DATA index {} with lines lw 2 lc rgb '{}' title '{}', ", p.blocks.size() - 1, color,
                            label);
        p.blocks.push_back(published[gpus].empty() ? fmt::format("{},0\n", *sizes.begin()) : published[gpus]);
        body += fmt::format("DATA index {} with points pt 7 ps 0.8 lc rgb '{}' notitle, ", p.blocks.size() - 1, color);
        ++series;
      }
    }
  }
  if (series == 0)
    throw ConfigError(SourcePos{"plot busbw", 0, 0}, "no table with at least two message sizes for one GPU count");
  body.resize(body.size() - 2);  // the trailing ", "
  p.plot = body;
  return p;
}

}  // namespace plansim::advise
