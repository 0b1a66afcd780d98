#pragma once
// Name -> schedule. Adding a schedule: one file defining a PipelineSchedule + one line in registry.cpp.
#include <memory>
#include <string>
#include <vector>

#include "sim/sched/schedule.hpp"

namespace plansim {

std::unique_ptr<PipelineSchedule> make_schedule(const std::string& name);  // InternalError if unknown
std::vector<std::string> schedule_names();

// Factories, one per schedule file.
std::unique_ptr<PipelineSchedule> make_gpipe();
std::unique_ptr<PipelineSchedule> make_one_f_one_b();
std::unique_ptr<PipelineSchedule> make_interleaved();
std::unique_ptr<PipelineSchedule> make_zb_h1();
std::unique_ptr<PipelineSchedule> make_zb_h2();

}  // namespace plansim
