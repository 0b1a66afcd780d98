// The router's fabric side (router.hpp): per-destination distance tables over the switches, built 64 at a
// time by one bit-parallel reverse BFS, and the walk from a source port down them to a destination port.
// router.cpp keeps construction, islands (NVLink / PCIe inside servers) and route assembly.
#include "sim/topo/router.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "sim/core/assert.hpp"

namespace plansim::detail {

std::vector<uint32_t> Router::feeding_switches(NodeId dest) const {
  std::vector<uint32_t> seeds;
  if (is_fabric(dest)) {
    seeds.push_back(dest.value);
    return seeds;
  }
  for (LinkId l : in_[dest.index()])
    if (is_fabric(links_[l.index()].src)) seeds.push_back(links_[l.index()].src.value);
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  return seeds;
}

const Router::FabricTable& Router::fabric_table(NodeId dest) const {
  const uint32_t id = seed_set_of_[dest.index()];
  if (tables_[id].dist.empty()) build_tables(id);
  return tables_[id];
}

// The table of seed set `id` and of up to 63 other seed sets of island nodes not built yet (those
// numbered after it: sets are numbered in node order, and a plan's routes reach the neighbours of a
// destination next),
// by one multi-source reverse BFS per table run 64 at a time: bit k of a switch's word says table k
// has reached it. A table's entries are the BFS distances to the nearest of its seeds, which do not
// depend on how the BFS is run, so each table is the one a BFS of its own would give.
void Router::build_tables(uint32_t id) const {
  std::vector<uint32_t> batch{id};
  for (size_t other = id + 1; other < tables_.size() && batch.size() < 64; ++other)
    if (tables_[other].dist.empty() && port_set_[other] != 0) batch.push_back(static_cast<uint32_t>(other));
  const size_t nf = fabric_node_.size();
  std::vector<std::vector<int32_t>> tables(batch.size(), std::vector<int32_t>(nf, -1));
  std::vector<uint64_t> reached(nf, 0), frontier(nf, 0), next(nf, 0);
  std::vector<uint32_t> active, grown;
  for (size_t k = 0; k < batch.size(); ++k)
    for (uint32_t sd : seed_sets_[batch[k]]) {
      const auto f = static_cast<uint32_t>(fabric_index_[sd]);
      tables[k][f] = 0;
      if (frontier[f] == 0) active.push_back(f);
      frontier[f] |= uint64_t{1} << k;
      reached[f] |= uint64_t{1} << k;
    }
  for (int32_t level = 1; !active.empty(); ++level) {
    grown.clear();
    for (const uint32_t f : active) {
      for (uint32_t i = fab_in_start_[f]; i < fab_in_start_[f + 1]; ++i) {
        const uint32_t u = fab_in_[i].other;
        const uint64_t fresh = frontier[f] & ~reached[u];
        if (fresh == 0) continue;
        if (next[u] == 0) grown.push_back(u);
        next[u] |= fresh;
      }
      frontier[f] = 0;
    }
    for (const uint32_t u : grown) {
      reached[u] |= next[u];
      for (uint64_t bits = next[u]; bits != 0; bits &= bits - 1)
        tables[static_cast<size_t>(__builtin_ctzll(bits))][u] = level;
      frontier[u] = next[u];
      next[u] = 0;
    }
    active.swap(grown);
  }
  for (size_t k = 0; k < batch.size(); ++k) {
    tables_[batch[k]].dist = std::move(tables[k]);
    tables_[batch[k]].next_arcs.assign(nf, 0);
  }
}

size_t Router::next_hop(int64_t dest, UpChoices& s, uint64_t key, size_t& hop, int32_t from_height, int32_t to_height) const {
  return next_hop_of(dest, s, key, hop, from_height, to_height, cand_.size(), [this](size_t i) { return cand_[i]; });
}

bool Router::fabric_path(NodeId pa, NodeId pb, uint64_t key, uint32_t hop0, std::vector<LinkId>& path) const {
  const FabricTable& ft = fabric_table(pb);
  const std::vector<int32_t>& table = ft.dist;
  const int64_t dest = dest_index_[pb.index()];
  UpChoices st;
  cand_.clear();
  auto height_of = [&](NodeId n) { return is_fabric(n) ? height_[static_cast<size_t>(fabric_index_[n.index()])] : 0; };
  size_t hop = hop0;
  uint32_t cur;  // fabric index
  if (!is_fabric(pa)) {
    // Leave the island through the switch (of those pa is cabled to) nearest pb; ECMP among equals.
    int32_t best = std::numeric_limits<int32_t>::max();
    size_t count = 0;
    for (LinkId l : out_[pa.index()]) {
      const int32_t f = fabric_index_[links_[l.index()].dst.index()];
      if (f < 0 || table[static_cast<size_t>(f)] < 0) continue;
      const int32_t d = table[static_cast<size_t>(f)];
      if (d < best) {
        best = d;
        count = 0;
      }
      if (d == best) ++count;
    }
    if (count == 0) return false;
    for (LinkId l : out_[pa.index()]) {
      const int32_t f = fabric_index_[links_[l.index()].dst.index()];
      if (f >= 0 && table[static_cast<size_t>(f)] == best) cand_.push_back(static_cast<uint32_t>(f));
    }
    size_t pick = next_hop(dest, st, key, hop, 0, height_[cand_.front()]);
    LinkId chosen;
    for (LinkId l : out_[pa.index()]) {
      const int32_t f = fabric_index_[links_[l.index()].dst.index()];
      if (f >= 0 && table[static_cast<size_t>(f)] == best && pick-- == 0) {
        chosen = l;
        break;
      }
    }
    path.push_back(chosen);
    cur = static_cast<uint32_t>(fabric_index_[links_[chosen.index()].dst.index()]);
  } else {
    cur = static_cast<uint32_t>(fabric_index_[pa.index()]);
  }
  for (;;) {
    const int32_t d = table[cur];
    if (d < 0) return false;
    if (d == 0) {
      const NodeId at(fabric_node_[cur]);
      if (at == pb) return true;
      cand_.clear();  // the cable(s) from this switch into pb
      for (LinkId l : out_[at.index()])
        if (links_[l.index()].dst == pb) cand_.push_back(pb.value);
      if (cand_.empty()) return false;
      size_t pick = next_hop(dest, st, key, hop, height_[cur], height_of(pb));
      for (LinkId l : out_[at.index()])
        if (links_[l.index()].dst == pb && pick-- == 0) {
          path.push_back(l);
          return true;
        }
    }
    // The arcs one hop closer to pb, in link order: a function of (table, cur), kept once found (the
    // routes to one leaf pass the same switches: a spine's hundreds of arcs are scanned once per table).
    uint32_t& memo = ft.next_arcs[cur];  // offset + 1 into next_arcs_pool_, 0: not found yet
    if (memo == 0) {
      const size_t at = next_arcs_pool_.size();
      next_arcs_pool_.push_back(0);
      for (uint32_t i = fab_out_start_[cur]; i < fab_out_start_[cur + 1]; ++i)
        if (table[fab_out_[i].other] == d - 1) next_arcs_pool_.push_back(i);
      next_arcs_pool_[at] = static_cast<uint32_t>(next_arcs_pool_.size() - at - 1);
      PLANSIM_ASSERT(at + 1 < UINT32_MAX, "router: more than 32 bits of next-arc entries");
      memo = static_cast<uint32_t>(at + 1);
    }
    // The candidates straight from the memo's list (no copy): the next switches, in link order.
    const uint32_t* arcs = next_arcs_pool_.data() + memo;
    const uint32_t count = arcs[-1];
    if (count == 0) return false;
    auto other = [&](size_t i) { return fab_out_[arcs[i]].other; };
    const FabricArc& arc = fab_out_[arcs[next_hop_of(dest, st, key, hop, height_[cur], height_[other(0)], count, other)]];
    path.push_back(LinkId(arc.link));
    cur = arc.other;
  }
}

}  // namespace plansim::detail
