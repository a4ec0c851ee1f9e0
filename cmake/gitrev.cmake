# Writes OUT (a C++ header) with PERSIM_GIT = `git describe --always --abbrev=12` of SRC plus "-dirty"
# when tracked files outside results/ have uncommitted changes (the same rule as
# scripts/verdict.py's provenance()), or "unknown" outside a git checkout. Run at every build
# (target persim_gitrev); the file is rewritten only when the value changes, so an unchanged tree
# rebuilds nothing.
execute_process(COMMAND git -C "${SRC}" describe --always --abbrev=12
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no -- . ":(exclude)results"
                  OUTPUT_VARIABLE st OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT st STREQUAL "")
    set(rev "${rev}-dirty")
  endif()
endif()
set(text "#pragma once\n#define PERSIM_GIT \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
