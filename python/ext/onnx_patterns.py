"""Patterns the importers recognize in a graph before mapping its nodes
(issue 55 item 2), as ONNX Runtime's and TensorRT's graph fusions do:

- LayerNorm written out, as exporters write it below opset 17
  (ReduceMean, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, then an
  optional Mul by the weight and Add of the bias), becomes one
  LayerNormalization: one kernel, the row's mean and variance computed at
  the row;
- scaled dot-product attention (MatMul of Q and K^T, a scalar scale on the
  scores or on Q, a causal mask by Where, Softmax over the keys, MatMul by
  V) becomes one online-softmax kernel, `ext.attention`'s form
  (onnx_ops_attention.py).

Matching here is structural: each intermediate value read once, by the
next node of the pattern. The fused node's mapping checks the rest (ranks,
axes, the mask's values, dtypes) and, where it cannot fuse, maps the member
nodes one by one as before, so a pattern never changes a number. Both
`ext.onnx.load` and `ext.torch.compile` run the patterns over their nodes.
"""

import os
from typing import Dict, List, Optional

from .onnx_ops_math import scalar


class FusedNode:
    """Several nodes mapped as one: `map(imp, node, attrs)` is its mapping,
    `members` the original nodes in graph order (named in messages by the
    last, whose output the fused node defines)."""

    domain = ""

    def __init__(self, op_type, members, inputs, attrs, mapping):
        last = members[-1]
        self.op_type, self.members, self.input = op_type, list(members), list(inputs)
        self.output = list(last.output)
        # Exporters name nodes by module path (/layers.0/norm1/ReduceMean):
        # the pattern is named in its module (/layers.0/norm1/LayerNorm).
        path = os.path.commonprefix([m.name or "" for m in members])
        self.name = path[:path.rfind("/") + 1] + op_type.split()[0] if "/" in path \
            else last.name
        self.attrs, self.map = dict(attrs), mapping
        # (ext.torch's nodes carry their call's label and output shapes.)
        self.label = getattr(last, "label", None)
        self.shapes = getattr(last, "shapes", [None] * len(self.output))


class _Graph:
    """Who produces and who reads each value among `nodes`."""

    def __init__(self, imp, nodes):
        self.imp = imp
        self.producer = {o: n for n in nodes for o in n.output if o}
        self.readers: Dict[str, list] = {}
        for n in nodes:
            for x in n.input:
                if x:
                    self.readers.setdefault(x, []).append(n)

    def only_reader(self, name, op_types):
        """The node reading `name`, when exactly one node reads it once and
        nothing else (a graph output) does, and its op is one of
        `op_types`."""
        rs = self.readers.get(name, [])
        if len(rs) != 1 or self.imp.uses.get(name, 0) != 1 or rs[0].op_type not in op_types:
            return None
        return rs[0]

    def made_by(self, name, op_types, read_once=True):
        """The node producing `name` if its op is one of `op_types` (and,
        with `read_once`, nothing but the pattern reads `name`)."""
        n = self.producer.get(name)
        if n is None or n.op_type not in op_types or getattr(n, "domain", "") not in ("",
                                                                                   "ai.onnx"):
            return None
        if read_once and self.imp.uses.get(name, 0) != 1:
            return None
        return n

    def scalar(self, name) -> Optional[float]:
        """The value of a constant of one element (an initializer or a
        constant the front end made), else None."""
        v = self.imp.values.get(name)
        if v is None or v.const is None:
            return None
        x = scalar(v)
        return None if isinstance(x, bool) else x

    def attrs(self, node) -> dict:
        return self.imp.attributes(node)


def _other(node, name):
    """The input of a two-input node that is not `name` (None if both are)."""
    a, b = node.input[0], node.input[1]
    if a == name and b != name:
        return b
    if b == name and a != name:
        return a
    return None


def _layernorm(g: _Graph, r1):
    """A LayerNorm written out, from its first ReduceMean `r1`: the fused
    node, or None."""
    from .onnx_ops_attention import map_layernorm
    x = r1.input[0]
    sub = g.only_reader(r1.output[0], ("Sub",))
    if sub is None or list(sub.input) != [x, r1.output[0]]:
        return None
    d = sub.output[0]
    readers = list({id(n): n for n in g.readers.get(d, [])}.values())
    square = next((n for n in readers if n.op_type == "Pow" and n.input[0] == d and
                   g.scalar(n.input[1]) == 2.0), None)
    square = square or next((n for n in readers if n.op_type == "Mul" and
                             list(n.input) == [d, d]), None)
    div = next((n for n in readers if n.op_type == "Div" and n.input[0] == d), None)
    if square is None or div is None or len(readers) != 2 or \
            g.imp.uses.get(d, 0) != 1 + len(square.input) - (square.op_type == "Pow"):
        return None
    r2 = g.only_reader(square.output[0], ("ReduceMean",))
    add = r2 and g.only_reader(r2.output[0], ("Add",))
    eps = add and _other(add, r2.output[0])
    sqrt = eps and g.only_reader(add.output[0], ("Sqrt",))
    if sqrt is None or g.scalar(eps) is None or div.input[1] != sqrt.output[0]:
        return None
    axes = [g.attrs(r)["axes"] if "axes" in g.attrs(r) else None for r in (r1, r2)]
    if axes[0] is None or list(axes[0]) != list(axes[1] or []) or len(r1.input) > 1 or \
            len(r2.input) > 1 or any(g.attrs(r).get("keepdims", 1) != 1 for r in (r1, r2)):
        return None
    members, out, weight, bias = [r1, sub, square, r2, add, sqrt, div], div, "", ""
    mul = g.only_reader(out.output[0], ("Mul",))
    if mul is not None and _other(mul, out.output[0]) in g.imp.values:
        weight, out = _other(mul, out.output[0]), mul
        members.append(mul)
        plus = g.only_reader(out.output[0], ("Add",))
        if plus is not None and _other(plus, out.output[0]) in g.imp.values:
            bias = _other(plus, out.output[0])
            members.append(plus)
    return FusedNode("LayerNorm (fused)", members, [x, weight, bias],
                     {"axes": list(axes[0]), "epsilon": g.scalar(eps)}, map_layernorm)


def _scalar_factor(g: _Graph, node):
    """(c, x) where `node` is x * c, c * x or x / c with c a nonzero scalar
    constant; else None."""
    if node is None:
        return None
    a, b = node.input[0], node.input[1]
    c = g.scalar(b)
    if c is None and node.op_type == "Mul":
        c, b, a = g.scalar(a), a, b
    if c is None or c == 0.0:
        return None
    return (c if node.op_type == "Mul" else 1.0 / c), a


def _attention(g: _Graph, softmax):
    """Scaled dot-product attention around `softmax`: the fused node, or
    None."""
    from .onnx_ops_attention import map_attention
    pv = g.only_reader(softmax.output[0], ("MatMul",))
    if pv is None or pv.input[0] != softmax.output[0] or pv.input[1] == softmax.output[0]:
        return None
    members, s, mask, fill, scale = [softmax], softmax.input[0], "", None, 1.0
    where = g.made_by(s, ("Where",))
    if where is not None and where.input[2] not in (where.input[0], where.input[1]):
        mask, fill, s = where.input[0], g.scalar(where.input[1]), where.input[2]
        members.insert(0, where)
    scaled = g.made_by(s, ("Mul", "Div"))
    factor = _scalar_factor(g, scaled)
    if factor is not None:
        (scale, s), members = factor, [scaled] + members
    qk = g.made_by(s, ("MatMul",))
    if qk is None:
        return None
    members.insert(0, qk)
    q = qk.input[0]
    # A scale on Q alone (torch's MultiheadAttention divides q by sqrt(d)).
    q_scaled = g.made_by(q, ("Mul", "Div"))
    factor = _scalar_factor(g, q_scaled)
    if factor is not None and factor[1] != qk.input[1]:
        scale, q, members = scale * factor[0], factor[1], [q_scaled] + members
    members.append(pv)
    return FusedNode("Attention (fused)", members, [q, qk.input[1], pv.input[1], mask],
                     {"scale": scale, "fill": fill}, map_attention)


def fuse_patterns(imp, nodes) -> List:
    """`nodes` (in graph order) with each pattern found replaced by a
    FusedNode at its last member's place. Constants must already be bound
    in `imp.values`, and `imp.uses` counted."""
    g = _Graph(imp, nodes)
    fused, taken = {}, set()
    for n in nodes:
        if id(n) in taken:
            continue
        f = None
        if n.op_type == "ReduceMean":
            f = _layernorm(g, n)
        elif n.op_type == "Softmax":
            f = _attention(g, n)
        if f is None or any(id(m) in taken for m in f.members):
            continue
        taken.update(id(m) for m in f.members)
        fused[id(f.members[-1])] = f
    if not fused:
        return list(nodes)
    out = []
    for n in nodes:
        if id(n) in fused:
            out.append(fused[id(n)])
        elif id(n) not in taken:
            out.append(n)
    return out

