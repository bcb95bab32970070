#!/usr/bin/env python3
"""Writes src/mpi_names/fortran_names.c: the `use mpi` / mpif.h entry points of libepmpi_mpi_f.

A program that `use mpi` or includes mpif.h calls external procedures (`call MPI_Send(...)`
becomes a call of `mpi_send_`, gfortran's mangling: lower case and one underscore, every
argument by address, the length of each CHARACTER argument appended as a hidden size_t).
libepmpi_mpi_f defines those symbols before the host's Fortran library in the link order:

    void mpi_send_(void *buf, MPI_Fint *count, ..., MPI_Fint *comm, MPI_Fint *ierror)
    {
        if (EPMPI_LIKELY(!(EPMPI_F_IS_EP(*comm))))  /* host handles: the host's entry point */
        {
            pmpi_send_(buf, count, ..., comm, ierror);
            return;
        }
        ep_mpi_send_(buf, count, ..., comm, ierror);  /* EPMPI handles: the layer's MPI_Send */
    }

The EPMPI side converts each argument to C (fortran_runtime.h: EPMPI handles from their
Fortran integers, the host's datatypes, operations, infos and error handlers with its f2c
functions, MPI_BOTTOM and MPI_IN_PLACE from the host's Fortran sentinels, statuses to
MPI_STATUS_SIZE integers with MPI_Status_c2f), calls the layer's C function (which runs the
engine) and sets ierror. A function with an argument no rule converts (CHARACTER, EXTERNAL,
arrays of handles) answers EPMPI handles with MPI_ERR_UNSUPPORTED_OPERATION through the
communicator's error handler.

A function gets an entry point when the layer defines its C function for both hosts (its
wrappers.c or hand-written files), it takes a communicator, request, message, window or group,
and both hosts' Fortran libraries export its `pmpi_` entry point (read with `nm -D`). MPI 4.0's
functions, whose Fortran entry points Open MPI 4.1 lacks, get theirs under `#if MPI_VERSION >= 4`
when MPICH's library exports them and the layer defines the C function (under that guard, or for
both hosts). Run this on a machine with both (Debian: libopenmpi-dev, libmpich-dev):

    pip install pympistandard==0.2.0
    python3 src/mpi_names/generate_fortran.py

Entry points written by hand in fortran_calls.c (arrays of requests or datatypes,
initialisation, creation, error handlers, attributes) are left out. Window base addresses
(INTEGER(KIND=MPI_ADDRESS_KIND) BASEPTR), MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY and the ranges of
MPI_Group_range_incl/excl have rules of their own. With a path argument the output goes there instead (tests/mpi_names.rs compares
it with the committed file).
"""

import pathlib
import re
import subprocess
import sys

try:
    import pympistandard as std
except ImportError:
    sys.exit("src/mpi_names/generate_fortran.py needs the MPI Forum's API: pip install pympistandard==0.2.0")

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "fortran_names.c"

# The host Fortran libraries whose `pmpi_*_` entry points the host path calls.
HOST_FORTRAN_LIBS = {
    "openmpi": ["mpif90.openmpi", "-showme:libdirs"],
    "mpich": ["mpif90.mpich", "-show"],
}
HOST_FORTRAN_NAMES = {"openmpi": "libmpi_mpifh.so", "mpich": "libmpichfort.so"}

# Handles EPMPI issues (Fortran integer <-> C handle by fortran_runtime.h) and the host's
# handles a call on EPMPI handles still takes (converted with the host's f2c/c2f).
EP_KINDS = {"COMMUNICATOR": "comm", "REQUEST": "request", "MESSAGE": "message", "WINDOW": "win", "GROUP": "group"}
HOST_KINDS = {"DATATYPE": "Type", "OPERATION": "Op", "INFO": "Info", "ERRHANDLER": "Errhandler"}
C_HANDLE = {"comm": "MPI_Comm", "request": "MPI_Request", "message": "MPI_Message", "win": "MPI_Win",
            "group": "MPI_Group", "Type": "MPI_Datatype", "Op": "MPI_Op", "Info": "MPI_Info",
            "Errhandler": "MPI_Errhandler"}
# The host's null handle of each C type: what an output handle holds when the call fails.
C_NULL = {"MPI_Comm": "MPI_COMM_NULL", "MPI_Request": "MPI_REQUEST_NULL", "MPI_Message": "MPI_MESSAGE_NULL",
          "MPI_Win": "MPI_WIN_NULL", "MPI_Group": "MPI_GROUP_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL",
          "MPI_Op": "MPI_OP_NULL", "MPI_Info": "MPI_INFO_NULL", "MPI_Errhandler": "MPI_ERRHANDLER_NULL"}
SCALAR_C = {"INTEGER(KIND=MPI_ADDRESS_KIND)": "MPI_Aint", "INTEGER(KIND=MPI_COUNT_KIND)": "MPI_Count",
            "INTEGER(KIND=MPI_OFFSET_KIND)": "MPI_Offset"}


def host_library_symbols(tool, lib_name, pattern):
    """The names `pattern` (one group) captures among the exported symbols of the host library
    `lib_name`, found in the directories the host's compiler wrapper (`tool`, a `-show` command)
    links from."""
    try:
        show = subprocess.run(tool, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot ask {tool[0]} for its libraries: {e}")
    dirs = [a[2:] for a in show if a.startswith("-L")] + [a for a in show if a.startswith("/")]
    # Open MPI names a fortran/<compiler> subdirectory that may not exist: try its parents too.
    for d in [q for d in dirs for q in (pathlib.Path(d), *pathlib.Path(d).parents[:2])]:
        lib = d / lib_name
        if lib.exists():
            text = subprocess.run(["nm", "-D", str(lib)], capture_output=True, text=True, check=True).stdout
            return set(re.findall(pattern, text, flags=re.M))
    sys.exit(f"{lib_name} not found in {dirs}")


def host_fortran_exports(mpi):
    """Names (without pmpi_ and the trailing underscore) of the host's Fortran entry points."""
    return host_library_symbols(HOST_FORTRAN_LIBS[mpi], HOST_FORTRAN_NAMES[mpi], r" [TW] pmpi_(\w+?)_$")


def layer_c_functions():
    """MPI_ functions the layer defines for both hosts, and those it defines under
    `#if MPI_VERSION >= 4` (MPI 4.0's, which Open MPI 4.1 lacks)."""
    names, mpi4 = set(), set()
    for f in HERE.glob("*.c"):
        if f.name == OUT.name or f.name.startswith("fortran_"):
            continue
        guarded = False
        for line in f.read_text().splitlines():
            if line.startswith("#if MPI_VERSION >= 4"):
                guarded = True
            elif line.startswith("#endif"):
                guarded = False
            m = re.match(r"^int (MPI_\w+)\(", line)
            if m:
                (mpi4 if guarded else names).add(m.group(1))
    return names, mpi4 - names


def handwritten():
    text = (HERE / "fortran_calls.c").read_text()
    return set(re.findall(r"^void (mpi_\w+)_\(", text, flags=re.M))


FORTRAN_TYPE = r"(<type>|INTEGER\(KIND=\w+\)|INTEGER|LOGICAL|CHARACTER\*\(\*\)|EXTERNAL|DOUBLE PRECISION)"


def fortran_declarations(text):
    """Parameter name (lower case) -> (Fortran type, is array) from the standard's mpif.h binding."""
    decls = {}
    for line in text.splitlines()[1:]:
        line = line.strip()
        m = re.match(FORTRAN_TYPE + r"\s+(.*)$", line)
        if not m:
            raise ValueError(line)
        depth, cur, names = 0, "", []
        for ch in m.group(2):
            if ch == "," and depth == 0:
                names.append(cur)
                cur = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            cur += ch
        names.append(cur)
        for n in names:
            n = n.strip()
            decls[n.split("(")[0].lower()] = (m.group(1), "(" in n)
    return decls


class Unconvertible(Exception):
    pass


def c_pointer_type(ftype):
    """C type of a Fortran argument passed by address."""
    if ftype == "<type>":
        return "void *"
    if ftype == "CHARACTER*(*)":
        return "char *"
    if ftype == "EXTERNAL":
        return "void *"
    if ftype == "DOUBLE PRECISION":
        return "double *"
    return SCALAR_C.get(ftype, "MPI_Fint") + " *"


def convert(fname, ftype, is_array, kind, direction, ctype):
    """(pre-statements, C argument, post-statements) for one Fortran argument of the EPMPI side."""
    c = ctype.replace("const ", "").replace(" ", "")
    if kind == "BUFFER" and ftype == "<type>" and c == "void*":
        return [], f"epmpi_f_buffer({fname})", []
    if kind == "C_BUFFER" and ftype == "INTEGER(KIND=MPI_ADDRESS_KIND)" and c == "void*" and not is_array:
        return [], fname, []  # the C function stores an address where baseptr is (MPI_Aint has its size)
    if kind == "WEIGHT" and ftype == "INTEGER" and is_array and c == "int*":
        return [], f"epmpi_f_weights({fname})", []  # MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY: Fortran sentinels
    if ftype == "INTEGER" and is_array and c == "int(*)[3]":
        return [], f"(int (*)[3]){fname}", []  # INTEGER RANGES(3, *) is C's int ranges[][3] in memory
    if ftype == "INTEGER" and kind in EP_KINDS or kind in HOST_KINDS:
        if is_array or ftype != "INTEGER":
            raise Unconvertible(f"{fname}: array of handles")
        if kind in EP_KINDS:
            fn = EP_KINDS[kind]
            to_c, to_f = f"epmpi_f2c_{fn}", f"epmpi_c2f_{fn}"
        else:
            fn = HOST_KINDS[kind]
            to_c, to_f = f"PMPI_{fn}_f2c", f"PMPI_{fn}_c2f"
        mtype = C_HANDLE[fn]
        if c == mtype:
            return [], f"{to_c}(*{fname})", []
        if c == mtype + "*":
            # An input the C function takes by address (MPI_Cancel's request) is converted too.
            init = C_NULL[mtype] if direction == "out" else f"{to_c}(*{fname})"
            return [f"{mtype} t_{fname} = {init};"], f"&t_{fname}", [f"*{fname} = {to_f}(t_{fname});"]
        raise Unconvertible(f"{fname}: {ctype}")
    if kind == "STATUS":
        if c == "MPI_Status*" and is_array and ftype == "INTEGER":
            arg = f"epmpi_f_status_ignored({fname}) ? MPI_STATUS_IGNORE : &t_{fname}"
            return ([f"MPI_Status t_{fname} = {{0}};"], arg,
                    [f"if (!epmpi_f_status_ignored({fname})) PMPI_Status_c2f(&t_{fname}, {fname});"])
        raise Unconvertible(f"{fname}: {ctype}")
    if ftype in ("INTEGER", "LOGICAL"):
        if is_array and c == "int*":
            return [], fname, []  # MPI_Fint is int (asserted), LOGICAL 4 bytes with 0 and 1
        if not is_array and c == "int":
            return [], f"*{fname} != 0" if ftype == "LOGICAL" else f"*{fname}", []
        if not is_array and c == "int*" and direction in ("out", "inout"):
            return [], fname, []
        raise Unconvertible(f"{fname}: {ftype} -> {ctype}")
    if ftype in SCALAR_C and not is_array:
        t = SCALAR_C[ftype]
        if c == t:
            return [], f"*{fname}", []
        if c == t + "*":
            return [], fname, []
    raise Unconvertible(f"{fname}: {ftype} -> {ctype}")


def entry_point(proc):
    """(code, provided) of one function's entry point, or (None, None) when it has none."""
    ps = proc._parseset
    name = ps["name"]
    lower = name.lower()
    fparams = [p for p in ps["parameters"] if "f90_parameter" not in p["suppress"] and not p["large_only"]]
    if not fparams or fparams[-1]["kind"] != "ERROR_CODE":
        return None, None
    decls = fortran_declarations(str(proc.express.f90))
    args, hidden, triggers = [], [], []
    for p in fparams:
        n = p["name"]
        if n not in decls:
            return None, None
        ftype, is_array = decls[n]
        args.append(f"{c_pointer_type(ftype)}{n}")
        if ftype == "CHARACTER*(*)":
            hidden.append(f"size_t {n}_len")
        if p["kind"] in EP_KINDS and ftype == "INTEGER" and not is_array and p["param_direction"] != "out":
            triggers.append(f"EPMPI_F_IS_EP(*{n})")
    if not triggers:
        return None, None
    params = ", ".join(args + hidden)
    names = ", ".join([p["name"] for p in fparams] + [h.split()[-1] for h in hidden])
    ierror = fparams[-1]["name"]
    comm = next((p["name"] for p in fparams if p["kind"] == "COMMUNICATOR" and p["param_direction"] != "out"
                 and not decls[p["name"]][1]), None)
    body, provided = [], True
    try:
        m = re.match(r"int (\w+)\((.*)\)$", str(proc.express.iso_c))
        if m is None:
            raise Unconvertible("no C function returning an error code")
        cparams = [p for p in ps["parameters"] if "c_parameter" not in p["suppress"] and not p["large_only"]]
        ctypes = [re.match(r"(.*?)(\w+)\s*((?:\[\w*\])*)$", " ".join(a.split())) for a in m.group(2).split(",")] \
            if m.group(2).strip() not in ("", "void") else []
        if [p["name"] for p in cparams] != [p["name"] for p in fparams[:-1]] or len(ctypes) != len(cparams):
            raise Unconvertible("Fortran and C arguments differ")
        pre, call, post = [], [], []
        for p, cm in zip(cparams, ctypes):
            ftype, is_array = decls[p["name"]]
            if cm is None:
                raise Unconvertible(f"{p['name']}: C argument")
            ctype = cm.group(1).strip() + {"": "", "[]": "*", "[][3]": "(*)[3]"}.get(cm.group(3), "?")
            a, b, c = convert(p["name"], ftype, is_array, p["kind"], p["param_direction"], ctype)
            pre += a
            call.append(b)
            post += c
        # Outputs are written back whatever the outcome: a status tells about a failed receive, a
        # request may have been freed, and a failed creation leaves the null handle.
        body = pre + [f"int rc = {name}({', '.join(call)});"] + post + [f"*{ierror} = rc;"]
    except Unconvertible:
        provided = False
        used = [p["name"] for p in fparams if p["name"] not in (comm, ierror)] + [h.split()[-1] for h in hidden]
        body = ([" ".join(f"(void){u};" for u in used)] if used else [])
        ep_comm = f"epmpi_comm_in(epmpi_f2c_comm(*{comm}))" if comm else "EP_COMM_NULL"
        body += [f"*{ierror} = epmpi_unsupported(\"{name}\", {ep_comm});"]
    lines = [f"void p{lower}_({params});", "",
             f"__attribute__((noinline, cold)) static void ep_{lower}_({params})", "{"]
    lines += [f"    {s}" for s in body] + ["}", ""]
    lines += [f"void {lower}_({params})", "{", f"    if (EPMPI_LIKELY(!({' || '.join(triggers)}))) {{",
              f"        p{lower}_({names});", "        return;", "    }", f"    ep_{lower}_({names});", "}"]
    return "\n".join(lines) + "\n", provided


def main():
    std.use_api_version(1)
    ompi, mpich = host_fortran_exports("openmpi"), host_fortran_exports("mpich")
    layer, layer4 = layer_c_functions()
    skip = handwritten()
    out = [
        "/*",
        " * fortran_names.c: GENERATED by src/mpi_names/generate_fortran.py from the MPI Forum's API",
        " * (pympistandard) and the host MPIs' Fortran libraries. Do not edit; change the generator or",
        " * write the entry point by hand in fortran_calls.c (the generator then leaves it out).",
        " */",
        '#include "fortran_runtime.h"',
        "",
        "#include <stddef.h>",
        "",
        "/* The host's deprecated functions are called as the host declares them. */",
        '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
        "",
        "/* Entry points whose EPMPI side is not provided (MPI_ERR_UNSUPPORTED_OPERATION on EPMPI handles):",
    ]
    unsupported, code, code4 = [], [], []
    for key in sorted(std.PROCEDURES):
        proc = std.PROCEDURES[key]
        ps = proc._parseset
        name, attrs = ps["name"], ps["attributes"]
        lower = name.lower()
        if not attrs["f90_expressible"] or attrs["callback"] or attrs["predefined_function"] or attrs["not_with_mpif"]:
            continue
        if lower in skip or lower[4:] not in mpich:
            continue
        # MPI 4.0's functions: where the host has them (MPICH; Open MPI 4.1's Fortran library
        # lacks their entry points), under `#if MPI_VERSION >= 4`, whether the layer defines the
        # C function under that guard or for both hosts (through epmpi_mpix.h's declarations).
        both = name in layer and lower[4:] in ompi
        if not both and name not in layer4 and name not in layer:
            continue
        c, provided = entry_point(proc)
        if c is None:
            continue
        (code if both else code4).append(c)
        if not provided:
            unsupported.append(f" *   {name}{'' if both else ' (MPI 4 hosts)'}")
    out += unsupported + [" */", ""] + code
    if code4:
        out += ["/* MPI 4.0's functions, on hosts that have them. */", "#if MPI_VERSION >= 4", ""] + code4 + ["#endif", ""]
    dest = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    dest.write_text("\n".join(out))
    print(f"{dest}: {len(code) + len(code4)} entry points ({len(code4)} on MPI 4 hosts only), "
          f"{len(code) + len(code4) - len(unsupported)} on EPMPI handles")


if __name__ == "__main__":
    main()
