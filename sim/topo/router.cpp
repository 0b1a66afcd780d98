#include "sim/topo/router.hpp"

#include <algorithm>
#include <array>
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

Router::Router(std::span<const Node> nodes, std::span<const Link> links, std::span<const std::vector<LinkId>> out,
               LoadBalance load_balance)
    : nodes_(nodes), links_(links), out_(out), load_balance_(load_balance) {
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
  to_nic_.resize(n);
  from_nic_.resize(n);
  // Fabric CSR.
  const auto num_fabric = static_cast<size_t>(fabric_count);
  fabric_node_.resize(num_fabric);
  for (size_t v = 0; v < n; ++v)
    if (fabric_index_[v] >= 0) fabric_node_[static_cast<size_t>(fabric_index_[v])] = static_cast<uint32_t>(v);
  fab_out_start_.assign(num_fabric + 1, 0);
  fab_in_start_.assign(num_fabric + 1, 0);
  auto fi = [&](NodeId x) { return static_cast<size_t>(fabric_index_[x.index()]); };
  for (const Link& l : links)
    if (is_fabric(l.src) && is_fabric(l.dst)) {
      ++fab_out_start_[fi(l.src) + 1];
      ++fab_in_start_[fi(l.dst) + 1];
    }
  for (size_t f = 0; f < num_fabric; ++f) {
    fab_out_start_[f + 1] += fab_out_start_[f];
    fab_in_start_[f + 1] += fab_in_start_[f];
  }
  fab_out_.resize(fab_out_start_.back());
  fab_in_.resize(fab_in_start_.back());
  std::vector<uint32_t> out_fill(fab_out_start_.begin(), fab_out_start_.end() - 1);
  std::vector<uint32_t> in_fill(fab_in_start_.begin(), fab_in_start_.end() - 1);
  for (const Link& l : links)  // in link-id order, so walks see links in id order
    if (is_fabric(l.src) && is_fabric(l.dst)) {
      fab_out_[out_fill[fi(l.src)]++] = FabricArc{l.id.value, static_cast<uint32_t>(fi(l.dst))};
      fab_in_[in_fill[fi(l.dst)]++] = FabricArc{l.id.value, static_cast<uint32_t>(fi(l.src))};
    }
  index_destinations();
  // Whether every fabric switch reaches every other over fabric links (Kosaraju: from switch 0 forward
  // and backward), and which island nodes have a cable to or from the fabric: island_parts' test
  // needs no distance table then.
  fabric_strongly_connected_ = true;
  for (const bool forward : {true, false}) {
    if (num_fabric == 0) break;
    std::vector<uint8_t> seen(num_fabric, 0);
    std::vector<uint32_t> stack{0};
    seen[0] = 1;
    size_t count = 1;
    while (!stack.empty()) {
      const uint32_t f = stack.back();
      stack.pop_back();
      const auto& start = forward ? fab_out_start_ : fab_in_start_;
      const auto& arcs = forward ? fab_out_ : fab_in_;
      for (uint32_t i = start[f]; i < start[f + 1]; ++i)
        if (seen[arcs[i].other] == 0) {
          seen[arcs[i].other] = 1;
          ++count;
          stack.push_back(arcs[i].other);
        }
    }
    fabric_strongly_connected_ = fabric_strongly_connected_ && count == num_fabric;
  }
  to_fabric_.assign(n, 0);
  from_fabric_.assign(n, 0);
  for (const Link& l : links) {
    if (!is_fabric(l.src) && is_fabric(l.dst)) to_fabric_[l.src.index()] = 1;
    if (is_fabric(l.src) && !is_fabric(l.dst)) from_fabric_[l.dst.index()] = 1;
  }
  // Every node's distance-table key (the switches feeding it), numbered in node order; the tables
  // themselves are built on first use.
  // One switch feeding most destinations (a NIC's leaf): numbered by an array; several, by a map.
  std::vector<int64_t> single(n, -1);
  std::map<std::vector<uint32_t>, uint32_t> several;
  seed_set_of_.resize(n);
  std::vector<uint32_t> seeds;
  for (size_t v = 0; v < n; ++v) {
    const NodeId node(static_cast<uint32_t>(v));
    if (!is_fabric(node) && from_fabric_[v] == 0) {  // nothing feeds it: the empty set
      if (empty_set_ < 0) {
        empty_set_ = static_cast<int64_t>(seed_sets_.size());
        seed_sets_.emplace_back();
        port_set_.push_back(0);
      }
      seed_set_of_[v] = static_cast<uint32_t>(empty_set_);
      continue;
    }
    seeds = feeding_switches(node);
    int64_t id = -1;
    if (seeds.size() == 1) {
      id = single[seeds.front()];
      if (id < 0) single[seeds.front()] = id = static_cast<int64_t>(seed_sets_.size());
    } else {
      id = several.try_emplace(seeds, static_cast<uint32_t>(seed_sets_.size())).first->second;
    }
    if (static_cast<size_t>(id) == seed_sets_.size()) {
      seed_sets_.push_back(seeds);
      port_set_.push_back(0);
    }
    if (!is_fabric(node)) port_set_[static_cast<size_t>(id)] = 1;
    seed_set_of_[v] = static_cast<uint32_t>(id);
  }
  tables_.resize(seed_sets_.size());
}

void Router::index_destinations() {
  dest_index_.assign(nodes_.size(), -1);
  height_.assign(fabric_node_.size(), -1);
  // Each switch's ports (island nodes it has a cable to), in link-id order, each once.
  std::vector<std::vector<uint32_t>> ports_of(fabric_node_.size());
  for (const Link& l : links_) {
    if (!is_fabric(l.src) || is_fabric(l.dst) || !is_port_[l.dst.index()]) continue;
    auto& v = ports_of[static_cast<size_t>(fabric_index_[l.src.index()])];
    if (std::find(v.begin(), v.end(), l.dst.value) == v.end()) v.push_back(l.dst.value);
  }
  size_t per_leaf = 0;
  for (const auto& v : ports_of) per_leaf = std::max(per_leaf, v.size());
  std::vector<uint32_t> queue;
  int64_t leaf = 0;
  for (size_t f = 0; f < ports_of.size(); ++f) {
    if (ports_of[f].empty()) continue;
    height_[f] = 1;
    queue.push_back(static_cast<uint32_t>(f));
    for (size_t i = 0; i < ports_of[f].size(); ++i) {
      const uint32_t p = ports_of[f][i];
      if (dest_index_[p] >= 0) continue;  // a port cabled to two switches: indexed at the first
      bool infiniband = false;
      for (LinkId l : in_[p])
        if (links_[l.index()].src.value == fabric_node_[f]) infiniband = links_[l.index()].kind == LinkKind::infiniband;
      const bool by_destination = load_balance_ == LoadBalance::destination ||
                                  (load_balance_ == LoadBalance::by_link_kind && infiniband);
      if (by_destination) dest_index_[p] = static_cast<int64_t>(i) + static_cast<int64_t>(per_leaf) * leaf;
    }
    ++leaf;
  }
  // Heights: BFS over fabric links in both directions from the switches next to ports.
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t f = queue[head];
    auto visit = [&](uint32_t g) {
      if (height_[g] >= 0) return;
      height_[g] = height_[f] + 1;
      queue.push_back(g);
    };
    for (uint32_t i = fab_out_start_[f]; i < fab_out_start_[f + 1]; ++i) visit(fab_out_[i].other);
    for (uint32_t i = fab_in_start_[f]; i < fab_in_start_[f + 1]; ++i) visit(fab_in_[i].other);
  }
}


bool Router::bfs_path(NodeId a, NodeId b, Filter filter, uint64_t key, std::vector<LinkId>& path,
                      bool nvlink_only) const {
  // Reverse BFS from b until a is labelled: every node one layer closer than a is labelled by then,
  // so the forward walk sees all equal-cost choices.
  auto allowed = [&](uint32_t u) { return filter == kAnywhere || island_[u] == filter; };
  auto usable = [&](LinkId l) { return !nvlink_only || links_[l.index()].kind == LinkKind::nvlink; };
  queue_.assign(1, b.value);
  dist_[b.index()] = 0;
  touched_.push_back(b.value);
  bool found = a == b;
  for (size_t head = 0; head < queue_.size() && !found; ++head) {
    const uint32_t v = queue_[head];
    for (LinkId l : in_[v]) {
      const uint32_t u = links_[l.index()].src.value;
      if (dist_[u] >= 0 || !allowed(u) || !usable(l)) continue;
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
      for (LinkId l : out_[cur.index()]) if (usable(l) && dist_[links_[l.index()].dst.index()] == want) ++count;
      PLANSIM_ASSERT(count > 0, "BFS labelling left a node without a next hop");
      size_t pick = ecmp(key, path.size(), count);
      for (LinkId l : out_[cur.index()]) {
        if (!usable(l) || dist_[links_[l.index()].dst.index()] != want) continue;
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

size_t Router::links_between(uint32_t u, uint32_t v, bool nvlink_only) const {
  size_t n = 0;
  for (LinkId l : out_[u])
    n += links_[l.index()].dst.value == v && (!nvlink_only || links_[l.index()].kind == LinkKind::nvlink);
  return n;
}

// What bfs_path(a, b, island of b, key, path, nvlink_only)'s walk does once the reverse BFS from b has
// labelled a: at each node, the usable out-links (NVLink alone with nvlink_only; in link order) to
// nodes one step closer, the ecmp(key, hop)-th of them. Distance 0 is b alone; distance 1 is every
// node of b's island with a usable link into b; a (of b's island) is at distance 1 when it has such a
// link, else at 2 when one of its usable neighbours of the island does. Nodes labelled at distance 1
// are all labelled before any at 2, so the walk counts the same candidates.
bool Router::near_path(NodeId a, NodeId b, uint64_t key, std::vector<LinkId>& path, bool nvlink_only) const {
  const uint32_t av = a.value, bv = b.value;
  const int isl = island_[bv];
  if (av == bv || isl < 0 || island_[av] != isl) return false;
  auto usable = [&](LinkId l) { return !nvlink_only || links_[l.index()].kind == LinkKind::nvlink; };
  auto take = [&](uint32_t from, uint32_t to, size_t count) {  // the pick-th usable link from -> to
    size_t pick = ecmp(key, path.size(), count);
    for (LinkId l : out_[from])
      if (usable(l) && links_[l.index()].dst.value == to && pick-- == 0) {
        path.push_back(l);
        return;
      }
  };
  if (const size_t direct = links_between(av, bv, nvlink_only); direct > 0) {
    take(av, bv, direct);
    return true;
  }
  // a's usable links to a node of the island one hop from b, in link order, with that node's link count into b.
  constexpr size_t kMaxVia = 64;
  uint32_t via_link[kMaxVia], via_into_b[kMaxVia];  // NOLINT: uninitialised scratch, filled below
  size_t count = 0;
  for (LinkId l : out_[av]) {
    const uint32_t m = links_[l.index()].dst.value;
    if (!usable(l) || island_[m] != isl) continue;
    const size_t into_b = links_between(m, bv, nvlink_only);
    if (into_b == 0) continue;
    if (count == kMaxVia) return false;  // more than the BFS's walk is worth special-casing
    via_link[count] = l.value;
    via_into_b[count++] = static_cast<uint32_t>(into_b);
  }
  if (count == 0) return false;
  const size_t pick = ecmp(key, path.size(), count);
  const LinkId first(via_link[pick]);
  path.push_back(first);
  take(links_[first.index()].dst.value, bv, via_into_b[pick]);
  return true;
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

bool Router::island_segment(NodeId a, NodeId b, int isl, std::vector<LinkId>& path) const {
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  std::vector<LinkId>* slot = nullptr;  // a per-GPU slot for GPU <-> affine NIC segments
  if (nodes_[a.index()].nic == b) slot = &to_nic_[a.index()];
  else if (nodes_[b.index()].nic == a) slot = &from_nic_[b.index()];
  if (slot && !slot->empty()) {
    path.insert(path.end(), slot->begin(), slot->end());
    return true;
  }
  auto it = slot ? segments_.end() : segments_.find(key);
  if (it == segments_.end()) {
    std::vector<LinkId> seg;
    const bool near = near_shortcut_ && island_[a.index()] == isl && island_[b.index()] == isl &&
                      near_path(a, b, key, seg, /*nvlink_only=*/false);
    if (!near && !bfs_path(a, b, isl, key, seg)) return false;
    if (slot) {
      *slot = std::move(seg);
      path.insert(path.end(), slot->begin(), slot->end());
      return true;
    }
    it = segments_.emplace(key, std::move(seg)).first;
  }
  path.insert(path.end(), it->second.begin(), it->second.end());
  return true;
}

size_t Router::ecmp_choice(uint64_t key, size_t hop, size_t count) { return ecmp(key, hop, count); }

bool Router::ports(NodeId a, NodeId b, uint64_t key, NodeId& pa, NodeId& pb) const {
  auto port_of = [&](NodeId n, bool forward) {
    const Node& nd = nodes_[n.index()];
    if (nd.kind == NodeKind::gpu && nd.nic.valid() && is_port_[nd.nic.index()]) return nd.nic;  // affinity
    return nearest_port(n, forward, key);
  };
  pa = island_[a.index()] >= 0 ? port_of(a, true) : a;
  pb = island_[b.index()] >= 0 ? port_of(b, false) : b;
  return pa.valid() && pb.valid();
}

std::optional<std::vector<LinkId>> Router::route(NodeId a, NodeId b) const {
  std::vector<LinkId> path;
  if (!route_into(a, b, path)) return std::nullopt;
  return path;
}

bool Router::route_into(NodeId a, NodeId b, std::vector<LinkId>& path) const {
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  path.clear();
  const int ia = island_[a.index()], ib = island_[b.index()];
  if (hierarchical_ && ia >= 0 && ia == ib) {
    if (near_shortcut_ && near_path(a, b, key, path, /*nvlink_only=*/true)) return true;
    if (bfs_path(a, b, ia, key, path, /*nvlink_only=*/true)) return true;
    path.clear();
    if (near_shortcut_ && near_path(a, b, key, path, /*nvlink_only=*/false)) return true;
    if (bfs_path(a, b, ia, key, path)) return true;
  } else if (hierarchical_) {
    NodeId pa, pb;
    if (ports(a, b, key, pa, pb)) {
      path.reserve(16);
      bool ok = pa == a || island_segment(a, pa, ia, path);
      ok = ok && fabric_path(pa, pb, key, static_cast<uint32_t>(path.size()), path);
      ok = ok && (pb == b || island_segment(pb, b, ib, path));
      if (ok) return true;
    }
    path.clear();
  }
  return bfs_path(a, b, kAnywhere, key, path);
}

// route()'s hierarchical branch without the fabric walk. fabric_path(pa, pb) succeeds exactly when pa
// is cabled to a switch with a distance in pb's table: from a switch at distance d > 0 the table's
// BFS (over in-links from pb's feeding switches) left a link to one at d − 1, and a switch at 0 feeds
// pb, so the walk never stops short; pa is an island node here (a and b lie in islands).
bool Router::island_parts(NodeId a, NodeId b, std::vector<LinkId>& out) const {
  const int ia = island_[a.index()], ib = island_[b.index()];
  if (!hierarchical_ || ia < 0 || ib < 0 || ia == ib) return false;
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  NodeId pa, pb;
  if (!ports(a, b, key, pa, pb) || is_fabric(pa)) return false;
  // Where every switch reaches every other, a switch has a distance in pb's table exactly when some
  // switch feeds pb (a table with no seed is all −1): pa reaches pb's table when pa has a cable into
  // the fabric and pb one out of it.
  bool reaches = false;
  if (fabric_strongly_connected_) {
    reaches = to_fabric_[pa.index()] != 0 && from_fabric_[pb.index()] != 0;
  } else {
    const std::vector<int32_t>& table = fabric_table(pb).dist;
    for (LinkId l : out_[pa.index()]) {
      const int32_t f = fabric_index_[links_[l.index()].dst.index()];
      reaches = reaches || (f >= 0 && table[static_cast<size_t>(f)] >= 0);
    }
  }
  if (!reaches) return false;
  out.clear();
  return (pa == a || island_segment(a, pa, ia, out)) && (pb == b || island_segment(pb, b, ib, out));
}

}  // namespace plansim::detail
