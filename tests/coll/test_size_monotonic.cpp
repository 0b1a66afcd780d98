// A property every NCCL model must keep: a larger call of the same collective, algorithm and protocol on
// the same ranks never takes less time. (The tree all-reduce broke it while its pipeline fill and NCCL's
// size correction both charged its start-up: 2.6 ms at 32 MiB, 2.5 ms at 64 MiB on 4 DGX H100.) One
// exception is NCCL's own: where the call grows past a thread threshold NCCL runs it on more channels
// (enqueue.cc; nccl_channels.hpp channels_used), and a ring's bandwidth share jumps with them, so such a
// step may be a little faster (ring LL128 8 -> 16 KiB: 1 -> 3 channels, 0.2-2 % here). Those steps are
// not checked.
#include <catch2/catch.hpp>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/core/error.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {

// Seconds of one call, or a negative number where the algorithm cannot run it.
double seconds(const Topology& topo, CollOp op, int n, double bytes, const std::string& algo, const char* proto) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams{});
  double t = -1;
  try {
    runner.start(CollectiveCall{op, test::first_gpus(n), Bytes(bytes), 0, algo, proto},
                 [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
  } catch (const ConfigError&) {
    return -1;
  }
  sim.run();
  return t;
}

}  // namespace

TEST_CASE("every algorithm x protocol x op: time never falls as the call grows (1 KiB .. 1 GiB)", "[coll][property]") {
  struct Case {
    const char* name;
    Topology topo;
    int n;
  };
  std::vector<Case> cases;
  cases.push_back({"4 servers x 8 GPUs, a NIC per GPU", test::one_nic_per_gpu(4, 8, GBps(50)), 32});
  cases.push_back({"2 servers x 8 GPUs on NVLS switches, one NIC each", test::cluster_topology(2, 8, true), 16});
  cases.push_back({"one server of 8 GPUs on an NVLS switch", test::cluster_topology(1, 8, true), 8});
  const AlgorithmRegistry registry = make_default_registry();
  int runs = 0;
  for (const Case& c : cases)
    for (const CollOp op : {CollOp::all_reduce, CollOp::all_gather, CollOp::reduce_scatter, CollOp::broadcast,
                            CollOp::reduce, CollOp::all_to_all})
      for (const auto& a : registry.all()) {
        if (!a->supports(op)) continue;
        for (const char* proto : {"LL", "LL128", "Simple"}) {
          double last = 0;
          for (double bytes = 1024; bytes <= 1024.0 * 1048576; bytes *= 2) {
            const double t = seconds(c.topo, op, c.n, bytes, std::string(a->name()), proto);
            if (t < 0) break;
            ++runs;
            INFO(c.name << ": " << a->name() << "/" << proto << " op " << static_cast<int>(op) << " at " << bytes
                        << " B: " << t << " s after " << last << " s");
            const NcclModelParams m;
            const Protocol p = *protocol_from_string(proto);
            const bool more_channels = channels_used(m, p, Bytes(bytes), c.n, 16) !=
                                       channels_used(m, p, Bytes(bytes / 2), c.n, 16);
            if (!more_channels) CHECK(t >= last * (1 - 1e-9));
            last = t;
          }
        }
      }
  CHECK(runs > 1000);  // the sweep ran (every case has several algorithms that apply)
}
