#!/usr/bin/env python3
"""Writes src/mpi_names/wrappers.c: the standard MPI C functions of libepmpi_mpi.

Every MPI function that takes a communicator, request, message, window or group gets a
wrapper:

    int MPI_Send(const void *buf, ..., MPI_Comm comm)
    {
        if (EPMPI_LIKELY(!EPMPI_IS_EP(comm)))       /* host handles: the host's function */
            return PMPI_Send(buf, ..., comm);
        return ep_MPI_Send(buf, ..., comm);          /* EPMPI handles: the engine */
    }

The EPMPI side is derived from two machine-readable sources: the MPI Forum's API
(`pympistandard`: every function, each argument's kind and direction) and EPMPI's own header
(`include/ep_mpi.h`: the `EP_` function of the same name and its argument types). Each argument
is converted by its kind: handles decoded and encoded (runtime.h), MPI_ANY_SOURCE,
MPI_PROC_NULL, MPI_ROOT, MPI_ANY_TAG and MPI_UNDEFINED mapped to EPMPI's values and back,
statuses converted, comparison results and error codes mapped to the host's. A function with
no `EP_` counterpart, or with an argument no rule converts, answers EPMPI handles with
MPI_ERR_UNSUPPORTED_OPERATION through the communicator's error handler. Functions written by
hand in the other files of this directory (arrays of requests, creation, thread
communicators) are left out.

Which functions a host declares decides which wrappers it compiles: a function both hosts
declare (Open MPI 4.1, MPI 3.1) is unguarded; one only MPICH 4.0 declares is guarded by
`MPI_VERSION >= 4`, unless Open MPI has it as an extension (`PMPIX_` in <mpi-ext.h>: MPI 4.0's
persistent collectives, extension pcollreq), in which case it is unguarded, declared for MPI 3
hosts by include/epmpi_mpix.h, and its host path calls the extension's `PMPIX_` function (or,
on an Open MPI built without that extension, answers MPI_ERR_UNSUPPORTED_OPERATION through the
host communicator's error handler); one neither declares (MPI 4.1 and later) is not wrapped.
The sets come from preprocessing <mpi.h> (and Open MPI's <mpi-ext.h>) with `mpicc.openmpi` and
`mpicc.mpich`, so run this on a machine with both:

    pip install pympistandard==0.2.0
    python3 src/mpi_names/generate.py

`tests/mpi_names.rs` checks that wrappers.c is current with the header.
"""

import pathlib
import re
import subprocess
import sys

try:
    import pympistandard as std
except ImportError:
    sys.exit("src/mpi_names/generate.py needs the MPI Forum's API: pip install pympistandard==0.2.0")

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "wrappers.c"

HANDLE_KINDS = {"COMMUNICATOR": "comm", "REQUEST": "request", "MESSAGE": "message", "WINDOW": "win", "GROUP": "group"}
HANDLE_TYPES = {"MPI_Comm": ("EP_Comm", "comm", "EP_COMM_NULL"), "MPI_Request": ("EP_Request", "request", "EP_REQUEST_NULL"),
                "MPI_Message": ("EP_Message", "message", "EP_MESSAGE_NULL"), "MPI_Win": ("EP_Win", "win", "EP_WIN_NULL"),
                "MPI_Group": ("EP_Group", "group", "EP_GROUP_NULL")}


def host_functions(mpicc):
    """Names (without PMPI_) of the functions the host's <mpi.h> declares."""
    try:
        text = subprocess.run([mpicc, "-E", "-x", "c", "-"], input="#include <mpi.h>\n", capture_output=True,
                              text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot preprocess <mpi.h> with {mpicc}: {e}")
    return set(re.findall(r"\bPMPI_(\w+)\s*\(", text))


def host_extension_functions(mpicc):
    """Name (without PMPIX_) -> extension of the `PMPIX_` functions Open MPI's <mpi-ext.h>
    declares, the extension named by the header that declares it (mpiext_pcollreq_c.h)."""
    try:
        text = subprocess.run([mpicc, "-E", "-x", "c", "-"], input="#include <mpi.h>\n#include <mpi-ext.h>\n",
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot preprocess <mpi-ext.h> with {mpicc}: {e}")
    found, extension = {}, None
    for line in text.splitlines():
        marker = re.match(r'# \d+ "[^"]*/p?mpiext_(\w+)_c\.h"', line)
        if marker or line.startswith("# "):
            extension = marker.group(1) if marker else None
            continue
        for name in re.findall(r"\bPMPIX_(\w+)\s*\(", line):
            if extension:
                found[name] = extension
    return found


def ep_prototypes():
    """EP_ function name -> list of (type, name) of include/ep_mpi.h."""
    text = (ROOT / "include" / "ep_mpi.h").read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    protos = {}
    for name, params in re.findall(r"\bint\s+(EP_\w+)\s*\(([^;{]*)\)\s*;", text):
        protos[name] = [split_param(p) for p in params.split(",") if p.strip() not in ("", "void")]
    return protos


def split_param(p):
    p = " ".join(p.split())
    m = re.match(r"(.*)\(\*(\w+)\)\[(\d+)\]$", p)  # a pointer to arrays: int (*ranges)[3]
    if m:
        return f"{m.group(1).strip()}[{m.group(3)}]*", m.group(2)
    m = re.match(r"(.*?)(\w+)\s*(\[\](?:\[\d+\])?)?$", p)
    typ, name, arr = m.group(1).strip(), m.group(2), m.group(3)
    typ = typ.replace(" *", "*").replace("* ", "*")
    if arr:
        typ += arr[2:] + "*"  # int x[] -> int*, int x[][3] -> int[3]*
    return typ, name


def norm(t):
    return t.replace("const ", "").replace(" ", "")


# Functions a host declares with other qualifiers than the standard's (MPICH 4.0.2:
# MPI_Pready_list without const): not wrapped; partitioned communication has no EPMPI side.
HOST_DIFFERS = {"MPI_Pready_list"}


def handwritten():
    names = set()
    for f in HERE.glob("*.c"):
        if f.name != OUT.name:
            names |= set(re.findall(r"^int (MPI_\w+)\(", f.read_text(), flags=re.M))
    return names


class Unconvertible(Exception):
    pass


def convert(param, kind, direction, length, ep_type):
    """(pre-statements, argument expression, post-statements) for one argument."""
    has_length = bool(length)
    mt, name = param
    m, e = norm(mt), norm(ep_type)
    base = m.rstrip("*")
    if base in HANDLE_TYPES and not has_length:
        etype, fn, enull = HANDLE_TYPES[base]
        if m == base and e == etype:
            return [], f"epmpi_{fn}_in({name})", []
        if m == base + "*" and e == etype + "*":
            init = enull if direction == "out" else f"{name} ? epmpi_{fn}_in(*{name}) : {enull}"
            # A refused call leaves an output handle as it was (EPMPI's promise); an input and
            # output one (a request completed, a communicator freed) is always written back.
            when = f"{name} && rc == EP_SUCCESS" if direction == "out" else name
            return ([f"{etype} t_{name} = {init};"], f"{name} ? &t_{name} : NULL",
                    [f"if ({when}) *{name} = epmpi_{fn}_out(t_{name});"])
        if m == e:
            return [], name, []  # the host's handle where EPMPI takes one (a parent communicator)
        raise Unconvertible(f"{name}: {mt} -> {ep_type}")
    if kind == "STATUS" and not has_length:
        if m == "MPI_Status*" and e == "EP_Status*":
            return ([f"EP_Status t_{name} = {{0}};"], f"{name} == MPI_STATUS_IGNORE ? EP_STATUS_IGNORE : &t_{name}",
                    [f"if ({name} != MPI_STATUS_IGNORE) epmpi_status_out(&t_{name}, {name});"])
        raise Unconvertible(f"{name}: {mt} -> {ep_type}")
    if kind == "ERRHANDLER":
        if m == "MPI_Errhandler" and e in ("EP_Errhandler", "int"):
            return [], f"epmpi_errhandler_in({name})", []
        if m == "MPI_Errhandler*" and e in ("EP_Errhandler*", "int*"):
            return ([f"EP_Errhandler t_{name} = EP_ERRHANDLER_NULL;"], f"{name} ? &t_{name} : NULL",
                    [f"if ({name}) *{name} = epmpi_errhandler_out(t_{name});"])
        raise Unconvertible(f"{name}: {mt} -> {ep_type}")
    if m != e:
        raise Unconvertible(f"{name}: {mt} -> {ep_type}")
    if "[" in e:  # int (*)[3] to const int (*)[3]: C wants the qualifier added by a cast
        return [], f"(const {m.split('[')[0]} (*)[{m.split('[')[1].split(']')[0]}]){name}", []
    if has_length and kind == "RANK" and m == "int*" and re.fullmatch(r"\w+", str(length)):
        # Arrays of ranks with special values (MPI_PROC_NULL in MPI_Group_translate_ranks) and
        # MPI_UNDEFINED or MPI_PROC_NULL among the results: converted entry by entry.
        if direction == "in":
            return ([f"int *r_{name} = NULL;",
                     f"if ({name} && {length} > 0 && (r_{name} = malloc(sizeof(int) * (size_t){length})) == NULL) "
                     f"return MPI_ERR_NO_MEM;",
                     f"for (int i = 0; r_{name} && i < {length}; i++) r_{name}[i] = epmpi_rank_in({name}[i]);"],
                    f"r_{name} ? r_{name} : {name}", [f"free(r_{name});"])
        return [], name, [f"for (int i = 0; rc == EP_SUCCESS && {name} && i < {length}; i++) "
                          f"{name}[i] = epmpi_rank_out({name}[i]);"]
    if kind == "WEIGHT" and m == "int*" and direction == "in":
        return [], f"epmpi_weights_in({name})", []
    if has_length:
        return [], name, []
    if m == "int*" and direction == "out" and kind == "TOPOLOGY_TYPE":
        return [], name, [f"if ({name} && rc == EP_SUCCESS) *{name} = epmpi_topology_out(*{name});"]
    if m == "int" and direction == "in":
        # RANK_NNI: the target of a one-sided call may still be MPI_PROC_NULL (MPI 4.1 section 12.3).
        rule = {"RANK": "epmpi_rank_in", "RANK_NNI": "epmpi_rank_in", "TAG": "epmpi_tag_in", "COLOR": "epmpi_undefined_in",
                "SPLIT_TYPE": "epmpi_undefined_in", "KEYVAL": "epmpi_keyval_in"}.get(kind)
        return [], f"{rule}({name})" if rule else name, []
    if m == "int*" and direction == "out":
        rule = {"RANK": "epmpi_rank_out", "COMM_COMPARISON": "epmpi_comparison_out",
                "GROUP_COMPARISON": "epmpi_comparison_out"}.get(kind)
        return [], name, [f"if ({name}) *{name} = {rule}(*{name});"] if rule else []
    return [], name, []


def host_call(name, args, extension, comm_arg):
    """The statements of the host path: the host's PMPI_ function, or for a function Open MPI
    has only as the extension `extension`, its PMPIX_ form on MPI 3 hosts."""
    if extension is None:
        return [f"        return P{name}({args});"]
    macro = f"OMPI_HAVE_MPI_EXT_{extension.upper()}"
    return ["#if MPI_VERSION >= 4", f"        return P{name}({args});",
            f"#elif defined({macro}) && {macro}", f"        return PMPIX_{name[4:]}({args});", "#else",
            f"        return epmpi_host_unsupported(\"{name}\", {comm_arg or 'MPI_COMM_SELF'});", "#endif"]


def wrapper(proc, ep_protos, guard, extension=None):
    ps = proc._parseset
    name = ps["name"]
    c_params = [p for p in ps["parameters"] if "c_parameter" not in p["suppress"] and not p["large_only"]]
    proto = str(proc.express.iso_c)
    m = re.match(r"int (\w+)\((.*)\)$", proto)
    if m is None:
        return None, None  # handle conversions (c2f, f2c) and address arithmetic: no error code
    params = [split_param(p) for p in m.group(2).split(",")] if m.group(2).strip() not in ("", "void") else []
    assert len(params) == len(c_params), name
    triggers = []
    for (typ, pname), p in zip(params, c_params):
        if p["kind"] in HANDLE_KINDS and not p["length"] and p["param_direction"] != "out":
            if norm(typ).endswith("*"):  # passed by address (MPI_Cancel, MPI_Comm_free)
                triggers.append(f"({pname} && EPMPI_IS_EP(*{pname}))")
            else:
                triggers.append(f"EPMPI_IS_EP({pname})")
    if not triggers:
        return None, None
    args = ", ".join(p for _, p in params)
    proto_c = proto.replace("* ", " *")
    ep_name = "EP_" + name[4:]
    comm_arg = next((p for (t, p), k in zip(params, c_params) if norm(t) == "MPI_Comm" and k["kind"] == "COMMUNICATOR"),
                    None)
    comm_expr = f"epmpi_comm_in({comm_arg})" if comm_arg else "EP_COMM_NULL"
    if comm_arg is None:  # a communicator passed by address (MPI_Comm_disconnect): its handler
        comm_arg = next((p for (t, p), k in zip(params, c_params) if norm(t) == "MPI_Comm*"
                         and k["kind"] == "COMMUNICATOR" and k["param_direction"] == "inout"), None)
        comm_expr = f"({comm_arg} ? epmpi_comm_in(*{comm_arg}) : EP_COMM_NULL)" if comm_arg else comm_expr
    win_arg = next((p for (t, p), k in zip(params, c_params) if norm(t) == "MPI_Win" and k["kind"] == "WINDOW"), None)
    body, status = [], "provided"
    if ep_name in ep_protos and len(ep_protos[ep_name]) == len(params):
        try:
            pre, call, post = [], [], []
            for param, p, (et, _) in zip(params, c_params, ep_protos[ep_name]):
                if name.endswith("_call_errhandler") and p["kind"] == "ERROR_CODE":
                    # The program's host error code, given to EPMPI's handler as EPMPI's class
                    # (which the layer's handlers turn back into the host's class).
                    pre.append(f"int c_{param[1]} = epmpi_code_in({param[1]});")
                    call.append(f"c_{param[1]}")
                    continue
                a, b, c = convert(param, p["kind"], p["param_direction"], p["length"], et)
                pre += a
                call.append(b)
                post += c
            body = pre + [f"int rc = {ep_name}({', '.join(call)});"] + post + ["return epmpi_rc(rc);"]
        except Unconvertible as e:
            body, status = [], f"unconvertible argument {e}"
    else:
        status = "no EP_ function" if ep_name not in ep_protos else "EP_ function differs in arguments"
    if not body and comm_arg is None and win_arg:  # a call on a window: the window's handler
        unused = [f"(void){p};" for _, p in params if p != win_arg]
        body = ([" ".join(unused)] if unused else []) + [
            f"return epmpi_unsupported_win(\"{name}\", epmpi_win_in({win_arg}));"]
    if not body:
        unused = [f"(void){p};" for _, p in params if p != comm_arg]
        body = ([" ".join(unused)] if unused else []) + [f"return epmpi_unsupported(\"{name}\", {comm_expr});"]
    ep_proto = proto_c.replace(f"int {name}(", f"static int ep_{name}(", 1)
    lines = []
    if guard:
        lines.append("#if MPI_VERSION >= 4")
    lines += [f"__attribute__((noinline, cold)) {ep_proto}", "{"] + [f"    {s}" for s in body] + ["}", ""]
    lines += [proto_c, "{", f"    if (EPMPI_LIKELY(!({' || '.join(triggers)})))"]
    lines += host_call(name, args, extension, comm_arg) + [f"    return ep_{name}({args});", "}"]
    if guard:
        lines.append("#endif")
    return "\n".join(lines) + "\n", status


# Collectives whose count and displacement arrays have one entry per peer (the group's size, or
# the remote group's on an intercommunicator); neighbourhood collectives (one per neighbour)
# have no large-count form here.
PEER_ARRAYS = re.compile(r"^MPI_I?(Gatherv|Scatterv|Allgatherv|Alltoall[vw]|Reduce_scatter)(_init)?$")


def wrapper_large(proc, guard):
    """MPI_X_c, the large-count form (MPI 4.1 section 2.5.8): the host's own where it has one
    (MPI_VERSION >= 4) for host handles; otherwise, and for EPMPI handles, counts narrowed to int
    and the int form called (the layer's, which dispatches), MPI_ERR_COUNT when one does not fit."""
    ps = proc._parseset
    name = ps["name"]
    if any(p["large_only"] for p in ps["parameters"]):
        return None
    big = str(proc.express.embiggen.iso_c)
    small = str(proc.express.iso_c)
    mb, ms = re.match(r"int (\w+)\((.*)\)$", big), re.match(r"int (\w+)\((.*)\)$", small)
    if not mb or not ms:
        return None
    bparams = [split_param(p) for p in mb.group(2).split(",")]
    sparams = [split_param(p) for p in ms.group(2).split(",")]
    c_params = [p for p in ps["parameters"] if "c_parameter" not in p["suppress"]]
    if len(bparams) != len(sparams) or len(bparams) != len(c_params):
        return None
    comm = next((p for (t, p) in bparams if norm(t) == "MPI_Comm"), None)
    decls, pre, call, post = [], [], [], []
    for (bt, name_), (st, _), p in zip(bparams, sparams, c_params):
        b, s_ = norm(bt), norm(st)
        if b == s_:
            call.append(name_)
        elif b in ("MPI_Count", "MPI_Aint") and s_ == "int":
            pre.append(f"if ({name_} > INT_MAX || {name_} < INT_MIN) return MPI_ERR_COUNT;")
            call.append(f"(int){name_}")
        elif b in ("MPI_Count*", "MPI_Aint*") and s_ == "int*" and p["length"]:
            if not PEER_ARRAYS.match(name) or comm is None:
                return None
            when = f"epmpi_is_root({comm}, root)" if p["root_only"] else "1"
            decls.append(f"int *n_{name_} = NULL;")
            pre.append(f"if ({name_} && {when} && (rc = epmpi_narrow(peers, {name_}, &n_{name_}))) goto out;")
            call.append(f"n_{name_}")
            post.append(f"free(n_{name_});")
        elif b == "MPI_Count*" and s_ == "int*" and p["param_direction"] == "out" and not p["length"]:
            pre.append(f"int n_{name_} = 0;")
            call.append(f"{name_} ? &n_{name_} : NULL")
            post.append(f"if ({name_} && rc == MPI_SUCCESS) *{name_} = n_{name_};")
        else:
            return None
    body = ["int rc = MPI_SUCCESS;"] + decls
    if any("peers" in l for l in pre):
        body.append(f"int peers = epmpi_peers({comm});")
    body += pre + [f"rc = {name}({', '.join(call)});"]
    if any("goto out" in l for l in pre):
        body.append("out:")
    body += post + ["return rc;"]
    args = ", ".join(p for _, p in bparams)
    proto_c = big.replace("* ", " *")
    triggers = []
    for (typ, pname), p in zip(bparams, c_params):
        if p["kind"] in HANDLE_KINDS and not p["length"] and p["param_direction"] != "out":
            triggers.append(f"({pname} && EPMPI_IS_EP(*{pname}))" if norm(typ).endswith("*") else f"EPMPI_IS_EP({pname})")
    if not triggers:
        return None
    lines = ["#if MPI_VERSION >= 4"] if guard else []
    lines += [proto_c.replace(f"int {name}_c(", f"__attribute__((noinline, cold)) static int ep_{name}_c(", 1), "{"]
    lines += [f"    {l}" for l in body] + ["}", "", proto_c, "{", "#if MPI_VERSION >= 4",
              f"    if (EPMPI_LIKELY(!({' || '.join(triggers)})))", f"        return P{name}_c({args});", "#endif",
              f"    return ep_{name}_c({args});", "}"]
    if guard:
        lines.append("#endif")
    return "\n".join(lines) + "\n"


def main():
    std.use_api_version(1)
    ompi, mpich = host_functions("mpicc.openmpi"), host_functions("mpicc.mpich")
    # Functions Open MPI has only as extensions: those MPICH declares under the standard name.
    ompi_ext = {f: e for f, e in host_extension_functions("mpicc.openmpi").items() if f in mpich and f not in ompi}
    ep_protos = ep_prototypes()
    skip = handwritten()
    out = [
        "/*",
        " * wrappers.c: GENERATED by src/mpi_names/generate.py from the MPI Forum's API (pympistandard)",
        " * and include/ep_mpi.h. Do not edit; change the generator or write the function by hand in",
        " * another file of this directory (the generator then leaves it out).",
        " */",
        '#include "runtime.h"',
        "#if defined(OPEN_MPI) && OPEN_MPI",
        "#include <mpi-ext.h> /* MPI 4.0 functions Open MPI 4.1 has as PMPIX_ extensions */",
        "#endif",
        "#include <epmpi_mpix.h> /* their declarations under the standard names on MPI 3 hosts */",
        "",
        "#include <limits.h>",
        "#include <stddef.h>",
        "#include <stdlib.h>",
        "",
        "/* The host's deprecated functions are wrapped as the host declares them. */",
        '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
        "",
        "/* Functions whose EPMPI side is not provided (MPI_ERR_UNSUPPORTED_OPERATION on EPMPI handles):",
    ]
    unsupported, wrappers = [], []
    for key in sorted(std.PROCEDURES):
        proc = std.PROCEDURES[key]
        ps = proc._parseset
        name = ps["name"]
        attrs = ps["attributes"]
        if not attrs["c_expressible"] or attrs["callback"] or attrs["predefined_function"] or name in skip or name in HOST_DIFFERS:
            continue
        short = name[4:]
        if short not in ompi and short not in mpich:
            continue  # no host declares it (MPI 4.1 and later)
        guard = short not in ompi and short not in ompi_ext
        code, status = wrapper(proc, ep_protos, guard=guard, extension=ompi_ext.get(short))
        if code is None:
            continue
        wrappers.append(code)
        if proc.has_embiggenment():
            large = wrapper_large(proc, guard=guard)
            if large:
                wrappers.append(large)
        if status != "provided":
            unsupported.append(f" *   {name}: {status}")
    out += unsupported + [" */", ""] + wrappers
    OUT.write_text("\n".join(out))
    print(f"{OUT.relative_to(ROOT)}: {len(wrappers)} wrappers, {len(wrappers) - len(unsupported)} on EPMPI handles")


if __name__ == "__main__":
    main()
