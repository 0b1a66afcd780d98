#include "hw/bench_output.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/nccl_expect.hpp"

namespace plansim::hw {
namespace {

bool reduces(NcclOp op) {
  return op == NcclOp::kAllReduce || op == NcclOp::kReduceScatter || op == NcclOp::kReduce;
}
bool rooted(NcclOp op) { return op == NcclOp::kBroadcast || op == NcclOp::kReduce; }

std::string placement_columns(const NcclTiming& t) {
  return fmt::format("  {:7.2f}  {:6.2f}  {:6.2f}  {:6}", t.seconds * 1e6, t.bw.algbw / 1e9, t.bw.busbw / 1e9,
                     t.wrong);
}

}  // namespace

nlohmann::json make_bench_document(const std::string& bench, nlohmann::json device, nlohmann::json config) {
  return {{"bench", bench},
          {"schema_version", kBenchSchemaVersion},
          {"tool", "plansim-hw 0.1.0"},
          {"device", std::move(device)},
          {"config", std::move(config)},
          {"rows", nlohmann::json::array()}};
}

void write_bench_json(const std::string& path, const nlohmann::json& doc) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot open this file for writing", path));
  out << doc.dump(2) << '\n';
  if (!out) throw std::runtime_error(fmt::format("{}: failed while writing this file", path));
}

nlohmann::json nccl_row(NcclOp op, std::size_t size_bytes, const OpCounts& counts, int nranks, bool in_place,
                        const NcclTiming& t) {
  return {{"op", op_name(op)},
          {"size_bytes", size_bytes},
          {"count", counts.total},
          {"dtype", "float"},
          {"redop", reduces(op) ? "sum" : "none"},
          {"root", rooted(op) ? kRoot : -1},
          {"nranks", nranks},
          {"placement", in_place ? "in_place" : "out_of_place"},
          {"time_s", t.seconds},
          {"algbw_Bps", t.bw.algbw},
          {"busbw_Bps", t.bw.busbw},
          {"busbw_factor", busbw_factor(op, nranks)},
          {"wrong", t.wrong}};
}

std::string nccl_table_header() {
  std::string h = fmt::format(
      "#{:>64}{:>34}\n"
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n"
      "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
      "out-of-place", "in-place", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
      "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
      "(GB/s)", "(GB/s)", "");
  // No trailing blanks (the units line ends in an empty column).
  for (std::size_t at = h.find(" \n"); at != std::string::npos; at = h.find(" \n")) h.erase(at, 1);
  return h;
}

std::string nccl_table_line(NcclOp op, std::size_t size_bytes, const OpCounts& counts, const NcclTiming& out_of_place,
                            const NcclTiming* in_place) {
  std::string line = fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", size_bytes, counts.total, "float",
                                 reduces(op) ? "sum" : "none", rooted(op) ? kRoot : -1);
  line += placement_columns(out_of_place);
  if (in_place != nullptr)
    line += placement_columns(*in_place);
  else
    line += fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "N/A", "N/A", "N/A", "N/A");
  return line + '\n';
}

}  // namespace plansim::hw
