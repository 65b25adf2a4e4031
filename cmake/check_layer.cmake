# Fails when a source of src/${LAYER} includes a project folder that is not
# ${LAYER} itself or one of ${ALLOWED} (cmake/CarlosLayers.cmake). Run as
#   cmake -DLAYER=host -DDIR=src/host -DALLOWED="base;store" -DSTAMP=f -P check_layer.cmake
# It writes ${STAMP} when every include is allowed.
cmake_minimum_required(VERSION 3.25)
file(GLOB files ${DIR}/*.h ${DIR}/*.cc)
get_filename_component(src ${DIR} DIRECTORY)
file(GLOB folders LIST_DIRECTORIES true RELATIVE ${src} ${src}/*)
set(bad "")
foreach(f ${files})
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/.*" "\\1" folder "${line}")
    if(NOT folder IN_LIST folders)
      continue()  # Not a project folder (a library's own layout).
    endif()
    if(folder STREQUAL LAYER OR folder IN_LIST ALLOWED)
      continue()
    endif()
    get_filename_component(name ${f} NAME)
    string(APPEND bad "  src/${LAYER}/${name}: ${line}\n")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR
    "src/${LAYER} may include only ${LAYER} and: ${ALLOWED} (src/${LAYER}/CMakeLists.txt).\n"
    "These includes break the layering:\n${bad}"
    "Move the rule to a layer both may use (src/protocol for the protocol's rules), "
    "or, if the dependency is right, name the folder in src/${LAYER}/CMakeLists.txt.")
endif()
file(WRITE ${STAMP} "ok\n")
