"""Which top-level names a piece of code binds, reads, changes in place or deletes (its AST).

Used twice: by the kernel's hidden-state tracking (what a cell or the agent's ``python``
call touched, next to the namespace diff) and by ``%agent verify`` (a cell that reads a
name no earlier cell binds depends on hidden state). Static analysis cannot see
everything (``exec``, ``from m import *``, ``%run``): such code is ``opaque`` and callers
word their claims accordingly. IPython syntax (magics, ``!cmd``) is transformed first.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from functools import lru_cache

MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "popitem", "clear", "sort", "reverse",
        "update", "add", "discard", "setdefault", "difference_update", "intersection_update",
        "symmetric_difference_update", "fill", "resize", "put", "itemset", "__setitem__",
        "__delitem__",
    }
)  # fmt: skip
"""Methods that change their object in place (``df.x(..., inplace=True)`` counts too)."""
IPYTHON_NAMES = frozenset(
    {"get_ipython", "display", "In", "Out", "exit", "quit", "_", "__", "___", "_ih", "_oh", "_dh"}
)
"""Names a kernel provides without any cell defining them."""
QUIET_MAGICS = frozenset(
    {
        "matplotlib", "load_ext", "reload_ext", "unload_ext", "config", "env", "set_env", "pip",
        "conda", "mamba", "timeit", "cd", "pwd", "who", "whos", "who_ls", "autoreload", "aimport",
        "precision", "xmode", "pdb", "debug", "system", "sx", "writefile", "bash", "sh", "html",
        "HTML", "javascript", "js", "latex", "markdown", "svg", "script", "agent", "compact",
        "lsmagic", "magic", "history", "alias", "ls", "cat", "prun", "notebook", "pinfo", "pinfo2",
        "psearch", "page", "pdoc", "pdef", "psource", "pfile",
    }
)  # fmt: skip
"""Magics that bind no names in the user's namespace."""
CODE_MAGICS = frozenset({"time"})
"""Magics whose argument (line) or body (cell) is Python run in the user's namespace."""
OPAQUE_CALLS = frozenset({"exec", "eval", "globals", "vars", "locals", "setattr", "__import__"})


@dataclass(frozen=True)
class CodeNames:
    binds: frozenset[str] = frozenset()
    """Names (re)bound at top level: assignment, import, def, class, for/with/except targets."""
    reads: frozenset[str] = frozenset()
    """Names read that the code does not bind before (they must exist already)."""
    mutates: frozenset[str] = frozenset()
    """Names whose object is changed in place (``x[0] = 1``, ``x.append(2)``, ``inplace=True``)."""
    deletes: frozenset[str] = frozenset()
    opaque: bool = False
    """It may bind names this analysis cannot see (``exec``, ``import *``, ``%run``)."""
    parsed: bool = True
    """False when the code did not parse (its cell raises SyntaxError when run)."""


@dataclass
class _State:
    bound: set[str] = field(default_factory=set)
    binds: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    deferred: set[str] = field(default_factory=set)
    mutates: set[str] = field(default_factory=set)
    deletes: set[str] = field(default_factory=set)
    opaque: bool = False

    def read(self, name: str) -> None:
        if name not in self.bound:
            self.reads.add(name)

    def bind(self, name: str) -> None:
        self.bound.add(name)
        self.binds.add(name)
        self.deletes.discard(name)


def root_name(node: ast.expr) -> str | None:
    """``sales`` for ``sales.loc[0, "x"]``, ``sales["a"].fillna`` …; None for anything else."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call | ast.Starred):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _function_reads(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> tuple[set[str], set[str]]:
    """(globals the body reads, globals it assigns through ``global``), nested scopes folded in."""
    local: set[str] = set()
    declared: set[str] = set()
    loads: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.arg):
            local.add(sub.arg)
        elif isinstance(sub, ast.Global | ast.Nonlocal):
            declared.update(sub.names)
        elif isinstance(sub, ast.Name):
            (loads if isinstance(sub.ctx, ast.Load) else local).add(sub.id)
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node:
            local.add(sub.name)
        elif isinstance(sub, ast.alias):
            local.add((sub.asname or sub.name).split(".")[0])
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            local.add(sub.name)
    assigned_globals = declared & local
    return loads - (local - declared), assigned_globals


class _Visitor(ast.NodeVisitor):
    def __init__(self, state: _State) -> None:
        self.s = state

    # -------------------------------------------------------------- names

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.s.read(node.id)
        elif isinstance(node.ctx, ast.Store):
            self.s.bind(node.id)
        else:
            self.s.deletes.add(node.id)
            self.s.bound.discard(node.id)

    def _target(self, target: ast.expr) -> None:
        """An assignment target: a name is bound, ``x[i]`` / ``x.a`` change ``x`` in place."""
        if isinstance(target, ast.Subscript | ast.Attribute):
            root = root_name(target)
            if root is not None:
                self.s.read(root)
                self.s.mutates.add(root)
            self.visit(target.value)
            if isinstance(target, ast.Subscript):
                self.visit(target.slice)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._target(element)
        elif isinstance(target, ast.Starred):
            self._target(target.value)
        else:
            self.visit(target)

    # -------------------------------------------------------------- statements

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self._target(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._target(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.s.read(node.target.id)
            self.s.mutates.add(node.target.id)  # `xs += [1]` changes a list in place
            self.s.bind(node.target.id)
        else:
            self._target(node.target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self._target(node.target)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._target(item.optional_vars)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncWith = visit_With

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.visit(target)
            else:
                self._target(target)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.s.bind(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.s.opaque = True
            else:
                self.s.bind(alias.asname or alias.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.s.bind(node.name)
        for stmt in node.body:
            self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)
        reads, assigned = _function_reads(node)
        self.s.deferred |= reads
        for name in assigned:
            self.s.bind(name)
        self.s.bind(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for expr in [*node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)
        self.s.deferred |= _function_reads(node)[0]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        outer = self.s
        inner = _State(bound=set(outer.bound))
        visitor = _Visitor(inner)
        for stmt in node.body:
            visitor.visit(stmt)
        outer.reads |= inner.reads
        outer.deferred |= inner.deferred
        outer.opaque |= inner.opaque
        outer.bind(node.name)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        first = node.generators[0]
        self.visit(first.iter)
        inner = _State(bound=set(self.s.bound))
        visitor = _Visitor(inner)
        for index, gen in enumerate(node.generators):
            if index:
                visitor.visit(gen.iter)
            visitor._target(gen.target)
            for cond in gen.ifs:
                visitor.visit(cond)
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for element in elements:
            visitor.visit(element)
        self.s.reads |= inner.reads
        self.s.deferred |= inner.deferred
        self.s.mutates |= inner.mutates
        self.s.opaque |= inner.opaque

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.s.bind(node.target.id)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name:
            self.s.bind(node.name)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.s.bind(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest:
            self.s.bind(node.rest)

    def visit_Global(self, node: ast.Global) -> None:
        return

    # -------------------------------------------------------------- calls

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in OPAQUE_CALLS:
            self.s.opaque = True
            if func.id == "setattr" and node.args and (root := root_name(node.args[0])):
                self.s.mutates.add(root)
        elif isinstance(func, ast.Attribute):
            root = root_name(func.value)
            inplace = any(
                k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords
            )
            if root is not None and (func.attr in MUTATING_METHODS or inplace):
                self.s.mutates.add(root)
            if func.attr in ("run_line_magic", "run_cell_magic") and _is_get_ipython(func.value):
                self._magic(node, cell=func.attr == "run_cell_magic")
                return
        self.generic_visit(node)

    def _magic(self, node: ast.Call, *, cell: bool) -> None:
        """``get_ipython().run_line_magic('time', 'x = 1')`` as IPython transformed ``%time x = 1``."""
        args = [
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
        ]
        name, line = [*args, None, None][:2]
        body = args[2] if cell and len(args) > 2 else None
        if name in CODE_MAGICS:
            code = body if cell else line
            inner = analyse(code or "")
            for bound in inner.binds:
                self.s.bind(bound)
            self.s.reads |= {n for n in inner.reads if n not in self.s.bound}
            self.s.mutates |= inner.mutates
            self.s.opaque |= inner.opaque or code is None
        elif name == "capture" and cell:
            words = [w for w in (line or "").split() if not w.startswith("-")]
            if words:
                self.s.bind(words[0])
        elif name not in QUIET_MAGICS:
            self.s.opaque = True


def _is_get_ipython(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_ipython"


@lru_cache(maxsize=1)
def _builtin_names() -> frozenset[str]:
    return frozenset(dir(builtins)) | IPYTHON_NAMES


def analyse(code: str) -> CodeNames:
    """The names plain Python ``code`` binds, reads, changes and deletes at top level."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):  # a null byte is a ValueError
        return CodeNames(parsed=False)
    state = _State()
    visitor = _Visitor(state)
    for stmt in tree.body:
        visitor.visit(stmt)
    known = _builtin_names()
    reads = (state.reads | (state.deferred - state.binds)) - known
    return CodeNames(
        binds=frozenset(state.binds),
        reads=frozenset(n for n in reads if not _ipython_history(n)),
        mutates=frozenset(state.mutates - known),
        deletes=frozenset(state.deletes),
        opaque=state.opaque,
    )


def _ipython_history(name: str) -> bool:
    """``_i3``, ``_3``, ``_ii``: IPython's input and output history."""
    rest = name.lstrip("_")
    return name.startswith("_") and (rest.isdigit() or rest in ("i", "ii", "iii") or rest[1:].isdigit())


@lru_cache(maxsize=1)
def _transformer() -> object:
    # IPython's own transformer: %magics, !commands and `x?` become the Python IPython runs
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def analyse_cell(source: str) -> CodeNames:
    """A notebook cell's names (IPython syntax transformed as the kernel would)."""
    plain = analyse(source)
    if plain.parsed:  # plain Python (most cells): IPython's transformer is ten times slower
        return plain
    try:
        code = _transformer().transform_cell(source)  # type: ignore[attr-defined]
    except Exception:  # IPython raises its own errors for odd input: then the code did not parse
        return CodeNames(parsed=False)
    return analyse(code)
