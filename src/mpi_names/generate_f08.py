#!/usr/bin/env python3
"""Writes src/mpi_names/f08_names.c: the `use mpi_f08` entry points of libepmpi_mpi_f.

A program that `use mpi_f08` calls, for `call MPI_Send(buf, n, MPI_INTEGER, dest, tag, comm)`,
the specific procedure the host's module names behind the generic MPI_Send: an external
procedure, exported by the host's Fortran library and so interposable by a library linked
before it (checked with `nm -D` on both hosts):

    Open MPI 4.1 (libmpi_usempif08.so):  mpi_send_f08_    host path pmpi_send_f08_
    MPICH 4.0 (libmpichfort.so):         mpi_send_f08ts_  host path pmpir_send_f08ts_
                                         (f08ts: a choice buffer; mpi_comm_split_f08_ and
                                         pmpir_comm_split_f08_ for a call without one)

Every argument is passed by address as in `use mpi`: a TYPE(MPI_Comm) is a structure holding
one default INTEGER, MPI_VAL, the handle `use mpi` would pass, so the address of the structure
is the address of that integer; TYPE(MPI_Status) has the memory layout of an INTEGER array of
MPI_STATUS_SIZE on both hosts (the C status's fields in order); arrays of handles are arrays of
those integers. What differs: the optional ierror (a null address when absent), the hosts'
own sentinels of the f08 module (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, recorded by
f08_sentinels.f90), and MPICH's choice buffers, passed as gfortran array descriptors
(assumed rank, TYPE(*), DIMENSION(..)) where Open MPI passes an address.

So each entry point tests its handles (one branch) and passes everything unchanged to the
host's own f08 entry point when they are the host's; on EPMPI handles it converts the three
things above (f08_runtime.h) and calls the layer's `use mpi` entry point (fortran_names.c,
fortran_calls.c), which runs EPMPI's engine or answers MPI_ERR_UNSUPPORTED_OPERATION. A
function gets an entry point when the layer has its `use mpi` one, both hosts export the f08
one and its PMPI name, and its f08 arguments match its mpif.h arguments one for one (no
PROCEDURE argument). Run this on a machine with both MPIs (Debian: libopenmpi-dev,
libmpich-dev) and pympistandard:

    pip install pympistandard==0.2.0
    python3 src/mpi_names/generate_f08.py

With a path argument the output goes there instead (tests/mpi_names.rs compares it with the
committed file).
"""

import pathlib
import re
import subprocess
import sys

try:
    import pympistandard as std
except ImportError:
    sys.exit("src/mpi_names/generate_f08.py needs the MPI Forum's API: pip install pympistandard==0.2.0")

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "f08_names.c"
sys.path.insert(0, str(HERE))
from generate_fortran import SCALAR_C, host_library_symbols  # noqa: E402 (the path is set just above)

# The host Fortran libraries holding the f08 entry points, found through each host's mpif90.
HOST_F08_TOOLS = {"openmpi": ["mpif90.openmpi", "-showme:libdirs"], "mpich": ["mpif90.mpich", "-show"]}
HOST_F08_LIBS = {"openmpi": "libmpi_usempif08.so", "mpich": "libmpichfort.so"}

# Kinds whose handle EPMPI issues: an input one of these makes the call EPMPI's.
EP_KINDS = ("COMMUNICATOR", "REQUEST", "MESSAGE", "WINDOW", "GROUP")


def host_f08_exports(mpi):
    """Exported names of the host's f08 library."""
    return host_library_symbols(HOST_F08_TOOLS[mpi], HOST_F08_LIBS[mpi], r" [TW] (\w+)$")


def use_mpi_entry_points():
    """The layer's `use mpi` entry points: mpi_<name>_ defined in fortran_names.c and fortran_calls.c."""
    names = set()
    for f in ("fortran_names.c", "fortran_calls.c"):
        names |= set(re.findall(r"^void (mpi_\w+)_\(", (HERE / f).read_text(), flags=re.M))
    return names


def f08_declarations(text):
    """Parameter name (lower case) -> (Fortran type, attributes, is array) from the f08 binding."""
    decls = {}
    for line in text.splitlines()[1:]:
        line = line.strip()
        if line.startswith("USE"):
            continue
        spec, names = line.split("::")
        parts = [s.strip() for s in re.split(r",(?![^(]*\))", spec)]
        depth, cur, items = 0, "", []
        for ch in names:
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            cur += ch
        items.append(cur)
        for n in items:
            n = n.strip()
            decls[n.split("(")[0].lower()] = (parts[0], parts[1:], "(" in n)
    return decls


class Skip(Exception):
    pass


def c_type(ftype):
    if ftype.startswith("TYPE(*)") or ftype == "TYPE(C_PTR)":
        return "void *"
    if ftype.startswith("CHARACTER"):
        return "char *"
    if ftype.startswith("PROCEDURE"):
        raise Skip("procedure argument")
    return SCALAR_C.get(ftype, "MPI_Fint") + " *"


def entry_point(proc, ompi, mpich):
    """C code of one function's f08 entry point; raises Skip when it has none."""
    ps = proc._parseset
    name = ps["name"]
    lower = name.lower()[4:]
    params = [p for p in ps["parameters"] if not p["large_only"]]
    f08 = [p for p in params if "f08_parameter" not in p["suppress"]]
    f90 = [p for p in params if "f90_parameter" not in p["suppress"]]
    if [p["name"] for p in f08] != [p["name"] for p in f90] or not f08 or f08[-1]["kind"] != "ERROR_CODE":
        raise Skip("f08 and mpif.h arguments differ")
    decls = f08_declarations(str(proc.express.f08))
    if any("VALUE" in decls[p["name"]][1] for p in f08):
        raise Skip("argument by value")
    ts = any(decls[p["name"]][0] == "TYPE(*)" for p in f08)
    ompi_name, mpich_name = f"mpi_{lower}_f08_", f"mpi_{lower}_f08{'ts' if ts else ''}_"
    if ompi_name not in ompi or "p" + ompi_name not in ompi or mpich_name not in mpich \
            or "pmpir_" + mpich_name[4:] not in mpich:
        raise Skip("not exported by both hosts")
    args, hidden, triggers, arrays = [], [], [], []
    for p in f08:
        n = p["name"]
        ftype, attrs, is_array = decls[n]
        args.append(f"{c_type(ftype)}{n}")
        if ftype.startswith("CHARACTER"):
            hidden.append(f"size_t {n}_len")
        if p["kind"] in EP_KINDS and ftype.startswith("TYPE(MPI_") and p["param_direction"] != "out":
            if is_array:
                arrays.append(n)
            else:
                triggers.append(f"EPMPI_F_IS_EP(*{n})")
    if arrays:
        # Arrays of requests: their length is the first argument (count or incount).
        if arrays != ["array_of_requests"] or f08[0]["name"] not in ("count", "incount"):
            raise Skip("arrays of handles")
        triggers.append(f"epmpi_f08_any_ep(*{f08[0]['name']}, array_of_requests)")
    if not triggers:
        raise Skip("no EPMPI handle")
    comm = next((p["name"] for p in f08 if p["kind"] == "COMMUNICATOR" and p["param_direction"] != "out"
                 and not decls[p["name"]][2]), None)
    ep_comm = f"epmpi_comm_in(epmpi_f2c_comm(*{comm}))" if comm else "EP_COMM_NULL"
    pre, call, post, temps = [], [], [], []
    for p in f08[:-1]:
        n = p["name"]
        ftype, attrs, is_array = decls[n]
        if ftype == "TYPE(*)":
            what = f"{name} on a non-contiguous array section"
            pre += [f"void *a_{n}, *t_{n};",
                    f"int s_{n} = epmpi_f08_buffer({n}, &a_{n}, &t_{n}, {int('ASYNCHRONOUS' in attrs)});",
                    f"if (s_{n} <= 0) {{"] + [f"    free({t});" for t in temps] + [
                    f"    int e = s_{n} < 0 ? MPI_ERR_NO_MEM : epmpi_unsupported(\"{what}\", {ep_comm});",
                    "    epmpi_f08_error(ierror, e);",
                    "    return;", "}"]
            temps.append(f"t_{n}")
            post.append(f"epmpi_f08_buffer_done({n}, t_{n}, {int(p['param_direction'] != 'in')});")
            call.append(f"a_{n}")
        elif ftype == "TYPE(MPI_Status)":
            call.append(f"epmpi_f08_statuses({n})" if is_array else f"epmpi_f08_status({n})")
        else:
            call.append(n)
    call += ["&rc"] + [h.split()[-1] for h in hidden]
    sig = ", ".join(args + hidden)
    passed = ", ".join([p["name"] for p in f08] + [h.split()[-1] for h in hidden])
    macro = "EPMPI_F08TS" if ts else "EPMPI_F08"
    lines = [f"void EPMPI_P{macro[6:]}({lower})({sig});",
             f"void mpi_{lower}_({', '.join(args[:-1] + ['MPI_Fint *ierror'] + hidden)});", "",
             f"__attribute__((noinline, cold)) static void ep_{lower}_f08({sig})", "{"]
    lines += [f"    {s}" for s in pre]
    lines += ["    MPI_Fint rc;", f"    mpi_{lower}_({', '.join(call)});"] + [f"    {s}" for s in post]
    lines += ["    epmpi_f08_error(ierror, rc);", "}", ""]
    lines += [f"void {macro}({lower})({sig})", "{", f"    if (EPMPI_LIKELY(!({' || '.join(triggers)}))) {{",
              f"        EPMPI_P{macro[6:]}({lower})({passed});", "        return;", "    }",
              f"    ep_{lower}_f08({passed});", "}"]
    return "\n".join(lines) + "\n"


def large_entry_point(proc, mpich):
    """MPICH's large-count form of a function (its specific procedure for INTEGER(KIND=MPI_COUNT_KIND)
    counts), or None: host handles go to the host's, EPMPI handles get MPI_ERR_UNSUPPORTED_OPERATION
    through the communicator's error handler rather than reaching the host."""
    name = proc._parseset["name"]
    lower = name.lower()[4:]
    suffix = next((s for s in ("f08ts_large", "f08_large") if f"mpi_{lower}_{s}_" in mpich), None)
    if suffix is None or f"pmpir_{lower}_{suffix}_" not in mpich:
        return None
    params = [p for p in proc._parseset["parameters"] if "f08_parameter" not in p["suppress"]]
    decls = f08_declarations(str(proc.express.embiggen.f08))
    args, hidden, triggers = [], [], []
    for p in params:
        n = p["name"]
        ftype, attrs, is_array = decls[n]
        if "VALUE" in attrs:
            return None
        args.append(f"{c_type(ftype)}{n}")
        if ftype.startswith("CHARACTER"):
            hidden.append(f"size_t {n}_len")
        if p["kind"] in EP_KINDS and ftype.startswith("TYPE(MPI_") and p["param_direction"] != "out" \
                and not is_array:
            triggers.append(f"EPMPI_F_IS_EP(*{n})")
    if not triggers:
        return None
    comm = next((p["name"] for p in params if p["kind"] == "COMMUNICATOR" and p["param_direction"] != "out"
                 and not decls[p["name"]][2]), None)
    ep_comm = f"epmpi_comm_in(epmpi_f2c_comm(*{comm}))" if comm else "EP_COMM_NULL"
    sig = ", ".join(args + hidden)
    names = [p["name"] for p in params] + [h.split()[-1] for h in hidden]
    unused = " ".join(f"(void){n};" for n in names if n not in (comm, "ierror"))
    return "\n".join([
        "#if EPMPI_F08_LARGE",
        f"void pmpir_{lower}_{suffix}_({sig});", "",
        f"void mpi_{lower}_{suffix}_({sig})", "{", f"    if (EPMPI_LIKELY(!({' || '.join(triggers)}))) {{",
        f"        pmpir_{lower}_{suffix}_({', '.join(names)});", "        return;", "    }",
        f"    {unused}",
        f"    epmpi_f08_error(ierror, epmpi_unsupported(\"{name} (large counts)\", {ep_comm}));", "}",
        "#endif", ""])


def main():
    std.use_api_version(1)
    ompi, mpich = host_f08_exports("openmpi"), host_f08_exports("mpich")
    use_mpi = use_mpi_entry_points()
    # Written by hand in f08_calls.c.
    handwritten = {"MPI_Init", "MPI_Init_thread"}
    code, skipped = [], []
    for key in sorted(std.PROCEDURES):
        proc = std.PROCEDURES[key]
        ps = proc._parseset
        name, attrs = ps["name"], ps["attributes"]
        if name.lower() not in use_mpi or name in handwritten or not attrs["f08_expressible"]:
            continue
        try:
            code.append(entry_point(proc, ompi, mpich))
            large = large_entry_point(proc, mpich)
            if large:
                code.append(large)
        except Skip as e:
            skipped.append(f" *   {name}: {e}")
    out = [
        "/*",
        " * f08_names.c: GENERATED by src/mpi_names/generate_f08.py from the MPI Forum's API (pympistandard),",
        " * the host MPIs' f08 libraries and the layer's `use mpi` entry points. Do not edit; change the",
        " * generator or write the entry point by hand in f08_calls.c.",
        " *",
        " * Functions with a `use mpi` entry point but none here (EPMPI handles reach the host, which",
        " * rejects them):",
        *(skipped or [" *   (none)"]),
        " */",
        '#include "f08_runtime.h"',
        "",
        "#include <stddef.h>",
        "",
    ] + code
    dest = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    dest.write_text("\n".join(out))
    print(f"{dest}: {len(code)} entry points, {len(skipped)} left out")


if __name__ == "__main__":
    main()
