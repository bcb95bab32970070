# CTest registration: every program runs under MPIEXEC_EXECUTABLE with MPIEXEC_NUMPROC_FLAG,
# the endpoint counts per process in EPMPI_TEST_EPS (as tests/support/mod.rs does for cargo
# test) and OMP_NUM_THREADS; PROCESSORS tells `ctest -j` how many cores a job occupies.
#
#   tests/c/<name>.c        each a program, run in every shape; prints "<name>: PASS"
#                           (thread_level, direct_progress and fatal_error have their own shapes;
#                           mpi_names, threadcomm and host_only use the standard names and are
#                           linked with the standard-names layer, when it is built)
#   tests/fortran/*.f90     files with a `program` are test programs run in every shape, the
#   tests/fortran/*.F90     others are helper modules linked into each; with the layer's
#                           Fortran entry points (EPMPI::epmpi_mpi_f), again under the standard
#                           names, and the `use mpi` programs mpi_names.f90, mpi_names_plain.f90
#   tests/xios/*.cpp        the XIOS adapter replay, in the shapes of tests/xios_adapter.rs
#   examples/               the consumer programs and the client/server demo
find_package(OpenMP COMPONENTS C)
if(NOT OpenMP_C_FOUND)
    message(WARNING "OpenMP for C not found: the EPMPI tests (OpenMP threads) are not built")
    return()
endif()

# The launcher must belong to the MPI of the library: a job started by another MPI's mpiexec
# runs N singletons, and every test fails in confusing ways.
execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version
    OUTPUT_VARIABLE _epmpi_text ERROR_VARIABLE _epmpi_text TIMEOUT 20)
epmpi_mpi_vendor("${_epmpi_text}" _epmpi_launcher _)
if(NOT _epmpi_launcher STREQUAL EPMPI_MPI_VENDOR AND NOT _epmpi_launcher STREQUAL "unknown")
    message(FATAL_ERROR "MPIEXEC_EXECUTABLE (${MPIEXEC_EXECUTABLE}) is ${_epmpi_launcher}'s, "
        "the library is built against ${EPMPI_MPI_DESCRIPTION}. Choose the MPI with "
        "-DMPI_EXECUTABLE_SUFFIX=.<name> or name MPIEXEC_EXECUTABLE too.")
endif()

# Open MPI refuses to run as root without --allow-run-as-root, refuses more ranks than cores
# without --oversubscribe, and binds each process to one core, where all of its endpoint
# threads would then compete: --bind-to none. Its default one-sided component fails
# MPI_Win_create on some machines; osc/ucx works.
set(EPMPI_TEST_MPIEXEC_PREFLAGS ${MPIEXEC_PREFLAGS})
set(EPMPI_TEST_ENVIRONMENT "")
if(EPMPI_MPI_VENDOR STREQUAL "openmpi")
    list(APPEND EPMPI_TEST_MPIEXEC_PREFLAGS --oversubscribe --bind-to none)
    execute_process(COMMAND id -u OUTPUT_VARIABLE _epmpi_uid OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_QUIET)
    if(_epmpi_uid STREQUAL "0")
        list(APPEND EPMPI_TEST_MPIEXEC_PREFLAGS --allow-run-as-root)
    endif()
    set(EPMPI_TEST_ENVIRONMENT OMPI_MCA_osc=ucx)
endif()

# Shapes of tests/support/mod.rs: processes x endpoints per process (cycled over ranks).
set(EPMPI_TEST_SHAPES "1x4|1|4" "2x2|2|2" "4x1|4|1" "3x1-2-3|3|1,2,3" "3x2-0-1|3|2,0,1")

# epmpi_add_mpi_test(<name> TARGET <exe> PROCS <n> EPS <counts>
#                    [ARGS ...] [PASS <regex>] [FAIL <regex>] [ENVIRONMENT ...] [TIMEOUT <s>])
# Without PASS the test passes on exit code 0 and no "FAIL" in the output.
function(epmpi_add_mpi_test name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET;PROCS;EPS;PASS;TIMEOUT" "ARGS;FAIL;ENVIRONMENT")
    string(REPLACE "," ";" counts "${arg_EPS}")
    set(threads 1)
    foreach(count IN LISTS counts)
        if(count GREATER threads)
            set(threads ${count})
        endif()
    endforeach()
    math(EXPR cores "${arg_PROCS} * ${threads}")
    if(NOT arg_TIMEOUT)
        set(arg_TIMEOUT 240)
    endif()
    add_test(NAME ${name}
        COMMAND "${MPIEXEC_EXECUTABLE}" ${MPIEXEC_NUMPROC_FLAG} ${arg_PROCS}
                ${EPMPI_TEST_MPIEXEC_PREFLAGS} "$<TARGET_FILE:${arg_TARGET}>"
                ${MPIEXEC_POSTFLAGS} ${arg_ARGS})
    set_tests_properties(${name} PROPERTIES
        ENVIRONMENT "EPMPI_TEST_EPS=${arg_EPS};OMP_NUM_THREADS=${threads};OMP_WAIT_POLICY=passive;${EPMPI_TEST_ENVIRONMENT};${arg_ENVIRONMENT}"
        PROCESSORS ${cores}
        TIMEOUT ${arg_TIMEOUT}
        LABELS mpi)
    if(arg_PASS)
        set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${arg_PASS}")
    endif()
    if(NOT arg_FAIL)
        set(arg_FAIL "FAIL")
    endif()
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${arg_FAIL}")
endfunction()

function(_epmpi_add_in_all_shapes prefix target)
    set(env "")
    if(prefix MATCHES "\\.win_shared$" AND EPMPI_MPI_VENDOR STREQUAL "openmpi")
        # Open MPI makes the host's shared windows only with its sm one-sided component (as
        # tests/c_programs.rs and tests/fortran_programs.rs run win_shared).
        set(env OMPI_MCA_osc=ucx,sm)
    endif()
    foreach(shape IN LISTS EPMPI_TEST_SHAPES)
        string(REPLACE "|" ";" shape "${shape}")
        list(GET shape 0 shape_name)
        list(GET shape 1 procs)
        list(GET shape 2 eps)
        epmpi_add_mpi_test(${prefix}.${shape_name} TARGET ${target} PROCS ${procs} EPS ${eps} ENVIRONMENT ${env})
    endforeach()
endfunction()

# ---- tests/c ----
file(GLOB _epmpi_c_tests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/c/*.c")
foreach(_epmpi_src IN LISTS _epmpi_c_tests)
    get_filename_component(_epmpi_name "${_epmpi_src}" NAME_WE)
    set(_epmpi_lib EPMPI::epmpi)
    if(_epmpi_name MATCHES "^(mpi_names|mpi_names_bad_input|threadcomm|host_only)$")
        # Written with the standard MPI names (tests/mpi_names.rs): they need the layer.
        if(NOT EPMPI_MPI_NAMES)
            continue()
        endif()
        set(_epmpi_lib EPMPI::epmpi_mpi)
    endif()
    set(_epmpi_exe test_c_${_epmpi_name})
    add_executable(${_epmpi_exe} "${_epmpi_src}")
    set_target_properties(${_epmpi_exe} PROPERTIES
        OUTPUT_NAME ${_epmpi_name} RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/c"
        C_STANDARD 11 C_STANDARD_REQUIRED ON)
    target_include_directories(${_epmpi_exe} PRIVATE "${PROJECT_SOURCE_DIR}/tests/c")
    target_compile_options(${_epmpi_exe} PRIVATE
        $<$<C_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wno-unused-function>)
    target_link_libraries(${_epmpi_exe} PRIVATE ${_epmpi_lib} OpenMP::OpenMP_C)

    if(_epmpi_name STREQUAL "host_only")
        # A plain MPI program (3 processes, no endpoint) whose MPI_Send must be the layer's
        # (it names the library it comes from: a static layer is part of the program).
        if(EPMPI_SHARED)
            set(_epmpi_pass "MPI_Send from: layer")
        else()
            set(_epmpi_pass "results:")
        endif()
        epmpi_add_mpi_test(c.host_only TARGET ${_epmpi_exe} PROCS 3 EPS 1 PASS "${_epmpi_pass}")
    elseif(_epmpi_name MATCHES "^(thread_level|direct_progress)$")
        # Written for 2 processes x 1 endpoint (thread_level initialises MPI below
        # MPI_THREAD_MULTIPLE on purpose; direct_progress tests direct mode), as in tests/c_programs.rs.
        epmpi_add_mpi_test(c.${_epmpi_name} TARGET ${_epmpi_exe} PROCS 2 EPS 1
            PASS "${_epmpi_name}: PASS")
    elseif(_epmpi_name STREQUAL "fatal_error")
        # The job must die, naming the call and the cause: pass on the message, not the status.
        epmpi_add_mpi_test(c.fatal_error.bad_rank TARGET ${_epmpi_exe} PROCS 2 EPS 1
            ARGS bad-rank
            PASS "EPMPI fatal error in EP_Send[^\n]*destination rank 1000000|destination rank 1000000[^\n]*EP_Send"
            FAIL "still running" TIMEOUT 60)
        epmpi_add_mpi_test(c.fatal_error.abort TARGET ${_epmpi_exe} PROCS 2 EPS 1 ARGS abort
            PASS "EP_Abort called by rank 0 with error code 3" FAIL "still running" TIMEOUT 60)
    else()
        _epmpi_add_in_all_shapes(c.${_epmpi_name} ${_epmpi_exe})
    endif()
endforeach()

# ---- examples ----
add_executable(example_consumer_c "${PROJECT_SOURCE_DIR}/examples/consumer_c/consumer.c")
target_link_libraries(example_consumer_c PRIVATE EPMPI::epmpi OpenMP::OpenMP_C)
epmpi_add_mpi_test(example.consumer_c TARGET example_consumer_c PROCS 2 EPS 2
    PASS "consumer_c: PASS")
if(EPMPI_SHARED AND EPMPI_STATIC)
    add_executable(example_consumer_c_static "${PROJECT_SOURCE_DIR}/examples/consumer_c/consumer.c")
    target_link_libraries(example_consumer_c_static PRIVATE EPMPI::epmpi_static OpenMP::OpenMP_C)
    epmpi_add_mpi_test(example.consumer_c_static TARGET example_consumer_c_static PROCS 2 EPS 2
        PASS "consumer_c: PASS")
endif()

if(EPMPI_MPI_NAMES)
    add_executable(example_consumer_mpi_names "${PROJECT_SOURCE_DIR}/examples/consumer_mpi_names/consumer.c")
    target_link_libraries(example_consumer_mpi_names PRIVATE EPMPI::epmpi_mpi OpenMP::OpenMP_C ${CMAKE_DL_LIBS})
    epmpi_add_mpi_test(example.consumer_mpi_names TARGET example_consumer_mpi_names PROCS 2 EPS 2
        PASS "consumer_mpi_names: PASS")
endif()

# ---- XIOS adapter: tests/xios programs (C++), the C++ consumer ----
if(EPMPI_XIOS_ADAPTER)
    find_package(OpenMP COMPONENTS CXX)
    find_package(Threads)
    if(NOT OpenMP_CXX_FOUND OR NOT Threads_FOUND)
        message(WARNING "OpenMP for C++ or threads not found: the XIOS adapter tests are not built")
    else()
        add_executable(test_xios_replay "${PROJECT_SOURCE_DIR}/tests/xios/xios_replay.cpp")
        set_target_properties(test_xios_replay PROPERTIES
            OUTPUT_NAME xios_replay RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/xios")
        target_include_directories(test_xios_replay PRIVATE "${PROJECT_SOURCE_DIR}/tests/c")
        target_link_libraries(test_xios_replay PRIVATE EPMPI::xios_adapter OpenMP::OpenMP_CXX Threads::Threads)
        # The shapes of tests/xios_adapter.rs: client threads per process, servers, codes, teams.
        epmpi_add_mpi_test(xios.replay.2x2+1 TARGET test_xios_replay PROCS 3 EPS 2 ARGS 1 1 omp
            PASS "xios_replay: PASS")
        epmpi_add_mpi_test(xios.replay.3-1+2 TARGET test_xios_replay PROCS 4 EPS 3,1 ARGS 2 2 omp
            PASS "xios_replay: PASS")
        epmpi_add_mpi_test(xios.replay.std TARGET test_xios_replay PROCS 3 EPS 1,3 ARGS 1 2 std
            PASS "xios_replay: PASS")

        add_executable(example_consumer_xios "${PROJECT_SOURCE_DIR}/examples/consumer_xios/consumer.cpp")
        target_link_libraries(example_consumer_xios PRIVATE EPMPI::xios_adapter OpenMP::OpenMP_CXX)
        epmpi_add_mpi_test(example.consumer_xios TARGET example_consumer_xios PROCS 2 EPS 2
            PASS "consumer_xios: PASS")
    endif()
endif()

# ---- Fortran ----
if(EPMPI_FORTRAN)
    find_package(OpenMP COMPONENTS Fortran)
    if(NOT OpenMP_Fortran_FOUND)
        message(WARNING "OpenMP for Fortran not found: the Fortran tests are not built")
        return()
    endif()
    add_executable(example_consumer_fortran
        "${PROJECT_SOURCE_DIR}/examples/consumer_fortran/consumer.f90")
    set_target_properties(example_consumer_fortran PROPERTIES
        Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/examples/consumer_fortran/mod")
    target_link_libraries(example_consumer_fortran PRIVATE EPMPI::epmpi_fortran OpenMP::OpenMP_Fortran)
    epmpi_add_mpi_test(example.consumer_fortran TARGET example_consumer_fortran PROCS 2 EPS 2
        PASS "consumer_fortran: PASS")

    file(GLOB _epmpi_f_sources CONFIGURE_DEPENDS
        "${PROJECT_SOURCE_DIR}/tests/fortran/*.f90" "${PROJECT_SOURCE_DIR}/tests/fortran/*.F90")
    set(_epmpi_f_programs "")
    set(_epmpi_f_helpers "")
    # Written with `use mpi` for the Fortran standard names (libepmpi_mpi_f), built below, as
    # the module that `use ep_mpi` becomes under them (ep_as_mpi.f90); the `use mpi_f08` ones
    # are built and run by tests/mpi_names.rs only (this build's libepmpi_mpi_f has no f08
    # entry points yet).
    list(FILTER _epmpi_f_sources EXCLUDE REGEX "/(mpi_names(_plain)?(_f08)?|ep_as_mpi)\\.f90$")
    foreach(_epmpi_src IN LISTS _epmpi_f_sources)
        file(STRINGS "${_epmpi_src}" _epmpi_program REGEX "^[ \t]*[Pp][Rr][Oo][Gg][Rr][Aa][Mm][ \t]")
        if(_epmpi_program)
            list(APPEND _epmpi_f_programs "${_epmpi_src}")
        else()
            list(APPEND _epmpi_f_helpers "${_epmpi_src}")
        endif()
    endforeach()
    if(_epmpi_f_helpers)
        add_library(epmpi_fortran_test_support STATIC ${_epmpi_f_helpers})
        set_target_properties(epmpi_fortran_test_support PROPERTIES Fortran_PREPROCESS ON
            Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran/mod")
        target_include_directories(epmpi_fortran_test_support PUBLIC
            "${PROJECT_BINARY_DIR}/tests/fortran/mod")
        target_link_libraries(epmpi_fortran_test_support PUBLIC
            EPMPI::epmpi_fortran OpenMP::OpenMP_Fortran)
    endif()
    foreach(_epmpi_src IN LISTS _epmpi_f_programs)
        get_filename_component(_epmpi_name "${_epmpi_src}" NAME_WE)
        set(_epmpi_exe test_fortran_${_epmpi_name})
        add_executable(${_epmpi_exe} "${_epmpi_src}")
        # Preprocessed: the programs also build under the standard names (EP_TEST_MPI_NAMES).
        set_target_properties(${_epmpi_exe} PROPERTIES Fortran_PREPROCESS ON
            OUTPUT_NAME ${_epmpi_name} RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran"
            Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran/mod/${_epmpi_name}")
        if(_epmpi_f_helpers)
            target_link_libraries(${_epmpi_exe} PRIVATE epmpi_fortran_test_support)
        endif()
        target_link_libraries(${_epmpi_exe} PRIVATE EPMPI::epmpi_fortran OpenMP::OpenMP_Fortran)
        _epmpi_add_in_all_shapes(fortran.${_epmpi_name} ${_epmpi_exe})
    endforeach()

    # ---- tests/fortran under the standard names, through libepmpi_mpi_f (tests/mpi_names.rs) ----
    if(EPMPI_MPI_NAMES_FORTRAN)
        # The `use mpi` program on endpoints (also as mpif.h), with its C side.
        foreach(_epmpi_variant IN ITEMS use_mpi mpif_h)
            set(_epmpi_exe test_fortran_mpi_names_${_epmpi_variant})
            add_executable(${_epmpi_exe} "${PROJECT_SOURCE_DIR}/tests/fortran/mpi_names.f90"
                "${PROJECT_SOURCE_DIR}/tests/fortran/mpi_names_f2c.c")
            set_target_properties(${_epmpi_exe} PROPERTIES Fortran_PREPROCESS ON
                RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names"
                Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names/mod/${_epmpi_variant}")
            if(_epmpi_variant STREQUAL "mpif_h")
                # mpif.h declares no interfaces: the calls of one routine with buffers of
                # different ranks are compared with each other (as for any mpif.h program).
                target_compile_definitions(${_epmpi_exe} PRIVATE MPIF_H)
                target_compile_options(${_epmpi_exe} PRIVATE
                    $<$<AND:$<COMPILE_LANGUAGE:Fortran>,$<Fortran_COMPILER_ID:GNU>>:-fallow-argument-mismatch>)
            endif()
            target_link_libraries(${_epmpi_exe} PRIVATE EPMPI::epmpi_mpi_f OpenMP::OpenMP_Fortran)
            _epmpi_add_in_all_shapes(fortran_names.mpi_names_${_epmpi_variant} ${_epmpi_exe})
        endforeach()
        # A plain `use mpi` program linked with the layer keeps its results.
        add_executable(test_fortran_mpi_names_plain "${PROJECT_SOURCE_DIR}/tests/fortran/mpi_names_plain.f90")
        set_target_properties(test_fortran_mpi_names_plain PROPERTIES Fortran_PREPROCESS ON
            RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names"
            Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names/mod/plain")
        target_link_libraries(test_fortran_mpi_names_plain PRIVATE EPMPI::epmpi_mpi_f)
        epmpi_add_mpi_test(fortran_names.mpi_names_plain TARGET test_fortran_mpi_names_plain PROCS 3 EPS 1
            PASS "results: 14 2 6 6 1 1 1 1 1 2 3")

        # The suite's programs with -DEP_TEST_MPI_NAMES (tests/fortran/ep_as_mpi.h), but those
        # FORTRAN_NOT_UNDER_STANDARD_NAMES of tests/mpi_names.rs excuses, with their reasons.
        # ep_as_mpi.f90 is a target of its own: `use ep_mpi` becomes `use ep_as_mpi` through a
        # macro, which CMake's dependency scanning does not expand, so only the target order
        # makes its module come first.
        add_library(epmpi_fortran_names_module STATIC "${PROJECT_SOURCE_DIR}/tests/fortran/ep_as_mpi.f90")
        add_library(epmpi_fortran_names_support STATIC ${_epmpi_f_helpers})
        foreach(_epmpi_lib IN ITEMS epmpi_fortran_names_module epmpi_fortran_names_support)
            set_target_properties(${_epmpi_lib} PROPERTIES Fortran_PREPROCESS ON
                Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names/mod")
            target_compile_definitions(${_epmpi_lib} PUBLIC EP_TEST_MPI_NAMES)
            target_compile_options(${_epmpi_lib} PUBLIC
                $<$<AND:$<COMPILE_LANGUAGE:Fortran>,$<Fortran_COMPILER_ID:GNU>>:-fallow-argument-mismatch>)
            target_include_directories(${_epmpi_lib} PUBLIC
                "${PROJECT_BINARY_DIR}/tests/fortran_names/mod" "${PROJECT_SOURCE_DIR}/tests/fortran")
            target_link_libraries(${_epmpi_lib} PUBLIC EPMPI::epmpi_mpi_f OpenMP::OpenMP_Fortran)
        endforeach()
        target_link_libraries(epmpi_fortran_names_support PUBLIC epmpi_fortran_names_module)
        foreach(_epmpi_src IN LISTS _epmpi_f_programs)
            get_filename_component(_epmpi_name "${_epmpi_src}" NAME_WE)
            if(_epmpi_name MATCHES "^(bad_input)$")
                continue()
            endif()
            if(_epmpi_name STREQUAL "pcoll" AND NOT EPMPI_MPI_VENDOR STREQUAL "mpich")
                continue() # MPI 4.0's persistent collectives: FORTRAN_NOT_ON_OPEN_MPI
            endif()
            set(_epmpi_exe test_fortran_names_${_epmpi_name})
            add_executable(${_epmpi_exe} "${_epmpi_src}")
            set_target_properties(${_epmpi_exe} PROPERTIES Fortran_PREPROCESS ON
                OUTPUT_NAME ${_epmpi_name} RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names"
                Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fortran_names/mod/${_epmpi_name}")
            target_link_libraries(${_epmpi_exe} PRIVATE epmpi_fortran_names_support)
            _epmpi_add_in_all_shapes(fortran_names.${_epmpi_name} ${_epmpi_exe})
        endforeach()
    endif()
endif()
