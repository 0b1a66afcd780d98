#pragma once
namespace plansim::hw {
class ProcessGroup;
// `plansim-hw selftest`: small, checked runs of every bench on the local GPUs (the CTest `gpu` test).
// Returns 0 when every result was right, 1 otherwise. The caller maps "no device" to exit 77 (skipped).
int run_selftest(const ProcessGroup& procs);
}  // namespace plansim::hw
