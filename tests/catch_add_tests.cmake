# Registers each Catch2 test case of the unit test executable as a ctest test: what Catch2's
# CatchAddTests.cmake (2.13) does after every build, run by catch_discover_tests() (see
# CMakeLists.txt), but reading the listed names line by line. Catch2's script turns the listing
# into a CMake list, and in a list a `;` splits a name in two and a `]` joins it with every name
# after it: a test case named "a; b" became two ctest tests that matched no test case, and one
# ending in "(0, 1]" took every later test case into a single ctest test that ran none of them
# (all of them passed, having run nothing). Here no name goes through a list.
#
# Distributed under the OSI-approved BSD 3-Clause License (CMake's, as Catch2's original).

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()
execute_process(
  COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${TEST_SPEC} --list-test-names-only
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
# --list-test-names-only exits with the number of test cases (modulo 256): only < 0 is an error.
if(result LESS 0)
  message(FATAL_ERROR "Error running test executable '${TEST_EXECUTABLE}':\n"
                      "  Result: ${result}\n  Output: ${output}\n")
endif()

# A CMake argument for `text`, taken literally whatever it holds: a bracket argument.
function(_catch_literal text out)
  set(eq "=")
  while(text MATCHES "\\]${eq}\\]")
    string(APPEND eq "=")
  endwhile()
  set(${out} "[${eq}[${text}]${eq}]" PARENT_SCOPE)
endfunction()

set(properties "")
foreach(p IN LISTS TEST_PROPERTIES)
  _catch_literal("${p}" lit)
  string(APPEND properties " ${lit}")
endforeach()
set(extra "")
foreach(a IN LISTS TEST_EXTRA_ARGS)
  _catch_literal("${a}" lit)
  string(APPEND extra " ${lit}")
endforeach()

set(script "")
set(count 0)
string(LENGTH "${output}" left)
while(left GREATER 0)
  string(FIND "${output}" "\n" end)
  if(end EQUAL -1)
    set(line "${output}")
    set(output "")
  else()
    string(SUBSTRING "${output}" 0 ${end} line)
    math(EXPR next "${end} + 1")
    string(SUBSTRING "${output}" ${next} -1 output)
  endif()
  string(LENGTH "${output}" left)
  string(REGEX REPLACE "\r$" "" line "${line}")
  if(line STREQUAL "")
    continue()
  endif()
  # The test spec Catch2 reads: `,` separates names and `[` `]` enclose tags, unless escaped.
  set(spec "${line}")
  foreach(char "," "[" "]")
    string(REPLACE "${char}" "\\${char}" spec "${spec}")
  endforeach()
  _catch_literal("${TEST_PREFIX}${line}${TEST_SUFFIX}" name)
  _catch_literal("${spec}" spec)
  _catch_literal("${TEST_EXECUTABLE}" exe)
  string(APPEND script "add_test(${name} ${TEST_EXECUTOR} ${exe} ${spec}${extra})\n"
         "set_tests_properties(${name} PROPERTIES WORKING_DIRECTORY "
         "[==[${TEST_WORKING_DIR}]==]${properties})\n")
  math(EXPR count "${count} + 1")
endwhile()
if(count EQUAL 0)
  message(WARNING "Test executable '${TEST_EXECUTABLE}' contains no tests!\n")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
