#include "sim/topo/max_flow.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {

class Dinic {
 public:
  explicit Dinic(size_t n) : adj_(n), level_(n), next_(n) {}
  void add_edge(size_t u, size_t v, double cap) {
    adj_[u].push_back(edges_.size());
    edges_.push_back({v, cap});
    adj_[v].push_back(edges_.size());
    edges_.push_back({u, 0.0});
  }
  double run(size_t s, size_t t) {
    double total = 0;
    while (bfs(s, t)) {
      std::fill(next_.begin(), next_.end(), size_t{0});
      for (double f; (f = dfs(s, t, std::numeric_limits<double>::infinity())) > 0;) total += f;
    }
    return total;
  }

 private:
  struct Edge {
    size_t to;
    double cap;
  };
  static constexpr double kEps = 1e-6;  // bytes per second: far below any link rate
  bool bfs(size_t s, size_t t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::vector<size_t> queue{s};
    level_[s] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      const size_t v = queue[head];
      for (size_t e : adj_[v])
        if (edges_[e].cap > kEps && level_[edges_[e].to] < 0) {
          level_[edges_[e].to] = level_[v] + 1;
          queue.push_back(edges_[e].to);
        }
    }
    return level_[t] >= 0;
  }
  // Iterative would avoid deep recursion; paths here are short (< 20 hops), so recursion is fine.
  double dfs(size_t v, size_t t, double pushed) {
    if (v == t) return pushed;
    for (size_t& i = next_[v]; i < adj_[v].size(); ++i) {
      const size_t e = adj_[v][i];
      Edge& ed = edges_[e];
      if (ed.cap <= kEps || level_[ed.to] != level_[v] + 1) continue;
      const double f = dfs(ed.to, t, std::min(pushed, ed.cap));
      if (f > 0) {
        ed.cap -= f;
        edges_[e ^ 1].cap += f;
        return f;
      }
    }
    return 0;
  }
  std::vector<std::vector<size_t>> adj_;
  std::vector<Edge> edges_;
  std::vector<int> level_;
  std::vector<size_t> next_;
};

}  // namespace

Rate max_flow(const Topology& topo, const std::vector<NodeId>& sources, const std::vector<NodeId>& sinks) {
  const size_t n = topo.nodes().size();
  const size_t s = n, t = n + 1;
  Dinic d(n + 2);
  for (const Link& l : topo.links()) d.add_edge(l.src.index(), l.dst.index(), l.bandwidth.value());
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<char> side(n, 0);
  for (NodeId a : sources) {
    side[a.index()] = 1;
    d.add_edge(s, a.index(), inf);
  }
  for (NodeId b : sinks) {
    PLANSIM_ASSERT(side[b.index()] == 0, "max_flow: a node is both source and sink");
    d.add_edge(b.index(), t, inf);
  }
  return Rate(d.run(s, t));
}

}  // namespace plansim
