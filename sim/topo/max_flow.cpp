#include "sim/topo/max_flow.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <cmath>
#include <cstdint>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {

// Boost's flow graph: every directed link becomes an edge with its reverse (capacity 0 unless the
// opposite link exists as its own edge). Capacities are integer bytes per second, so the result is exact.
using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

void add_arc(FlowGraph& g, size_t u, size_t v, int64_t cap) {
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  const auto fwd = boost::add_edge(u, v, g).first;
  const auto back = boost::add_edge(v, u, g).first;
  capacity[fwd] = cap;
  capacity[back] = 0;
  reverse[fwd] = back;
  reverse[back] = fwd;
}

}  // namespace

Rate max_flow(const Topology& topo, const std::vector<NodeId>& sources, const std::vector<NodeId>& sinks) {
  const size_t n = topo.nodes().size();
  const size_t s = n, t = n + 1;
  FlowGraph g(n + 2);
  // The super-source's arc to a source carries at most what that node can send (its out-links), the
  // arc from a sink to the super-sink what it can receive: exact (never the binding cut) and bounded, so
  // the preflow's sums stay far inside int64 even for tens of thousands of GPUs.
  std::vector<int64_t> out_cap(n, 0), in_cap(n, 0);
  for (const Link& l : topo.links()) {
    const auto cap = static_cast<int64_t>(std::llround(l.bandwidth.value()));
    out_cap[l.src.index()] += cap;
    in_cap[l.dst.index()] += cap;
    add_arc(g, l.src.index(), l.dst.index(), cap);
  }
  std::vector<char> side(n, 0);
  for (NodeId a : sources) {
    side[a.index()] = 1;
    add_arc(g, s, a.index(), out_cap[a.index()]);
  }
  for (NodeId b : sinks) {
    PLANSIM_ASSERT(side[b.index()] == 0, "max_flow: a node is both source and sink");
    add_arc(g, b.index(), t, in_cap[b.index()]);
  }
  const int64_t flow = boost::push_relabel_max_flow(g, s, t);
  return Rate(static_cast<double>(flow));
}

}  // namespace plansim
