# Optional components built from a directory of sources with a `sources.cmake` list (the
# Fortran module, the XIOS adapter, the standard-names layer): one set of rules for all, so that
# a component is built as soon as its list and its compiler are there, and its library is
# named, versioned and relocatable like the C library's.

include(CMakeDependentOption)
include(CheckLanguage)

# epmpi_optional_component(<option> <dir-variable> <default-dir> <language> <description>)
# Defines the cache path <dir-variable> (default <default-dir>) and the option <option>, ON by
# default when <dir-variable>/sources.cmake exists and a <language> compiler is found. A
# dependent option on a re-checked glob, so that a build directory configured before the list
# existed picks the component up when it appears.
macro(epmpi_optional_component option dir_variable default_dir language description)
    set(${dir_variable} "${default_dir}" CACHE PATH "Directory of the ${description} sources (with sources.cmake)")
    set(_epmpi_component_possible FALSE)
    file(GLOB _epmpi_component_list CONFIGURE_DEPENDS "${${dir_variable}}/sources.cmake")
    if(_epmpi_component_list)
        check_language(${language})
        if(CMAKE_${language}_COMPILER)
            set(_epmpi_component_possible TRUE)
        endif()
    endif()
    cmake_dependent_option(${option} "Build and install the ${description}" ON _epmpi_component_possible OFF)
endmacro()

# epmpi_read_sources(<dir> <variable>)
# Sets <variable> to the files <dir>/sources.cmake lists in it (relative to <dir>), as absolute
# paths; a missing or empty list is an error. CMake reconfigures when the list changes.
function(epmpi_read_sources dir variable)
    set(list_file "${dir}/sources.cmake")
    if(NOT EXISTS "${list_file}")
        message(FATAL_ERROR "${list_file} does not exist")
    endif()
    set(${variable} "")
    include("${list_file}")
    if(NOT ${variable})
        message(FATAL_ERROR "${list_file} sets no ${variable}")
    endif()
    list(TRANSFORM ${variable} PREPEND "${dir}/")
    set(${variable} "${${variable}}" PARENT_SCOPE)
endfunction()

# epmpi_add_component_library(<target> <export-name> <source>...)
# The library of a component, aliased EPMPI::<export-name> and exported under that name. One
# kind, following the C library users get by default: shared over libepmpi.so, or static over
# libepmpi.a when only that is built; versioned as the C library; once installed it finds
# libepmpi.so next to itself, wherever the prefix is moved.
function(epmpi_add_component_library target export_name)
    if(EPMPI_SHARED)
        add_library(${target} SHARED ${ARGN})
    else()
        add_library(${target} STATIC ${ARGN})
    endif()
    add_library(EPMPI::${export_name} ALIAS ${target})
    set_target_properties(${target} PROPERTIES
        VERSION "${PROJECT_VERSION}"
        SOVERSION "${EPMPI_SOVERSION}"
        INSTALL_RPATH "$ORIGIN"
        EXPORT_NAME ${export_name})
endfunction()
