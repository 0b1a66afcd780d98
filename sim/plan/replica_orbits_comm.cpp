// RunnerComm with ReplicaOrbits (plan/replica_orbits.hpp): replica chains checked, quotients taken.
#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/plan/runner_comm.hpp"

namespace plansim {

// Once per distinct call: a replicated call's copies are paired replica j with replica j+1 (the
// last with replica 0); a spanning call is replaced by its projection onto the orbit representatives.
void RunnerComm::plan_orbits(const CommRequest& r, Known& k) {
  PLANSIM_ASSERT(r.replica == 0, "replica orbits: only replica 0 is issued");
  if (r.copies <= 1) {
    project_spanning_orbits(k);
  } else {
    PLANSIM_ASSERT(static_cast<int>(r.copies) == orbits_->replicas(), "replica orbits: copies differ from the replicas");
    if (renamed_copies(r, k)) {  // what same_shape() would pair, without preparing the copies
      for (uint32_t j = 0; j < r.copies; ++j) {
        const std::vector<LinkId>& from = copy_links_[j];
        const std::vector<LinkId>& to = copy_links_[(j + 1) % r.copies];
        for (size_t i = 0; i < from.size(); ++i)
          if (!orbits_->pair(static_cast<int>(j), from[i], to[i])) throw PlaneMismatch(orbits_->why());
      }
      ++checked_;
      k.planned = true;
      return;
    }
    copies_.assign(1, k.call);
    for (uint32_t j = 1; j < r.copies; ++j) copies_.push_back(prepare_copy(r, j));
    for (uint32_t j = 0; j < r.copies; ++j) {
      const PreparedCall next = copies_[(j + 1) % r.copies];
      if (!runner_.same_shape(copies_[j], next,
                              [&](LinkId a, LinkId b) { return orbits_->pair(static_cast<int>(j), a, b); }))
        throw PlaneMismatch(orbits_->why().empty() ? copy_differs(r, copies_[j], next, j, (j + 1) % r.copies)
                                                   : orbits_->why());
    }
    ++checked_;
  }
  k.planned = true;
}

void RunnerComm::precheck_spanning(const CommRequest& r) {
  if (orbits_ == nullptr || r.copies > 1) return;
  Known scratch{};
  Known* k = find_or_prepare(r, scratch);
  if (k->planned) return;
  runner_.for_each_phase(k->call, [this](std::span<const CollectiveRunner::FlowShape> flows) {
    if (!orbits_->precheck_phase(flows)) throw PlaneMismatch(orbits_->why());
  });
}

void RunnerComm::project_spanning_orbits(Known& k) {
  const PreparedCall p = runner_.rewrite_phases(
      k.call, [this](std::span<const CollectiveRunner::FlowShape> flows, CollectiveRunner::FlowRewrite& out) {
        return orbits_->project_phase(flows, out);
      });
  if (!p.valid()) throw PlaneMismatch(orbits_->why());
  k.call = p;
  ++projected_;
}

// A replicated call runs as its quotient (replica 0's flows over orbit representatives), taken at its
// first start, when every replicated call has been paired. Where every link is its own orbit's
// representative, once, the quotient is the call itself and the call is kept.
void RunnerComm::take_quotient(Known& k) {
  bool changed = false;
  const PreparedCall q = runner_.remap(k.call, [&](std::span<const LinkId> links, std::vector<LinkId>& out) {
    if (!orbits_->quotient(links, out)) return false;
    changed = changed || out.size() != links.size() || !std::equal(out.begin(), out.end(), links.begin());
    return true;
  });
  if (!q.valid()) throw PlaneMismatch(orbits_->why());
  if (changed) k.call = q;
  k.quotiented = true;
}

}  // namespace plansim
