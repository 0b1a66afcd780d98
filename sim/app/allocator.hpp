#pragma once
// The CLI's heap (README "Build options", PLANSIM_MIMALLOC).

namespace plansim::app {

// Where plansim links mimalloc: serve the heap from 2 MiB pages (mimalloc's large_os_pages: transparent huge
// pages where the kernel offers them), unless the user set MIMALLOC_LARGE_OS_PAGES. A no-op otherwise.
// Call first thing in main(), before the plan's allocations. No result depends on the allocator (nothing
// orders by address): `--json` reports compare equal with `cmp` under glibc's malloc and under mimalloc.
void use_large_pages_for_the_heap();

// "mimalloc (2 MiB pages)", "mimalloc (4 KiB pages)" or "system malloc": what `plansim --version` prints.
const char* heap_allocator_name();

}  // namespace plansim::app
