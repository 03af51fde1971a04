# cmake -DOUT=file -P capture.cmake -- program args...: the program's standard output into
# OUT (the build's generated man page and completion scripts; CMake's custom commands have
# no portable redirection). Fails when the program does.
set(args "")
set(seen FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(seen)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen TRUE)
  endif()
endforeach()
execute_process(COMMAND ${args} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${args}: exit status ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
