#include "sim/io/kineto_trace_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace plansim::io {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// file:line:col of the byte at `offset`.
SourcePos pos_at(const std::string& text, size_t offset, const std::string& name) {
  SourcePos p{name, 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

// Byte offset of element `index` of the top-level "traceEvents" array (a light scan that respects
// strings); the start of the file when not found.
size_t event_offset(const std::string& text, size_t index) {
  const size_t key = text.find("\"traceEvents\"");
  if (key == std::string::npos) return 0;
  size_t i = text.find('[', key);
  if (i == std::string::npos) return 0;
  int depth = 0;
  size_t element = 0;
  bool in_string = false;
  for (++i; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (depth == 0 && element == index && !std::isspace(static_cast<unsigned char>(c))) return i;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (depth == 0) return 0;
      --depth;
    }
    if (c == ',' && depth == 0) ++element;
  }
  return 0;
}

struct Kernel {
  double ts = 0, dur = 0;
  std::string name;
  int64_t correlation = -1;
};
struct Range {
  double begin = 0, end = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string nccl_op(const std::string& name) {
  const std::string n = lower(name);
  if (n.rfind("nccl", 0) != 0) return "";
  if (has(n, "allreduce")) return "all_reduce";
  if (has(n, "allgather")) return "all_gather";
  if (has(n, "reducescatter")) return "reduce_scatter";
  if (has(n, "alltoall")) return "all_to_all";
  if (has(n, "broadcast")) return "broadcast";
  if (has(n, "sendrecv") || has(n, "send") || has(n, "recv")) return "send_recv";
  if (has(n, "reduce")) return "reduce";
  return "other";
}

std::string kernel_class(const std::string& name) {
  if (const std::string op = nccl_op(name); !op.empty()) return op == "send_recv" ? "p2p" : "collective";
  const std::string n = lower(name);
  for (const char* a : {"flash", "fmha", "sdpa", "attention", "attn"})
    if (has(n, a)) return "attention";
  for (const char* g : {"gemm", "cutlass", "cublas", "xmma", "nvjet", "matmul", "wgrad", "dgrad"})
    if (has(n, g)) return "gemm";
  return "elementwise";
}

bool is_chrome_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return has(head, "\"traceEvents\"");
}

KinetoSummary read_kineto_trace_text(const std::string& text, const std::string& name) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(pos_at(text, e.byte > 0 ? e.byte - 1 : 0, name), fmt::format("not valid JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw ConfigError(SourcePos{name, 1, 1}, "not a Chrome trace: no top-level 'traceEvents' list");
  KinetoSummary out;
  out.source = name;
  if (doc.contains("distributedInfo") && doc["distributedInfo"].is_object()) {
    const auto& d = doc["distributedInfo"];
    if (d.contains("rank") && d["rank"].is_number_integer()) out.rank = d["rank"].get<int>();
  }
  const auto& events = doc["traceEvents"];
  std::vector<Range> steps;
  std::vector<Kernel> kernels;
  std::unordered_map<int64_t, double> launch_ts;  // correlation -> the runtime call's start
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    auto fail = [&](const std::string& why) { throw ConfigError(pos_at(text, event_offset(text, i), name), why); };
    if (!e.is_object()) fail("a trace event must be an object");
    if (e.value("ph", "") != "X") continue;  // complete events only (instant, counter, flow and metadata skipped)
    if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("dur") || !e["dur"].is_number())
      fail("a complete ('X') event needs numeric 'ts' and 'dur' (microseconds)");
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    if (dur < 0) fail("'dur' must be >= 0");
    const std::string cat = e.value("cat", "");
    const std::string ev_name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    int64_t correlation = -1;
    if (e.contains("args") && e["args"].is_object() && e["args"].contains("correlation") &&
        e["args"]["correlation"].is_number_integer())
      correlation = e["args"]["correlation"].get<int64_t>();
    if (ev_name.rfind("ProfilerStep#", 0) == 0 && (cat == "user_annotation" || cat == "cpu_op"))
      steps.push_back({ts, ts + dur});
    else if (cat == "kernel") kernels.push_back({ts, dur, ev_name, correlation});
    else if ((cat == "cuda_runtime" || cat == "cuda_driver") && correlation >= 0) launch_ts[correlation] = ts;
  }
  if (steps.empty())
    throw ConfigError(SourcePos{name, 1, 1}, "no 'ProfilerStep#' ranges: profile with torch.profiler.schedule and "
                                             "call prof.step() every iteration");
  std::sort(steps.begin(), steps.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  auto step_of = [&](double t) -> int {
    for (size_t s = 0; s < steps.size(); ++s)
      if (t >= steps[s].begin && t < steps[s].end) return static_cast<int>(s);
    return -1;
  };
  std::vector<double> durations;
  for (const Range& r : steps) durations.push_back((r.end - r.begin) * 1e-6);
  out.steps = static_cast<int>(steps.size());
  out.iteration_s = median(durations);
  for (const Kernel& k : kernels) {
    const auto launch = launch_ts.find(k.correlation);
    const int s = step_of(launch != launch_ts.end() ? launch->second : k.ts);
    if (s < 0) continue;
    ++out.kernels;
    const double per_step = k.dur * 1e-6 / out.steps;
    out.class_s[kernel_class(k.name)] += per_step;
    if (const std::string op = nccl_op(k.name); !op.empty()) out.nccl_s[op] += per_step;
  }
  return out;
}

KinetoSummary read_kineto_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(SourcePos{path.string(), 0, 0}, "cannot open this file");
  std::ostringstream s;
  s << in.rdbuf();
  return read_kineto_trace_text(s.str(), path.string());
}

calib::ReportTimings kineto_timings(const KinetoSummary& k) {
  calib::ReportTimings t;
  t.source = k.source;
  t.iteration_time_s = k.iteration_s;
  t.iteration_pos = SourcePos{k.source, 0, 0};
  for (const auto& [cls, s] : k.class_s) t.ops.push_back({cls + " total", cls, k.rank, s, SourcePos{k.source, 0, 0}});
  for (const auto& [op, s] : k.nccl_s)
    t.ops.push_back({"nccl " + op, op == "send_recv" ? "p2p" : "collective", k.rank, s, SourcePos{k.source, 0, 0}});
  return t;
}

calib::ReportTimings aggregate_like_kineto(const calib::ReportTimings& sim, int rank) {
  calib::ReportTimings t;
  t.source = sim.source;
  t.iteration_time_s = sim.iteration_time_s;
  t.iteration_pos = sim.iteration_pos;
  std::map<std::string, double> by_class, by_op;
  bool any = false;
  // A report folded by symmetry lists its executed ranks only; the trace's rank is timed like the rank
  // that stands for it.
  const auto folded = sim.executed_as.find(rank);
  const int sim_rank = folded == sim.executed_as.end() ? rank : folded->second;
  for (const calib::OpTiming& op : sim.ops) {
    if (op.rank != sim_rank) continue;
    any = true;
    by_class[op.op_class] += op.duration_s;
    if (op.op_class == "p2p") by_op["send_recv"] += op.duration_s;
    if (op.op_class == "collective")
      for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"})
        if (op.name.size() >= std::string(c).size() && op.name.compare(op.name.size() - std::string(c).size(), std::string::npos, c) == 0) {
          by_op[c] += op.duration_s;
          break;
        }
  }
  if (!any)
    throw ConfigError(sim.iteration_pos, fmt::format("the simulated report has no op on rank {} (the trace's rank)", rank));
  for (const auto& [cls, s] : by_class) t.ops.push_back({cls + " total", cls, rank, s, sim.iteration_pos});
  for (const auto& [op, s] : by_op)
    t.ops.push_back({"nccl " + op, op == "send_recv" ? "p2p" : "collective", rank, s, sim.iteration_pos});
  return t;
}

}  // namespace plansim::io
