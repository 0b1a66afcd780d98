#pragma once
// Name -> schedule. Adding a schedule: one file defining a PipelineSchedule + one line in registry.cpp.
#include <memory>
#include <string>
#include <vector>

#include "sim/sched/schedule.hpp"

namespace plansim {

std::unique_ptr<PipelineSchedule> make_schedule(const std::string& name);  // InternalError if unknown
std::vector<std::string> schedule_names();
// The layout (layout.hpp) of schedule `name` for `shape`.
PipelineLayout schedule_layout(const std::string& name, const ScheduleShape& shape);

// Factories, one per schedule file.
std::unique_ptr<PipelineSchedule> make_gpipe();
std::unique_ptr<PipelineSchedule> make_one_f_one_b();
std::unique_ptr<PipelineSchedule> make_interleaved();
std::unique_ptr<PipelineSchedule> make_zb_h1();
std::unique_ptr<PipelineSchedule> make_zb_h2();
std::unique_ptr<PipelineSchedule> make_dualpipe();

}  // namespace plansim
