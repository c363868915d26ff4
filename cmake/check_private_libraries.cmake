# Run at every build (target sonicsim_layering): fails when a source outside the layer that owns
# a library includes that library's headers. The staged include trees (CMakeLists.txt) stop
# upward includes of our own headers; SimGrid's and protobuf's headers live in /usr/include,
# where every layer can see them, so this scan keeps them private to platform/ and triton/.
#
#   cmake -DSOURCE_DIR=... -P cmake/check_private_libraries.cmake
set(owners
  "simgrid/|platform" "xbt/|platform" "xbt.h|platform"
  "google/protobuf/|triton" "model_config.pb.h|triton" "yaml-cpp/|deployment")
file(GLOB_RECURSE files ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp
  ${SOURCE_DIR}/include/*.hpp)
set(problems "")
foreach(file IN LISTS files)
  file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include")
  file(RELATIVE_PATH rel ${SOURCE_DIR} ${file})
  foreach(line IN LISTS includes)
    foreach(entry IN LISTS owners)
      string(REPLACE "|" ";" pair "${entry}")
      list(GET pair 0 header)
      list(GET pair 1 folder)
      string(FIND "${line}" "${header}" at)
      if(NOT at EQUAL -1 AND NOT rel MATCHES "^(src|include/sonicsim)/${folder}/")
        string(APPEND problems "  ${rel}: ${line} (only ${folder}/ may include ${header})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "layering: a library private to one layer is included elsewhere:\n"
    "${problems}See docs/architecture.md (The layers).")
endif()
