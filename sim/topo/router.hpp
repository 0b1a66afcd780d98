#pragma once
// topo-internal: fast routing for Topology::route(). Included only by sim/topo/*.cpp.
//
// The graph splits into *islands* (servers, or multi-server NVLink domains: the connected components
// of NVLink/PCIe links) and the *fabric* (switches joined by network links). A route between two nodes
// of one island stays inside it (what NCCL does: peers of one server talk over NVLink/PCIe); its BFS
// touches only that island, and takes an NVLink-only path when one exists (NCCL's P2P prefers NVLink
// over PCIe even when a PCIe path has as few hops). A route between islands is   source -> exit port   (the source GPU's
// affine NIC, else the nearest NIC),  port -> fabric -> port  (shortest over fabric switches only),
// entry port -> destination. Fabric distances are BFS tables per *destination attachment* (the set of
// switches that feed the destination port, e.g. its leaf), built lazily and shared by every port on the
// same leaf: a 16k-GPU fat-tree needs one table per leaf, each the size of the switch set.
// Among equal-cost next hops the choice is, by default (LoadBalance::by_link_kind), a hash of (source,
// destination, hop) like ECMP on an Ethernet fabric; an InfiniBand fabric routes by destination only, as the subnet manager's forwarding tables
// do (OpenSM fat-tree / D-mod-K routing): the destination port gets an index d = its position among its
// leaf's ports + ports-per-leaf x the leaf's index; each upward hop takes equal-cost up-link
// (d / w) mod k (w = the product of the up-link counts below), and each downward hop over parallel cables
// takes the cable of the same index as the mirrored upward hop. Destinations of one leaf thus reach it
// over distinct up-links and cables, so a permutation (a ring across servers) meets no hash collisions.
// LoadBalance::destination / flow_hash apply one of the two to every fabric.
// The segments inside the end islands (GPU <-> NIC) hash their own endpoints, cached per (GPU, NIC).
// Topologies with links that join two islands directly fall back to a plain whole-graph BFS.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::detail {

class Router {
 public:
  // Spans stay valid when the owning Topology moves (vector buffers move with it).
  Router(std::span<const Node> nodes, std::span<const Link> links, std::span<const std::vector<LinkId>> out,
         LoadBalance load_balance = LoadBalance::by_link_kind);

  [[nodiscard]] int island(NodeId n) const { return island_[n.index()]; }
  [[nodiscard]] int num_islands() const { return num_islands_; }
  // The route from a to b (a != b), or nullopt when b cannot be reached.
  [[nodiscard]] std::optional<std::vector<LinkId>> route(NodeId a, NodeId b) const;
  // route() into `path` (cleared first; its buffer reused, so a caller with one scratch vector
  // allocates nothing per route); false when b cannot be reached.
  bool route_into(NodeId a, NodeId b, std::vector<LinkId>& path) const;
  // Tests: route() with every island route and segment found by the BFS (no near_path shortcut).
  void set_near_shortcut(bool on) { near_shortcut_ = on; }
  // Topology::route_island_links: route(a, b)'s links inside the end islands, without the fabric walk.
  bool island_parts(NodeId a, NodeId b, std::vector<LinkId>& out) const;

 private:
  using Filter = int;  // island to stay in, or kAnywhere
  static constexpr int kAnywhere = -2;
  // Fewest-hop path a -> b through nodes whose island is `filter` (or anywhere), ECMP by `key`;
  // with nvlink_only, over NVLink links alone.
  bool bfs_path(NodeId a, NodeId b, Filter filter, uint64_t key, std::vector<LinkId>& path,
                bool nvlink_only = false) const;
  // bfs_path(a, b, island of a and b, key, path, nvlink_only) where a reaches b in one or two hops
  // (a GPU to a GPU of its server over an NVSwitch, a GPU to its NIC over a PCIe switch): the same
  // links, found from a's and its neighbours' out-links without labelling the island. False (path
  // untouched) when a is farther from b, or has more than 64 such neighbours: run the BFS.
  bool near_path(NodeId a, NodeId b, uint64_t key, std::vector<LinkId>& path, bool nvlink_only) const;
  // The ports route(a, b) leaves a's island and enters b's island by (a or b itself when a switch);
  // false when one has none.
  bool ports(NodeId a, NodeId b, uint64_t key, NodeId& pa, NodeId& pb) const;
  // The nearest port of a's island reachable from a (forward) or reaching b (reverse); ties by hash.
  NodeId nearest_port(NodeId n, bool forward, uint64_t key) const;
  // A destination's fabric distances (dist[fabric index] = hops to the nearest switch feeding it, −1:
  // none reachable) and, per switch a walk has passed, its arcs one hop closer (fabric_path's memo:
  // offset + 1 into next_arcs_pool_ of (count, arc indices...), 0 not yet found).
  struct FabricTable {
    std::vector<int32_t> dist;
    mutable std::vector<uint32_t> next_arcs;
  };
  [[nodiscard]] const FabricTable& fabric_table(NodeId dest) const;
  // The fabric switches with a link into `dest` (or dest itself, a switch), sorted: its table's key.
  [[nodiscard]] std::vector<uint32_t> feeding_switches(NodeId dest) const;
  // Builds the table of seed set `id` and a batch of other seed sets' not built yet.
  void build_tables(uint32_t id) const;
  // The island-internal path a -> b (e.g. GPU -> its NIC), cached: its ECMP choices hash (a, b) only.
  bool island_segment(NodeId a, NodeId b, int isl, std::vector<LinkId>& path) const;
  bool fabric_path(NodeId pa, NodeId pb, uint64_t key, uint32_t hop0, std::vector<LinkId>& path) const;
  // A destination-routed route's up-link choices: per upward hop, which of the cables to the chosen
  // switch it took, so the mirrored downward hop over parallel cables takes the same one.
  struct UpChoices {
    std::array<int64_t, 16> cable{};
    size_t depth = 0;
    int64_t w = 1;  // product of the up-link counts so far (the D-mod-K digit weight)
  };
  // Index into cand_ (the equal-cost next switches / cables, in link order) of the hop to take:
  // ECMP hash when dest < 0, else destination routing (see the file comment).
  size_t next_hop(int64_t dest, UpChoices& s, uint64_t key, size_t& hop, int32_t from_height, int32_t to_height) const;
  // next_hop over `count` candidates named by other(i) (the next switch of candidate i), wherever they live.
  template <class Other>
  size_t next_hop_of(int64_t dest, UpChoices& s, uint64_t key, size_t& hop, int32_t from_height, int32_t to_height,
                     size_t count, const Other& other) const {
    const size_t h = hop++;
    if (dest < 0) return ecmp_choice(key, h, count);
    const auto k = static_cast<int64_t>(count);
    if (to_height > from_height) {  // up: the next digit of the destination index
      const int64_t x = (dest / s.w) % k;
      s.w *= k;
      // Which of the cables to its switch the choice is (0 for the first), for the mirrored way down.
      const auto xi = static_cast<size_t>(x);
      int64_t rank = 0;
      for (size_t i = 0; i < xi; ++i) rank += other(i) == other(xi);
      if (s.depth < s.cable.size()) s.cable[s.depth++] = rank;
      return xi;
    }
    if (to_height < from_height) {
      const int64_t cable = s.depth > 0 ? s.cable[--s.depth] : dest;
      bool one_switch = true;
      for (size_t i = 1; i < count && one_switch; ++i) one_switch = other(i) == other(0);
      if (one_switch) return static_cast<size_t>(cable % k);  // parallel cables down: mirror the way up
    }
    const int64_t x = (dest / s.w) % k;  // several switches down, or sideways: the next digit
    s.w *= k;
    return static_cast<size_t>(x);
  }
  // The ECMP choice among `count` equal-cost options at hop `hop` of the route `key` (router.cpp).
  static size_t ecmp_choice(uint64_t key, size_t hop, size_t count);
  // Destination index of every port an InfiniBand link joins to the fabric (-1: hash-routed), and each
  // fabric switch's height (1 = next to a port, +1 per tier above), for destination routing.
  void index_destinations();
  [[nodiscard]] bool is_fabric(NodeId n) const { return island_[n.index()] < 0; }
  // Links from u to v (NVLink ones only with nvlink_only).
  [[nodiscard]] size_t links_between(uint32_t u, uint32_t v, bool nvlink_only) const;

  std::span<const Node> nodes_;
  std::span<const Link> links_;
  std::span<const std::vector<LinkId>> out_;
  std::vector<std::vector<LinkId>> in_;
  std::vector<int> island_;        // -1: fabric
  std::vector<uint8_t> is_port_;   // an island node with a link to or from the fabric
  std::vector<int32_t> fabric_index_;  // dense index of fabric nodes, -1 otherwise
  // The fabric-to-fabric links as compact adjacency (CSR) over fabric indices, for the table BFS and walks.
  struct FabricArc {
    uint32_t link;
    uint32_t other;  // fabric index of the far end
  };
  std::vector<uint32_t> fabric_node_;  // fabric index -> node index
  std::vector<uint32_t> fab_out_start_, fab_in_start_;
  std::vector<FabricArc> fab_out_, fab_in_;
  LoadBalance load_balance_;
  std::vector<int64_t> dest_index_;   // per node: D-mod-K destination index, -1 = ECMP hash
  std::vector<int32_t> height_;       // per fabric index: hops from the nearest port (leaf = 1)
  int num_islands_ = 0;
  bool hierarchical_ = true;
  bool near_shortcut_ = true;
  bool fabric_strongly_connected_ = true;  // every fabric switch reaches every other over fabric links
  std::vector<uint8_t> to_fabric_, from_fabric_;  // per node: has a link into / out of the fabric
  // Fabric BFS tables keyed by the sorted set of switches feeding the destination.
  std::vector<std::vector<uint32_t>> seed_sets_;  // distinct feeding_switches() sets, numbered in node order
  std::vector<uint32_t> seed_set_of_;             // per node: its set's number
  std::vector<uint8_t> port_set_;                 // per set: feeds an island node (batched by build_tables)
  int64_t empty_set_ = -1;                        // the number of the empty set, once one node has it
  mutable std::vector<FabricTable> tables_;       // by seed set; dist empty until built
  mutable std::unordered_map<uint64_t, std::vector<LinkId>> segments_;
  // The common segments, per GPU node: GPU -> its affine NIC, and that NIC -> the GPU.
  mutable std::vector<std::vector<LinkId>> to_nic_, from_nic_;
  // Scratch for BFS: distances reset after each query.
  mutable std::vector<int32_t> dist_;
  mutable std::vector<uint32_t> touched_;
  mutable std::vector<uint32_t> queue_;
  mutable std::vector<uint32_t> cand_;  // fabric_path: the current hop's equal-cost next nodes
  mutable std::vector<uint32_t> next_arcs_pool_;  // FabricTable::next_arcs' lists
};

}  // namespace plansim::detail
