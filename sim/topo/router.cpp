#include "sim/topo/router.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "sim/core/assert.hpp"

namespace plansim::detail {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finaliser: a deterministic, well-spread hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The ECMP choice among `count` equal-cost options at hop `hop` of the route `key`.
size_t ecmp(uint64_t key, size_t hop, size_t count) {
  return static_cast<size_t>(mix(key ^ (uint64_t{hop} << 56) ^ (uint64_t{hop} << 24)) % count);
}

bool island_link(LinkKind k) { return k == LinkKind::nvlink || k == LinkKind::pcie; }

size_t find_root(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

Router::Router(std::span<const Node> nodes, std::span<const Link> links, std::span<const std::vector<LinkId>> out)
    : nodes_(nodes), links_(links), out_(out) {
  const size_t n = nodes.size();
  in_.resize(n);
  for (const Link& l : links) in_[l.dst.index()].push_back(l.id);
  // Islands: components of NVLink/PCIe links that hold a server's node or a GPU, numbered by first node.
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), size_t{0});
  for (const Link& l : links)
    if (island_link(l.kind)) parent[find_root(parent, l.src.index())] = find_root(parent, l.dst.index());
  std::vector<int> island_of_root(n, -1);
  for (size_t v = 0; v < n; ++v) {
    const size_t r = find_root(parent, v);
    if (island_of_root[r] < 0 && (nodes[v].host >= 0 || nodes[v].kind == NodeKind::gpu))
      island_of_root[r] = num_islands_++;
  }
  island_.resize(n);
  fabric_index_.assign(n, -1);
  int32_t fabric_count = 0;
  for (size_t v = 0; v < n; ++v) {
    island_[v] = island_of_root[find_root(parent, v)];
    if (island_[v] < 0) fabric_index_[v] = fabric_count++;
  }
  is_port_.assign(n, 0);
  for (const Link& l : links) {
    const int is = island_[l.src.index()], id = island_[l.dst.index()];
    if (is >= 0 && id < 0) is_port_[l.src.index()] = 1;
    if (id >= 0 && is < 0) is_port_[l.dst.index()] = 1;
    if (is >= 0 && id >= 0 && is != id) hierarchical_ = false;  // a cable between two servers: plain BFS
  }
  dist_.assign(n, -1);
}

bool Router::bfs_path(NodeId a, NodeId b, Filter filter, uint64_t key, std::vector<LinkId>& path) const {
  // Reverse BFS from b until a is labelled: every node one layer closer than a is labelled by then,
  // so the forward walk sees all equal-cost choices.
  auto allowed = [&](uint32_t u) { return filter == kAnywhere || island_[u] == filter; };
  queue_.assign(1, b.value);
  dist_[b.index()] = 0;
  touched_.push_back(b.value);
  bool found = a == b;
  for (size_t head = 0; head < queue_.size() && !found; ++head) {
    const uint32_t v = queue_[head];
    for (LinkId l : in_[v]) {
      const uint32_t u = links_[l.index()].src.value;
      if (dist_[u] >= 0 || !allowed(u)) continue;
      dist_[u] = dist_[v] + 1;
      touched_.push_back(u);
      queue_.push_back(u);
      if (u == a.value) found = true;
    }
  }
  if (found) {
    NodeId cur = a;
    while (cur != b) {
      const int32_t want = dist_[cur.index()] - 1;
      size_t count = 0;
      for (LinkId l : out_[cur.index()]) if (dist_[links_[l.index()].dst.index()] == want) ++count;
      PLANSIM_ASSERT(count > 0, "BFS labelling left a node without a next hop");
      size_t pick = ecmp(key, path.size(), count);
      for (LinkId l : out_[cur.index()]) {
        if (dist_[links_[l.index()].dst.index()] != want) continue;
        if (pick-- == 0) {
          path.push_back(l);
          cur = links_[l.index()].dst;
          break;
        }
      }
    }
  }
  for (uint32_t t : touched_) dist_[t] = -1;
  touched_.clear();
  return found;
}

NodeId Router::nearest_port(NodeId n, bool forward, uint64_t key) const {
  if (is_port_[n.index()]) return n;
  const int isl = island_[n.index()];
  queue_.assign(1, n.value);
  dist_[n.index()] = 0;
  touched_.push_back(n.value);
  int32_t best = std::numeric_limits<int32_t>::max();
  std::vector<uint32_t> ports;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const uint32_t v = queue_[head];
    if (dist_[v] >= best) break;
    const std::span<const LinkId> adj = forward ? std::span<const LinkId>(out_[v]) : std::span<const LinkId>(in_[v]);
    for (LinkId l : adj) {
      const uint32_t u = forward ? links_[l.index()].dst.value : links_[l.index()].src.value;
      if (dist_[u] >= 0 || island_[u] != isl) continue;
      dist_[u] = dist_[v] + 1;
      touched_.push_back(u);
      queue_.push_back(u);
      if (is_port_[u] && dist_[u] <= best) {
        best = dist_[u];
        ports.push_back(u);
      }
    }
  }
  for (uint32_t t : touched_) dist_[t] = -1;
  touched_.clear();
  if (ports.empty()) return NodeId{};
  return NodeId(ports[ecmp(key, 0xff, ports.size())]);
}

const std::vector<int32_t>& Router::fabric_table(NodeId dest) const {
  std::vector<uint32_t> seeds;
  if (is_fabric(dest)) {
    seeds.push_back(dest.value);
  } else {
    for (LinkId l : in_[dest.index()])
      if (is_fabric(links_[l.index()].src)) seeds.push_back(links_[l.index()].src.value);
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  }
  auto it = tables_.find(seeds);
  if (it != tables_.end()) return it->second;
  // Multi-source reverse BFS over fabric nodes: table[fabric index] = hops to the nearest seed.
  size_t fabric_count = 0;
  for (int32_t f : fabric_index_)
    if (f >= 0) ++fabric_count;
  std::vector<int32_t> table(fabric_count, -1);
  std::vector<uint32_t> queue;
  for (uint32_t s : seeds) {
    table[static_cast<size_t>(fabric_index_[s])] = 0;
    queue.push_back(s);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    const int32_t dv = table[static_cast<size_t>(fabric_index_[v])];
    for (LinkId l : in_[v]) {
      const uint32_t u = links_[l.index()].src.value;
      if (fabric_index_[u] < 0 || table[static_cast<size_t>(fabric_index_[u])] >= 0) continue;
      table[static_cast<size_t>(fabric_index_[u])] = dv + 1;
      queue.push_back(u);
    }
  }
  return tables_.emplace(std::move(seeds), std::move(table)).first->second;
}

bool Router::fabric_path(NodeId pa, NodeId pb, uint64_t key, uint32_t hop0, std::vector<LinkId>& path) const {
  const std::vector<int32_t>& table = fabric_table(pb);
  auto dist = [&](NodeId x) { return fabric_index_[x.index()] < 0 ? -1 : table[static_cast<size_t>(fabric_index_[x.index()])]; };
  size_t hop = hop0;
  // Takes, by ECMP, one of cur's out links whose head satisfies `ok`; false if there is none.
  auto take = [&](NodeId& cur, auto ok) {
    size_t count = 0;
    for (LinkId l : out_[cur.index()]) if (ok(links_[l.index()].dst)) ++count;
    if (count == 0) return false;
    size_t pick = ecmp(key, hop++, count);
    for (LinkId l : out_[cur.index()]) {
      if (!ok(links_[l.index()].dst)) continue;
      if (pick-- == 0) {
        path.push_back(l);
        cur = links_[l.index()].dst;
        break;
      }
    }
    return true;
  };
  NodeId cur = pa;
  if (!is_fabric(pa)) {  // leave the island through the switch (of those pa is cabled to) nearest pb
    int32_t best = std::numeric_limits<int32_t>::max();
    for (LinkId l : out_[pa.index()]) {
      const int32_t d = dist(links_[l.index()].dst);
      if (d >= 0) best = std::min(best, d);
    }
    if (best == std::numeric_limits<int32_t>::max() || !take(cur, [&](NodeId y) { return dist(y) == best; }))
      return false;
  }
  for (;;) {
    const int32_t d = dist(cur);
    if (d < 0) return false;
    if (d == 0) return cur == pb || take(cur, [&](NodeId y) { return y == pb; });
    if (!take(cur, [&](NodeId y) { return dist(y) == d - 1; })) return false;
  }
}

std::optional<std::vector<LinkId>> Router::route(NodeId a, NodeId b) const {
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  std::vector<LinkId> path;
  const int ia = island_[a.index()], ib = island_[b.index()];
  if (hierarchical_ && ia >= 0 && ia == ib) {
    if (bfs_path(a, b, ia, key, path)) return path;
  } else if (hierarchical_) {
    auto port_of = [&](NodeId n, bool forward) {
      const Node& nd = nodes_[n.index()];
      if (nd.kind == NodeKind::gpu && nd.nic.valid() && is_port_[nd.nic.index()]) return nd.nic;  // affinity
      return nearest_port(n, forward, key);
    };
    const NodeId pa = ia >= 0 ? port_of(a, true) : a;
    const NodeId pb = ib >= 0 ? port_of(b, false) : b;
    if (pa.valid() && pb.valid()) {
      bool ok = pa == a || bfs_path(a, pa, ia, key, path);
      ok = ok && fabric_path(pa, pb, key, static_cast<uint32_t>(path.size()), path);
      ok = ok && (pb == b || bfs_path(pb, b, ib, key, path));
      if (ok) return path;
    }
    path.clear();
  }
  if (bfs_path(a, b, kAnywhere, key, path)) return path;
  return std::nullopt;
}

}  // namespace plansim::detail
