// Runs a chosen collective on the FlowNetwork: the NCCL software latency first, then the FlowPlan's
// phases one after another; a phase's flows start together (bytes inflated by 1/efficiency) and the
// phase ends when its last flow lands and its HBM reduction time has passed.
#include "sim/coll/collective_runner.hpp"

#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"

namespace plansim {

struct CollectiveRunner::Impl {
  FlowNetwork* net;
  NcclModelParams params;
  AlgorithmRegistry registry = make_default_registry();
};

namespace {

struct Run {
  FlowNetwork* net;
  const NcclModelParams* params;
  Protocol protocol;
  FlowPlan plan;
  CollectiveResult result;
  std::function<void(const CollectiveResult&)> on_done;
  size_t phase = 0;
  size_t pending = 0;
};

void start_phase(const std::shared_ptr<Run>& run);

void finish_one(const std::shared_ptr<Run>& run) {
  if (--run->pending > 0) return;
  ++run->phase;
  start_phase(run);
}

void start_phase(const std::shared_ptr<Run>& run) {
  Simulation& sim = run->net->sim();
  while (run->phase < run->plan.phases.size()) {
    const PlannedPhase& ph = run->plan.phases[run->phase];
    const Time reduce = reduction_time(run->net->topology(), ph.reduce_bytes_per_gpu);
    run->pending = ph.flows.size() + (reduce > Time::zero() ? 1 : 0);
    if (run->pending == 0) {
      ++run->phase;
      continue;
    }
    for (const PlannedFlow& f : ph.flows) {
      run->net->start(f.links, wire_bytes(*run->params, run->protocol, run->net->topology(), f), f.latency,
                      [run] { finish_one(run); });
    }
    if (reduce > Time::zero()) sim.after(reduce, [run] { finish_one(run); });
    return;
  }
  run->result.end = sim.now();
  run->on_done(run->result);
}

}  // namespace

CollectiveRunner::CollectiveRunner(FlowNetwork& net) : CollectiveRunner(net, NcclModelParams{}) {}
CollectiveRunner::CollectiveRunner(FlowNetwork& net, const NcclModelParams& params)
    : impl_(std::make_unique<Impl>(Impl{&net, params})) {}
CollectiveRunner::~CollectiveRunner() = default;

void CollectiveRunner::start(const CollectiveCall& call, std::function<void(const CollectiveResult&)> on_done) {
  CollectiveChoice c = choose_collective(impl_->registry, impl_->params, impl_->net->topology(), call);
  auto run = std::make_shared<Run>();
  run->net = impl_->net;
  run->params = &impl_->params;
  run->protocol = c.protocol;
  run->on_done = std::move(on_done);
  run->result.algorithm = std::string(c.algorithm->name());
  run->result.protocol = to_string(c.protocol);
  Simulation& sim = impl_->net->sim();
  run->result.start = sim.now();
  const Time lat = software_latency(impl_->params, c.algorithm->latency_class(), c.protocol, c.plan, c.intra);
  run->plan = std::move(c.plan);
  sim.after(lat, [run] { start_phase(run); });
}

}  // namespace plansim
