#include "sim/coll/flow_plan.hpp"

#include <algorithm>
#include <map>

#include "sim/coll/pxn.hpp"
#include "sim/core/assert.hpp"

namespace plansim {

std::vector<double> FlowPlan::link_bytes(size_t num_links) const {
  std::vector<double> out(num_links, 0.0);
  for (const auto& ph : phases)
    for (const auto& f : ph.flows)
      for (LinkId l : f.links) out[l.index()] += f.bytes.value();
  return out;
}

size_t FlowPlan::num_flows() const {
  size_t k = 0;
  for (const auto& ph : phases) k += ph.flows.size();
  return k;
}

namespace {
thread_local RouteReads* route_reads = nullptr;
}  // namespace

RouteReads::RouteReads() : outer_(route_reads) { route_reads = this; }
RouteReads::~RouteReads() { route_reads = outer_; }

void append_route(const Topology& topo, GpuId a, GpuId b, std::vector<LinkId>& out) {
  if (a == b) return;
  if (route_reads != nullptr) route_reads->pairs.emplace_back(a, b);
  auto r = topo.route(a, b);
  out.insert(out.end(), r.begin(), r.end());
}

Time route_latency(const Topology& topo, GpuId a, GpuId b) {
  if (a == b) return Time::zero();
  if (route_reads != nullptr) route_reads->pairs.emplace_back(a, b);
  Time t = Time::zero();
  for (LinkId l : topo.route(a, b)) t += topo.link(l).latency;
  return t;
}

Time max_hop_latency(const Topology& topo, const std::vector<GpuId>& from, const std::vector<GpuId>& to) {
  PLANSIM_ASSERT(from.size() == to.size(), "hop lists differ in length");
  Time m = Time::zero();
  for (size_t i = 0; i < from.size(); ++i) m = std::max(m, route_latency(topo, from[i], to[i]));
  return m;
}

FlowPlan lower_steps(const ChunkSchedule& s, const Topology& topo, const std::vector<GpuId>& ranks, Bytes total,
                     const PxnRelays* relays) {
  PLANSIM_ASSERT(s.num_participants == s.num_ranks, "step lowering cannot place switch participants");
  PLANSIM_ASSERT(static_cast<int>(ranks.size()) == s.num_ranks, "schedule and group differ in size");
  const Bytes chunk = Bytes(s.chunk_bytes(total.value()));
  FlowPlan plan;
  for (const auto& st : s.steps) {
    std::map<std::pair<int, int>, int> pairs;  // ordered: deterministic flow order
    std::vector<int> reduced(static_cast<size_t>(s.num_ranks), 0);
    for (const auto& x : st.xfers) {
      ++pairs[{x.src, x.dst}];
      if (x.reduce) ++reduced[static_cast<size_t>(x.dst)];
    }
    PlannedPhase ph;
    bool inter = false;
    for (const auto& [p, count] : pairs) {
      const GpuId a = ranks[static_cast<size_t>(p.first)], b = ranks[static_cast<size_t>(p.second)];
      PlannedFlow f;
      f.bytes = chunk * count;
      if (const GpuId via = relays ? relays->relay(a, b) : a; via != a) {
        // A PXN relay streams: its NVLink leg and its network leg run at once, each at its own rate, and the
        // network leg's first bytes wait for the NVLink leg's (pxn.hpp).
        PlannedFlow leg = f;
        append_route(topo, a, via, leg.links);
        leg.latency = route_latency(topo, a, via);
        append_route(topo, via, b, f.links);
        f.latency = leg.latency + route_latency(topo, via, b);
        ph.flows.push_back(std::move(leg));
      } else {
        append_route(topo, a, b, f.links);
        f.latency = route_latency(topo, a, b);
      }
      inter = inter || topo.host_of(a) != topo.host_of(b);
      ph.flows.push_back(std::move(f));
    }
    ph.reduce_bytes_per_gpu = chunk * *std::max_element(reduced.begin(), reduced.end());
    (inter ? plan.steps_inter : plan.steps_intra) += 1;
    plan.phases.push_back(std::move(ph));
  }
  return plan;
}

std::vector<double> schedule_link_bytes(const ChunkSchedule& s, const Topology& topo, const std::vector<GpuId>& ranks,
                                        Bytes total, const PxnRelays* relays) {
  std::vector<double> out(topo.links().size(), 0.0);
  const double chunk = s.chunk_bytes(total.value());
  for (const auto& st : s.steps)
    for (const auto& x : st.xfers) {
      PLANSIM_ASSERT(x.src < s.num_ranks && x.dst < s.num_ranks, "switch participants need their own accounting");
      std::vector<LinkId> r;
      const GpuId a = ranks[static_cast<size_t>(x.src)], b = ranks[static_cast<size_t>(x.dst)];
      (void)append_p2p_route(topo, a, relays ? relays->relay(a, b) : a, b, r);
      for (LinkId l : r) out[l.index()] += chunk;
    }
  return out;
}

}  // namespace plansim
