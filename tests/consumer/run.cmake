# Installs the built project into a scratch prefix and moves the installed tree elsewhere (it
# must not depend on where it was installed). Then builds and runs tests/consumer against it
# twice: with find_package(irlite), the README's embedding example included, and with nothing
# but the flags `pkg-config --cflags --libs irlite` gives (no --static, no --define-prefix).
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX (the compiler), CXX_FLAGS, LINKER_FLAGS.
set(consumer "${SOURCE_DIR}/tests/consumer")

# Runs a command; stops the test with `what` and the command's output when it fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Runs a built program and checks what it prints against a regular expression.
function(expect what regex)
  run("${what}" ${ARGN})
  message(STATUS "${what} printed:\n${out}")
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "${what} printed something else than /${regex}/")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/installed")
file(RENAME "${WORK_DIR}/installed" "${WORK_DIR}/moved")
set(prefix "${WORK_DIR}/moved")
foreach(f include/irlite/irlite.hpp include/irlite/version.hpp include/irlite/custom_op.hpp
          bin/irlite share/doc/irlite/LICENSE)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# The README's embedding example: the ```cpp block after <!-- snippet: embed -->.
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "<!-- snippet: embed -->" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no <!-- snippet: embed --> marker")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "```cpp\n" begin)
string(FIND "${readme}" "\n```\n" end)
if(begin EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "README.md has no ```cpp block after the snippet marker")
endif()
math(EXPR begin "${begin} + 7")
math(EXPR length "${end} + 1 - ${begin}")
string(SUBSTRING "${readme}" ${begin} ${length} snippet)
file(WRITE "${WORK_DIR}/readme_snippet.cpp" "${snippet}")

# find_package(irlite)
run("configuring the consumer" ${CMAKE_COMMAND} -S "${consumer}" -B "${WORK_DIR}/build" -G Ninja
    "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}" "-DREADME_SNIPPET=${WORK_DIR}/readme_snippet.cpp")
run("building the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
expect("consumer" "^x \\[2,3\\]\nirlite [0-9]+\\.[0-9]+\\.[0-9]+\n$"
       "${WORK_DIR}/build/consumer" "${consumer}/model.xml")
expect("custom_op" "^y 2.5 5 7.5\n$" "${WORK_DIR}/build/custom_op" "${consumer}/scale.xml")
# The example loads models/pipeline.xml, relative to the source tree.
execute_process(COMMAND "${WORK_DIR}/build/readme_snippet" WORKING_DIRECTORY "${SOURCE_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "readme_snippet printed:\n${out}${err}")
if(rc OR NOT out MATCHES "top_values: 5.25 5 4\n")
  message(FATAL_ERROR "the README's example failed (${rc})")
endif()

# pkg-config alone.
file(GLOB_RECURSE pc "${prefix}/*/irlite.pc")
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
run("pkg-config" pkg-config --cflags --libs irlite)
string(STRIP "${out}" flags)
message(STATUS "pkg-config --cflags --libs irlite: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
separate_arguments(linker_flags UNIX_COMMAND "${LINKER_FLAGS}")
foreach(program consumer:main custom_op:custom_op)
  string(REPLACE ":" ";" program "${program}")
  list(GET program 0 name)
  list(GET program 1 source)
  run("compiling ${name} with pkg-config's flags" ${CXX} ${cxx_flags} "${consumer}/${source}.cpp"
      -o "${WORK_DIR}/${name}_pc" ${flags} ${linker_flags})
endforeach()
expect("consumer (pkg-config)" "irlite [0-9]+\\.[0-9]+\\.[0-9]+\n$" "${WORK_DIR}/consumer_pc"
       "${consumer}/model.xml")
expect("custom_op (pkg-config)" "^y 2.5 5 7.5\n$" "${WORK_DIR}/custom_op_pc"
       "${consumer}/scale.xml")
