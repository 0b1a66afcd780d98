#include "sim/sched/layout.hpp"

#include "sim/core/assert.hpp"

namespace plansim {

PipelineLayout PipelineLayout::megatron(const ScheduleShape& sh) {
  PipelineLayout l;
  l.stages_ = sh.stages;
  l.chunks_ = sh.virtual_stages;
  l.micro_batches_ = sh.micro_batches;
  return l;
}

PipelineLayout PipelineLayout::mirrored(const ScheduleShape& sh) {
  PLANSIM_ASSERT(sh.stages % 2 == 0 && sh.micro_batches % 2 == 0 && sh.virtual_stages == 1,
                 "the mirrored (DualPipe) layout needs an even number of stages and of micro-batches");
  PipelineLayout l;
  l.stages_ = sh.stages;
  l.chunks_ = 2;
  l.micro_batches_ = sh.micro_batches;
  l.mirrored_ = true;
  return l;
}

StageChunk PipelineLayout::holder(int piece, int lane) const {
  if (mirrored_) return lane == 0 ? StageChunk{piece, 0} : StageChunk{stages_ - 1 - piece, 1};
  return StageChunk{piece % stages_, piece / stages_};
}

bool PipelineLayout::holds(int stage, int piece) const {
  for (int c = 0; c < chunks_; ++c)
    if (this->piece(stage, c) == piece) return true;
  return false;
}

}  // namespace plansim
