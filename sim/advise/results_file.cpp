#include "sim/advise/results_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace plansim::advise {

namespace {

const SourcePos kShardFlag{"plansim: --shard", 0, 0};

SourcePos at(const std::string& path, int line) { return SourcePos{path, line, 1}; }

struct Lines {
  std::vector<std::string> complete;  // lines that ended with a newline
};

// The file's lines; a last line without its newline (an interrupted write) is left out.
Lines read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(SourcePos{path, 0, 0}, "cannot read this results file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Lines out;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    out.complete.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

nlohmann::json parse_line(const std::string& path, int line, const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw ConfigError(at(path, line), "not a plansim results line (one JSON object per line expected)");
  return j;
}

// Header, points and done line of a results file. A bad line that is the last complete one is
// taken for an interrupted write too when `lenient`.
struct Parsed {
  nlohmann::json header;
  std::map<size_t, nlohmann::json> points;
  std::map<size_t, std::string> raw;  // the point lines as written
  nlohmann::json done;
};

Parsed parse_file(const std::string& path, bool lenient) {
  Lines lines = read_lines(path);
  Parsed p;
  if (lines.complete.empty()) return p;
  for (size_t i = 0; i < lines.complete.size(); ++i) {
    const int line = static_cast<int>(i + 1);
    const bool last = i + 1 == lines.complete.size();
    nlohmann::json j = nlohmann::json::parse(lines.complete[i], nullptr, false);
    if ((j.is_discarded() || !j.is_object()) && last && lenient && i > 0) break;
    j = parse_line(path, line, lines.complete[i]);
    if (i == 0) {
      if (!j.contains("plansim_results") || !j.contains("command") || !j.contains("run") || !j.contains("shard"))
        throw ConfigError(at(path, line), "not a plansim results file (its first line is not a results header)");
      p.header = std::move(j);
      continue;
    }
    if (j.contains("done")) {
      if (!last) throw ConfigError(at(path, line), "a 'done' line before the end of the results file");
      p.done = std::move(j);
      continue;
    }
    if (!j.contains("index") || !j["index"].is_number_unsigned())
      throw ConfigError(at(path, line), "a results line without its point 'index'");
    const auto index = j["index"].get<size_t>();
    p.raw[index] = lines.complete[i];
    p.points[index] = std::move(j);
  }
  return p;
}

}  // namespace

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw ConfigError(kShardFlag, fmt::format("'{}' is not K/N (shard K of N, 0 <= K < N)", text));
  auto whole = [&](const std::string& s, const char* what) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      throw ConfigError(kShardFlag, fmt::format("'{}': {} must be a whole number", text, what));
    return std::stoi(s);
  };
  Shard sh{whole(text.substr(0, slash), "K"), whole(text.substr(slash + 1), "N")};
  if (sh.count < 1) throw ConfigError(kShardFlag, fmt::format("'{}': N must be at least 1", text));
  if (sh.index >= sh.count)
    throw ConfigError(kShardFlag, fmt::format("'{}': K must be below N (shards are numbered 0 to N-1)", text));
  return sh;
}

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t h = 0xcbf29ce484222325ULL;
  char c = 0;
  while (in.get(c)) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

ResultsFile::ResultsFile(std::string path, nlohmann::ordered_json header) : path_(std::move(path)) {
  std::string text = header.dump() + "\n";
  if (std::filesystem::exists(path_) && std::filesystem::file_size(path_) > 0) {
    Parsed p = parse_file(path_, true);
    if (!p.header.is_null()) {
      const nlohmann::json want = nlohmann::json::parse(header.dump());
      for (const char* key : {"command", "run", "shard"})
        if (p.header[key] != want[key])
          throw ConfigError(at(path_, 1), fmt::format("holds results of another {} (its '{}' differs: {}); use another "
                                                      "--out file or delete this one",
                                                      p.header["command"].dump(), key, p.header[key].dump()));
      for (auto& [i, raw] : p.raw) text += raw + "\n";
      done_ = std::move(p.points);
    }
  }
  // Rewritten whole (a temporary renamed over it), so that a truncated line or a done line is gone.
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw ConfigError(SourcePos{path_, 0, 0}, "cannot write this results file");
    out << text;
    if (!out.flush()) throw ConfigError(SourcePos{path_, 0, 0}, "cannot write this results file");
  }
  std::filesystem::rename(tmp, path_);
}

void ResultsFile::append(const nlohmann::ordered_json& line) {
  const std::string text = line.dump() + "\n";
  std::lock_guard lock(mu_);
  std::ofstream out(path_, std::ios::binary | std::ios::app);
  out << text;
  out.flush();
  if (!out) throw ConfigError(SourcePos{path_, 0, 0}, "cannot append to this results file");
}

ShardFile read_shard_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw ConfigError(SourcePos{path, 0, 0}, "cannot read this results file");
  Parsed p = parse_file(path, false);
  if (p.header.is_null()) throw ConfigError(at(path, 1), "an empty results file");
  ShardFile f;
  f.path = path;
  try {
    f.shard = parse_shard(p.header["shard"].get<std::string>());
  } catch (const std::exception&) {
    throw ConfigError(at(path, 1), "its header's 'shard' is not K/N");
  }
  if (p.done.is_null())
    throw ConfigError(SourcePos{path, 0, 0}, fmt::format("shard {} did not finish (no 'done' line): rerun the same "
                                                         "command to resume it, then merge",
                                                         f.shard.text()));
  f.header = std::move(p.header);
  f.points = std::move(p.points);
  f.done = std::move(p.done);
  return f;
}

void check_shards(const std::vector<ShardFile>& files) {
  if (files.empty()) throw ConfigError(SourcePos{"plansim: merge", 0, 0}, "no results files given");
  const ShardFile& first = files.front();
  std::vector<int> seen(static_cast<size_t>(first.shard.count), -1);
  for (size_t i = 0; i < files.size(); ++i) {
    const ShardFile& f = files[i];
    for (const char* key : {"command", "run"})
      if (f.header[key] != first.header[key])
        throw ConfigError(at(f.path, 1), fmt::format("not a shard of the same run as {} (its '{}' differs)",
                                                     first.path, key));
    if (f.shard.count != first.shard.count)
      throw ConfigError(at(f.path, 1), fmt::format("shard {} of a run cut into {} shards, but {} is one of {}",
                                                   f.shard.text(), f.shard.count, first.path, first.shard.count));
    int& s = seen[static_cast<size_t>(f.shard.index)];
    if (s >= 0)
      throw ConfigError(at(f.path, 1), fmt::format("shard {} is given twice (also {})", f.shard.text(),
                                                   files[static_cast<size_t>(s)].path));
    s = static_cast<int>(i);
    for (const auto& [index, line] : f.points)
      if (!f.shard.has(index))
        throw ConfigError(at(f.path, 1), fmt::format("holds point {}, which is not in shard {}", index, f.shard.text()));
  }
  for (size_t k = 0; k < seen.size(); ++k)
    if (seen[k] < 0)
      throw ConfigError(SourcePos{"plansim: merge", 0, 0},
                        fmt::format("shard {}/{} is missing (merge needs all {} shards)", k, first.shard.count,
                                    first.shard.count));
}

}  // namespace plansim::advise
