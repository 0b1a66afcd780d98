// plansim plot: each kind writes a valid SVG through gnuplot (an XML/SVG document with paths).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/advise/plot.hpp"

using namespace plansim;
using namespace plansim::advise;

namespace {

const std::string kSrc = PLANSIM_SOURCE_DIR;

void check_svg(const PlotSpec& spec, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "plansim-plot-test";
  std::filesystem::create_directories(dir);
  const auto out = dir / (name + ".svg");
  std::filesystem::remove(out);
  const std::string note = render_plot(spec, out);
  INFO(note);
  REQUIRE(note.empty());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string svg = ss.str();
  CHECK((svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0));
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("<path") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out.string() + ".gp"));  // cleaned up after a successful render
}

}  // namespace

TEST_CASE("plot: every kind renders an SVG", "[advise]") {
  check_svg(plot_bubble({kSrc + "/scenarios/seed-pipeline-16x4.yaml"}, 2), "bubble");
  check_svg(plot_tp_placement(kSrc + "/scenarios/antipatterns/tp-rank-order.yaml", {kSrc + "/topologies/dgx-h100.yaml"},
                              {}, 2),
            "tp-placement");
  check_svg(plot_dp_scaling(kSrc + "/scenarios/antipatterns/good.yaml", {}, {8, 16, 64}, 2), "dp-scaling");
  LintOptions lo;
  lo.jobs = 2;
  check_svg(plot_lint(run_lint(kSrc + "/scenarios/antipatterns/pipeline-bubble.yaml", lo)), "lint");
  SweepResult r;
  r.keys = {parse_vary("training.micro_batch=1,2,4")};
  r.points = run_points(kSrc + "/scenarios/antipatterns/good.yaml", {}, cartesian(r.keys), 2);
  check_svg(plot_sweep(r, "tokens_per_s"), "sweep");
  CHECK_THROWS(plot_sweep(r, "no_such_metric"));
  check_svg(plot_busbw({kSrc + "/validate/nccl/stas00_mlengineering.yaml"}), "busbw");
}

TEST_CASE("plot busbw: one simulated line and one published point set per series", "[advise]") {
  // The A100 and H200 sweeps of the stas00 file have several sizes for one GPU count each: two series,
  // each a line block followed by a points block whose sizes are the published ones.
  const PlotSpec p = plot_busbw({kSrc + "/validate/nccl/stas00_mlengineering.yaml"});
  REQUIRE(p.blocks.size() == 4);
  CHECK(p.plot.find("a100_8gpu_allreduce_32K_16G (8 GPUs)") != std::string::npos);
  CHECK(p.blocks[1].rfind("32768,", 0) == 0);  // the published table starts at 32 KiB
  // Simulated busbw rises with message size on the A100 sweep (latency-bound small, bandwidth-bound large).
  std::istringstream line(p.blocks[0]);
  std::string row;
  double first = -1, last = -1;
  while (std::getline(line, row)) {
    const double bus = std::stod(row.substr(row.find(',') + 1));
    if (first < 0) first = bus;
    last = bus;
  }
  CHECK(last > 50 * first);
}
