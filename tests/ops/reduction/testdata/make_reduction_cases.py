# Prints the case table pasted into ../reduction_ops_test.cc: python3 make_reduction_cases.py
import numpy as np
x = ((np.arange(24) * 7) % 11 - 5).reshape(2, 3, 4)
q = (np.arange(24) * 5) % 3
p = np.where(q == 0, -1, q).reshape(2, 3, 4)
def L(a):
    a = np.asarray(a, dtype=float).ravel()
    return "{" + ", ".join(repr(float(v)) if v != int(v) else str(int(v)) for v in a) + "}"
def S(shape): return "{" + ", ".join(str(d) for d in shape) + "}"
cases = [None, 0, 1, 2, -1, (0, 2), (0, 1), (1, 2), (-3, -1)]
out = []
for axes in cases:
    s = x.sum(axis=axes)
    cnt = x.size // max(np.asarray(s).size, 1)
    mean_f = x.mean(axis=axes)
    mean_i = np.trunc(s / cnt)
    kept = x.sum(axis=axes, keepdims=True)
    c_axes = "{}" if axes is None else (str(axes) if isinstance(axes, int) else "{" + ", ".join(map(str, axes)) + "}")
    out.append(f"    {{{c_axes}, {S(np.shape(s))}, {S(np.shape(kept))}, {L(s)}, {L(x.max(axis=axes))}, "
               f"{L(x.min(axis=axes))}, {L(mean_f)}, {L(mean_i)}, {L(p.prod(axis=axes))}}},")
print("// x = ((np.arange(24) * 7) % 11 - 5).reshape(2, 3, 4)")
print("const std::vector<int> kX = " + L(x) + ";")
print("// p = np.where(q == 0, -1, q).reshape(2, 3, 4) with q = (np.arange(24) * 5) % 3 (small products)")
print("const std::vector<int> kP = " + L(p) + ";")
print("// {axes, shape, keep_dims shape, sum, max, min, float mean, int mean, prod of p}")
print("const ReductionCase kCases[] = {")
print("\n".join(out))
print("};")

# All and Any (the second table): b = x % 4 != 0, whose rows and columns are all true, all false
# or mixed.
b = x % 4 != 0
print("// b = x % 4 != 0 (Python modulo)")
print("const std::vector<int> kB = " + L(b) + ";")
print("// {axes, shape, all, any}")
print("const BoolCase kBoolCases[] = {")
for axes in cases:
    c_axes = "{}" if axes is None else (str(axes) if isinstance(axes, int) else "{" + ", ".join(map(str, axes)) + "}")
    print(f"    {{{c_axes}, {S(np.shape(b.all(axis=axes)))}, {L(b.all(axis=axes))}, {L(b.any(axis=axes))}}},")
print("};")
