# Installs the built project into a scratch prefix, then builds and runs tests/consumer against it
# with find_package(irlite), and checks the pkg-config file.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, MODEL.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
foreach(f include/irlite/irlite.hpp bin/irlite)
  if(NOT EXISTS "${WORK_DIR}/prefix/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${WORK_DIR}/build"
                        -G Ninja "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                        "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" "${MODEL}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
message(STATUS "consumer printed:\n${out}")
if(rc OR NOT out MATCHES "irlite [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "the consumer failed (${rc})")
endif()
file(GLOB_RECURSE pc "${WORK_DIR}/prefix/*/irlite.pc")
if(NOT pc)
  message(FATAL_ERROR "irlite.pc not installed")
endif()
execute_process(COMMAND pkg-config --cflags --libs irlite
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags)
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND pkg-config --cflags --libs irlite RESULT_VARIABLE rc OUTPUT_VARIABLE flags)
if(rc OR NOT flags MATCHES "-lirlite")
  message(FATAL_ERROR "pkg-config irlite failed: ${flags}")
endif()
