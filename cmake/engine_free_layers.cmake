# The configure-time half of keeping the engine out of the layers that only read, write and
# report results (SONICSIM_ENGINE_FREE_LAYERS, CMakeLists.txt): each one's link dependencies are
# walked, public and private alike (a static library hands its private ones on to whatever links
# it), and the configuration stops when one reaches a simulation layer or SimGrid. The staged
# include trees already refuse a simulation header to a layer that does not depend on one; this
# refuses the dependency itself, however it comes (a DEPENDS, a target_link_libraries, a layer in
# between). The build-time half, cmake/check_private_libraries.cmake, scans their #includes.

# Every target and library `target` links, directly or through others.
function(sonicsim_link_closure target out)
  set(seen "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo current)
    get_target_property(aliased ${current} ALIASED_TARGET)
    if(aliased)
      set(current ${aliased})
    endif()
    get_target_property(imported ${current} IMPORTED)
    set(properties INTERFACE_LINK_LIBRARIES)
    if(NOT imported)
      list(APPEND properties LINK_LIBRARIES)
    endif()
    foreach(property IN LISTS properties)
      get_target_property(libraries ${current} ${property})
      if(NOT libraries)
        continue()
      endif()
      foreach(library IN LISTS libraries)
        # A static library's private dependency reaches its dependents as $<LINK_ONLY:name>.
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" library "${library}")
        if(library STREQUAL "" OR library MATCHES "^\\$<" OR library IN_LIST seen)
          continue()
        endif()
        list(APPEND seen ${library})
        if(TARGET ${library})
          list(APPEND todo ${library})
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Fails the configuration when a layer of `free_layers` links one of `simulation_layers` or
# SimGrid, naming the layer and what it reached.
function(sonicsim_check_engine_free free_layers simulation_layers)
  set(forbidden SimGrid::SimGrid PkgConfig::SimGrid)
  foreach(layer IN LISTS simulation_layers)
    list(APPEND forbidden sonicsim_${layer})
  endforeach()
  set(problems "")
  foreach(layer IN LISTS free_layers)
    sonicsim_link_closure(sonicsim_${layer} closure)
    foreach(library IN LISTS closure)
      if(library IN_LIST forbidden OR library MATCHES "simgrid")
        string(APPEND problems "  sonicsim_${layer} links ${library}\n")
      endif()
    endforeach()
  endforeach()
  if(problems)
    message(FATAL_ERROR "layering: an engine-free layer links the simulation:\n${problems}"
      "The engine-free layers choose points and read results; what simulates is handed to them "
      "(points::Simulator, calibration::Emulator). See docs/architecture.md (The layers).")
  endif()
endfunction()
