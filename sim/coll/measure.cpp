#include "sim/coll/measure.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/net/flow_network.hpp"

namespace plansim {

double CollectiveMeasurement::algbw_GBps() const {
  return time > Time::zero() ? bytes.value() / time.seconds() / 1e9 : 0.0;
}

double CollectiveMeasurement::busbw_GBps(CollOp op, int n) const { return algbw_GBps() * busbw_factor(op, n); }

CollectiveMeasurement measure_collective(const Topology& topo, const NcclModelParams& model, CollOp op, int gpus,
                                         Bytes bytes, const std::string& algorithm, const std::string& protocol,
                                         BenchHarness harness) {
  if (gpus < 1 || static_cast<size_t>(gpus) > topo.num_gpus())
    throw ConfigError(SourcePos{"--gpus", 0, 0},
                      fmt::format("{} GPUs asked, topology '{}' has {}", gpus, topo.name(), topo.num_gpus()));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, model);
  CollectiveCall call;
  call.op = op;
  for (int i = 0; i < (op == CollOp::send_recv ? 2 : gpus); ++i) call.ranks.push_back(GpuId::from(i));
  if (op == CollOp::send_recv && gpus >= 2) call.ranks.back() = GpuId::from(gpus - 1);
  call.bytes = bytes;
  call.algorithm = algorithm;
  call.protocol = protocol;
  CollectiveMeasurement m{bytes, Time::zero(), "", ""};
  runner.start(call, [&](const CollectiveResult& r) {
    m.time = r.end - r.start;
    m.algorithm = r.algorithm;
    m.protocol = r.protocol;
  });
  sim.run();
  // A torch loop times each call from an idle device: the host's issue of the call is inside (nccl_model.hpp).
  if (harness == BenchHarness::torch) m.time += Time::us(std::max(0.0, model.torch_loop_overhead_us));
  // The host's per-call launch cost bounds a benchmark loop's period (nccl_model.hpp), the loop's own.
  if (harness == model.launch_overhead_harness)
    m.time = std::max(m.time, Time::us(std::max(0.0, model.launch_overhead_us)));
  return m;
}

}  // namespace plansim
