#pragma once
// Replica orbits: the quotient of a folded plan's network by a cyclic symmetry of its replicas,
// which, unlike ReplicaPlanes (replica_planes.hpp), lets replicas share links.
//
// Replica j (0 .. R−1) of a replicated transfer moves the same flows as replica 0 with ranks
// shifted by j·stride. Pair every replica's call with the next one's (j with j+1, and R−1 with 0),
// flow by flow and link by link: replica j's link a at a position and replica j+1's link b at the
// same position give π(a) = b. When π is a function (a link of one replica always followed by the
// same link) and one-to-one, with links paired to links of equal bandwidth, it is a permutation of
// the links D the replicas use (every link of D is some replica's, so it is paired from and to),
// and π maps replica j's flows onto replica j+1's, R−1's onto 0's. A transfer spanning the
// replicas (a DP collective: one call naming every replica's members) is mapped onto itself when it
// loads π(l) exactly as it loads l for every l of D it crosses. Then π is a symmetry of the whole
// max-min system (links, capacities, flows with their bytes, latencies, caps and start times, all
// replicas being issued at the same instants by identical programs), so its unique max-min
// solution gives replica j's flows replica 0's rates, by induction from one re-solve to the next:
// every replica lands when replica 0 does, even where replicas share links.
//
// The quotient: under such a solution the load of a link l is Σ_f r_f · Σ_j m(f_j, l) over replica
// 0's flows f (f_j: replica j's copy, m: multiplicity), plus the spanning flows'. Since
// m(f_j, l) = m(f_0, π^−j(l)) and π^−j, j = 0..R−1, runs R/|O| times over the orbit O of l,
// Σ_j m(f_j, l) = (R/|O|) · Σ_{l' in O} m(f_0, l'). Every link's constraint is π^k of a constraint at
// one representative per orbit (loads are invariant), so the network keeps, for each orbit, one
// representative link (the lowest-numbered link of replica 0 in it) with every replica-0 flow
// crossing the orbit listed there R/|O| times per crossing, and every spanning flow with its links
// outside the representatives dropped (their constraints duplicate the representative's). That is
// the full max-min problem with duplicate constraints removed: progressive filling on it raises the
// same flows at the same levels and saturates the same constraints. Where no replicas share a link
// every orbit has R links, one of them replica 0's, and the quotient is replica 0's plane itself
// (ReplicaPlanes' case, the same flows on the same links).
//
// A spanning call need not be mapped onto itself flow by flow: an all-to-all over every replica's ranks
// has a flow per pair, and π maps the flow i -> j onto the flow π(i) -> π(j). Its flows then fall into
// orbits F = {f, π(f), ..., π^(k−1)(f)} (each π^i(f) a flow of the same phase moving the same bytes with
// the same latency and cap; k divides R), whose flows all get f's rate. At a representative link of an
// orbit O of links their load is Σ_{g in F} m(g, l) = Σ_{i<k} m(f, π^−i(l)) = (k/|O|) · Σ_{l' in O} m(f, l'),
// so the quotient keeps f alone, listed over each representative k/|O| times per crossing of its orbit,
// and drops the other flows of F (project_phase). A flow mapped onto itself is the case k = 1, where its
// links outside D are kept as they are; a flow that π moves must cross D only (outside D no π says
// where its images run).
//
// Built incrementally: every replicated call is paired (check) before the first spanning call is
// projected or any quotient is taken (finalize); after that, a pair must already be known.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/coll/collective_runner.hpp"
#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

class ReplicaOrbits {
 public:
  ReplicaOrbits(const Topology& topo, int replicas);
  // Replica j's link a is followed by replica (j+1) mod R's link b at the same position: π(a) = b.
  // False, with why() set, if that contradicts π (or extends it once final).
  bool pair(int j, LinkId a, LinkId b);
  // A replica-0 flow over `links` (a multiset) in the quotient: each link replaced by its orbit's
  // representative, R/|O| times. False when a link is not in D.
  bool quotient(std::span<const LinkId> links, std::vector<LinkId>& out);
  // A spanning flow over `links`: false, with why() set, unless it loads π(l) as it loads l for every
  // l of D; else `kept` = its links outside D and those that represent their orbit, in order.
  bool project(std::span<const LinkId> links, std::vector<LinkId>& kept);
  // Before π is complete: false, with why() set, when a spanning flow over `links` already loads some
  // l and its known image π(l) differently (π only grows, so project() would fail too).
  bool precheck(std::span<const LinkId> links);
  // A spanning call's phase on the quotient (above): out[i] = the links flow i keeps, or nullopt where
  // another flow of its orbit stands for it. False, with why() set, when a flow's image is not a flow
  // of the phase (or it moves off D).
  bool project_phase(std::span<const CollectiveRunner::FlowShape> flows, CollectiveRunner::FlowRewrite& out);
  // Before π is complete: false, with why() set, when a flow of the phase is already known not to
  // map onto itself (precheck) and its image, fully known, is no flow of the phase.
  bool precheck_phase(std::span<const CollectiveRunner::FlowShape> flows);
  // Orbits of π, once every replicated call is paired (called by quotient() and project()).
  void finalize();
  [[nodiscard]] int replicas() const { return replicas_; }
  // Orbits of fewer than R links: links that several replicas share (0: disjoint planes).
  [[nodiscard]] size_t shared_orbits() const { return shared_orbits_; }
  [[nodiscard]] const std::string& why() const { return why_; }

 private:
  [[nodiscard]] std::string name(LinkId l) const;
  // The first link of `links` (a multiset) that a spanning flow crosses other than as often as its
  // known image π(l): precheck()'s test, without building its message.
  struct LoadMismatch {
    LinkId link, image;
    uint32_t crossings, image_crossings;
  };
  std::optional<LoadMismatch> first_load_mismatch(std::span<const LinkId> links);
  // A flow mapped onto itself: its links outside D and those that represent their orbit, in order.
  void kept_links(std::span<const LinkId> links, std::vector<LinkId>& kept) const;
  const Topology& topo_;
  int replicas_;
  bool final_ = false;
  std::vector<uint32_t> next_;    // π, kUnset outside D
  std::vector<uint32_t> prev_;    // π^−1
  std::vector<uint8_t> base_;     // a link of replica 0
  std::vector<uint32_t> rep_;     // final: the orbit's representative
  std::vector<uint32_t> repeat_;  // final: R / |orbit|
  std::vector<uint32_t> count_;   // project(): scratch multiplicities
  // project_phase()/precheck_phase(): flow i's image under π (sorted links), false if a link has none.
  bool image(std::span<const LinkId> links, std::vector<LinkId>& out) const;
  // A spanning flow's links on the quotient when its flow orbit has k flows; false if some orbit's
  // share is not whole.
  bool quotient_of_orbit(std::span<const LinkId> links, size_t k, std::vector<LinkId>& out);
  size_t shared_orbits_ = 0;
  std::string why_;
};

}  // namespace plansim
