#pragma once
// Reading an input file whole, refused once past its cap (README "Limits"): read in pieces, so a small
// file costs its size and /dev/zero or a huge file costs the cap and no more. A missing file, a directory
// and an unreadable file are ConfigErrors at the path.
#include <cstddef>
#include <filesystem>
#include <string>

namespace plansim::io {

// `what` names the cap in the message: "the file is larger than 2 MiB, the cap on <what> (README 'Limits')".
std::string read_capped_file(const std::filesystem::path& path, size_t cap_bytes, const std::string& what);

}  // namespace plansim::io
