"""Which kernel variables a piece of code may change, read from its syntax before it runs.

``bound``: names the code rebinds or deletes at the top level (assignment, ``del``, ``for``,
``with … as``, ``import``, ``def``/``class``, walrus, ``global`` in a function): the object
they name now is not changed, so keeping a reference to it is enough. ``mutated``: names whose
object the code may change in place — it calls a method on it (``sales.drop(…, inplace=True)``,
``rows.append(x)``), sets or deletes an item or attribute of it (``df["x"] = …``), or
augments it (``xs += […]``): those need a copy. Names the code only reads are neither, so
nothing is copied for them. What syntax cannot show (a function changing the object passed
to it, ``globals()[…]``, ``exec``) is out of reach; ``from m import *`` is flagged.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class Touched:
    bound: frozenset[str] = frozenset()
    """Rebound or deleted (a name the code creates is deleted again by a revert)."""
    mutated: frozenset[str] = frozenset()
    """Possibly changed in place: copied (may also be in ``bound``)."""
    star: bool = False
    """``from m import *``: it may rebind names nobody can list."""

    @property
    def names(self) -> frozenset[str]:
        return self.bound | self.mutated


def root_name(node: ast.AST) -> str | None:
    """``df`` for ``df.loc[0, "x"]``, ``df.groupby("a").sum``, ``rows[0].items``."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return node.id if isinstance(node, ast.Name) else None


class _Bindings(ast.NodeVisitor):
    """Names bound at the top level: the visit does not enter function or class bodies
    (their ``global`` names are collected separately) nor comprehensions (their own scope,
    but a walrus inside one binds in the module)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.star = False

    def _target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, ast.Starred):
            self._target(target.value)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._target(node.target)
        self.visit(node.value)

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.names.add(node.name)
        for decorator in node.decorator_list:
            self.visit(decorator)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Lambda(self, node: ast.Lambda) -> None:
        pass

    def _comprehension(self, node: ast.AST) -> None:
        for inner in ast.walk(node):
            if isinstance(inner, ast.NamedExpr):
                self._target(inner.target)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.star = True
            else:
                self.names.add(alias.asname or alias.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)


def _mutated(tree: ast.AST) -> set[str]:
    """Names whose object the code may change in place, anywhere in it (also inside a
    function it defines and may call)."""
    found: set[str] = set()

    def add(node: ast.AST) -> None:
        name = root_name(node)
        if name is not None:
            found.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            add(node.func.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete, ast.For, ast.AsyncFor)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for element in ast.walk(target):
                    if isinstance(element, (ast.Attribute, ast.Subscript)) and isinstance(
                        element.ctx, (ast.Store, ast.Del)
                    ):
                        add(element.value)
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                found.add(node.target.id)  # `xs += [1]` changes a list in place
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    for element in ast.walk(item.optional_vars):
                        if isinstance(element, (ast.Attribute, ast.Subscript)):
                            add(element.value)
    return found


def _globals(tree: ast.AST) -> set[str]:
    """Names a function in the code declares ``global`` (it may bind them when called)."""
    return {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}


def touched_names(code: str) -> Touched:
    """What ``code`` may bind, delete or mutate in the namespace it runs in (SyntaxError
    when it is not Python: it would not run either)."""
    tree = ast.parse(code)
    bindings = _Bindings()
    for statement in tree.body:
        bindings.visit(statement)
    bound = bindings.names | _globals(tree)
    mutated = _mutated(tree)
    return Touched(frozenset(bound), frozenset(mutated), bindings.star)
