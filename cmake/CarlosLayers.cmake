# Layers the build enforces (as Chromium's DEPS files and Envoy's per-folder
# BUILD files do): every src/<folder> is a static library of its own that
# names, in its CMakeLists.txt, the folders it may use. An #include of a
# folder it does not name — an upward include — fails the build: each
# library depends on a check (cmake/check_layer.cmake) that reads its
# sources' includes and compares them with what it names.
#
#   carlos_layer(NAME DEPS folder... [LIBS imported-target...])
#
# makes the library carlos_<NAME> from src/<NAME>/*.cc, linked PUBLIC with
# carlos_<dep> for each DEPS and with LIBS (the external libraries it uses).

set(CARLOS_LAYER_CHECK ${CMAKE_CURRENT_LIST_DIR}/check_layer.cmake)

function(carlos_layer name)
  cmake_parse_arguments(L "" "" "DEPS;LIBS" ${ARGN})
  set(dir ${PROJECT_SOURCE_DIR}/src/${name})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cc)
  file(GLOB headers CONFIGURE_DEPENDS ${dir}/*.h)
  list(FILTER sources EXCLUDE REGEX "/src/cli/main\\.cc$")
  set(stamp ${CMAKE_BINARY_DIR}/layers/${name}.ok)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DLAYER=${name} -DDIR=${dir} "-DALLOWED=${L_DEPS}"
            -DSTAMP=${stamp} -P ${CARLOS_LAYER_CHECK}
    DEPENDS ${sources} ${headers} ${CARLOS_LAYER_CHECK} ${dir}/CMakeLists.txt
    COMMENT "Checking that src/${name} includes only ${name} ${L_DEPS}"
    VERBATIM)
  add_custom_target(carlos_${name}_layer_check DEPENDS ${stamp})
  add_library(carlos_${name} STATIC ${sources})
  add_dependencies(carlos_${name} carlos_${name}_layer_check)
  target_include_directories(carlos_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(carlos_${name} PUBLIC CARLOS_RELEASE="${PROJECT_VERSION}"
                             BOOST_ASIO_NO_DEPRECATED SPDLOG_FMT_EXTERNAL)
  foreach(dep ${L_DEPS})
    target_link_libraries(carlos_${name} PUBLIC carlos_${dep})
  endforeach()
  target_link_libraries(carlos_${name} PUBLIC ${L_LIBS})
  set_property(GLOBAL APPEND PROPERTY CARLOS_LAYERS carlos_${name})
endfunction()
