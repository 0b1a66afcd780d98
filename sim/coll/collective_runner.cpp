// Runs a chosen collective on the FlowNetwork: the NCCL software latency first, then the FlowPlan's
// phases one after another; a phase's flows start together (bytes inflated by 1/efficiency) and the
// phase ends when its last flow lands and its HBM reduction time has passed.
//
// Choosing and lowering a collective is a pure function of the call (op, ranks, bytes, root,
// algorithm, protocol) for a given topology and NCCL model, so the runner keeps what it prepared
// per distinct call (a plan executor issues the same send/recv pair or DP bucket many times).
#include "sim/coll/collective_runner.hpp"

#include <unordered_map>

#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"

namespace plansim {
namespace {

// Everything a run of one distinct call needs, computed once.
struct Prepared {
  CollOp op;
  int root;
  double bytes;
  std::string algorithm_request, protocol_request;
  std::vector<GpuId> ranks;
  CollectiveChoice choice;
  Time software_latency;
  std::string algorithm, protocol;          // what ran, for CollectiveResult
  std::vector<std::vector<Bytes>> wire;     // [phase][flow]: bytes on the wire (1/efficiency included)
  std::vector<Time> reduce;                 // [phase]: local reduction time

  [[nodiscard]] bool matches(const CollectiveCall& c) const {
    return op == c.op && root == c.root && bytes == c.bytes.value() && ranks == c.ranks &&
           algorithm_request == c.algorithm && protocol_request == c.protocol;
  }
};

uint64_t call_hash(const CollectiveCall& c) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  mix(static_cast<uint64_t>(c.op));
  mix(static_cast<uint64_t>(c.root));
  mix(std::hash<double>{}(c.bytes.value()));
  for (GpuId g : c.ranks) mix(g.value);
  mix(std::hash<std::string>{}(c.algorithm));
  mix(std::hash<std::string>{}(c.protocol));
  return h;
}

}  // namespace

struct CollectiveRunner::Impl {
  FlowNetwork* net;
  NcclModelParams params;
  AlgorithmRegistry registry = make_default_registry();
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<const Prepared>>> prepared;

  std::shared_ptr<const Prepared> prepare(const CollectiveCall& call) {
    auto& bucket = prepared[call_hash(call)];
    for (const auto& p : bucket)
      if (p->matches(call)) return p;
    const Topology& topo = net->topology();
    auto p = std::make_shared<Prepared>();
    p->choice = choose_collective(registry, params, topo, call);  // throws on a bad call: nothing cached
    p->op = call.op;
    p->root = call.root;
    p->bytes = call.bytes.value();
    p->algorithm_request = call.algorithm;
    p->protocol_request = call.protocol;
    p->ranks = call.ranks;
    const CollectiveChoice& c = p->choice;
    p->software_latency = software_latency(params, c.algorithm->latency_class(), c.protocol, c.plan, c.intra);
    p->algorithm = std::string(c.algorithm->name());
    p->protocol = to_string(c.protocol);
    for (const PlannedPhase& ph : c.plan.phases) {
      auto& w = p->wire.emplace_back();
      for (const PlannedFlow& f : ph.flows) w.push_back(wire_bytes(params, c.protocol, topo, f));
      p->reduce.push_back(reduction_time(topo, ph.reduce_bytes_per_gpu));
    }
    bucket.push_back(p);
    return p;
  }
};

namespace {

struct Run {
  FlowNetwork* net;
  std::shared_ptr<const Prepared> prep;
  Time start;
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
  const Prepared& prep = *run->prep;
  const auto& phases = prep.choice.plan.phases;
  while (run->phase < phases.size()) {
    const PlannedPhase& ph = phases[run->phase];
    const Time reduce = prep.reduce[run->phase];
    run->pending = ph.flows.size() + (reduce > Time::zero() ? 1 : 0);
    if (run->pending == 0) {
      ++run->phase;
      continue;
    }
    const auto& wire = prep.wire[run->phase];
    for (size_t i = 0; i < ph.flows.size(); ++i)
      run->net->start(ph.flows[i].links, wire[i], ph.flows[i].latency, [run] { finish_one(run); });
    if (reduce > Time::zero()) sim.after(reduce, [run] { finish_one(run); });
    return;
  }
  run->on_done(CollectiveResult{prep.algorithm, prep.protocol, run->start, sim.now()});
}

}  // namespace

CollectiveRunner::CollectiveRunner(FlowNetwork& net) : CollectiveRunner(net, NcclModelParams{}) {}
CollectiveRunner::CollectiveRunner(FlowNetwork& net, const NcclModelParams& params)
    : impl_(std::make_unique<Impl>(Impl{&net, params, make_default_registry(), {}})) {}
CollectiveRunner::~CollectiveRunner() = default;

void CollectiveRunner::start(const CollectiveCall& call, std::function<void(const CollectiveResult&)> on_done) {
  auto run = std::make_shared<Run>();
  run->net = impl_->net;
  run->prep = impl_->prepare(call);
  run->on_done = std::move(on_done);
  Simulation& sim = impl_->net->sim();
  run->start = sim.now();
  sim.after(run->prep->software_latency, [run] { start_phase(run); });
}

}  // namespace plansim
