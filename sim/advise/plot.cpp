#include "sim/advise/plot.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

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
  if (ext == ".svg") terminal = "set terminal svg size 900,540 dynamic enhanced font 'Helvetica,13' background '#ffffff'";
  else if (ext == ".png") terminal = "set terminal pngcairo size 1200,720 enhanced font 'Helvetica,13'";
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
  const std::string cmd = "gnuplot " + quote(gp.string()) + " 2>&1";
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
