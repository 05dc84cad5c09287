# Install rules: a relocatable tree
#   PREFIX/bin/bindlab, bin/bindlab-app, bin/bindlab-gpu-wrap
#   PREFIX/lib/bindlab/libbindlab_preload.so
#   PREFIX/share/bindlab/{sweeps,topologies}
#   PREFIX/share/doc/bindlab/, share/man/man{1,5}/
#   PREFIX/share/modulefiles/bindlab/VERSION[-MPI]{,.lua}
#   PREFIX/share/bash-completion/completions/bindlab
# bindlab finds the app, the preload library and the data relative to its
# own executable (harness/cli/datadir.c, plan_ranks.c), so bin/, lib/bindlab and
# share/bindlab are fixed names here, not GNUInstallDirs variables that a
# distribution could bend (lib64, lib/x86_64-linux-gnu). See docs/install.md.
include(GNUInstallDirs)

# --- what --version reports, fixed at configure time ----------------------
find_package(Git QUIET)
set(BL_GIT_DESCRIBE "unknown")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE bl_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE bl_describe_rc ERROR_QUIET)
  if(bl_describe_rc EQUAL 0 AND bl_describe)
    set(BL_GIT_DESCRIBE "${bl_describe}")
  endif()
endif()
if(MPI_C_COMPILER)
  set(BL_MPI_COMPILER "${MPI_C_COMPILER}")
else()
  set(BL_MPI_COMPILER "MPI ${MPI_C_VERSION} (${MPI_C_LIB_NAMES})")
endif()
set_property(SOURCE harness/cli/version.c APPEND PROPERTY COMPILE_DEFINITIONS
             "BL_GIT_DESCRIBE=\"${BL_GIT_DESCRIBE}\""
             "BL_MPI_COMPILER=\"${BL_MPI_COMPILER}\"")
# The build tree's fallback for the data; an install uses ../share/bindlab.
set_property(SOURCE harness/cli/datadir.c APPEND PROPERTY COMPILE_DEFINITIONS
             "BL_SOURCE_DATADIR=\"${PROJECT_SOURCE_DIR}/configs\"")

# --- several MPIs side by side --------------------------------------------
# One prefix per MPI (docs/install.md). BINDLAB_MPI_NAME tags the module
# version (bindlab/0.1.0-openmpi4); BINDLAB_MPI_MODULE is the MPI's own
# module, made a prerequisite of the modulefiles when given.
set(BINDLAB_MPI_NAME "" CACHE STRING
    "Short MPI name appended to the module version, e.g. openmpi4 (empty: none)")
set(BINDLAB_MPI_MODULE "" CACHE STRING
    "Module the modulefiles require first, e.g. openmpi/4.1 (empty: none)")
set(BL_MODULE_VERSION "${PROJECT_VERSION}")
if(BINDLAB_MPI_NAME)
  set(BL_MODULE_VERSION "${PROJECT_VERSION}-${BINDLAB_MPI_NAME}")
endif()

# --- binaries ----------------------------------------------------------------
# Libraries outside the system paths (Spack, EasyBuild, a module's MPI) stay
# found after install.
set_target_properties(bindlab bindlab-app bindlab-gpu-wrap PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS bindlab bindlab-app bindlab-gpu-wrap RUNTIME DESTINATION bin)
install(TARGETS bindlab-affinity-preload LIBRARY DESTINATION lib/bindlab)
install(TARGETS bindlab-probe LIBRARY DESTINATION lib/bindlab)

# --- data and docs -----------------------------------------------------------
install(DIRECTORY configs/sweeps configs/topologies DESTINATION share/bindlab)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- man pages, made from each verb's --help at build time ------------------
set(BL_MAN_DIR ${PROJECT_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${BL_MAN_DIR}/man.stamp
  COMMAND sh ${PROJECT_SOURCE_DIR}/man/gen-man.sh $<TARGET_FILE:bindlab>
          $<TARGET_FILE:bindlab-app> ${BL_MAN_DIR} ${PROJECT_VERSION}
          ${PROJECT_SOURCE_DIR}/man
  COMMAND ${CMAKE_COMMAND} -E touch ${BL_MAN_DIR}/man.stamp
  DEPENDS bindlab bindlab-app ${PROJECT_SOURCE_DIR}/man/gen-man.sh
          ${PROJECT_SOURCE_DIR}/man/bindlab-sweep-file.5
          ${PROJECT_SOURCE_DIR}/man/bindlab-files.roff
  COMMENT "man pages from --help")
add_custom_target(bindlab-man ALL DEPENDS ${BL_MAN_DIR}/man.stamp)
install(DIRECTORY ${BL_MAN_DIR}/man1 ${BL_MAN_DIR}/man5
        DESTINATION ${CMAKE_INSTALL_MANDIR})

# --- modulefiles (Lmod and Environment Modules) ------------------------------
# Both compute the root from their own location, so they move with the tree.
if(BINDLAB_MPI_MODULE)
  set(BL_LUA_PREREQ "prereq(\"${BINDLAB_MPI_MODULE}\")")
  set(BL_TCL_PREREQ "prereq ${BINDLAB_MPI_MODULE}")
else()
  set(BL_LUA_PREREQ "-- built against ${BL_MPI_COMPILER}; no MPI module named (cmake -DBINDLAB_MPI_MODULE=...)")
  set(BL_TCL_PREREQ "# built against ${BL_MPI_COMPILER}; no MPI module named (cmake -DBINDLAB_MPI_MODULE=...)")
endif()
configure_file(packaging/modules/bindlab.lua.in
               ${PROJECT_BINARY_DIR}/modulefiles/lua/${BL_MODULE_VERSION}.lua @ONLY)
configure_file(packaging/modules/bindlab.tcl.in
               ${PROJECT_BINARY_DIR}/modulefiles/tcl/${BL_MODULE_VERSION} @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/modulefiles/lua/${BL_MODULE_VERSION}.lua
        DESTINATION share/lmod/modulefiles/bindlab)
install(FILES ${PROJECT_BINARY_DIR}/modulefiles/tcl/${BL_MODULE_VERSION}
        DESTINATION share/modulefiles/bindlab)

# --- bash completion -----------------------------------------------------------
install(FILES completion/bindlab.bash
        DESTINATION share/bash-completion/completions RENAME bindlab)
