#pragma once
// Typed integer ids: containers own entities, everything else refers to them by id.
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace plansim {

template <class Tag>
struct Id {
  using value_type = uint32_t;
  static constexpr value_type kInvalid = std::numeric_limits<value_type>::max();
  value_type value = kInvalid;

  constexpr Id() = default;
  constexpr explicit Id(value_type v) : value(v) {}
  template <class Int>
  static constexpr Id from(Int i) { return Id(static_cast<value_type>(i)); }
  [[nodiscard]] constexpr bool valid() const { return value != kInvalid; }
  [[nodiscard]] constexpr size_t index() const { return value; }
  friend constexpr auto operator<=>(Id, Id) = default;
};

using NodeId = Id<struct NodeTag>;  // any vertex of the topology graph (GPU, switch, NIC, CPU)
using LinkId = Id<struct LinkTag>;  // a directed link
using GpuId = Id<struct GpuTag>;    // a GPU, numbered 0..G-1 in topology order
using RankId = Id<struct RankTag>;  // a rank of a plan (mapped onto a GpuId)

}  // namespace plansim

template <class Tag>
struct std::hash<plansim::Id<Tag>> {
  size_t operator()(plansim::Id<Tag> id) const noexcept { return std::hash<uint32_t>{}(id.value); }
};
