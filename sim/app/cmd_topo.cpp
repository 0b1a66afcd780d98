// `plansim topo FILE [--nodes N] [--json FILE] [--dot FILE]`: describe a cluster (sim/api/topo.cpp).
#include <memory>
#include <optional>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"

namespace plansim::app {
namespace {

struct TopoOptions {
  std::string file;
  int nodes = 0;
  std::string json;
  std::string dot;
};

}  // namespace

Command add_topo_command(CLI::App& app) {
  auto opt = std::make_shared<TopoOptions>();
  CLI::App* sub = app.add_subcommand("topo", "describe a cluster: GPUs, per-tier bandwidth, bisection, latency by distance");
  sub->add_option("file", opt->file, "topology YAML (see topologies/)")->required();
  sub->add_option("--nodes", opt->nodes, "override the number of servers")->check(count_in(1, limits::kMaxServers));
  sub->add_option("--json", opt->json, "also write the report as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("--dot", opt->dot, "write a Graphviz DOT drawing to FILE ('-' = stdout); big clusters are collapsed");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            check_output_path("--dot", opt->dot);
            const std::optional<int> nodes = opt->nodes > 0 ? std::optional<int>(opt->nodes) : std::nullopt;
            const api::CommandResult r = api::topo(opt->file, nodes);
            if (opt->json != "-" && opt->dot != "-") write_output("-", r.text);
            if (!opt->json.empty()) write_output(opt->json, r.json);
            if (!opt->dot.empty()) write_output(opt->dot, api::topo_dot(opt->file, nodes));
            return kExitOk;
          }};
}

}  // namespace plansim::app
