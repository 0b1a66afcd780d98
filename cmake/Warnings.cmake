# Project-wide warning and sanitizer flags, applied through an interface target so that
# third-party headers (included as SYSTEM) are not affected.
add_library(plansim_flags INTERFACE)
target_compile_options(plansim_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
   -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion
   -Wdouble-promotion -Wimplicit-fallthrough>)
if(PLANSIM_WERROR)
  target_compile_options(plansim_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(PLANSIM_SANITIZE)
  target_compile_options(plansim_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(plansim_flags INTERFACE -fsanitize=address,undefined)
endif()
