"""A compute's accesses: the distinct (tensor, affine index) reads of its
body, numbered as the lowering numbers its operands. `build` (the program
description) and `schedule` (cache entries name operands) both use them."""

from typing import List, Tuple

from . import te as _te


def ordered_nodes(roots):
    """Expression nodes reachable from `roots`, operands before users, in a
    stable order."""
    order, seen = [], set()

    def visit(e):
        stack = [(e, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            if node.op != "load":  # a load's indices are affine maps
                for a in reversed(node.args):
                    stack.append((a, False))
    for r in roots:
        visit(r)
    return order


def operands(op) -> List[Tuple["_te.Tensor", tuple]]:
    """The distinct accesses (tensor, affine index trees) of `op`'s body, in
    order: the compute's inputs. A tensor read as an index (an indirect
    read's table, a ("read", _Read) leaf of the trees) is an input too,
    before the first input it indexes."""
    positions = {id(a): d for d, a in enumerate(op.all_axes)}
    result, keys = [], {}

    def add(tensor, trees):
        key = (id(tensor), trees)
        if key not in keys:
            keys[key] = len(result)
            result.append((tensor, trees))

    for node in ordered_nodes(op.values):
        if node.op != "load":
            continue
        tensor = node.attr
        where = f"{tensor.name}{list(node.args)}"
        trees = tuple(_te._affine(i, positions, where) for i in node.args)
        for tree in trees:
            for read in _te._reads(tree):
                add(read.tensor, read.trees)
        add(tensor, trees)
    return result


def linear_reads(op) -> bool:
    """Whether every read of `op` is linear in its axes (no // or %)."""
    def linear(tree):
        return tree[0] not in ("floordiv", "mod") and all(
            linear(t) for t in tree[1:] if isinstance(t, tuple))
    return all(linear(t) for _, trees in operands(op) for t in trees)


def indirect(op) -> List[Tuple[int, int, int]]:
    """The indirect reads of `op`: (input, symbol, table input) for each
    distinct tensor element an input's index holds, numbered in order of
    appearance as the input map's symbols."""
    accesses = operands(op)
    index = {(id(t), trees): i for i, (t, trees) in enumerate(accesses)}
    bindings = []
    for i, (_, trees) in enumerate(accesses):
        found = []
        for tree in trees:
            _te._reads(tree, found)
        bindings.extend((i, s, index[(id(r.tensor), r.trees)]) for s, r in enumerate(found))
    return bindings


def symbol_trees(trees, reads=None):
    """`trees` with each ("read", _Read) leaf as ("sym", s), s its position
    among the distinct reads of all of `trees` (what `indirect` numbers)."""
    if reads is None:
        reads = []
        for tree in trees:
            _te._reads(tree, reads)

    def convert(tree):
        if tree[0] == "read":
            return ("sym", reads.index(tree[1]))
        return tuple(convert(t) if isinstance(t, tuple) else t for t in tree)
    return [convert(t) for t in trees]


def input_operands(op, tensor) -> List[int]:
    """The operand numbers under which compute `op` reads `tensor` (one per
    distinct access); every input's for `None`."""
    return [i for i, (t, _) in enumerate(operands(op)) if tensor is None or t is tensor]
