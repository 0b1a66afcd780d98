#pragma once
// Where a schedule puts the model's layers and which way micro-batches travel through the stages.
// The layers are cut into `pieces()` contiguous pieces (virtual stages in layer order, sized by
// plan/layer_partition.hpp); chunk c of pipeline stage s holds piece `piece(s, c)`.
//
//   Megatron layout (every schedule except DualPipe): p·v pieces, chunk c of stage s holds piece
//     c·p + s (interleaved: stage s holds pieces s, p+s, 2p+s, ...); one lane: every micro-batch
//     visits pieces 0, 1, ..., p·v−1.
//   Mirrored layout (DualPipe, DeepSeek-V3 report Sec. 3.2.1): p pieces, two chunks per stage:
//     chunk 0 of stage s holds piece s and chunk 1 holds piece p−1−s, so each piece exists twice
//     (on stages s and p−1−s: parameters 2x). Lane 0 (micro-batches 0 .. m/2−1) enters at stage 0
//     and runs through the chunk-0 copies, lane 1 (micro-batches m/2 .. m−1) enters at stage p−1
//     and runs through the chunk-1 copies.
namespace plansim {

struct ScheduleShape {
  int stages = 1;          // p
  int micro_batches = 1;   // m
  int virtual_stages = 1;  // v (chunks per stage, Megatron layout)
};

struct StageChunk {
  int stage = 0;
  int chunk = 0;
};

class PipelineLayout {
 public:
  static PipelineLayout megatron(const ScheduleShape& sh);
  static PipelineLayout mirrored(const ScheduleShape& sh);  // needs p even and m even

  [[nodiscard]] int stages() const { return stages_; }
  [[nodiscard]] int chunks() const { return chunks_; }
  [[nodiscard]] int micro_batches() const { return micro_batches_; }
  [[nodiscard]] bool is_mirrored() const { return mirrored_; }
  [[nodiscard]] int pieces() const { return mirrored_ ? stages_ : stages_ * chunks_; }
  [[nodiscard]] int piece(int stage, int chunk) const {
    return mirrored_ ? (chunk == 0 ? stage : stages_ - 1 - stage) : chunk * stages_ + stage;
  }
  [[nodiscard]] int lanes() const { return mirrored_ ? 2 : 1; }
  [[nodiscard]] int lane_of_chunk(int chunk) const { return mirrored_ ? chunk : 0; }
  [[nodiscard]] int lane_of_micro_batch(int mb) const { return mirrored_ && mb >= micro_batches_ / 2 ? 1 : 0; }
  // Micro-batches of a lane: [first, first + count).
  [[nodiscard]] int lane_first(int lane) const { return lane * (micro_batches_ / lanes()); }
  [[nodiscard]] int lane_count() const { return micro_batches_ / lanes(); }
  // Whether chunk `chunk` (of any stage) processes micro-batch `mb`.
  [[nodiscard]] bool visits(int chunk, int mb) const { return lane_of_chunk(chunk) == lane_of_micro_batch(mb); }
  // The (stage, chunk) holding piece k for the micro-batches of `lane`.
  [[nodiscard]] StageChunk holder(int piece, int lane) const;
  // Whether some chunk of `stage` holds piece k (the first piece has the embedding, the last the logits).
  [[nodiscard]] bool holds(int stage, int piece) const;

 private:
  int stages_ = 1, chunks_ = 1, micro_batches_ = 1;
  bool mirrored_ = false;
};

}  // namespace plansim
