// `plansim collective`: nccl-tests on the simulator (sim/api/collective.cpp); --compare runs a published
// table (validate/nccl/*.yaml) or an nccl-tests log (text or -J JSON, or plansim-hw bench JSON;
// app/collective_log_compare.hpp) and prints the errors.
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/collective_log_compare.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/nccl_tests_reader.hpp"

namespace plansim::app {
namespace {

struct CollOptions {
  api::CollectiveRequest request;
  int nodes = 0;
  std::string json;
};

}  // namespace

Command add_collective_command(CLI::App& app) {
  auto opt = std::make_shared<CollOptions>();
  api::CollectiveRequest* o = &opt->request;
  CLI::App* sub = app.add_subcommand("collective", "nccl-tests on the simulator: time/algbw/busbw of a collective by size");
  sub->add_option("--topology", o->topology, "topology YAML (see topologies/)");
  sub->add_option("--nodes", opt->nodes, "override the number of servers")->check(count_in(1, limits::kMaxServers));
  CLI::Option* op_option = sub->add_option("--op", o->op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, gather, scatter, all_to_all, send_recv");
  CLI::Option* gpus_option = sub->add_option("--gpus", o->gpus, "group size: the first N GPUs of the topology, host-major (default: all)")
      ->check(count_in(1, limits::kMaxGpus));
  sub->add_option("--algo", o->algo, "auto, ring, tree, nvls, nvls_tree, collnet_direct, nvls_collnet, pat, halving_doubling, hierarchical, chain, direct, send_recv");
  sub->add_option("--proto", o->proto, "auto, LL, LL128, Simple");
  sub->add_option("--harness", o->harness,
                  "the benchmark loop predicted: nccl-tests (default) or torch (a torch.distributed loop, whose launch "
                  "floor a profile fitted on torch timings holds)")
      ->check(CLI::IsMember({"nccl-tests", "torch"}));
  sub->add_option("-b,--minbytes", o->min_bytes, "smallest size (nccl-tests: K/M/G = powers of 1024)")->check(nccl_size());
  sub->add_option("-e,--maxbytes", o->max_bytes, "largest size")->check(nccl_size());
  sub->add_option("-f,--stepfactor", o->factor, "size multiplication factor between rows (> 1)")
      ->check(number_in({1, 1e6, true}));
  sub->add_option("--dtype,-d", o->dtype, "element type for the count column (float, half, bfloat16, double, int8, ...)");
  sub->add_option("--calibration", o->calibration,
                  "NCCL model calibration profile (validate/calibration/*.yaml), layered on the topology's; 'none': defaults");
  sub->add_option("--json", opt->json, "also write the rows as JSON to FILE ('-' = stdout, replacing the table)");
  sub->add_option("--compare", o->compare,
                  "compare with measurements: a published table (validate/nccl/*.yaml), an nccl-tests log (stdout "
                  "as printed, or its -J JSON) or plansim-hw bench nccl JSON");
  return {sub, [opt, op_option, gpus_option] {
            api::CollectiveRequest r = opt->request;
            if (opt->nodes > 0) r.nodes = opt->nodes;
            if (!r.compare.empty() && (io::looks_like_nccl_tests_file(r.compare) || io::looks_like_bench_file(r.compare))) {
              LogCompareOptions l;
              l.log = r.compare;
              l.topology = r.topology;
              l.nodes = opt->nodes;
              l.gpus = gpus_option->count() > 0 ? r.gpus : 0;
              l.op = op_option->count() > 0 ? r.op : "";
              l.algo = r.algo;
              l.proto = r.proto;
              l.calibration = r.calibration;
              return run_log_compare(l);
            }
            if (r.compare.empty()) check_output_path("--json", opt->json);
            const api::CommandResult out = api::collective(r);
            if (!r.compare.empty() || opt->json != "-") write_output("-", out.text);
            if (r.compare.empty() && !opt->json.empty()) write_output(opt->json, out.json);
            return kExitOk;
          }};
}

}  // namespace plansim::app
