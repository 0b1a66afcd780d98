#include "sim/io/nccl_tests_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <tuple>

#include "sim/core/limits.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/capped_file.hpp"
#include "sim/io/nccl_tests_internal.hpp"
#include "sim/io/nccl_tests_ops.hpp"

namespace plansim::io {
namespace {

std::string read_log(const std::filesystem::path& path) {
  return read_capped_file(path, static_cast<size_t>(limits::kMaxLogFileBytes), "nccl-tests logs");
}

bool json_text(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

// The ops whose busbw / algbw is `ratio` over n ranks, narrowed by the redop and root columns.
std::vector<std::string> ops_with_factor(double ratio, int n, const NcclTestsRow& row) {
  std::vector<std::string> out;
  for (const auto& op : nccl_tests_ops()) {
    const double f = nccl_tests_busbw_factor(op, n);
    if (std::abs(ratio - f) > 0.02 * f + 0.005) continue;
    const bool reduces = op == "all_reduce" || op == "reduce_scatter" || op == "reduce";
    const bool rooted = op == "broadcast" || op == "reduce";
    if (!row.redop.empty() && (row.redop != "none") != reduces) continue;
    if (row.root_printed && (row.root >= 0) != rooted) continue;
    out.push_back(op);
  }
  return out;
}

// The first row that pins busbw / algbw (algbw >= 1 GB/s, so the 2-decimal print is within 0.5 %).
const NcclTestsRow* ratio_row(const NcclTestsRun& run) {
  for (const auto& r : run.rows)
    if (r.out_of_place.present && r.out_of_place.algbw_GBps >= 1.0) return &r;
  return nullptr;
}

void resolve_op(NcclTestsRun& run, const NcclTestsHints& hints, const std::string& name) {
  std::string source;
  if (!hints.op.empty()) {
    const auto op = nccl_tests_op_from_name(hints.op);
    if (!op) throw ConfigError(SourcePos{"--op", 0, 0}, fmt::format("nccl-tests does not measure '{}'", hints.op));
    run.op = *op;
    source = "--op";
  } else if (!run.program.empty()) {
    const auto op = nccl_tests_op_from_name(run.program);
    if (!op)
      throw ConfigError(run.pos, fmt::format("'{}' ({}) is not one of the nccl-tests plansim reads: all_reduce_perf, "
                                             "all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf, "
                                             "reduce_perf, sendrecv_perf",
                                             run.program, run.op_source));
    run.op = *op;
    source = run.op_source;
  } else {
    const std::string stem = std::filesystem::path(name).filename().string();
    for (const auto& op : nccl_tests_ops()) {
      std::string binary = op == "all_to_all" ? "alltoall" : op == "send_recv" ? "sendrecv" : op;
      if (stem.find(binary + "_perf") != std::string::npos) run.op = op, source = "the file's name";
    }
  }
  const NcclTestsRow* row = ratio_row(run);
  const int n = run.nranks;
  if (run.op.empty()) {
    if (!row)
      throw ConfigError(run.pos, "the log does not say which collective it ran (no 'Collective test starting' line, "
                                 "no *_perf command, no row with algbw >= 1 GB/s to tell it by): give --op");
    const double ratio = row->out_of_place.busbw_GBps / row->out_of_place.algbw_GBps;
    const auto ops = ops_with_factor(ratio, n, *row);
    if (ops.size() != 1)
      throw ConfigError(row->pos, fmt::format("the log does not say which collective it ran, and busbw/algbw = {:.3f} "
                                              "over {} ranks{} fits {}: give --op",
                                              ratio, n, row->redop.empty() ? "" : " with redop " + row->redop,
                                              ops.empty() ? std::string("none of nccl-tests' collectives")
                                                          : fmt::format("{}", fmt::join(ops, " and "))));
    run.op = ops.front();
    run.op_source = fmt::format("busbw/algbw = {:.3f} over {} ranks (line {})", ratio, n, row->pos.line);
    return;
  }
  run.op_source = source;
  if (!row) return;
  const double ratio = row->out_of_place.busbw_GBps / row->out_of_place.algbw_GBps;
  const double f = nccl_tests_busbw_factor(run.op, n);
  if (std::abs(ratio - f) > 0.02 * f + 0.005)
    throw ConfigError(row->pos, fmt::format("busbw/algbw = {:.3f}, but {} over {} ranks has nccl-tests' factor {:.3f} "
                                            "({} says {}): is the rank count or the collective wrong?",
                                            ratio, run.op, n, f, source, run.op));
}

void resolve(NcclTestsRun& run, const NcclTestsHints& hints, const std::string& name) {
  std::sort(run.devices.begin(), run.devices.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  for (const auto& d : run.devices)
    if (!d.host.empty() && std::find(run.hosts.begin(), run.hosts.end(), d.host) == run.hosts.end())
      run.hosts.push_back(d.host);
  if (!run.devices.empty()) run.gpu_model = run.devices.front().model;
  run.nranks = static_cast<int>(run.devices.size());
  if (hints.nranks > 0) {
    if (run.nranks > 0 && run.nranks != hints.nranks)
      throw ConfigError(SourcePos{"--gpus", 0, 0}, fmt::format("{} GPUs given, but the run at {} lists {} ranks",
                                                               hints.nranks, run.pos.to_string(), run.nranks));
    run.nranks = hints.nranks;
  }
  if (run.nranks == 0)
    throw ConfigError(run.pos, "the log lists no '#  Rank N ... device N' lines, so the number of ranks is unknown: "
                               "give --gpus");
  if (!run.devices.empty() && run.devices.back().rank != run.nranks - 1)
    throw ConfigError(run.devices.back().pos,
                      fmt::format("{} device lines, but ranks run up to {}: is a device line missing?",
                                  run.devices.size(), run.devices.back().rank));
  std::transform(run.algorithm.begin(), run.algorithm.end(), run.algorithm.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  resolve_op(run, hints, name);
}

}  // namespace

bool looks_like_nccl_tests(const std::string& text) {
  if (json_text(text))
    return text.find("\"results\"") != std::string::npos && text.find("\"config\"") != std::string::npos &&
           text.find("\"plansim") == std::string::npos && text.find("\"bench\"") == std::string::npos;
  size_t pos = 0;
  while ((pos = text.find("nThread", pos)) != std::string::npos) {
    const size_t hash = text.rfind('#', pos);
    const size_t line = text.rfind('\n', pos);
    const size_t line_start = line == std::string::npos ? 0 : line + 1;
    const bool after_hash = hash != std::string::npos && (line == std::string::npos || hash > line) &&
                            text.find_first_not_of(" \t", hash + 1) == pos;
    const bool hashless = text.find_first_not_of(" \t", line_start) == pos;  // a Markdown copy lost the '#'
    const size_t eol = text.find('\n', pos);
    const size_t gpus = text.find(" nGpus ", pos);
    if ((after_hash || hashless) && gpus != std::string::npos && (eol == std::string::npos || gpus < eol))
      return true;
    ++pos;
  }
  return false;
}

bool looks_like_nccl_tests_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::string text;
  try {  // the whole file: launcher chatter may come before the header, JSON may put "results" last
    text = read_log(path);
  } catch (const ConfigError&) {
    return false;  // not readable as a log: the other readers say why
  }
  return looks_like_nccl_tests(text);
}

std::vector<NcclTestsRun> parse_nccl_tests(const std::string& text, const std::string& name, const NcclTestsHints& hints) {
  if (text.size() > static_cast<size_t>(limits::kMaxLogFileBytes))
    throw ConfigError(SourcePos{name, 0, 0}, fmt::format("the log is larger than {} MiB, the cap on nccl-tests logs",
                                                         limits::kMaxLogFileBytes / 1048576));
  std::vector<NcclTestsRun> runs = json_text(text) ? parse_nccl_tests_json(text, name) : parse_nccl_tests_text(text, name);
  if (runs.empty())
    throw ConfigError(SourcePos{name, 0, 0}, "no nccl-tests run in this file (no '# nThread ... nGpus ...' header)");
  for (auto& r : runs) resolve(r, hints, name);
  return runs;
}

std::vector<NcclTestsRun> load_nccl_tests(const std::filesystem::path& path, const NcclTestsHints& hints) {
  return parse_nccl_tests(read_log(path), path.string(), hints);
}

void append_measurements(const std::vector<NcclTestsRun>& runs, calib::Measurements& m) {
  for (const auto& run : runs) {
    if (run.cputime)
      throw ConfigError(run.pos, "this run reports CPU times ('cputime', nccl-tests -C 1), not the collective's: "
                                 "rerun without -C to calibrate from it");
    const double factor = nccl_tests_busbw_factor(run.op, run.nranks);
    if (factor <= 0) throw ConfigError(run.pos, fmt::format("{} over one rank moves nothing; it cannot be fitted", run.op));
    for (const auto& r : run.rows) {
      if (r.out_of_place.wrong && *r.out_of_place.wrong != 0)
        throw ConfigError(r.pos, fmt::format("this row failed nccl-tests' correctness check (#wrong = {:g}): a wrong "
                                             "result's time is not a measurement; rerun before calibrating",
                                             *r.out_of_place.wrong));
      if (r.size_bytes <= 0 || !r.out_of_place.present) continue;
      if (r.out_of_place.time_us <= 0) throw ConfigError(r.pos, "a time of 0 us cannot be fitted");
      calib::CollectiveSample s;
      s.op = run.op;
      s.algorithm = run.algorithm;
      s.nranks = run.nranks;
      s.size_bytes = r.size_bytes;
      s.busbw_factor = factor;
      s.time_s = r.out_of_place.time_us * 1e-6;
      s.pos = r.pos;
      m.collectives.push_back(s);
    }
    if (run.out_of_bounds && *run.out_of_bounds != 0)
      throw ConfigError(run.out_of_bounds_pos,
                        fmt::format("{} size(s) failed nccl-tests' correctness check ('Out of bounds values'): "
                                    "rerun before calibrating",
                                    *run.out_of_bounds));
    if (std::find(m.sources.begin(), m.sources.end(), run.file) == m.sources.end()) m.sources.push_back(run.file);
    if (m.device.empty()) m.device = run.gpu_model;
  }
}

void read_nccl_tests_file(const std::filesystem::path& path, calib::Measurements& m) {
  append_measurements(load_nccl_tests(path), m);
}

bool looks_like_bench_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');  // plansim-hw writes "bench" and "schema_version" first
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return json_text(head) && head.find("\"bench\"") != std::string::npos &&
         head.find("\"schema_version\"") != std::string::npos;
}

std::vector<NcclTestsRun> runs_from_bench_file(const std::filesystem::path& path) {
  calib::Measurements m;
  read_bench_file(path, m);
  std::map<std::tuple<std::string, std::string, int>, NcclTestsRun> groups;
  std::vector<std::tuple<std::string, std::string, int>> order;
  for (const auto& s : m.collectives) {
    if (s.op == "p2p_copy") continue;
    const auto key = std::make_tuple(s.op, s.algorithm, s.nranks);
    auto [it, fresh] = groups.try_emplace(key);
    NcclTestsRun& run = it->second;
    if (fresh) {
      order.push_back(key);
      run.file = path.string();
      run.pos = s.pos;
      run.format = "bench";
      run.op = s.op;
      run.op_source = "its rows' op";
      run.algorithm = s.algorithm;
      run.harness = s.harness;
      run.nranks = s.nranks;
      run.gpu_model = m.device;
    }
    NcclTestsRow row;
    row.size_bytes = s.size_bytes;
    row.pos = s.pos;
    row.out_of_place.present = true;
    row.out_of_place.time_us = s.time_s * 1e6;
    row.out_of_place.algbw_GBps = s.size_bytes / s.time_s / 1e9;
    row.out_of_place.busbw_GBps = row.out_of_place.algbw_GBps * s.busbw_factor;
    row.out_of_place.wrong = 0;  // the bench reader refuses rows with wrong > 0
    run.rows.push_back(row);
  }
  if (order.empty()) throw ConfigError(SourcePos{path.string(), 0, 0}, "this bench file has no collective rows to compare");
  std::vector<NcclTestsRun> runs;
  for (const auto& k : order) {
    NcclTestsRun& r = groups.at(k);
    std::stable_sort(r.rows.begin(), r.rows.end(), [](const auto& a, const auto& b) { return a.size_bytes < b.size_bytes; });
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace plansim::io
