# Included by llama.cpp's CMake project (CMAKE_PROJECT_INCLUDE, set in .cargo/config.toml).
#
# llama.cpp's `common` library (argument parsing, chat templates, JSON schemas: a fifth of the
# C++ build) is not used by ragjudge, but llama-cpp-2 turns on llama-cpp-sys-2's default `common`
# feature. Its build is switched off here; without `build/common` the sys crate links no common
# library (and its common wrapper is never referenced).
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)

# The default build compiles ggml for the build machine (GGML_NATIVE: -march=native), which
# turns on every instruction set the CPU reports, AMX included. AMX code can fault (SIGILL in
# ggml's AMX matrix kernels) when the machine cannot run it, or when the compiler drops the
# stores to the tile configuration before `ldtilecfg` (GCC 12 does at -O2: the tiles are then
# unconfigured). So AMX is kept only when one AMX instruction, compiled optimised as ggml is,
# runs here (cmake/amx-probe.c). Portable builds (GGML_NATIVE off) are left alone.
if(GGML_NATIVE AND NOT DEFINED RAGJUDGE_AMX_CHECKED
   AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(RAGJUDGE_AMX_CHECKED ON CACHE INTERNAL "")
    try_run(ragjudge_amx_runs ragjudge_amx_compiles
        ${CMAKE_BINARY_DIR}/ragjudge-amx-probe ${CMAKE_CURRENT_LIST_DIR}/amx-probe.c
        COMPILE_DEFINITIONS -O2 -mamx-tile)
    if(ragjudge_amx_compiles AND NOT ragjudge_amx_runs EQUAL 0)
        message(STATUS "ragjudge: AMX is reported but does not run here; building ggml without it")
        add_compile_options(-mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
    endif()
endif()
