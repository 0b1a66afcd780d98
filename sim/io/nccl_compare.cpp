#include "sim/io/nccl_compare.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

CompareTable read_table(const YamlFile& f, const YAML::Node& n) {
  MapReader m(f, n, "a comparison table");
  m.allow({"context", "notes", "doc_line", "source", "params_line"});  // free-form
  CompareTable t;
  t.name = m.required<std::string>("name");
  t.topology = f.directory() / m.required<std::string>("topology");
  if (m.has("nodes")) t.nodes = m.positive_int("nodes");
  t.op = m.required<std::string>("op");
  t.op_pos = f.pos(m.get("op"));
  const int gpus = m.positive_int_or("gpus", 0, limits::kMaxGpus);
  t.algo = m.optional<std::string>("algo", "auto");
  t.proto = m.optional<std::string>("proto", "auto");
  t.harness = *bench_harness_from_string(m.choice_or("harness", {"nccl-tests", "torch"}, "nccl-tests"));
  if (m.has("calibration")) t.calibration = f.directory() / m.required<std::string>("calibration");
  YAML::Node cols = m.require("columns");
  if (!cols.IsSequence()) f.fail(cols, "'columns' must be a list of column names");
  std::vector<std::string> names;
  for (const auto& c : cols) {
    if (!c.IsScalar()) f.fail(c, "'columns' must be a list of column names");
    names.push_back(c.Scalar());
  }
  auto index = [&](const std::string& k) -> int {
    auto it = std::find(names.begin(), names.end(), k);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  const int i_size = index("size_B"), i_bus = index("busbw_GBps"), i_gpus = index("gpus");
  if (i_size < 0 || i_bus < 0) f.fail(cols, "'columns' must name size_B and busbw_GBps");
  if (i_gpus < 0 && gpus == 0) m.fail(n, "give 'gpus' or a 'gpus' column");
  YAML::Node rows = m.require("rows");
  if (!rows.IsSequence()) f.fail(rows, "'rows' must be a list of rows");
  for (const auto& r : rows) {
    if (!r.IsSequence() || r.size() != names.size())
      f.fail(r, fmt::format("each row must be a list of {} values (columns: {})", names.size(), fmt::join(names, ", ")));
    CompareRow row;
    row.bytes = Bytes(scalar_real(f, r[static_cast<size_t>(i_size)], "size_B", {0, limits::kMaxBytes, true}));
    row.busbw_GBps = scalar_real(f, r[static_cast<size_t>(i_bus)], "busbw_GBps", {0, 1e6});
    row.gpus = i_gpus >= 0 ? static_cast<int>(scalar_integer(f, r[static_cast<size_t>(i_gpus)], "gpus",
                                                             {1, limits::kMaxGpus}))
                           : gpus;
    row.pos = f.pos(r);
    row.line = row.pos.line;
    t.rows.push_back(row);
  }
  m.finish();
  return t;
}

std::vector<CompareTable> read_tables(const YamlFile& f) {
  MapReader top(f, f.root(), "a comparison file");
  top.allow({"source", "notes", "hardware", "columns_note"});
  YAML::Node tables = top.require("tables");
  if (!tables.IsSequence() || tables.size() == 0) f.fail(tables, "'tables' must be a non-empty list");
  std::vector<CompareTable> out;
  for (const auto& t : tables) out.push_back(read_table(f, t));
  top.finish();
  return out;
}

}  // namespace

std::vector<CompareTable> load_nccl_compare(const std::filesystem::path& file) {
  return read_tables(YamlFile::load(file));
}

std::vector<CompareTable> parse_nccl_compare(const std::string& text, const std::string& name) {
  return read_tables(YamlFile::parse(text, name));
}

}  // namespace plansim::io
