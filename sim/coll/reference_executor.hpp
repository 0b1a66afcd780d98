#pragma once
// Runs a ChunkSchedule on symbolic data and checks the result. Each participant holds, per chunk,
// either nothing or a "contribution vector": how many times each rank's input of that chunk has been
// summed into the value (a copy of rank r's input is the unit vector e_r). A reduce adds vectors, so
// double counting is caught (a 2 in the vector), as is sending a chunk the sender does not hold.
//
// Chunk ownership for ops whose buffers are per rank: with C chunks and n ranks, chunk c belongs to
// rank c / (C / n) (all_gather, reduce_scatter, gather, scatter); for all_to_all C = n·n·k and chunk c
// goes from rank c / (n·k) to rank (c / k) % n. send_recv moves every chunk from rank 0 to rank 1.
#include <string>

#include "sim/coll/chunk_schedule.hpp"
#include "sim/coll/collective_runner.hpp"

namespace plansim {

struct ExecutionCheck {
  bool ok = true;
  std::string error;  // first problem found, with the step/participant/chunk
};

ExecutionCheck run_reference(CollOp op, const ChunkSchedule& s, int root);

// Bytes each participant sends, for a buffer of `total` bytes.
std::vector<double> bytes_sent_per_participant(const ChunkSchedule& s, double total_bytes);

}  // namespace plansim
