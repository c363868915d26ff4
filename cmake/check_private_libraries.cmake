# Run at every build (target sonicsim_layering): fails when a source outside the layer that owns
# a library includes that library's headers. The staged include trees (CMakeLists.txt) stop
# upward includes of our own headers; SimGrid's and protobuf's headers live in /usr/include,
# where every layer can see them, so this scan keeps them private to platform/ and triton/.
# It also fails when a folder of an engine-free layer (ENGINE_FREE) includes a header of a
# simulation layer (SIMULATION) or SimGrid's: the link walk of cmake/engine_free_layers.cmake
# refuses the dependency, this the #include, whichever comes first.
#
#   cmake -DSOURCE_DIR=... [-DENGINE_FREE=a,b -DSIMULATION=c,d] -P cmake/check_private_libraries.cmake
set(owners
  "simgrid/|platform" "xbt/|platform" "xbt.h|platform"
  "google/protobuf/|triton" "model_config.pb.h|triton" "yaml-cpp/|deployment")
file(GLOB_RECURSE files ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp
  ${SOURCE_DIR}/include/*.hpp)
string(REPLACE "," ";" engine_free "${ENGINE_FREE}")
string(REPLACE "," ";" simulation "${SIMULATION}")
set(simulation_headers "simgrid/" "xbt/" "xbt.h")
foreach(folder IN LISTS simulation)
  list(APPEND simulation_headers "sonicsim/${folder}/")
endforeach()
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
    foreach(folder IN LISTS engine_free)
      if(NOT rel MATCHES "^(src|include/sonicsim)/${folder}/")
        continue()
      endif()
      foreach(header IN LISTS simulation_headers)
        string(FIND "${line}" "${header}" at)
        if(NOT at EQUAL -1)
          string(APPEND problems "  ${rel}: ${line} (${folder}/ is engine-free: no ${header})\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "layering: a library private to one layer, or the simulation in an "
    "engine-free layer, is included:\n"
    "${problems}See docs/architecture.md (The layers).")
endif()
