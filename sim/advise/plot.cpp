#include "sim/advise/plot.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "sim/core/error.hpp"

namespace plansim::advise {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
  if (!f) throw ConfigError(SourcePos{p.string(), 0, 0}, "cannot write the file");
}

}  // namespace

std::string render_plot(const PlotSpec& spec, const std::filesystem::path& out) {
  const std::string ext = out.extension().string();
  std::string terminal;
  const int w = spec.width > 0 ? spec.width : 900, h = spec.height > 0 ? spec.height : 540;
  if (ext == ".svg")
    terminal = fmt::format("set terminal svg size {},{} dynamic enhanced font 'Helvetica,13' background '#ffffff'", w, h);
  else if (ext == ".png")
    terminal = fmt::format("set terminal pngcairo size {},{} enhanced font 'Helvetica,13'", w * 4 / 3, h * 4 / 3);
  else throw ConfigError(SourcePos{"--out", 0, 0}, "the output must end in .svg or .png");
  std::filesystem::path csv = out, gp = out;
  csv += ".csv";
  gp += ".gp";
  std::string data;
  for (size_t i = 0; i < spec.blocks.size(); ++i) data += (i ? "\n\n" : "") + spec.blocks[i];
  write_file(csv, data + "\n");
  std::string body = spec.plot;
  for (size_t pos; (pos = body.find("DATA")) != std::string::npos;) body.replace(pos, 4, quote(csv.string()));
  std::string script = terminal + "\n";
  script += "set output " + quote(out.string()) + "\n";
  script += "set datafile separator ','\nset grid lc rgb '#dddddd'\nset key top right\n";
  script += "set title " + quote(spec.title) + "\n";
  script += "set xlabel " + quote(spec.xlabel) + "\nset ylabel " + quote(spec.ylabel) + "\n";
  script += spec.setup + "\nplot " + body + "\n";
  write_file(gp, script);
  // gnuplot's messages go to stderr: stdout may carry a document (plansim report's page).
  const std::string cmd = "gnuplot " + quote(gp.string()) + " >&2";
  const int rc = std::system(cmd.c_str());
  if (rc == 0 && std::filesystem::exists(out)) {
    std::filesystem::remove(csv);
    std::filesystem::remove(gp);
    return "";
  }
  return fmt::format("gnuplot failed or is not installed; the data and script are in {} and {}: render with "
                     "`gnuplot {}` (Debian: apt-get install gnuplot-nox)",
                     csv.string(), gp.string(), gp.string());
}

std::string render_plot_svg(const PlotSpec& spec) {
  static std::atomic<unsigned> counter{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("plansim-picture-{}-{}", ::getpid(), counter.fetch_add(1));
  std::filesystem::create_directories(dir);
  const auto out = dir / "picture.svg";
  const std::string note = render_plot(spec, out);
  std::string svg;
  if (note.empty()) {
    std::ifstream in(out);
    svg.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (!note.empty() || svg.empty())
    throw ConfigError(SourcePos{"gnuplot", 0, 0}, "gnuplot failed or is not installed (Debian: apt-get install gnuplot-nox)");
  return svg;
}

double metric_value(const PointMetrics& m, const std::string& name) {
  if (name == "iteration_s") return m.iteration_s;
  if (name == "tokens_per_s") return m.tokens_per_s;
  if (name == "mfu") return m.mfu;
  if (name == "bubble_fraction") return m.bubble_fraction;
  if (name == "bubble_overhead") return m.bubble_overhead;
  if (name == "memory_peak_GiB") return m.memory_peak_gib;
  for (size_t d = 0; d < 5; ++d)
    if (name == fmt::format("exposed_{}_s", dim_names()[d])) return m.exposed_comm_s[d];
  throw ConfigError(SourcePos{"--metric", 0, 0},
                    fmt::format("unknown metric '{}' (iteration_s, tokens_per_s, mfu, bubble_fraction, "
                                "bubble_overhead, memory_peak_GiB, exposed_<tp|cp|ep|dp|pp>_s)", name));
}

}  // namespace plansim::advise
