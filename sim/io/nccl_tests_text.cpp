// nccl-tests' stdout as printed (format: nccl_tests_reader.hpp): the file's streams, one per process
// (nccl_tests_streams.hpp), each read line by line.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string_view>

#include "sim/core/limits.hpp"
#include "sim/io/checked_number.hpp"
#include "sim/io/nccl_tests_internal.hpp"
#include "sim/io/nccl_tests_ops.hpp"
#include "sim/io/nccl_tests_streams.hpp"

namespace plansim::io {

std::vector<Token> split_tokens(const std::string& line, int first_column) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), first_column + static_cast<int>(start)});
  }
  return out;
}

namespace {

enum class Col { size, count, type, redop, root, time, algbw, busbw, wrong, error, timestamp, other };

struct Column {
  Col kind = Col::other;
  int group = -1;  // 0 out-of-place, 1 in-place; -1 for the row's description
  std::string name;
};

// Reads one stream's runs.
class StreamReader {
 public:
  StreamReader(std::string file, std::vector<NcclTestsRun>& runs) : file_(std::move(file)), runs_(runs) {}

  void read(const ProcessStream& s) {
    for (const LogLine& l : s.lines) line(l);
    close_run();
  }

  // What the stream said outside its runs: the last binary named on a command line, NCCL INFO settings.
  std::vector<std::pair<int, std::string>> mentions;  // (line, binary) of each *_perf named outside the tables
  std::string algorithm, protocol, nccl_version;

 private:
  [[nodiscard]] SourcePos at(const LogLine& l, int column = 0) const {
    return SourcePos{file_, l.number, column > 0 ? column : 0};
  }
  [[noreturn]] void fail(const LogLine& l, int column, const std::string& what) const { throw ConfigError(at(l, column), what); }

  void line(const LogLine& l) {
    line_number_ = l.number;
    size_t i = 0;
    while (i < l.text.size() && (l.text[i] == ' ' || l.text[i] == '\t')) ++i;
    if (i < l.text.size() && l.text[i] == '#') return comment(l, i + 1);
    const std::vector<Token> toks = split_tokens(l.text, l.column);
    if (toks.empty()) return;
    if (hashless_comment(toks)) return comment(l, i);
    if (all_digits(toks.front().text)) {
      if (table_open_) return row(l, toks);
      if (run_ && !columns_.empty() && toks.size() == row_width())
        fail(l, toks.front().column, "a result row after the table's footer ('Avg bus bandwidth'); is a header missing?");
      return;  // not nccl-tests' own line (launcher or script output)
    }
    notice(l.text, toks);
  }

  // nccl-tests' '#' lines with the '#' lost (a log copied from a rendered Markdown page, where '# ' starts a
  // heading): a header line that reads 'nThread N nGpus N ...' opens such a run, and until the next header its
  // other comment lines are known by their first word. Before any header only the two lines whose wording is
  // nccl-tests' own are taken.
  bool hashless_comment(const std::vector<Token>& toks) {
    const std::string& first = toks.front().text;
    if (first == "nThread" && toks.size() >= 4 && toks[2].text == "nGpus") return hashless_ = true;
    if ((first == "nccl-tests" && toks.size() > 2 && toks[1].text == "version") ||
        (first == "Collective" && toks.size() > 2 && toks[1].text == "test"))
      return true;
    if (!hashless_) return false;
    for (const char* word : {"Using", "Rank", "size", "bytes", "(B)", "(bytes)", "Out", "Avg"})
      if (first == word) return true;
    return false;
  }

  // Launcher, shell and NCCL INFO lines: kept for what they say about the run, else skipped.
  void notice(const std::string& text, const std::vector<Token>& toks) {
    for (const auto& t : toks)
      if (t.text.find("_perf") != std::string::npos && nccl_tests_op_from_name(t.text))
        mentions.emplace_back(line_number_, t.text);
    const auto setting = [&](const std::string& key) -> std::string {
      const std::string marker = key + " set by environment to ";
      const size_t p = text.find(marker);
      if (p == std::string::npos) return {};
      const auto rest = split_tokens(text.substr(p + marker.size()));
      return rest.empty() ? std::string() : rest.front().text;
    };
    if (text.find("NCCL INFO") == std::string::npos) return;
    if (auto a = setting("NCCL_ALGO"); !a.empty()) algorithm = a;
    if (auto p = setting("NCCL_PROTO"); !p.empty()) protocol = p;
    if (const size_t v = text.find("NCCL version "); v != std::string::npos) {
      const auto rest = split_tokens(text.substr(v + 13));
      if (!rest.empty()) nccl_version = rest.front().text.substr(0, rest.front().text.find('+'));
    }
  }

  void comment(const LogLine& l, size_t after_hash) {
    const std::string body = l.text.substr(after_hash);
    const int col0 = l.column + static_cast<int>(after_hash);
    const std::vector<Token> toks = split_tokens(body, col0);
    if (toks.empty()) return;
    const std::string& first = toks.front().text;
    const size_t colon = body.find(':');
    const std::string after_colon = colon == std::string::npos ? std::string() : body.substr(colon + 1);
    if (first == "nThread") {
      hashless_ = after_hash == 0 || l.text[after_hash - 1] != '#';
      return header(l, toks);
    }
    if (first == "nccl-tests" && toks.size() > 2 && toks[1].text == "version") {
      for (const auto& t : toks)
        if (starts_with(t.text, "nccl-library=")) pending_version_ = version_from_code(t.text.substr(13));
      return;
    }
    if (starts_with(body.substr(body.find_first_not_of(' ')), "Collective test starting:")) {
      const auto rest = split_tokens(after_colon);
      if (!rest.empty()) pending_program_ = rest.front().text;
      return;
    }
    if (first == "Rank") return device(l, toks);
    if (first == "size" || first == "bytes") return column_header(l, toks);
    if (first == "(B)" || first == "(bytes)") return units(l, toks);
    if (first == "Out" && body.find("Out of bounds values") != std::string::npos) {
      const auto rest = split_tokens(after_colon, col0 + static_cast<int>(colon) + 1);
      if (!run_) return;
      if (rest.empty()) fail(l, 0, "'Out of bounds values' without a count");
      run_->out_of_bounds = integer(l, rest.front(), "the out-of-bounds count", {0, INT64_MAX});
      run_->out_of_bounds_pos = at(l, rest.front().column);
      table_open_ = false;
      return;
    }
    if (first == "Avg" && body.find("Avg bus bandwidth") != std::string::npos) {
      const auto rest = split_tokens(after_colon, col0 + static_cast<int>(colon) + 1);
      if (!run_) return;
      if (rest.empty()) fail(l, 0, "'Avg bus bandwidth' without a value");
      run_->avg_busbw_GBps = real(l, rest.front(), "the average bus bandwidth", {0, 1e9});
      table_open_ = false;
      return;
    }
    if (first == "Collective" && toks.size() > 2 && toks[2].text == "concluded:") table_open_ = false;
  }

  static std::string version_from_code(const std::string& code) {
    if (!all_digits(code) || code.size() > 9) return {};
    const long v = std::stol(code);  // NCCL_VERSION_CODE: major*10000 + minor*100 + patch (major*1000 before 2.9)
    if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
    return fmt::format("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100);
  }

  // `# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...`
  void header(const LogLine& l, const std::vector<Token>& toks) {
    if (run_ && run_->rows.empty())
      fail(l, 0, fmt::format("a second '# nThread' header while the run of line {} has printed no results: two "
                             "processes printing at once (nccl-tests built without MPI=1 runs one test per process; "
                             "rebuild it with MPI=1), or a run that failed",
                             run_->pos.line));
    close_run();
    runs_.emplace_back();
    run_ = &runs_.back();
    run_->file = file_;
    run_->format = "text";
    run_->pos = at(l, 0);
    run_->program = pending_program_;
    if (!pending_program_.empty()) run_->op_source = "its 'Collective test starting' line";
    run_->nccl_version = pending_version_;
    pending_program_.clear();
    for (size_t i = 0; i + 1 < toks.size(); ++i) {
      if (toks[i].text == "nThread")
        run_->nthreads = static_cast<int>(integer(l, toks[i + 1], "nThread", {1, limits::kMaxGpus}));
      if (toks[i].text == "nGpus") run_->ngpus = static_cast<int>(integer(l, toks[i + 1], "nGpus", {1, limits::kMaxGpus}));
    }
    if (toks.size() < 4 || toks[2].text != "nGpus")
      fail(l, toks.front().column, "the header does not read as '# nThread N nGpus N minBytes ...'");
  }

  void require_run(const LogLine& l, const std::string& what) const {
    if (!run_)
      fail(l, 0, fmt::format("{} before any '# nThread ... nGpus ...' header: is the start of the log missing?", what));
  }

  // `#  Rank  0 Group  0 Pid  12345 on   node-a device  0 [0000:18:00] NVIDIA H100 80GB HBM3`; older
  // releases have no Group, the oldest no Pid.
  void device(const LogLine& l, const std::vector<Token>& toks) {
    require_run(l, "a '#  Rank' device line");
    const char* shape = "a device line must read '#  Rank N [Group N] [Pid N] on HOST device N [BUS] MODEL'";
    NcclTestsDevice d;
    size_t i = 1;
    if (i >= toks.size()) fail(l, toks.front().column, shape);
    d.rank = static_cast<int>(integer(l, toks[i++], "the rank", {0, limits::kMaxGpus - 1}));
    for (const char* optional : {"Group", "Pid"})
      if (i + 1 < toks.size() && toks[i].text == optional) i += 2;
    if (i + 1 >= toks.size() || toks[i].text != "on") fail(l, i < toks.size() ? toks[i].column : 0, shape);
    d.host = toks[i + 1].text;
    i += 2;
    if (i + 1 >= toks.size() || toks[i].text != "device") fail(l, i < toks.size() ? toks[i].column : 0, shape);
    d.device = static_cast<int>(integer(l, toks[i + 1], "the device", {0, limits::kMaxGpusPerServer}));
    i += 2;
    if (i < toks.size() && starts_with(toks[i].text, "[")) ++i;  // the PCI bus id
    if (i >= toks.size()) fail(l, 0, fmt::format("{} (the GPU model is missing)", shape));
    d.model = l.text.substr(static_cast<size_t>(toks[i].column - l.column));
    while (!d.model.empty() && (d.model.back() == ' ' || d.model.back() == '\t')) d.model.pop_back();
    d.pos = at(l, toks.front().column);
    for (const auto& other : run_->devices)
      if (other.rank == d.rank)
        fail(l, toks[1].column, fmt::format("rank {} is listed twice (also at line {})", d.rank, other.pos.line));
    run_->devices.push_back(d);
  }

  // `#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong [timestamp]`.
  void column_header(const LogLine& l, const std::vector<Token>& toks) {
    require_run(l, "the table's column header");
    columns_.clear();
    table_header_line_ = l.number;
    int group = -1;
    bool size = false;
    for (const auto& t : toks) {
      Column c;
      c.name = t.text;
      const std::string& n = t.text;
      if (n == "size" || n == "bytes") c.kind = Col::size, size = true;
      else if (n == "count" || n == "N") c.kind = Col::count;
      else if (n == "type") c.kind = Col::type;
      else if (n == "redop" || n == "op") c.kind = Col::redop;
      else if (n == "root") c.kind = Col::root;
      else if (n == "time" || n == "cputime") {
        if (++group > 1) fail(l, t.column, "more than two 'time' columns (out-of-place and in-place)");
        c.kind = Col::time;
        if (n == "cputime") run_->cputime = true;
      } else if (n == "algbw") c.kind = Col::algbw;
      else if (n == "busbw") c.kind = Col::busbw;
      else if (n == "#wrong") c.kind = Col::wrong;
      else if (n == "error" || n == "res") c.kind = Col::error;
      else if (n == "timestamp") c.kind = Col::timestamp;
      if (c.kind == Col::time || c.kind == Col::algbw || c.kind == Col::busbw || c.kind == Col::wrong ||
          c.kind == Col::error) {
        if (group < 0) fail(l, t.column, fmt::format("'{}' before any 'time' column", n));
        c.group = group;
      }
      columns_.push_back(c);
    }
    bool busbw = false;
    for (const auto& c : columns_) busbw = busbw || (c.kind == Col::busbw && c.group == 0);
    if (!size || group < 0 || !busbw)
      fail(l, toks.front().column, "the table header must name 'size', 'time', 'algbw' and 'busbw' columns");
    time_scale_us_ = 1.0;
    table_open_ = true;
  }

  // `#  (B)  (elements)  (us)  (GB/s)  (GB/s)  ...`: the time unit.
  void units(const LogLine& l, const std::vector<Token>& toks) {
    for (const auto& t : toks) {
      if (t.text == "(us)") time_scale_us_ = 1.0;
      else if (t.text == "(ms)") time_scale_us_ = 1e3;
      else if (t.text == "(s)") time_scale_us_ = 1e6;
      else if (t.text == "(ns)") time_scale_us_ = 1e-3;
      else continue;
      return;
    }
    (void)l;
  }

  int64_t integer(const LogLine& l, const Token& t, const std::string& what, IntRange range) const {
    try {
      return integer_in(t.text, range);
    } catch (const UnitError& e) {
      fail(l, t.column, fmt::format("{} {}", what, e.what()));
    }
  }
  double real(const LogLine& l, const Token& t, const std::string& what, RealRange range) const {
    try {
      return real_in(t.text, range);
    } catch (const UnitError& e) {
      fail(l, t.column, fmt::format("{} {}", what, e.what()));
    }
  }

  // The tokens of a result row (a timestamp is two: date and time).
  [[nodiscard]] size_t row_width() const {
    size_t n = 0;
    for (const auto& c : columns_) n += c.kind == Col::timestamp ? 2 : 1;
    return n;
  }

  void row(const LogLine& l, const std::vector<Token>& toks) {
    const size_t expected = row_width();
    std::string names;
    for (const auto& c : columns_) names += (names.empty() ? "" : " ") + c.name;
    if (toks.size() != expected)
      fail(l, toks.size() < expected ? 0 : toks[expected].column,
           fmt::format("a result row of {} values, but the table header (line {}) names {}: {}{}", toks.size(),
                       table_header_line_, expected, names,
                       toks.size() < expected ? " (is the row cut short?)" : ""));
    NcclTestsRow r;
    r.pos = at(l, toks.front().column);
    size_t k = 0;
    for (const auto& c : columns_) {
      const Token& t = toks[k];
      k += c.kind == Col::timestamp ? 2 : 1;
      NcclTestsResult* res = c.group == 0 ? &r.out_of_place : c.group == 1 ? &r.in_place : nullptr;
      switch (c.kind) {
        case Col::size:
          r.size_bytes = static_cast<double>(integer(l, t, "the size", {0, static_cast<int64_t>(limits::kMaxBytes)}));
          break;
        case Col::count: r.count = integer(l, t, "the count", {0, INT64_MAX}); break;
        case Col::type: r.type = t.text; break;
        case Col::redop: r.redop = t.text; break;
        case Col::root:
          r.root = static_cast<int>(integer(l, t, "the root", {-1, limits::kMaxGpus}));
          r.root_printed = true;
          break;
        case Col::time:
          res->present = true;
          res->time_us = real(l, t, "the time", {0, 1e12}) * time_scale_us_;
          break;
        case Col::algbw: res->algbw_GBps = real(l, t, "algbw", {0, 1e9}); break;
        case Col::busbw: res->busbw_GBps = real(l, t, "busbw", {0, 1e9}); break;
        case Col::wrong:
          if (t.text != "N/A") res->wrong = real(l, t, "#wrong", {0, 1e18});
          break;
        case Col::error:
          if (t.text != "N/A") res->max_error = real(l, t, "the error", {-1e300, 1e300});
          break;
        case Col::timestamp:
        case Col::other: break;
      }
    }
    run_->rows.push_back(r);
  }

  void close_run() {
    if (run_ && run_->rows.empty())
      throw ConfigError(run_->pos, "this run has no result rows (the log ends, or the next run starts, before its table: "
                                   "did the test fail?)");
    run_ = nullptr;
    columns_.clear();
    table_open_ = false;
  }

  std::string file_;
  std::vector<NcclTestsRun>& runs_;
  NcclTestsRun* run_ = nullptr;
  std::vector<Column> columns_;
  int table_header_line_ = 0;
  bool table_open_ = false;
  bool hashless_ = false;  // the open run's header had no '#'
  double time_scale_us_ = 1.0;
  std::string pending_program_, pending_version_;
  int line_number_ = 0;
};

}  // namespace

std::vector<NcclTestsRun> parse_nccl_tests_text(const std::string& text, const std::string& name) {
  std::vector<NcclTestsRun> runs;
  std::vector<std::pair<int, std::string>> mentions;
  std::string algorithm, protocol, version;
  std::string first_tag;
  int first_tag_line = 0;
  for (const ProcessStream& s : demultiplex(text)) {
    const size_t before = runs.size();
    StreamReader reader(name, runs);
    reader.read(s);
    if (runs.size() > before) {
      if (!first_tag_line) first_tag = s.tag, first_tag_line = runs[before].pos.line;
      else
        throw ConfigError(runs[before].pos,
                          fmt::format("a run printed by a second process (tag '{}'; the first, tag '{}', at line {}): "
                                      "nccl-tests built without MPI=1 runs one independent test per process; rebuild "
                                      "it with MPI=1",
                                      s.tag, first_tag, first_tag_line));
    }
    for (size_t i = before; i < runs.size(); ++i) {
      if (runs[i].algorithm == "auto" && !reader.algorithm.empty()) runs[i].algorithm = reader.algorithm;
      if (runs[i].protocol == "auto" && !reader.protocol.empty()) runs[i].protocol = reader.protocol;
      if (runs[i].nccl_version.empty()) runs[i].nccl_version = reader.nccl_version;
    }
    mentions.insert(mentions.end(), reader.mentions.begin(), reader.mentions.end());
    if (algorithm.empty()) algorithm = reader.algorithm;
    if (protocol.empty()) protocol = reader.protocol;
    if (version.empty()) version = reader.nccl_version;
  }
  std::sort(mentions.begin(), mentions.end());
  for (auto& r : runs) {  // settings another process's stream showed (NCCL INFO of rank 1, ...)
    if (r.algorithm == "auto" && !algorithm.empty()) r.algorithm = algorithm;
    if (r.protocol == "auto" && !protocol.empty()) r.protocol = protocol;
    if (r.nccl_version.empty()) r.nccl_version = version;
    if (!r.program.empty()) continue;
    // The binary named last before the run's header (a shell trace, the launcher's command line), in any stream.
    for (const auto& [line, binary] : mentions)
      if (line < r.pos.line) {
        r.program = binary;
        r.op_source = fmt::format("the command at line {}", line);
      }
  }
  return runs;
}

}  // namespace plansim::io
