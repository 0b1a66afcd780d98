#include "sim/advise/sweep.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/scenario_loader.hpp"

#include <algorithm>
#include <atomic>
#include <optional>

namespace plansim::advise {

VaryKey parse_vary(const std::string& text, const std::string& flag) {
  const SourcePos where{flag + " " + text, 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(where, flag + " must look like key.path=v1,v2,...");
  VaryKey k;
  k.key = text.substr(0, eq);
  std::string cur;
  int depth = 0;
  for (char ch : text.substr(eq + 1)) {
    if (ch == '[' || ch == '{') ++depth;
    if ((ch == ']' || ch == '}') && depth > 0) --depth;
    if (ch == ',' && depth == 0) {
      k.values.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  k.values.push_back(cur);
  for (const auto& v : k.values)
    if (v.empty()) throw ConfigError(where, "an empty value in the list");
  return k;
}

void check_scenario_key(const VaryKey& key) {
  const auto& known = scenario_key_paths();
  if (std::find(known.begin(), known.end(), key.key) == known.end())
    throw ConfigError(SourcePos{"--vary " + key.key, 0, 0}, fmt::format("unknown scenario key '{}'", key.key));
}

std::vector<std::vector<std::string>> cartesian(const std::vector<VaryKey>& keys) {
  int64_t total = 1;
  for (const auto& k : keys) {
    total *= static_cast<int64_t>(std::max<size_t>(1, k.values.size()));
    if (total > limits::kMaxSweepPoints)
      throw ConfigError(SourcePos{"--vary " + k.key, 0, 0},
                        fmt::format("the --vary keys make more than {} points, the cap (README 'Limits')",
                                    limits::kMaxSweepPoints));
  }
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& k : keys) {
    std::vector<std::vector<std::string>> next;
    for (const auto& p : out)
      for (const auto& v : k.values) {
        auto q = p;
        q.push_back(k.key + "=" + v);
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  return out;
}

std::string value_of(const std::vector<std::string>& sets, const std::string& key) {
  for (const auto& s : sets)
    if (s.size() > key.size() && s.compare(0, key.size(), key) == 0 && s[key.size()] == '=')
      return s.substr(key.size() + 1);
  return "";
}

namespace {

const char* kHeader[] = {"iter_s", "tokens/s", "MFU%", "bubble%", "tp_s", "cp_s", "ep_s", "dp_s", "pp_s", "mem_GiB",
                         "oom"};

std::vector<std::string> metric_cells(const PointMetrics& m) {
  std::vector<std::string> c{fmt::format("{:.4f}", m.iteration_s), fmt::format("{:.0f}", m.tokens_per_s),
                             fmt::format("{:.1f}", 100 * m.mfu), fmt::format("{:.1f}", 100 * m.bubble_fraction)};
  for (double e : m.exposed_comm_s) c.push_back(fmt::format("{:.4f}", e));
  c.push_back(fmt::format("{:.1f}", m.memory_peak_gib));
  c.push_back(m.oom ? "yes" : "no");
  return c;
}

}  // namespace

namespace {

nlohmann::ordered_json point_line(size_t index, const PointResult& p) {
  nlohmann::ordered_json j;
  j["index"] = index;
  j["sets"] = p.sets;
  j["valid"] = p.valid;
  if (p.valid) {
    j["metrics"] = nlohmann::ordered_json::parse(metrics_json(p.metrics));
  } else {
    j["error"] = p.error;
    j["error_at"] = {p.error_pos.file, p.error_pos.line, p.error_pos.column};
    j["error_message"] = p.error_message;
  }
  return j;
}

PointResult point_of(const nlohmann::json& j) {
  PointResult p;
  p.sets = j.at("sets").get<std::vector<std::string>>();
  p.valid = j.at("valid").get<bool>();
  if (p.valid) {
    p.metrics = metrics_from_json(j.at("metrics").dump());
  } else {
    p.error = j.at("error").get<std::string>();
    const auto& at = j.at("error_at");
    p.error_pos = SourcePos{at.at(0).get<std::string>(), at.at(1).get<int>(), at.at(2).get<int>()};
    p.error_message = j.at("error_message").get<std::string>();
  }
  return p;
}

}  // namespace

SweepResult run_sweep(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                      const std::vector<VaryKey>& keys, int jobs, const Shard& shard, const std::string& out,
                      const ProgressFn& progress) {
  SweepResult r;
  r.keys = keys;
  const auto all = cartesian(keys);
  std::optional<ResultsFile> file;
  if (!out.empty()) {
    nlohmann::ordered_json run;
    run["scenario_fnv"] = file_hash(scenario.string());
    run["sets"] = base_sets;
    nlohmann::ordered_json vary = nlohmann::ordered_json::array();
    for (const auto& k : keys) vary.push_back({k.key, k.values});
    run["vary"] = vary;
    nlohmann::ordered_json h;
    h["plansim_results"] = 1;
    h["command"] = "sweep";
    h["run"] = run;
    h["shard"] = shard.text();
    h["meta"] = {{"points", all.size()}};
    file.emplace(out, h);
  }
  std::vector<size_t> mine;
  for (size_t i = 0; i < all.size(); ++i)
    if (shard.has(i)) mine.push_back(i);
  r.points.resize(mine.size());
  std::atomic<bool> any_valid{false};
  parallel_for(
      mine.size(), jobs,
      [&](size_t, size_t k) {
        const size_t i = mine[k];
        if (file) {
          if (const auto it = file->done().find(i); it != file->done().end()) {
            try {
              r.points[k] = point_of(it->second);
            } catch (const nlohmann::json::exception& e) {
              throw ConfigError(SourcePos{out, 0, 0}, fmt::format("point {}: {}", i, e.what()));
            }
            if (r.points[k].valid) any_valid = true;
            return;
          }
        }
        r.points[k] = run_point(scenario, base_sets, all[i]);
        if (r.points[k].valid) any_valid = true;
        if (file) file->append(point_line(i, r.points[k]));
      },
      [&](size_t done, size_t total) {
        if (progress && any_valid) progress(done, total);
      });
  if (file) file->append(nlohmann::ordered_json{{"done", true}, {"points", mine.size()}});
  return r;
}

SweepResult merge_sweep(const std::vector<ShardFile>& shards) {
  check_shards(shards);
  const ShardFile& first = shards.front();
  if (first.header.at("command") != "sweep")
    throw ConfigError(SourcePos{first.path, 1, 1}, "not the results of a sweep");
  SweepResult r;
  for (const auto& k : first.header.at("run").at("vary"))
    r.keys.push_back(VaryKey{k.at(0).get<std::string>(), k.at(1).get<std::vector<std::string>>()});
  const auto total = first.header.at("meta").at("points").get<size_t>();
  r.points.resize(total);
  std::vector<char> have(total, 0);
  for (const ShardFile& f : shards)
    for (const auto& [index, line] : f.points) {
      if (index >= total) throw ConfigError(SourcePos{f.path, 0, 0}, fmt::format("point {} of {}?", index, total));
      try {
        r.points[index] = point_of(line);
      } catch (const nlohmann::json::exception& e) {
        throw ConfigError(SourcePos{f.path, 0, 0}, fmt::format("point {}: {}", index, e.what()));
      }
      have[index] = 1;
    }
  for (size_t i = 0; i < total; ++i)
    if (!have[i])
      for (const ShardFile& f : shards)
        if (f.shard.has(i))
          throw ConfigError(SourcePos{f.path, 0, 0},
                            fmt::format("point {} is missing although shard {} says it finished", i, f.shard.text()));
  return r;
}

std::string sweep_table(const SweepResult& r) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head;
  for (const auto& k : r.keys) head.push_back(k.key);
  for (const char* h : kHeader) head.emplace_back(h);
  rows.push_back(head);
  std::vector<std::string> notes;
  for (const auto& p : r.points) {
    std::vector<std::string> row;
    for (const auto& k : r.keys) row.push_back(value_of(p.sets, k.key));
    if (p.valid) {
      for (auto& c : metric_cells(p.metrics)) row.push_back(c);
    } else {
      row.push_back(fmt::format("invalid [{}]", notes.size() + 1));
      notes.push_back(p.error);
    }
    rows.push_back(row);
  }
  std::vector<size_t> width(head.size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
      if (!(row.size() < head.size() && i + 1 == row.size())) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i)
      line += (i ? "  " : "") + (i + 1 == row.size() ? row[i] : fmt::format("{:>{}}", row[i], width[i]));
    out += line + "\n";
  }
  out += "(times in seconds per iteration; *_s = exposed communication per rank by dimension; MFU and bubble in % "
         "of iteration)\n";
  for (size_t i = 0; i < notes.size(); ++i) out += fmt::format("[{}] {}\n", i + 1, notes[i]);
  return out;
}

std::string sweep_csv(const SweepResult& r) {
  std::string out;
  for (const auto& k : r.keys) out += k.key + ",";
  out += "valid,iteration_s,tokens_per_s,mfu,bubble_fraction,exposed_tp_s,exposed_cp_s,exposed_ep_s,exposed_dp_s,"
         "exposed_pp_s,memory_peak_GiB,oom,error\n";
  for (const auto& p : r.points) {
    for (const auto& k : r.keys) out += "\"" + value_of(p.sets, k.key) + "\",";
    const auto& m = p.metrics;
    std::string err = p.error;
    for (auto& ch : err)
      if (ch == '"' || ch == '\n') ch = '\'';
    out += fmt::format("{},{},{},{},{}", p.valid ? 1 : 0, m.iteration_s, m.tokens_per_s, m.mfu, m.bubble_fraction);
    for (double e : m.exposed_comm_s) out += fmt::format(",{}", e);
    out += fmt::format(",{},{},\"{}\"\n", m.memory_peak_gib, m.oom ? 1 : 0, err);
  }
  return out;
}

std::string sweep_json(const SweepResult& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& p : r.points) {
    nlohmann::ordered_json x;
    for (const auto& k : r.keys) x["point"][k.key] = value_of(p.sets, k.key);
    x["valid"] = p.valid;
    if (p.valid) x["metrics"] = nlohmann::ordered_json::parse(metrics_json(p.metrics));
    else x["error"] = p.error;
    j.push_back(x);
  }
  return j.dump(2) + "\n";
}

}  // namespace plansim::advise
