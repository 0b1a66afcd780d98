#pragma once
// Results files of `plansim search` / `plansim sweep` (--out FILE), their shards (--shard K/N) and
// `plansim merge`. One JSON object per line:
//   line 1, the header: {"plansim_results": 1, "command": "search"|"sweep", "run": {what identifies the
//     run: the scenario file's hash, the overrides, the searched or varied keys...}, "shard": "K/N",
//     "meta": {what merge prints: scenario name, GPUs, top...}};
//   then one line per finished point, appended and flushed as it finishes: {"index": I, ...};
//   last, once the run (or shard) has finished: {"done": true, ...counts}.
// A rerun of the same command resumes: the points already in the file are not run again. An
// interrupted write leaves a last line without its newline: it is dropped (that point runs again).
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace plansim::advise {

// --shard K/N: point I belongs to shard K when I mod N = K (disjoint, deterministic, balanced).
struct Shard {
  int index = 0;
  int count = 1;
  [[nodiscard]] bool has(size_t i) const { return static_cast<int>(i % static_cast<size_t>(count)) == index; }
  [[nodiscard]] std::string text() const;  // "K/N"
};
// "K/N" with 0 <= K < N; a ConfigError at "plansim: --shard" otherwise.
Shard parse_shard(const std::string& text);

// FNV-1a of a file's bytes, hex: identifies the scenario a results file was made from.
std::string file_hash(const std::string& path);

class ResultsFile {
 public:
  // Opens (or creates) `path` for the run `header` describes. An existing file must hold the same
  // command, run and shard (a ConfigError at path:1:1 otherwise, and at path:L:1 for a line that is
  // not JSON before the last); its point lines are kept and the file rewritten without its done
  // line and any truncated last line, ready for appending.
  ResultsFile(std::string path, nlohmann::ordered_json header);
  // Points already in the file, by index.
  [[nodiscard]] const std::map<size_t, nlohmann::json>& done() const { return done_; }
  // Appends one line and flushes it (thread-safe).
  void append(const nlohmann::ordered_json& line);

 private:
  std::string path_;
  std::mutex mu_;
  std::map<size_t, nlohmann::json> done_;
};

// A finished results file as merge reads it.
struct ShardFile {
  std::string path;
  nlohmann::json header;
  Shard shard;
  std::map<size_t, nlohmann::json> points;
  nlohmann::json done;
};

// Reads a results file that must be finished (its done line present): ConfigError otherwise.
ShardFile read_shard_file(const std::string& path);
// Checks that `files` are the N shards of one run, each once: ConfigError otherwise.
void check_shards(const std::vector<ShardFile>& files);

}  // namespace plansim::advise
