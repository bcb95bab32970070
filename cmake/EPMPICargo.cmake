# Building the Rust library with cargo. cargo, not CMake, compiles and links libepmpi.so and
# libepmpi.a (and Corrosion, which would do this, is not assumed to be installed), so this file
# adds the little that CMake cannot say by itself:
#   epmpi_cargo            a custom target that runs cargo (cmake/EPMPICargoBuild.cmake) on every
#                          build; cargo decides what is out of date
#   epmpi, epmpi_static    INTERFACE libraries naming cargo's files (in the build tree) or the
#                          installed ones ($<INSTALL_PREFIX>, relocatable), with the host MPI;
#                          installed and exported like any other target (EPMPIInstall.cmake)

set(_EPMPI_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# epmpi_cargo_package_version(<Cargo.toml> <out-var>): the [package] version without a
# pre-release or build suffix (CMake versions are numeric), so that Cargo.toml is the one place
# it is written. Reconfigures when Cargo.toml changes.
function(epmpi_cargo_package_version manifest out)
    file(READ "${manifest}" text)
    if(NOT text MATCHES "\\[package\\]([^[]*)" # the table runs to the next header
       OR NOT CMAKE_MATCH_1 MATCHES "\nversion[ \t]*=[ \t]*\"([0-9]+\\.[0-9]+\\.[0-9]+)")
        message(FATAL_ERROR "${manifest}: no version = \"X.Y.Z\" in [package]")
    endif()
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
endfunction()

# epmpi_add_cargo_library(): the targets above, for the MPI whose C wrapper is MPI_C_COMPILER
# (mpi-sys and build.rs run it; EPMPI_MPI_LIBRARY_DIRS come from it). Sets EPMPI_SOVERSION,
# EPMPI_STD_NATIVE_LIBS and the file names (EPMPI_LINKNAME, ...) for the install rules.
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
    # one cargo target directory per MPI. A shared one (the package test keeps one as a cache)
    # must still see one MPI only, which the stamp checks.
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

    # The native libraries Rust's std needs in a static library (-lgcc_s -lutil ... here), from
    # rustc on an empty crate (a fraction of a second): libepmpi.a needs them and the MPI's, and
    # the build step warns if it ever needs more.
    set(probe "${PROJECT_BINARY_DIR}/rust/probe")
    file(WRITE "${probe}/empty.rs" "")
    execute_process(
        COMMAND "${EPMPI_RUSTC}" --crate-type staticlib --crate-name epmpi_probe empty.rs
                --print "native-static-libs=native-static-libs.txt"
        WORKING_DIRECTORY "${probe}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(rc OR NOT EXISTS "${probe}/native-static-libs.txt")
        message(FATAL_ERROR "${EPMPI_RUSTC} could not build an empty static library:\n${err}")
    endif()
    file(READ "${probe}/native-static-libs.txt" std_flags)
    string(REGEX MATCHALL "-l[^ \t\r\n]+" std_libs "${std_flags}")
    list(TRANSFORM std_libs REPLACE "^-l" "")

    # Cargo's cdylib has no SONAME; without one, programs linked by full path (as CMake links
    # libraries) would record that absolute path and break when the prefix moves. Give it the
    # usual chain: libepmpi.so -> libepmpi.so.<soversion> -> .so.<version>. 0.x releases are
    # incompatible with each other (Cargo's semver), so 0.x has SOVERSION 0.x.
    if(PROJECT_VERSION_MAJOR GREATER 0)
        set(soversion "${PROJECT_VERSION_MAJOR}")
    else()
        set(soversion "0.${PROJECT_VERSION_MINOR}")
    endif()
    set(linkname "${CMAKE_SHARED_LIBRARY_PREFIX}epmpi${CMAKE_SHARED_LIBRARY_SUFFIX}")
    set(soname "${linkname}.${soversion}")
    set(realname "${linkname}.${PROJECT_VERSION}")
    set(staticname "${CMAKE_STATIC_LIBRARY_PREFIX}epmpi${CMAKE_STATIC_LIBRARY_SUFFIX}")

    # An MPI outside the loader's default directories (/opt/..., spack): libepmpi.so records
    # where its libraries are, as the MPI's own wrappers usually do, so that it loads without
    # LD_LIBRARY_PATH (mpi-sys passes -L but drops the wrapper's rpath flags). Compared with
    # the platform's directories, not the compiler's, which include the MPI's when the compiler
    # is the MPI wrapper: the same cargo flags, whichever compilers CMake was given.
    set(system_dirs ${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES})
    if(CMAKE_LIBRARY_ARCHITECTURE)
        list(APPEND system_dirs "/lib/${CMAKE_LIBRARY_ARCHITECTURE}"
            "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
    endif()
    set(rpath "")
    foreach(dir IN LISTS EPMPI_MPI_LIBRARY_DIRS)
        if(NOT dir IN_LIST system_dirs)
            list(APPEND rpath "${dir}")
        endif()
    endforeach()
    string(REPLACE ";" ":" rpath "${rpath}")
    string(REPLACE ";" ":" mpi_libs "${EPMPI_MPI_LIBRARIES}")
    string(REPLACE ";" ":" std_libs_arg "${std_libs}")

    # Debug -> cargo's dev profile; Release, RelWithDebInfo, MinSizeRel -> release (which keeps
    # line tables, Cargo.toml [profile.release] debug = 1).
    set(out "${EPMPI_CARGO_TARGET_DIR}/$<IF:$<CONFIG:Debug>,debug,release>")
    set(stage "${PROJECT_BINARY_DIR}/rust/$<CONFIG>") # libepmpi.so under its installed names
    set(locked "")
    if(EXISTS "${PROJECT_SOURCE_DIR}/Cargo.lock")
        set(locked --locked) # the versions the project tested, no silent update
    endif()
    add_custom_target(epmpi_cargo ALL
        COMMAND "${CMAKE_COMMAND}" "-DCARGO=${EPMPI_CARGO}" "-DLOCKED=${locked}"
                "-DMANIFEST=${PROJECT_SOURCE_DIR}/Cargo.toml" "-DTARGET_DIR=${EPMPI_CARGO_TARGET_DIR}"
                "-DPROFILE=$<IF:$<CONFIG:Debug>,dev,release>" "-DOUT=${out}"
                "-DMPICC=${MPI_C_COMPILER}" "-DSONAME=${soname}" "-DRPATH=${rpath}"
                "-DSHARED=${EPMPI_SHARED}" "-DSTAGE=${stage}" "-DREALNAME=${realname}"
                "-DLINKNAME=${linkname}" "-DMPI_LIBS=${mpi_libs}" "-DSTD_LIBS=${std_libs_arg}"
                -P "${_EPMPI_CMAKE_DIR}/EPMPICargoBuild.cmake"
        BYPRODUCTS "${out}/${linkname}" "${out}/${staticname}"
                   "${stage}/${realname}" "${stage}/${soname}" "${stage}/${linkname}"
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
        USES_TERMINAL # cargo's progress as it happens (Ninja would buffer it otherwise)
        COMMENT "cargo: libepmpi against ${EPMPI_MPI_DESCRIPTION}"
        VERBATIM)

    # The libraries, named and used in the build tree as the installed ones. The host MPI in
    # the installed package is EPMPI::host_mpi, the MPI targets of the consumer's languages,
    # which EPMPIConfig.cmake defines.
    set(libs "")
    if(EPMPI_STATIC)
        add_library(epmpi_static INTERFACE)
        target_link_libraries(epmpi_static INTERFACE
            "$<BUILD_INTERFACE:${out}/${staticname}>"
            "$<INSTALL_INTERFACE:$<INSTALL_PREFIX>/${CMAKE_INSTALL_LIBDIR}/${staticname}>"
            "$<BUILD_INTERFACE:MPI::MPI_C>" "$<INSTALL_INTERFACE:EPMPI::host_mpi>" ${std_libs})
        list(APPEND libs epmpi_static)
    endif()
    add_library(epmpi INTERFACE)
    if(EPMPI_SHARED)
        target_link_libraries(epmpi INTERFACE
            "$<BUILD_INTERFACE:${stage}/${linkname}>"
            "$<INSTALL_INTERFACE:$<INSTALL_PREFIX>/${CMAKE_INSTALL_LIBDIR}/${linkname}>"
            "$<BUILD_INTERFACE:MPI::MPI_C>" "$<INSTALL_INTERFACE:EPMPI::host_mpi>")
    else()
        target_link_libraries(epmpi INTERFACE epmpi_static) # static only: EPMPI::epmpi is that
    endif()
    list(APPEND libs epmpi)
    foreach(lib IN LISTS libs)
        target_include_directories(${lib} INTERFACE
            "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>"
            "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
        add_dependencies(${lib} epmpi_cargo)
        add_library(EPMPI::${lib} ALIAS ${lib})
    endforeach()

    set(EPMPI_SOVERSION "${soversion}" PARENT_SCOPE)
    set(EPMPI_STD_NATIVE_LIBS "${std_libs}" PARENT_SCOPE)
    set(EPMPI_CARGO_OUT_DIR "${out}" PARENT_SCOPE)
    set(EPMPI_STAGE_DIR "${stage}" PARENT_SCOPE)
    foreach(name IN ITEMS linkname soname realname staticname)
        string(TOUPPER "${name}" upper)
        set(EPMPI_${upper} "${${name}}" PARENT_SCOPE)
    endforeach()
endfunction()
