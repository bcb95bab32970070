# Building the Rust library with cargo from CMake.
#
# cargo, not CMake, compiles and links libepmpi.so / libepmpi.a, so they are not add_library()
# targets. This file adds:
#   epmpi_cargo            a custom target that runs cargo (cmake/EPMPICargoBuild.cmake) every
#                          build; cargo decides what is out of date, staged files are only
#                          rewritten when they change, so nothing downstream relinks needlessly
#   EPMPI::epmpi           build-tree imported targets with the same names and usage as the
#   EPMPI::epmpi_static    installed ones, for the tests and the Fortran library

set(_EPMPI_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# epmpi_cargo_package_version(<Cargo.toml> <out-var>): the [package] version, without any
# pre-release or build suffix (CMake versions are numeric). Reconfigures when Cargo.toml changes.
function(epmpi_cargo_package_version manifest out)
    file(READ "${manifest}" text)
    # The [package] table runs to the next table header.
    if(NOT text MATCHES "\\[package\\]([^[]*)")
        message(FATAL_ERROR "${manifest} has no [package] table")
    endif()
    if(NOT CMAKE_MATCH_1 MATCHES "\nversion[ \t]*=[ \t]*\"([0-9]+\\.[0-9]+\\.[0-9]+)")
        message(FATAL_ERROR "${manifest}: no version = \"X.Y.Z\" in [package]")
    endif()
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
endfunction()

# The native libraries Rust's std needs in a static library (-lgcc_s -lutil ... here), from
# rustc itself on an empty crate (a fraction of a second). The build-tree EPMPI::epmpi_static
# uses them, as the real list only exists once cargo has run; the build step warns if the real
# list ever needs more. The installed package uses the real list.
function(_epmpi_probe_std_native_libs rustc out)
    set(dir "${PROJECT_BINARY_DIR}/rust/probe")
    file(MAKE_DIRECTORY "${dir}")
    file(WRITE "${dir}/empty.rs" "")
    execute_process(
        COMMAND "${rustc}" --crate-type staticlib --crate-name epmpi_probe "${dir}/empty.rs"
                --out-dir "${dir}" --print "native-static-libs=${dir}/native-static-libs.txt"
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" # honours a rust-toolchain file, like cargo
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(rc OR NOT EXISTS "${dir}/native-static-libs.txt")
        message(FATAL_ERROR "${rustc} could not build an empty static library:\n${err}")
    endif()
    file(READ "${dir}/native-static-libs.txt" flags)
    _epmpi_link_flags_to_libs("${flags}" "" libs)
    set(${out} "${libs}" PARENT_SCOPE)
endfunction()

# "-lgcc_s -lpthread -lmpich" -> gcc_s;pthread (names CMake turns back into -l flags), without
# the libraries in `drop` (the MPI libraries, which MPI::MPI_C links by full path: a bare -lmpi
# would not be found when the MPI lives outside the linker's default directories).
# Also used by EPMPICargoBuild.cmake.
function(_epmpi_link_flags_to_libs flags drop out)
    string(STRIP "${flags}" flags)
    separate_arguments(items UNIX_COMMAND "${flags}")
    set(libs "")
    foreach(item IN LISTS items)
        if(item MATCHES "^-l(.+)$")
            set(item "${CMAKE_MATCH_1}")
            if(item IN_LIST drop)
                continue()
            endif()
        endif()
        list(APPEND libs "${item}")
    endforeach()
    set(${out} "${libs}" PARENT_SCOPE)
endfunction()

function(epmpi_add_cargo_library)
    find_program(EPMPI_CARGO cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin"
        DOC "cargo, the Rust build tool")
    get_filename_component(cargo_dir "${EPMPI_CARGO}" DIRECTORY)
    find_program(EPMPI_RUSTC rustc HINTS "${cargo_dir}" DOC "rustc, the Rust compiler")
    if(NOT EPMPI_CARGO OR NOT EPMPI_RUSTC)
        message(FATAL_ERROR "cargo and rustc are needed: install Rust (https://rustup.rs) or name "
            "them with -DEPMPI_CARGO=... -DEPMPI_RUSTC=...")
    endif()

    # mpi-sys finds the MPI once, when first built, and does not rebuild when MPICC changes:
    # one cargo target directory per MPI. Inside the build directory by default; a shared cache
    # (the consumer test uses one) must still be used with one MPI only, which the stamp checks.
    set(EPMPI_CARGO_TARGET_DIR "${PROJECT_BINARY_DIR}/cargo" CACHE PATH
        "cargo target directory (one per MPI: mpi-sys does not notice when the MPI changes)")
    file(REAL_PATH "${MPI_C_COMPILER}" mpicc_real)
    string(REGEX MATCH "^[^\r\n]*" library "${MPI_C_LIBRARY_VERSION_STRING}") # (MPICH: 10 lines)
    set(identity "${mpicc_real}: ${library}\n")
    set(stamp "${EPMPI_CARGO_TARGET_DIR}/epmpi-host-mpi.txt")
    if(EXISTS "${stamp}")
        file(READ "${stamp}" previous)
        if(NOT previous STREQUAL identity)
            message(FATAL_ERROR "EPMPI_CARGO_TARGET_DIR ${EPMPI_CARGO_TARGET_DIR} holds a build "
                "against another MPI (${previous}), which mpi-sys would keep using. Use a fresh "
                "build directory, another EPMPI_CARGO_TARGET_DIR, or delete that one.")
        endif()
    else()
        file(WRITE "${stamp}" "${identity}")
    endif()

    _epmpi_probe_std_native_libs("${EPMPI_RUSTC}" std_libs)

    # File names. Cargo's cdylib has no SONAME; without one, programs linked by full path (as
    # CMake links imported libraries) would record that absolute path and break when the prefix
    # moves. Give it the usual chain: libepmpi.so -> libepmpi.so.<soversion> -> .so.<version>.
    # 0.x releases are incompatible with each other (Cargo's semver), so 0.x has SOVERSION 0.x.
    if(PROJECT_VERSION_MAJOR GREATER 0)
        set(soversion "${PROJECT_VERSION_MAJOR}")
    else()
        set(soversion "0.${PROJECT_VERSION_MINOR}")
    endif()
    set(linkname "${CMAKE_SHARED_LIBRARY_PREFIX}epmpi${CMAKE_SHARED_LIBRARY_SUFFIX}")
    set(soname "${linkname}.${soversion}")
    set(realname "${linkname}.${PROJECT_VERSION}")
    set(staticname "${CMAKE_STATIC_LIBRARY_PREFIX}epmpi${CMAKE_STATIC_LIBRARY_SUFFIX}")

    set(rustc_args -C "link-arg=-Wl,-soname,${soname}")
    # An MPI outside the loader's default directories (/opt/..., spack): record where its
    # libraries are, as the MPI's own wrappers usually do, so libepmpi.so loads without
    # LD_LIBRARY_PATH. (mpi-sys passes -L but drops the wrapper's rpath flags.)
    set(rpath_dirs "")
    foreach(lib IN LISTS MPI_C_LIBRARIES)
        get_filename_component(dir "${lib}" DIRECTORY)
        if(dir AND NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES AND NOT dir IN_LIST rpath_dirs)
            list(APPEND rpath_dirs "${dir}")
            list(APPEND rustc_args -C "link-arg=-Wl,-rpath,${dir}")
        endif()
    endforeach()

    # Debug -> cargo's dev profile; Release, RelWithDebInfo, MinSizeRel -> release (which keeps
    # line tables, Cargo.toml [profile.release] debug = 1).
    set(profile "$<IF:$<CONFIG:Debug>,dev,release>")
    set(profile_dir "$<IF:$<CONFIG:Debug>,debug,release>")
    set(stage "${PROJECT_BINARY_DIR}/rust/$<CONFIG>")
    set(locked "")
    if(EXISTS "${PROJECT_SOURCE_DIR}/Cargo.lock")
        set(locked --locked) # the versions the project tested, no silent update
    endif()

    # Everything the build step needs, per configuration, in one generated file: the command
    # line stays short and list arguments need no shell quoting.
    string(CONCAT vars
        "set(EPMPI_CARGO \"${EPMPI_CARGO}\")\n"
        "set(EPMPI_MANIFEST \"${PROJECT_SOURCE_DIR}/Cargo.toml\")\n"
        "set(EPMPI_TARGET_DIR \"${EPMPI_CARGO_TARGET_DIR}\")\n"
        "set(EPMPI_PROFILE \"${profile}\")\n"
        "set(EPMPI_PROFILE_DIR \"${profile_dir}\")\n"
        "set(EPMPI_LOCKED \"${locked}\")\n"
        "set(EPMPI_MPICC \"${MPI_C_COMPILER}\")\n"
        "set(EPMPI_RUSTC_ARGS \"${rustc_args}\")\n"
        "set(EPMPI_MPI_LIB_NAMES \"${MPI_C_LIB_NAMES}\")\n"
        "set(EPMPI_STD_NATIVE_LIBS \"${std_libs}\")\n"
        "set(EPMPI_STAGE_DIR \"${stage}\")\n"
        "set(EPMPI_SHARED ${EPMPI_SHARED})\n"
        "set(EPMPI_STATIC ${EPMPI_STATIC})\n"
        "set(EPMPI_LINKNAME \"${linkname}\")\n"
        "set(EPMPI_SONAME \"${soname}\")\n"
        "set(EPMPI_REALNAME \"${realname}\")\n"
        "set(EPMPI_STATICNAME \"${staticname}\")\n"
        "set(EPMPI_PC_TEMPLATE \"${PROJECT_BINARY_DIR}/rust/epmpi.pc.in\")\n"
        "set(EPMPI_HELPERS \"${_EPMPI_CMAKE_DIR}/EPMPICargo.cmake\")\n")
    set(vars_file "${PROJECT_BINARY_DIR}/rust/epmpi-cargo-$<CONFIG>.cmake")
    file(GENERATE OUTPUT "${vars_file}" CONTENT "${vars}")

    set(byproducts "${stage}/EPMPINativeLibs.cmake" "${stage}/epmpi.pc")
    if(EPMPI_SHARED)
        list(APPEND byproducts "${stage}/${realname}" "${stage}/${soname}" "${stage}/${linkname}")
    endif()
    if(EPMPI_STATIC)
        list(APPEND byproducts "${stage}/${staticname}")
    endif()
    add_custom_target(epmpi_cargo ALL
        COMMAND "${CMAKE_COMMAND}" "-DEPMPI_BUILD_VARS=${vars_file}"
                -P "${_EPMPI_CMAKE_DIR}/EPMPICargoBuild.cmake"
        BYPRODUCTS ${byproducts}
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
        USES_TERMINAL # cargo's progress as it happens (Ninja would buffer it otherwise)
        COMMENT "cargo: libepmpi against ${EPMPI_MPI_DESCRIPTION}"
        VERBATIM)

    # Build-tree targets, named and used like the installed ones.
    get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
    if(multi_config)
        set(configs ${CMAKE_CONFIGURATION_TYPES})
    else()
        set(configs ${CMAKE_BUILD_TYPE})
    endif()
    if(EPMPI_SHARED)
        add_library(EPMPI::epmpi SHARED IMPORTED GLOBAL)
        set_target_properties(EPMPI::epmpi PROPERTIES
            IMPORTED_SONAME "${soname}"
            INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include"
            INTERFACE_LINK_LIBRARIES MPI::MPI_C)
        foreach(config IN LISTS configs)
            string(TOUPPER "${config}" upper)
            set_property(TARGET EPMPI::epmpi APPEND PROPERTY IMPORTED_CONFIGURATIONS "${upper}")
            set_property(TARGET EPMPI::epmpi PROPERTY
                IMPORTED_LOCATION_${upper} "${PROJECT_BINARY_DIR}/rust/${config}/${realname}")
        endforeach()
        add_dependencies(EPMPI::epmpi epmpi_cargo)
    endif()
    if(EPMPI_STATIC)
        add_library(EPMPI::epmpi_static STATIC IMPORTED GLOBAL)
        set_target_properties(EPMPI::epmpi_static PROPERTIES
            IMPORTED_LINK_INTERFACE_LANGUAGES C
            INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include"
            INTERFACE_LINK_LIBRARIES "MPI::MPI_C;${std_libs}")
        foreach(config IN LISTS configs)
            string(TOUPPER "${config}" upper)
            set_property(TARGET EPMPI::epmpi_static APPEND PROPERTY IMPORTED_CONFIGURATIONS "${upper}")
            set_property(TARGET EPMPI::epmpi_static PROPERTY
                IMPORTED_LOCATION_${upper} "${PROJECT_BINARY_DIR}/rust/${config}/${staticname}")
        endforeach()
        add_dependencies(EPMPI::epmpi_static epmpi_cargo)
    endif()

    # For EPMPIInstall.cmake.
    set(EPMPI_SOVERSION "${soversion}" PARENT_SCOPE)
    set(EPMPI_LINKNAME "${linkname}" PARENT_SCOPE)
    set(EPMPI_SONAME "${soname}" PARENT_SCOPE)
    set(EPMPI_REALNAME "${realname}" PARENT_SCOPE)
    set(EPMPI_STATICNAME "${staticname}" PARENT_SCOPE)
    set(EPMPI_STAGE_DIR "${stage}" PARENT_SCOPE)
    set(EPMPI_CARGO_PROFILE "${profile}" PARENT_SCOPE)
endfunction()
