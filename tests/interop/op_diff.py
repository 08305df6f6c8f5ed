"""Differential test of duet's ops against TensorFlow's CPU kernels, driven by the op registry.

    ~/.venvs/duet/bin/python tests/interop/op_diff.py --duet bazel-bin/tools/duet \\
        --runner bazel-bin/tests/interop/run_op_cases [--seed 1] [--cases-per-op 12] [--ops A,B]

For every op both duet's and TensorFlow's registries have, either op_diff_rules.SKIPPED says why
it is left out, or op_cases.py generates its cases from the OpDef (dtypes both allow, ranks 0-6,
size-0 dims, broadcasting, attrs, edge values, unknown shapes) with a generator seeded from
--seed and the op's name. Each case is a one-op GraphDef, run by TensorFlow (tf.compat.v1.Session,
graph optimizations off, so its kernels run as written) and by duet (run_op_cases: GraphDef
import and a Session, as `duet run` runs a model), and the results are compared: the same
outputs (dtype, shape, values within a dtype's tolerance, NaN where NaN, infinities equal) or both
rejecting the case. op_diff_rules.py lists the TensorFlow-side behaviours that are not failures;
a float32/16 case that differs is re-run by TensorFlow in float64, and passes when duet is the
closer one.

Prints a line per op and one per failing case, and a summary; exits 1 when a case fails or a
shared op has neither cases nor a reason. tests/interop/tf_op_diff_test.sh runs it in CI (the
default seed and budget); CONTRIBUTING.md, "Testing rules", gives the longer run.
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# TensorFlow's reference comes from its own kernels, not its oneDNN custom ops: those abort the
# process on some CPUs (an uncaught dnnl::error, "could not create a primitive descriptor for the
# inner product forward propagation primitive", and MaxPool3D's "could not create a descriptor"
# on a 2-vCPU AVX-512 Xeon VM, 2026-12-01).
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: E402
from tensorflow.core.framework import tensor_pb2, types_pb2  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_op_defs  # noqa: E402
import op_cases  # noqa: E402
import op_diff_rules as rules  # noqa: E402

TF_BATCH = 64  # cases imported into one TensorFlow graph and run by one Session.run


def allowed_types(duet_def, tf_def):
    """{type attr: [tf.DType]} that both OpDefs allow (duet's order)."""
    theirs = {a.name: a for a in tf_def.attr}
    result = {}
    for a in duet_def.attr:
        if a.type != "type":
            continue
        ours = list(a.allowed_values.list.type)
        other = theirs.get(a.name)
        tf_allowed = set(other.allowed_values.list.type) if other is not None else set()
        if not ours:
            ours = sorted(tf_allowed) if tf_allowed else [tf.float32.as_datatype_enum]
        # Object dtypes (resource, variant) hold no values to compare.
        result[a.name] = [tf.as_dtype(t) for t in ours
                          if (not tf_allowed or t in tf_allowed)
                          and t not in (types_pb2.DT_RESOURCE, types_pb2.DT_VARIANT)]
    return result


class Prepared:
    """A case with its GraphDefs (each from its registry's OpDef: TensorFlow's _FusedConv2D takes
    its args as a type list, duet's as N * T), attrs and output count."""

    def __init__(self, case, tf_def, duet_def):
        self.case = case
        self.tf_name = "c_" + case.id.replace(".", "_")  # TensorFlow's import scope
        self.graph_def, self.attrs = op_cases.graph_def(case, tf_def)
        self.duet_graph_def, _ = op_cases.graph_def(case, duet_def)
        self.num_outputs = op_cases.num_outputs(tf_def, self.attrs)
        self.inputs = op_cases.flat_inputs(case)

    def feeds(self):
        return [(f"in{k}", o) for k, o in enumerate(self.inputs) if not o.const]

    def fetches(self):
        return [f"op:{k}" for k in range(self.num_outputs)]


# ---- TensorFlow ----

def tf_session(graph):
    rewrite = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    options = config_pb2.GraphOptions(
        rewrite_options=rewrite,
        optimizer_options=config_pb2.OptimizerOptions(opt_level=config_pb2.OptimizerOptions.L0,
                                                      do_constant_folding=False))
    config = config_pb2.ConfigProto(graph_options=options, inter_op_parallelism_threads=1)
    return tf.compat.v1.Session(graph=graph, config=config)


def error_text(e):
    """TensorFlow's error on one line, without the graph's "Detected at node" trace."""
    lines = [line.strip() for line in str(getattr(e, "message", e)).strip().splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Detected at", "File ", "["))]
    return f"{type(e).__name__}: " + " | ".join(lines)


def tf_graph(batch, results):
    """A graph with each case of `batch` imported under its own name (tf_names); the cases whose
    import TensorFlow rejects get that as their result."""
    graph, imported = tf.Graph(), []
    with graph.as_default():
        for p in batch:
            try:
                tf.graph_util.import_graph_def(p.graph_def, name=p.tf_name)
                imported.append(p)
            except Exception as e:  # noqa: BLE001 - TensorFlow's rejection is the result
                results[p.case.id] = error_text(e)
    return graph, imported


def tf_run(sess, ps):
    fetches = [[f"{p.tf_name}/{f}" for f in p.fetches()] for p in ps]
    feeds = {f"{p.tf_name}/{name}:0": o.value for p in ps for name, o in p.feeds()}
    return sess.run(fetches, feeds)


def run_tf(prepared):
    """{case id: list of np arrays, or an error message}, in batches: one graph holds a batch's
    cases, and one Session.run fetches them all. When that fails, each case runs again in a graph
    and session of its own (a session that failed once may fail every later run)."""
    results = {}
    for start in range(0, len(prepared), TF_BATCH):
        batch = prepared[start:start + TF_BATCH]
        graph, imported = tf_graph(batch, results)
        try:
            with tf_session(graph) as sess:
                for p, out in zip(imported, tf_run(sess, imported)):
                    results[p.case.id] = list(out)
            continue
        except Exception:  # noqa: BLE001 - one case failed: run them one at a time
            pass
        for p in imported:
            graph, alone = tf_graph([p], results)
            try:
                with tf_session(graph) as sess:
                    results[p.case.id] = list(tf_run(sess, alone)[0])
            except Exception as e:  # noqa: BLE001
                results[p.case.id] = error_text(e)
    return results


# ---- duet ----

def write_tensor(path, value, dtype):
    with open(path, "wb") as f:
        f.write(tf.make_tensor_proto(value, dtype).SerializeToString())


def read_tensor(path):
    proto = tensor_pb2.TensorProto()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    return tf.make_ndarray(proto)


def run_duet(runner, prepared, workdir, timeout):
    """{case id: list of np arrays, or an error message} from run_op_cases; a case that crashes
    or hangs the runner is reported as such and the runner goes on after it."""
    lines = []
    for p in prepared:
        graph_file = f"{p.case.id}.pb"
        with open(os.path.join(workdir, graph_file), "wb") as f:
            f.write(p.duet_graph_def.SerializeToString())
        feeds = []
        for k, o in enumerate(p.inputs):
            if o.const:
                continue
            name = f"{p.case.id}.in{k}.pb"
            write_tensor(os.path.join(workdir, name), o.value, o.dtype)
            feeds.append(f"in{k}={name}")
        lines.append("\t".join([p.case.id, graph_file, ",".join(feeds), ",".join(p.fetches())]))
    results, outputs = {}, {p.case.id: p.num_outputs for p in prepared}
    remaining = lines
    while remaining:
        with open(os.path.join(workdir, "manifest.tsv"), "w") as f:
            f.write("\n".join(remaining) + "\n")
        status_path = os.path.join(workdir, "results.tsv")
        if os.path.exists(status_path):
            os.remove(status_path)
        try:
            subprocess.run([runner, workdir], timeout=timeout, capture_output=True, check=False)
            hung = False
        except subprocess.TimeoutExpired:
            hung = True
        started, done = None, set()
        with open(status_path) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if fields[1] == "start":
                    started = fields[0]
                    continue
                done.add(fields[0])
                if fields[1] == "ok":
                    results[fields[0]] = [
                        read_tensor(os.path.join(workdir, f"{fields[0]}.out.{k}.pb"))
                        for k in range(outputs[fields[0]])]
                else:
                    results[fields[0]] = "duet: " + fields[2]
        ids = [line.split("\t")[0] for line in remaining]
        if started is not None and started not in done:
            results[started] = "duet " + ("hung (timeout)" if hung else "crashed")
            done.add(started)
        remaining = [line for line, i in zip(remaining, ids) if i not in done]
        if started is None and remaining:
            for i in ids:
                results.setdefault(i, "duet runner failed before its first case")
            break
    return results


# ---- comparison ----

def as_float64(a):
    return np.asarray(a).astype(np.float64)


def is_float(a):
    return np.asarray(a).dtype.kind == "f" or np.asarray(a).dtype.name == "bfloat16"


def normalized(a):
    """Strings as arrays of bytes objects (TensorFlow's fixed-width |S or object arrays alike)."""
    a = np.asarray(a)
    if a.dtype.kind in ("S", "O", "U"):
        return np.array([bytes(v) if not isinstance(v, str) else v.encode() for v in a.ravel()],
                        dtype=object).reshape(a.shape)
    return a


def rtol_of(case, output):
    """The relative tolerance of a float output: the loosest of its dtype's and of the case's
    float operands' (a float64 result of float32 operands is as precise as float32)."""
    names = [output.dtype.name] + [o.dtype.name for o in op_cases.flat_inputs(case)
                                   if o.dtype.is_floating]
    return max(rules.RTOL.get(n, 0.0) for n in names)


def compare_arrays(case, k, t, d):
    """None when output k agrees, else why not."""
    t, d = normalized(t), normalized(d)
    if t.dtype != d.dtype:
        return f"output {k}: dtype {d.dtype} in duet, {t.dtype} in TensorFlow"
    if t.shape != d.shape:
        return f"output {k}: shape {d.shape} in duet, {t.shape} in TensorFlow"
    mask = rules.unspecified_elements(case, k, [o.value for o in op_cases.flat_inputs(case)])
    if isinstance(mask, str):
        return None
    bad = float_mismatch(case, t, d) if is_float(t) else t != d
    if mask is not None and mask.shape == bad.shape:
        bad &= ~mask
    if not bad.any():
        return None
    i = tuple(np.argwhere(bad)[0])
    show = as_float64 if is_float(t) else np.asarray
    return (f"output {k}{[int(j) for j in i]}: {show(d)[i]!r} in duet, {show(t)[i]!r} in "
            f"TensorFlow ({int(bad.sum())} of {bad.size} elements differ)")


def float_mismatch(case, t, d):
    """Where float arrays t (TensorFlow) and d (duet) disagree beyond the tolerance: relative to
    each element, or to the largest one for ops that accumulate (rules.ACCUMULATING), at least
    to 1 for probabilities (rules.UNIT_SCALE); subnormals read as 0 (rules.FLUSHED)."""
    name = t.dtype.name
    t64, d64 = rules.flush(as_float64(t), name), rules.flush(as_float64(d), name)
    finite = np.isfinite(t64)
    scale = np.abs(t64[finite]).max() if case.op in rules.ACCUMULATING and finite.any() else 0.0
    if case.op in rules.UNIT_SCALE:
        scale = max(scale, 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(d64 - t64) <= rtol_of(case, t) * (np.abs(t64) + scale)
    same_special = (np.isnan(t64) & np.isnan(d64)) | ((t64 == d64) & ~finite)
    return ~(close | same_special)


def compare(case, tf_result, duet_result):
    """None when the case agrees, else why not."""
    if isinstance(tf_result, str) and isinstance(duet_result, str):
        return None  # both reject the case
    if isinstance(tf_result, str):
        return f"TensorFlow rejects it ({tf_result[:300]}), duet runs it"
    if isinstance(duet_result, str):
        return f"duet rejects it ({duet_result[:300]}), TensorFlow runs it"
    if len(tf_result) != len(duet_result):
        return f"{len(duet_result)} outputs in duet, {len(tf_result)} in TensorFlow"
    for k, (t, d) in enumerate(zip(tf_result, duet_result)):
        if k in rules.UNCOMPARED_OUTPUTS.get(case.op, ()):
            continue
        why = compare_arrays(case, k, t, d)
        if why:
            return why
    return None


def wide_twin(p, tf_def, duet_def, allowed, wide):
    """`p` computed in the `wide` dtype (float64, or float32 for 16-bit cases) where its type
    attrs allow it in TensorFlow, or None."""
    attrs = dict(p.case.attrs)
    narrower = {tf.float64: (tf.float32, tf.float16, tf.bfloat16),
                tf.float32: (tf.float16, tf.bfloat16)}[wide]
    lowered = set()
    for name, types in allowed.items():
        value = p.attrs.get(name)
        if isinstance(value, tf.DType) and value in narrower:
            attrs[name] = wide
            lowered.add(value)
    if not lowered:
        return None

    def widen(o):
        if o.dtype not in lowered:
            return o
        return op_cases.Operand(as_float64(o.value).astype(wide.as_numpy_dtype), wide, o.const,
                                o.shape)
    inputs = [[widen(o) for o in item] if isinstance(item, list) else widen(item)
              for item in p.case.inputs]
    case = op_cases.Case(p.case.op, f"{p.case.id}.{wide.name}", inputs, attrs, p.case.kind)
    try:
        return Prepared(case, tf_def, duet_def)
    except ValueError:
        return None


def duet_more_accurate(case, tf_result, duet_result, reference):
    """True when, against `reference` (TensorFlow's float64 run, or rules.REFERENCE's exact
    math), duet is at least as close as TensorFlow in every element of every float output that
    differs (and the other outputs agree)."""
    if isinstance(reference, str) or isinstance(tf_result, str) or isinstance(duet_result, str):
        return False
    for k, (t, d, r) in enumerate(zip(tf_result, duet_result, reference)):
        t, d = np.asarray(t), np.asarray(d)
        if not is_float(t) or t.shape != d.shape or np.shape(r) != t.shape:
            if compare_arrays(case, k, t, d):
                return False
            continue
        with np.errstate(all="ignore"):  # the reference may overflow t's dtype
            r64 = as_float64(np.asarray(r, dtype=np.float64).astype(t.dtype))
        bad = float_mismatch(case, t, d)
        d_ok = ~float_mismatch(case, np.asarray(r64).astype(t.dtype), d)
        with np.errstate(all="ignore"):
            err_d, err_t = np.abs(as_float64(d) - r64), np.abs(as_float64(t) - r64)
            t_off = ~np.isfinite(as_float64(t)) & np.isfinite(r64)
            better = d_ok | (err_d <= err_t) | (t_off & np.isfinite(as_float64(d)))
        if (bad & ~better).any():
            return False
    return True


def documented_differences():
    """The ops docs/ops.md lists under "Differences from TensorFlow"."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "ops.md")
    with open(path) as f:
        text = f.read()
    section = text.split("## Differences from TensorFlow", 1)[-1]
    return {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}


# ---- main ----

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duet", required=True, help="the duet binary (for its OpDefs)")
    parser.add_argument("--runner", required=True, help="the run_op_cases binary")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases-per-op", type=int, default=12,
                        help="the budget each recipe scales its cases by")
    parser.add_argument("--ops", default="", help="only these ops (comma separated)")
    parser.add_argument("--keep", default="", help="write the case files here and keep them")
    parser.add_argument("--timeout", type=int, default=900, help="seconds for the duet runner")
    args = parser.parse_args()
    start = time.time()
    duet_ops = compare_op_defs.duet_op_defs(args.duet)
    tf_ops = compare_op_defs.tf_op_defs()
    shared = sorted(set(duet_ops) & set(tf_ops))
    only = set(filter(None, args.ops.split(",")))
    uncovered, prepared, op_types, twins_ftz = [], [], {}, []
    for op in shared:
        if only and op not in only:
            continue
        if op in rules.SKIPPED:
            continue
        allowed = allowed_types(duet_ops[op], tf_ops[op])
        op_types[op] = allowed
        rng = np.random.default_rng([args.seed, zlib.crc32(op.encode())])
        cases = op_cases.generate(tf_ops[op], allowed, rng, args.cases_per_op)
        if not cases:
            uncovered.append(op)
        for c in cases:
            prepared.append(Prepared(c, tf_ops[op], duet_ops[op]))
            twin = op_cases.flushed(c, rules.FLUSHED, rules.flush)
            if twin is not None:  # run by duet only (rules.py, flushed subnormals)
                twins_ftz.append(Prepared(twin, tf_ops[op], duet_ops[op]))
    workdir = args.keep or tempfile.mkdtemp(prefix="op_diff_")
    os.makedirs(workdir, exist_ok=True)
    print(f"{len(shared)} ops in both registries: {len(op_types)} with cases, "
          f"{len(rules.SKIPPED)} skipped (op_diff_rules.SKIPPED); {len(prepared)} cases, "
          f"seed {args.seed}", flush=True)
    duet = run_duet(args.runner, prepared + twins_ftz, workdir, args.timeout)
    tf_results = run_tf(prepared)
    failures, verdicts, per_op = [], collections.Counter(), collections.defaultdict(
        collections.Counter)
    retry = []
    for p in prepared:
        cid = p.case.id
        why = compare(p.case, tf_results[cid], duet[cid])
        if why and cid + ".ftz" in duet and compare(p.case, tf_results[cid],
                                                    duet[cid + ".ftz"]) is None:
            verdict = "flushed subnormals (TensorFlow)"
        elif why and isinstance(tf_results[cid], str) and rules.tf_unsupported(p.case,
                                                                                  tf_results[cid]):
            verdict = "not implemented by TensorFlow's CPU kernels"
        elif why and rules.intentional(p.case, tf_results[cid], duet[cid]):
            verdict = "documented difference (docs/ops.md)"
        elif why:
            retry.append((p, why))
            continue
        elif isinstance(tf_results[cid], str):
            verdict = "both reject"
        else:
            verdict = "match"
        verdicts[verdict] += 1
        per_op[p.case.op][verdict] += 1
    # Differences in float32/16: is duet the more accurate one?
    twins, references, better = {}, {}, []
    for p, why in retry:
        exact = rules.reference(p.case)
        if exact is not None:
            references[p.case.id] = exact
            continue
        for wide in (tf.float64, tf.float32):  # float32 where TensorFlow has no float64 kernel
            twin = wide_twin(p, tf_ops[p.case.op], duet_ops[p.case.op], op_types[p.case.op],
                             wide)
            if twin is not None:
                twins.setdefault(p.case.id, []).append(twin)
    flat_twins = [t for ts in twins.values() for t in ts]
    twin_results = run_tf(flat_twins) if flat_twins else {}
    for cid, ts in twins.items():
        runs = [twin_results[t.case.id] for t in ts if not isinstance(twin_results[t.case.id], str)]
        if runs:
            references[cid] = runs[0]
    for p, why in retry:
        cid = p.case.id
        if cid in references and duet_more_accurate(p.case, tf_results[cid], duet[cid],
                                                    references[cid]):
            verdict = "duet more accurate"
            better.append((p, why))
        else:
            verdict = "FAIL"
            failures.append((p, why))
        verdicts[verdict] += 1
        per_op[p.case.op][verdict] += 1
    for op in sorted(per_op):
        print(f"  {op}: " + ", ".join(f"{n} {v}" for v, n in sorted(per_op[op].items())))
    for p, why in better:
        print(f"duet more accurate: {p.case.id} ({p.case.kind}): {why}")
    for p, why in failures:
        shapes = ", ".join(f"{o.dtype.name}{list(np.shape(o.value))}" for o in p.inputs)
        attrs = {k: (v.name if isinstance(v, tf.DType) else v) for k, v in p.case.attrs.items()}
        print(f"FAIL {p.case.id} ({p.case.kind}) inputs [{shapes}] attrs {attrs}: {why}")
    undocumented = sorted(set(rules.INTENTIONAL) - documented_differences())
    for op in undocumented:
        print(f"FAIL {op}: op_diff_rules.INTENTIONAL excuses a difference that docs/ops.md does "
              f"not list (declare it with TfDifference)")
    for op in uncovered:
        print(f"FAIL {op}: no cases (give it a recipe in op_cases.py, or a reason in "
              f"op_diff_rules.SKIPPED)")
    print(f"{sum(verdicts.values())} cases: " +
          ", ".join(f"{n} {v}" for v, n in verdicts.most_common()) +
          f"; {time.time() - start:.0f} s")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures or uncovered or undocumented else 0


if __name__ == "__main__":
    sys.exit(main())
