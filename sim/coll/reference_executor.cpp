#include "sim/coll/reference_executor.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>

namespace plansim {
namespace {

using Contribution = std::vector<int>;  // per rank: times its input is summed in; empty = not held

struct State {
  int n;
  std::vector<std::vector<Contribution>> held;  // [participant][chunk]
};

Contribution unit(int n, int r) {
  Contribution c(static_cast<size_t>(n), 0);
  c[static_cast<size_t>(r)] = 1;
  return c;
}
Contribution all_ones(int n) { return Contribution(static_cast<size_t>(n), 1); }

int owner(int c, int num_chunks, int n) { return c / (num_chunks / n); }

// Expected content per (rank, chunk) at start or end; nullopt = don't care (start: not held).
std::optional<Contribution> expected(CollOp op, bool at_end, int r, int c, const ChunkSchedule& s, int root) {
  const int n = s.num_ranks;
  const int own = (op == CollOp::all_to_all || s.num_chunks < n) ? -1 : owner(c, s.num_chunks, n);
  switch (op) {
    case CollOp::all_reduce:
      return at_end ? all_ones(n) : unit(n, r);
    case CollOp::reduce:
      if (!at_end) return unit(n, r);
      return r == root ? std::optional(all_ones(n)) : std::nullopt;
    case CollOp::reduce_scatter:
      if (!at_end) return unit(n, r);
      return r == own ? std::optional(all_ones(n)) : std::nullopt;
    case CollOp::all_gather:
      if (at_end) return unit(n, own);
      return r == own ? std::optional(unit(n, own)) : std::nullopt;
    case CollOp::broadcast:
      if (at_end) return unit(n, root);
      return r == root ? std::optional(unit(n, root)) : std::nullopt;
    case CollOp::gather:
      if (at_end) return r == root ? std::optional(unit(n, own)) : std::nullopt;
      return r == own ? std::optional(unit(n, own)) : std::nullopt;
    case CollOp::scatter:
      if (at_end) return r == own ? std::optional(unit(n, root)) : std::nullopt;
      return r == root ? std::optional(unit(n, root)) : std::nullopt;
    case CollOp::all_to_all: {
      const int k = s.num_chunks / (n * n);
      const int from = c / (n * k), to = (c / k) % n;
      if (at_end) return r == to ? std::optional(unit(n, from)) : std::nullopt;
      return r == from ? std::optional(unit(n, from)) : std::nullopt;
    }
    case CollOp::send_recv:
      if (at_end) return r == 1 ? std::optional(unit(n, 0)) : std::nullopt;
      return r == 0 ? std::optional(unit(n, 0)) : std::nullopt;
  }
  return std::nullopt;
}

std::string show(const Contribution& c) {
  if (c.empty()) return "nothing";
  std::string s = "[";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + "]";
}

}  // namespace

ExecutionCheck run_reference(CollOp op, const ChunkSchedule& s, int root) {
  const int n = s.num_ranks;
  auto fail = [](std::string m) { return ExecutionCheck{false, std::move(m)}; };
  if (n < 1 || s.num_participants < n || s.num_chunks < 1) return fail("bad schedule shape");
  if (op == CollOp::all_to_all ? s.num_chunks % (n * n) != 0
      : (op != CollOp::all_reduce && op != CollOp::reduce && op != CollOp::broadcast && op != CollOp::send_recv &&
         s.num_chunks % n != 0))
    return fail(fmt::format("{} chunks do not divide among {} ranks", s.num_chunks, n));
  if (op == CollOp::send_recv && n != 2) return fail("send_recv needs 2 ranks");

  State st{n, std::vector<std::vector<Contribution>>(static_cast<size_t>(s.num_participants),
                                                     std::vector<Contribution>(static_cast<size_t>(s.num_chunks)))};
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < s.num_chunks; ++c)
      if (auto e = expected(op, false, r, c, s, root)) st.held[static_cast<size_t>(r)][static_cast<size_t>(c)] = *e;

  for (size_t si = 0; si < s.steps.size(); ++si) {
    const auto before = st.held;  // simultaneous semantics: reads see the state at the step's start
    for (const ChunkXfer& x : s.steps[si].xfers) {
      if (x.src < 0 || x.src >= s.num_participants || x.dst < 0 || x.dst >= s.num_participants || x.src == x.dst ||
          x.chunk < 0 || x.chunk >= s.num_chunks)
        return fail(fmt::format("step {}: malformed transfer {}->{} chunk {}", si, x.src, x.dst, x.chunk));
      const Contribution& v = before[static_cast<size_t>(x.src)][static_cast<size_t>(x.chunk)];
      if (v.empty())
        return fail(fmt::format("step {}: participant {} sends chunk {} it does not hold", si, x.src, x.chunk));
      Contribution& d = st.held[static_cast<size_t>(x.dst)][static_cast<size_t>(x.chunk)];
      if (!x.reduce) {
        d = v;
      } else {
        if (d.empty())
          return fail(fmt::format("step {}: reduce into chunk {} that participant {} does not hold", si, x.chunk, x.dst));
        for (size_t i = 0; i < d.size(); ++i) d[i] += v[i];
      }
    }
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < s.num_chunks; ++c) {
      auto e = expected(op, true, r, c, s, root);
      if (!e) continue;
      const Contribution& got = st.held[static_cast<size_t>(r)][static_cast<size_t>(c)];
      if (got != *e)
        return fail(fmt::format("rank {} chunk {}: holds {}, expected {}", r, c, show(got), show(*e)));
    }
  return {};
}

std::vector<double> bytes_sent_per_participant(const ChunkSchedule& s, double total_bytes) {
  std::vector<double> out(static_cast<size_t>(s.num_participants), 0.0);
  const double chunk = s.chunk_bytes(total_bytes);
  for (const auto& st : s.steps)
    for (const auto& x : st.xfers) out[static_cast<size_t>(x.src)] += chunk;
  return out;
}

std::vector<std::vector<int>> GroupShape::uniform_hosts() const {
  // O(n): a rank's host is the current one, or one never seen (else the hosts are not contiguous).
  std::unordered_set<int> seen;
  std::vector<std::vector<int>> groups;
  int current = 0;
  for (int r = 0; r < n; ++r) {
    const int h = host_of_rank[static_cast<size_t>(r)];
    if (groups.empty() || h != current) {
      if (!seen.insert(h).second) return {};  // not contiguous
      current = h;
      groups.emplace_back();
    }
    groups.back().push_back(r);
  }
  for (const auto& g : groups)
    if (g.size() != groups.front().size()) return {};
  return groups;
}

GroupShape GroupShape::flat(int n, int root) {
  return GroupShape{n, root, std::vector<int>(static_cast<size_t>(n), 0)};
}

}  // namespace plansim
