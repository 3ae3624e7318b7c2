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
    order: the compute's inputs."""
    positions = {id(a): d for d, a in enumerate(op.all_axes)}
    result, keys = [], {}
    for node in ordered_nodes(op.values):
        if node.op != "load":
            continue
        tensor = node.attr
        where = f"{tensor.name}{list(node.args)}"
        trees = tuple(_te._affine(i, positions, where) for i in node.args)
        key = (id(tensor), trees)
        if key not in keys:
            keys[key] = len(result)
            result.append((tensor, trees))
    return result


def input_operands(op, tensor) -> List[int]:
    """The operand numbers under which compute `op` reads `tensor` (one per
    distinct access); every input's for `None`."""
    return [i for i, (t, _) in enumerate(operands(op)) if tensor is None or t is tensor]
