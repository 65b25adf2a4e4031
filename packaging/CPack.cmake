# The Debian package: `cpack -G DEB` in the build directory makes
# carlos_<version>_<arch>.deb with the binary, the systemd units, the
# tmpfiles.d and sysusers.d files, the operator's guide and the host.env
# example. The maintainer scripts make the user and the directories and
# enable nothing (docs/operator.md, "Install").
#
# Included from the top CMakeLists.txt. Destinations are absolute where
# Debian bookworm puts them (/lib/systemd/system, /usr/lib/tmpfiles.d,
# /usr/lib/sysusers.d); the binary goes to ${CPACK_PACKAGING_INSTALL_PREFIX}/bin,
# i.e. /usr/bin.

set(CARLOS_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR})

# cpack (and `cmake --install`) package what is built, without first
# building every test and benchmark: the package holds only the command, and
# scripts/build.sh (or the package test, which depends on the command)
# builds it.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

install(FILES ${CARLOS_PACKAGING_DIR}/systemd/carlos-edge.service
              ${CARLOS_PACKAGING_DIR}/systemd/carlos-system-join.path
              ${CARLOS_PACKAGING_DIR}/systemd/carlos-system-join.service
        DESTINATION /lib/systemd/system
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${CARLOS_PACKAGING_DIR}/tmpfiles.d/carlos.conf
        DESTINATION /usr/lib/tmpfiles.d
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${CARLOS_PACKAGING_DIR}/sysusers.d/carlos.conf
        DESTINATION /usr/lib/sysusers.d
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# Debian's changelog, compressed as policy wants it (gzip -9n: no name or
# time in the header, so the package is reproducible).
set(CARLOS_DEB_VERSION ${PROJECT_VERSION})
configure_file(${CARLOS_PACKAGING_DIR}/debian/changelog.in
               ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog @ONLY)
execute_process(COMMAND gzip -9nf ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog)
# The docs operator.md points to (DESIGN.md's sections, enroll.md for the
# enroller), beside it, so its references resolve on the box.
install(FILES ${CARLOS_PACKAGING_DIR}/debian/copyright
              ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog.gz
              ${PROJECT_SOURCE_DIR}/docs/operator.md
              ${PROJECT_SOURCE_DIR}/docs/DESIGN.md
              ${PROJECT_SOURCE_DIR}/docs/enroll.md
        DESTINATION /usr/share/doc/carlos
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${CARLOS_PACKAGING_DIR}/host.env.example
        DESTINATION /usr/share/doc/carlos
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

install(FILES ${CARLOS_PACKAGING_DIR}/lintian/carlos
        DESTINATION /usr/share/lintian/overrides
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# carlos(1), generated from the built command's own help by help2man
# (Debian's; scripts/deps.sh) and packaging/man.sh, which adds every
# command's full -h: it never drifts from -h. Generated when cpack installs,
# since the package holds only what is built (above).
find_program(CARLOS_HELP2MAN help2man)
if(CARLOS_HELP2MAN)
  install(CODE "
    execute_process(
      COMMAND bash \"${CARLOS_PACKAGING_DIR}/man.sh\" \"$<TARGET_FILE:carlos>\"
              \"${CMAKE_CURRENT_BINARY_DIR}/packaging/carlos.1.gz\" ${PROJECT_VERSION}
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR \"packaging/man.sh could not make carlos(1) from $<TARGET_FILE:carlos>\")
    endif()
  ")
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/packaging/carlos.1.gz
          DESTINATION /usr/share/man/man1
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
else()
  message(STATUS "help2man not found: the package has no carlos(1) (scripts/deps.sh installs it)")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME carlos)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The CARLOS authors")
set(CPACK_PACKAGE_CONTACT "CARLOS maintainers <carlos@example.org>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "CARLOS maintainers <carlos@example.org>")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "box agent of a CARLOS deployment, with its host guard")
# CPack puts the summary above this as the synopsis line.
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "The carlos command runs the box agent of a CARLOS deployment: a new box\n"
    "proves who it is, waits to be invited, has root arm its host guard, waits\n"
    "to be enrolled, and only then hosts. The package installs the command, the\n"
    "systemd units carlos-edge.service, carlos-system-join.path and\n"
    "carlos-system-join.service, and the carlos user; it enables nothing.")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CARLOS_PACKAGING_DIR}/debian/postinst
    ${CARLOS_PACKAGING_DIR}/debian/prerm
    ${CARLOS_PACKAGING_DIR}/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
