// send_recv: one point-to-point transfer of the whole buffer from ranks[0] to ranks[1].
#include "sim/coll/algorithm.hpp"

namespace plansim {
namespace {

class SendRecvAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "send_recv"; }
  std::string_view description() const override { return "one point-to-point transfer, ranks {src, dst}"; }
  bool supports(CollOp op) const override { return op == CollOp::send_recv; }
  bool shape_ok(const GroupShape& g) const override { return g.n == 2; }

  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    ChunkSchedule s{g.n, g.n, 1, {}};
    s.add_step().xfers.push_back({0, 1, 0, false});
    return s;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_send_recv_algorithm() { return std::make_unique<SendRecvAlgorithm>(); }

}  // namespace plansim
