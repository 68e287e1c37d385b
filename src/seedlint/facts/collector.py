"""The single libcst pass that turns a parsed module into ModuleFacts.

The visitor records what is there (imports, definitions, calls, assignments) and the
names each scope binds; a short pass at the end resolves every recorded name against
those bindings, so a later ``import`` or a local that shadows ``np`` is handled the way
Python's own scoping rules handle it.
"""

from __future__ import annotations

import builtins
import re
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from seedlint.facts.codegen_walk import Position, positions_from_wrapper, walk
from seedlint.knowledge.watched_apis import WATCHED_ROOTS, is_feature_check, watched
from seedlint.facts.model import (
    MODULE_CODE,
    UNKNOWN,
    Assign,
    Attr,
    BinOp,
    BoolOp,
    Call,
    Class,
    Compare,
    Comprehension,
    EXCEPT,
    Const,
    DictDisplay,
    Each,
    Function,
    Guard,
    IfExp,
    ItemAssign,
    Lambda,
    Loop,
    ModuleFacts,
    Name,
    Not,
    Seq,
    Span,
    Subscript,
    Value,
)

_COMPARISONS = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.Is: "is", cst.IsNot: "is not", cst.In: "in", cst.NotIn: "not in",
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
}
_LEAVES_BLOCK = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_IMPORTED = "import"
_LOCAL = "local"
_CAPS = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z")
_BUILTIN_NAMES = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__path__", "__loader__", "__package__"}
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def collect_facts(
    module: cst.Module, name: str, path: str, is_package: bool = False, text: Optional[str] = None, reference: bool = False
) -> ModuleFacts:
    """Run the facts pass over a parsed module; ``text`` is its source when the caller has
    it (else it is generated again). ``reference`` takes libcst's own metadata wrapper and
    traversal instead of the single codegen walk: the same facts, slower."""
    collector = _Collector(name, path, is_package)
    if reference or not walk(module, collector):
        wrapper, collector.positions = positions_from_wrapper(module)
        wrapper.visit(collector)
    facts = collector.finish()
    facts.noqa = parse_noqa(module.code if text is None else text)
    return facts


def parse_noqa(source: str) -> Dict[int, Optional[frozenset]]:
    """Map line number -> codes silenced by ``# noqa`` there (None means all)."""
    found: Dict[int, Optional[frozenset]] = {}
    if "noqa" not in source.lower():
        return found
    for number, line in enumerate(source.splitlines(), start=1):
        match = _NOQA.search(line)
        if match is None:
            continue
        codes = match.group("codes")
        found[number] = frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c) if codes else None
    return found


def resolve_relative(module_name: str, is_package: bool, level: int, target: str) -> str:
    """The absolute module named by ``from <level dots><target> import ...``."""
    parts = module_name.split(".") if module_name else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if target:
        parts.append(target)
    return ".".join(parts)


def _dotted(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def _leaves_block(body: cst.BaseSuite) -> bool:
    """The block leaves with ``return``, ``raise``, ``continue`` or ``break`` (what follows
    that statement inside the block never runs)."""
    return _ends_with(body, _LEAVES_BLOCK)


def _ends_with(body: cst.BaseSuite, kinds: tuple) -> bool:
    if isinstance(body, cst.SimpleStatementSuite):
        return any(isinstance(s, kinds) for s in body.body)
    return any(
        isinstance(statement, cst.SimpleStatementLine) and any(isinstance(s, kinds) for s in statement.body)
        for statement in body.body
    )


def _leaves_function(body: cst.IndentedBlock) -> bool:
    """The block leaves with ``return`` or ``raise``: nothing bound in it reaches code after it."""
    return _ends_with(body, (cst.Return, cst.Raise))


_FEATURE_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException", "TypeError"})


def _catches_missing_feature(handler: cst.ExceptHandler) -> bool:
    """``except:``, ``except ImportError``, ``except (AttributeError, ...)`` and the like."""
    if handler.type is None:
        return True
    names = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for element in names:
        value = element.value if isinstance(element, cst.Element) else element
        dotted = _dotted(value)
        if dotted is not None and dotted.rsplit(".", 1)[-1] in _FEATURE_ERRORS:
            return True
    return False


def _param_kinds(params: cst.Parameters) -> Tuple[str, ...]:
    """Each parameter's kind, in the order ``_Collector._params`` lists the names."""
    return (
        ("posonly",) * len(params.posonly_params)
        + ("normal",) * len(params.params)
        + (("star",) if isinstance(params.star_arg, cst.Param) else ())
        + ("kwonly",) * len(params.kwonly_params)
        + (("starstar",) if params.star_kwarg is not None else ())
    )


class _NameReads(cst.CSTVisitor):
    """The names an expression reads: not attribute names, keywords or parameter names."""

    def __init__(self) -> None:
        super().__init__()
        self.found: List[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.found.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            node.default.visit(self)
        return False


class _Scope:
    __slots__ = ("key", "kind", "bindings", "globals")

    def __init__(self, key: str, kind: str) -> None:
        self.key = key
        self.kind = kind
        self.bindings: Dict[str, Tuple[str, Optional[str]]] = {}
        self.globals: set = set()

    def bind(self, name: str, how: str = _LOCAL, target: Optional[str] = None) -> None:
        if name in self.globals:
            return
        if how == _LOCAL and self.bindings.get(name, (None,))[0] == _IMPORTED:
            return
        self.bindings[name] = (how, target)


class _Collector(cst.CSTVisitor):
    def __init__(self, module_name: str, path: str, is_package: bool) -> None:
        super().__init__()
        self.positions: Mapping[int, Position] = {}
        """Node ranges by ``id(node)``."""
        self.module_name = module_name
        self.is_package = is_package
        self.facts = ModuleFacts(name=module_name, path=path)
        module_code = Function(qualname=MODULE_CODE, name=MODULE_CODE, span=Span(1, 0, 1, 0))
        self.facts.functions[MODULE_CODE] = module_code
        self.module_scope = _Scope(MODULE_CODE, "module")
        self.scopes: List[_Scope] = [self.module_scope]
        self.functions: List[Function] = [module_code]
        self.classes: List[Class] = []
        self.loops: List[List[Loop]] = [[]]
        self.values: Dict[int, Value] = {}
        self.pending: List[Tuple[Name, Tuple[_Scope, ...]]] = []
        self.star_imports: List[str] = []
        self.asserted: Dict[int, Guard] = {}
        """The guards ``assert`` statements add, by id (held here so no other guard reuses one)."""
        self.guarded_packages: Set[str] = set()
        self.plain_packages: Set[str] = set()
        self.comprehensions: List[Span] = []
        """Where each comprehension being read starts, innermost last."""
        self.statement: Optional[cst.CSTNode] = None
        """The import statement being read (where a versioned import is reported)."""
        self.guards: List[Guard] = []
        """The guards in force at the current statement, innermost last."""
        self.saved_guards: List[List[Guard]] = []
        self.operand_guards: List[Tuple[Tuple[int, int, int, int], Guard]] = []
        """Open ``and``/``or`` right operands and conditional-expression branches: their
        range and the guard the code inside them runs under."""
        self.saved_operand_guards: List[List[Tuple[Tuple[int, int, int, int], Guard]]] = []
        self.value_guards: List[Guard] = []
        """The same for an operand being read as a value right now."""
        self.blocks: List[List[int]] = [[0]]
        """Per function, per open block: how many guards the block pushed (its ``if`` test,
        and one per ``if t: return`` among its statements), popped when it closes."""
        self.ifs: List[Tuple[cst.If, Value]] = []
        self.opened: Dict[int, int] = {}
        self.except_bodies: set = set()
        """Blocks and else clauses that pushed their ``if``'s guard, by node id."""
        self.dead: set = set()
        """Statements after a ``return``, ``raise``, ``continue`` or ``break`` in their block,
        by node id: they never run, so they give no facts."""
        self.feature_try_bodies: set = set()
        """``try`` bodies whose handlers catch a missing import or attribute, by node id."""
        self.feature_try_depth = 0
        self.feature_blocks: List[bool] = []
        self.api_aliases: set = set()
        """Local names imported from a package whose versioned APIs ``api_versions`` lists."""
        self.fallback_aliases: set = set()
        """Those imported under a feature check: which package they name depends on what is installed."""
        self.api_candidates: List[Tuple[Name, Tuple[str, ...], bool]] = []
        """Names (and the ``keyword=`` / ``backend=value`` of calls to them) that may be watched
        APIs (``knowledge.watched_apis``), and whether a feature check guards them; resolved in
        ``finish``."""

    # ---------------------------------------------------------------- helpers
    def span(self, node: cst.CSTNode) -> Span:
        return Span(*self.positions[id(node)])

    @property
    def function(self) -> Function:
        return self.functions[-1]

    def chain(self) -> Tuple[_Scope, ...]:
        """Scopes visible from here, innermost first (class bodies do not enclose methods)."""
        visible = [self.scopes[-1]]
        for scope in reversed(self.scopes[:-1]):
            if scope.kind != "class":
                visible.append(scope)
        return tuple(visible)

    def bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.scopes[-1].bind(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value)

    def qualname(self, name: str) -> str:
        owner = self.scopes[-1]
        if owner.kind == "module":
            return name
        if owner.kind == "class":
            return f"{owner.key}.{name}"
        return f"{owner.key}.<locals>.{name}"

    def lambda_qualname(self, node: cst.Lambda) -> str:
        line, column = self.positions[id(node)][:2]
        parent = self.function.qualname
        prefix = "" if parent == MODULE_CODE else f"{parent}."
        return f"{prefix}<lambda:{line}:{column}>"

    # ---------------------------------------------------------------- values
    def _formatted(self, node: cst.FormattedString) -> Value:
        """``f"{split}_sampler"`` as the concatenation ``split + "_sampler"``; a placeholder
        with a conversion or a format spec (``{x!r}``, ``{n:03d}``) is an unknown piece."""
        pieces: List[Value] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(Const(part.value.replace("{{", "{").replace("}}", "}")))
            elif isinstance(part, cst.FormattedStringExpression) and part.conversion is None and part.format_spec is None:
                pieces.append(self.value(part.expression))
            else:
                pieces.append(UNKNOWN)
        if not pieces:
            return Const("")
        joined = pieces[0]
        for piece in pieces[1:]:
            joined = BinOp("Add", joined, piece)
        return joined if len(pieces) > 1 else BinOp("Add", Const(""), joined)

    def value(self, node: Optional[cst.BaseExpression]) -> Value:
        if node is None:
            return UNKNOWN
        cached = self.values.get(id(node))
        if cached is None:
            cached = self.values[id(node)] = self._convert(node)
        return cached

    def _convert(self, node: cst.BaseExpression) -> Value:
        dotted = _dotted(node)
        if dotted is not None:
            if dotted in ("True", "False", "None"):
                return Const({"True": True, "False": False, "None": None}[dotted])
            name = Name(dotted=dotted, span=self.span(node))
            self.pending.append((name, self.chain()))
            if name.root in self.api_aliases:
                self.api_candidates.append((name, (), self._feature_guarded()))
            return name
        if isinstance(node, cst.Attribute):
            return Attr(self.value(node.value), node.attr.value)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return Const(node.evaluated_value)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            try:
                return Const(node.evaluated_value)
            except Exception:  # f-strings inside a concatenation have no static value
                return UNKNOWN
        if isinstance(node, cst.FormattedString):
            return self._formatted(node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.value(node.expression)
            if isinstance(inner, Const) and isinstance(inner.value, (int, float)):
                return Const(-inner.value)
            return UNKNOWN
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return Seq(tuple(self.value(e.value) for e in node.elements))
        if isinstance(node, cst.Subscript):
            index = UNKNOWN
            if node.slice and isinstance(node.slice[0].slice, cst.Index):
                index = self.value(node.slice[0].slice.value)
            return Subscript(self.value(node.value), index)
        if isinstance(node, cst.BinaryOperation):
            return BinOp(type(node.operator).__name__, self.value(node.left), self.value(node.right))
        if isinstance(node, cst.IfExp):
            test = self.value(node.test)
            return IfExp(self._operand(node.body, (test, True)), self._operand(node.orelse, (test, False)), test)
        if isinstance(node, cst.Lambda):
            return Lambda(self.lambda_qualname(node), self.span(node))
        if isinstance(node, cst.NamedExpr):
            return self.value(node.value)
        if isinstance(node, cst.Dict):
            return self._dict_display(node)
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            target = node.comparisons[0]
            op = _COMPARISONS.get(type(target.operator))
            return Compare(op, self.value(node.left), self.value(target.comparator)) if op else UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            op = "and" if isinstance(node.operator, cst.And) else "or"
            left = self.value(node.left)
            return BoolOp(op, (left, self._operand(node.right, (left, op == "and"))))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return Not(self.value(node.expression))
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return Comprehension(self.value(node.elt), self.value(node.for_in.iter))
        if isinstance(node, cst.DictComp):
            return DictDisplay((self.value(node.key),), (self.value(node.value),), ())
        return UNKNOWN

    def _dict_display(self, node: cst.Dict) -> DictDisplay:
        keys: List[Value] = []
        values: List[Value] = []
        stars: List[Value] = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                keys.append(self.value(element.key))
                values.append(self.value(element.value))
            else:
                stars.append(self.value(element.value))
        return DictDisplay(tuple(keys), tuple(values), tuple(stars))

    def _call(self, node: cst.Call) -> Call:
        args: List[Value] = []
        kwargs: List[Tuple[str, Value]] = []
        keyword_spans: List[Span] = []
        star_args = star_kwargs = False
        stars: List[Value] = []
        double_stars: List[Value] = []
        for arg in node.args:
            if arg.star == "*":
                star_args = True
                stars.append(self.value(arg.value))
            elif arg.star == "**":
                spelled = self._dict_keys(arg.value)
                if spelled is None:
                    star_kwargs = True
                    double_stars.append(self.value(arg.value))
                else:
                    kwargs.extend((key, value) for key, value, _ in spelled)
                    keyword_spans.extend(span for _, _, span in spelled)
            elif arg.keyword is not None:
                kwargs.append((arg.keyword.value, self.value(arg.value)))
                keyword_spans.append(self.span(arg.keyword))
            elif not star_args:
                args.append(self.value(arg.value))
        func = self.value(node.func)
        if isinstance(func, Name) and func.root in self.api_aliases:
            suffixes = [f"{key}=" for key, _ in kwargs]
            backend = self._backend(args, kwargs, self.function.assigns)
            if backend is not None:
                suffixes.append(f"backend={backend}")
            if suffixes:
                self.api_candidates.append((func, tuple(suffixes), self._feature_guarded()))
        return Call(
            func, tuple(args), tuple(kwargs), self.span(node), star_args, star_kwargs, tuple(keyword_spans),
            tuple(stars), tuple(double_stars), self._guards_at(node),
        )

    @staticmethod
    def _backend(args: List[Value], kwargs: List[Tuple[str, Value]], assigns: Sequence[Assign] = ()) -> Optional[str]:
        """The constant ``backend`` of an ``init_process_group``-like call (first argument),
        also through a local name every live assignment before the call binds to that one
        constant (``backend = "nccl"`` in the CUDA branch, the other branch raising)."""
        value = dict(kwargs).get("backend", args[0] if args else None)
        if isinstance(value, Name) and value.qualified is None and "." not in value.dotted:
            bound = [a.value for a in assigns if a.target == value.dotted]
            if not bound or not all(isinstance(v, Const) and isinstance(v.value, str) for v in bound):
                return None
            texts = {v.value for v in bound}
            return texts.pop() if len(texts) == 1 else None
        return value.value if isinstance(value, Const) and isinstance(value.value, str) else None

    def _dict_keys(self, node: cst.BaseExpression) -> Optional[List[Tuple[str, Value, Span]]]:
        """Keywords spelled out in ``**dict(a=1)`` or ``**{"a": 1}``, with where each key is
        spelled; None when not knowable."""
        found: List[Tuple[str, Value, Span]] = []
        if isinstance(node, cst.Call) and _dotted(node.func) == "dict":
            for arg in node.args:
                if arg.keyword is None:
                    return None
                found.append((arg.keyword.value, self.value(arg.value), self.span(arg.keyword)))
            return found
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)):
                    return None
                found.append((element.key.evaluated_value, self.value(element.value), self.span(element.key)))
            return found
        return None

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if "b" not in node.prefix.lower() and _CAPS.match(node.raw_value):
            self.facts.caps_strings.append((node.evaluated_value, self.span(node)))

    # ---------------------------------------------------------------- imports
    def visit_Import(self, node: cst.Import) -> None:
        self.statement = node
        for alias in node.names:
            full = _dotted(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.scopes[-1].bind(alias.asname.name.value, _IMPORTED, full)
                self._record_import(alias.asname.name.value, full)
            else:
                root = full.split(".", 1)[0]
                self.scopes[-1].bind(root, _IMPORTED, root)
                self._record_import(root, root)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.statement = node
        base = _dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if level:
            base = resolve_relative(self.module_name, self.is_package, level, base or "")
        if isinstance(node.names, cst.ImportStar):
            if len(self.scopes) == 1:
                self.star_imports.append(base or "")
            return
        for alias in node.names:
            imported = _dotted(alias.name) or ""
            local = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            target = f"{base}.{imported}" if base else imported
            self.scopes[-1].bind(local, _IMPORTED, target)
            self._record_import(local, target)

    def _record_import(self, local: str, target: str) -> None:
        package = target.split(".", 1)[0]
        if package and not target.startswith("."):
            (self.guarded_packages if self.feature_try_depth else self.plain_packages).add(package)
        if target.split(".", 1)[0] in WATCHED_ROOTS:
            self.api_aliases.add(local.split(".", 1)[0])
            if self._feature_guarded():
                self.fallback_aliases.add(local.split(".", 1)[0])
            else:
                key = watched(target)
                if key is not None:
                    self.facts.api_uses.append((key, self.positions[id(self.statement)][0] if self.statement else 0))
        if len(self.scopes) == 1:
            self.facts.imports[local] = target

    def _record_watched_write(self, target: cst.Attribute) -> None:
        """``np.sctypes = {...}``: an assignment to a watched package's attribute, recorded
        whatever guards it (the guard is usually the check that the attribute is missing)."""
        dotted = _dotted(target)
        if dotted is None or dotted.split(".", 1)[0] not in self.api_aliases:
            return
        name = Name(dotted=dotted, span=self.span(target))
        self.pending.append((name, self.chain()))
        self.api_candidates.append((name, ("=",), False))

    def _feature_guarded(self) -> bool:
        """Whether the code here runs only after a feature or version check: inside a
        ``try`` that catches a missing import or attribute, in an ``except`` block, or under
        an ``if`` that tests ``hasattr``, a version or an availability flag."""
        if self.feature_try_depth:
            return True
        return any((guard[0] is EXCEPT or is_feature_check(guard[0])) and id(guard) not in self.asserted for guard in self.guards)

    # ---------------------------------------------------------------- definitions
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        name = node.name.value
        self.scopes[-1].bind(name)
        qualname = self.qualname(name)
        if len(self.scopes) == 1:
            self.facts.toplevel[name] = "class"
        bases = tuple(self.value(arg.value) for arg in node.bases if arg.keyword is None)
        klass = Class(
            qualname=qualname,
            name=name,
            span=self.span(node),
            bases=bases,
            nested=any(scope.kind == "function" for scope in self.scopes),
            decorators=tuple(self.value(d.decorator) for d in node.decorators),
        )
        self.facts.classes[qualname] = klass
        self.classes.append(klass)
        self.scopes.append(_Scope(qualname, "class"))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        self.scopes[-1].bind(name)
        owner = self.scopes[-1]
        qualname = self.qualname(name)
        if len(self.scopes) == 1:
            self.facts.toplevel[name] = "def"
        params, defaults = self._params(node.params)
        function = Function(
            qualname=qualname,
            name=name,
            span=self.span(node),
            params=params,
            defaults=defaults,
            class_name=owner.key if owner.kind == "class" else None,
            nested=any(scope.kind == "function" for scope in self.scopes),
            decorators=tuple(self.value(d.decorator) for d in node.decorators),
            param_kinds=_param_kinds(node.params),
        )
        if owner.kind == "class":
            self.classes[-1].methods[name] = qualname
        self._enter_function(function, params)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave_function()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params, defaults = self._params(node.params)
        function = Function(
            qualname=self.lambda_qualname(node),
            name="<lambda>",
            span=self.span(node),
            params=params,
            defaults=defaults,
            nested=len(self.functions) > 1,
            is_lambda=True,
        )
        self._enter_function(function, params)
        function.returns.append(self.value(node.body))
        function.return_guards.append(())
        function.reads.extend(self._reads(node.body))

    def _reads(self, body: cst.BaseExpression) -> List[Name]:
        finder = _NameReads()
        body.visit(finder)
        chain = self.chain()
        reads = [Name(dotted=node.value, span=self.span(node)) for node in finder.found]
        self.pending.extend((name, chain) for name in reads)
        return reads

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._leave_function()

    def _params(self, params: cst.Parameters) -> Tuple[Tuple[str, ...], Tuple[Tuple[str, Value], ...]]:
        names: List[str] = []
        defaults: List[Tuple[str, Value]] = []
        everything: Sequence[cst.Param] = [
            *params.posonly_params,
            *params.params,
            *([params.star_arg] if isinstance(params.star_arg, cst.Param) else []),
            *params.kwonly_params,
            *([params.star_kwarg] if params.star_kwarg is not None else []),
        ]
        for param in everything:
            names.append(param.name.value)
            if param.default is not None:
                defaults.append((param.name.value, self.value(param.default)))
        return tuple(names), tuple(defaults)

    def _enter_function(self, function: Function, params: Sequence[str]) -> None:
        self.facts.functions[function.qualname] = function
        scope = _Scope(function.qualname, "function")
        for param in params:
            scope.bind(param)
        self.scopes.append(scope)
        self.functions.append(function)
        self.loops.append([])
        self.saved_guards.append(self.guards)
        self.guards = []
        self.saved_operand_guards.append(self.operand_guards)
        self.operand_guards = []
        self.blocks.append([0])

    def _leave_function(self) -> None:
        self.scopes.pop()
        self.functions.pop()
        self.loops.pop()
        self.guards = self.saved_guards.pop()
        self.operand_guards = self.saved_operand_guards.pop()
        self.blocks.pop()

    # ---------------------------------------------------------------- guards
    def visit_If(self, node: cst.If) -> None:
        if self.ifs and self.ifs[-1][0].orelse is node:  # elif: runs where the previous test is false
            self.guards.append((self.ifs[-1][1], False))
            self.opened[id(node)] = 1
        self.ifs.append((node, self.value(node.test)))

    def leave_If(self, original_node: cst.If) -> None:
        _, test = self.ifs.pop()
        if self.opened.pop(id(original_node), 0):
            self.guards.pop()
        if original_node.orelse is None and _leaves_block(original_node.body):
            self.guards.append((test, False))
            self.blocks[-1][-1] += 1
            if _ends_with(original_node.body, (cst.Raise,)):
                self.function.raising_tests.append(test)

    def visit_Else(self, node: cst.Else) -> None:
        if self.ifs and self.ifs[-1][0].orelse is node:
            self.guards.append((self.ifs[-1][1], False))
            self.opened[id(node)] = 1

    def leave_Else(self, original_node: cst.Else) -> None:
        if self.opened.pop(id(original_node), 0):
            self.guards.pop()

    # Short-circuit operands and conditional expressions run only where their test has a
    # truth value: in ``split == "train" and np.random.random() < p`` the draw happens only
    # when training. The calls inside such an operand get its guard (see ``_call``).
    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.operand_guards.append((self.positions[id(node.right)], (self.value(node.left), isinstance(node.operator, cst.And))))

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        self.operand_guards.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        test = self.value(node.test)
        self.operand_guards.append((self.positions[id(node.body)], (test, True)))
        self.operand_guards.append((self.positions[id(node.orelse)], (test, False)))

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        del self.operand_guards[-2:]

    def _operand(self, node: cst.BaseExpression, guard: Guard) -> Value:
        """The value of an operand that runs only under ``guard``; calls built inside it
        (when an enclosing expression is read before the visit reaches them) get it too."""
        self.value_guards.append(guard)
        try:
            return self.value(node)
        finally:
            self.value_guards.pop()

    def _guards_at(self, node: cst.CSTNode) -> Tuple[Guard, ...]:
        """The guards in force where ``node`` is evaluated."""
        if not self.operand_guards and not self.value_guards:
            return tuple(self.guards)
        line, column, end_line, end_column = self.positions[id(node)]
        inside = [
            guard for (first_line, first_column, last_line, last_column), guard in self.operand_guards
            if (first_line, first_column) <= (line, column) and (end_line, end_column) <= (last_line, last_column)
        ]
        found: List[Guard] = list(self.guards)
        for guard in (*inside, *self.value_guards):
            if all(guard is not other for other in found):
                found.append(guard)
        return tuple(found)

    def _open_block(self, node: cst.CSTNode) -> None:
        pushed = 0
        if self.ifs and self.ifs[-1][0].body is node:
            self.guards.append((self.ifs[-1][1], True))
            pushed = 1
        if id(node) in self.except_bodies:
            self.guards.append((EXCEPT, True))
            pushed += 1
        self.blocks[-1].append(pushed)
        feature_try = id(node) in self.feature_try_bodies
        self.feature_blocks.append(feature_try)
        self.feature_try_depth += feature_try

    def _close_block(self) -> None:
        for _ in range(self.blocks[-1].pop()):
            self.guards.pop()
        self.feature_try_depth -= self.feature_blocks.pop()

    def visit_Try(self, node: cst.Try) -> None:
        if any(_catches_missing_feature(handler) for handler in node.handlers):
            self.feature_try_bodies.add(id(node.body))
        elif node.handlers:
            self.function.try_bodies.append(self.span(node.body))

    PRUNABLE = frozenset({
        cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.FunctionDef,
        cst.ClassDef, cst.Match,
    })

    def prunes(self, node: cst.CSTNode) -> bool:
        return id(node) in self.dead

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.dead:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if id(original_node) not in self.dead:
            super().on_leave(original_node)

    def visit_Module(self, node: cst.Module) -> None:
        self._mark_dead(node.body)
        self.facts.plain_from_imports = tuple(self._plain_from_imports(node.body))

    def _plain_from_imports(self, statements: Sequence[cst.CSTNode]):
        for statement in statements:
            if id(statement) in self.dead or not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                    continue
                base = _dotted(small.module) if small.module is not None else ""
                names = tuple(_dotted(alias.name) or "" for alias in small.names)
                if (base or small.relative) and all(names):
                    yield base or "", names, self.positions[id(statement)][0], len(small.relative)

    def _mark_dead(self, statements: Sequence[cst.CSTNode]) -> None:
        for position, statement in enumerate(statements):
            if isinstance(statement, cst.SimpleStatementLine) and any(isinstance(s, _LEAVES_BLOCK) for s in statement.body):
                self.dead.update(id(later) for later in statements[position + 1:])
                return

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._mark_dead(node.body)
        if _leaves_function(node):
            self.function.exits.append(self.span(node))
        self._open_block(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._close_block()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._open_block(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._close_block()

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.scopes[-1].globals.add(item.name.value)
            self.function.global_names.add(item.name.value)
            # A module global even when only functions assign it (``global args`` then
            # ``args = parser.parse_args()`` in ``main``): reads resolve to the module's name.
            self.scopes[0].bind(item.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self.scopes[-1].globals.add(item.name.value)

    # ---------------------------------------------------------------- statements
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bind_target(target.target)
            self._record_assign(target.target, node.value, self.span(node))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind_target(node.target)
        if self.scopes[-1].kind == "class" and isinstance(node.target, cst.Name):
            self.classes[-1].fields.append(node.target.value)
        if node.value is not None:
            self._record_assign(node.target, node.value, self.span(node))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_target(node.target)
        # ``transforms += [RandomCrop(224)]`` is ``transforms = transforms + [...]`` (lists,
        # strings; ``|=`` merges dicts): the name is read before it is bound again.
        operator = type(node.operator).__name__.replace("Assign", "")
        dotted = _dotted(node.target)
        if operator in ("Add", "BitOr") and dotted is not None and not isinstance(node.target, cst.Subscript):
            self._bind_value(dotted, BinOp(operator, self.value(node.target), self.value(node.value)), self.span(node))

    def _record_assign(self, target: cst.BaseExpression, value: cst.BaseExpression, span: Span) -> None:
        if isinstance(target, cst.Attribute):
            self._record_watched_write(target)
        if isinstance(target, cst.Subscript) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
            if self.scopes[-1].kind != "class":
                item = ItemAssign(
                    self.value(target.value), self.value(target.slice[0].slice.value), self.value(value), span, tuple(self.guards)
                )
                self.function.item_assigns.append(item)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target, self.value(value), span)
            return
        dotted = _dotted(target)
        if dotted is not None:
            self._bind_value(dotted, self.value(value), span)

    def _bind_value(self, dotted: str, value: Value, span: Span) -> None:
        self._add_assign(Assign(dotted, value, span))
        if "." not in dotted and (len(self.scopes) == 1 or dotted in self.function.global_names):
            self.facts.toplevel.setdefault(dotted, "assign")

    def _unpack(self, target: cst.BaseExpression, whole: Value, span: Span) -> None:
        """Each name of a tuple target is bound to its element of ``whole``; nested targets
        unpack their element; a starred name's list is not modelled."""
        elements = target.elements
        star = next((i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)), None)
        for index, element in enumerate(elements):
            if isinstance(element, cst.StarredElement):
                continue
            if isinstance(whole, Seq) and star is None and index < len(whole.items):
                part = whole.items[index]
            else:
                part = Subscript(whole, Const(index if star is None or index < star else index - len(elements)))
            self._bind_part(element.value, part, span)

    def _bind_part(self, target: cst.BaseExpression, part: Value, span: Span) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target, part, span)
            return
        dotted = _dotted(target)
        if dotted is not None:
            self._bind_value(dotted, part, span)

    def _receiver(self, func: Value) -> Optional[Value]:
        """``d`` in ``d.items``: the value a method is looked up on."""
        if isinstance(func, Attr):
            return func.value
        if isinstance(func, Name) and "." in func.dotted:
            name = Name(dotted=func.dotted.rpartition(".")[0], span=func.span)
            self.pending.append((name, self.chain()))
            return name
        return None

    def _loop_parts(self, target: cst.BaseExpression, iterable: Value) -> List[Tuple[cst.BaseExpression, Value]]:
        """What each element of a ``for`` tuple target is bound to: ``d.items()`` gives the
        keys and the values of ``d``; ``enumerate(x)`` a count and the elements of ``x``;
        ``zip(a, b)`` the elements of ``a`` and of ``b``; anything else its elements unpacked."""
        elements = [e.value for e in target.elements]
        starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
        if isinstance(iterable, Call) and not starred and not iterable.star_args:
            func = iterable.func
            method = func.dotted.rpartition(".")[2] if isinstance(func, Name) else func.attr if isinstance(func, Attr) else ""
            if method == "items" and not iterable.args and len(elements) == 2:
                receiver = self._receiver(func)
                if receiver is not None:
                    return [(elements[0], Each(receiver)), (elements[1], Subscript(receiver, UNKNOWN))]
            if isinstance(func, Name) and func.dotted == "enumerate" and iterable.args and len(elements) == 2:
                return [(elements[0], UNKNOWN), (elements[1], Each(iterable.args[0]))]
            if isinstance(func, Name) and func.dotted == "zip" and len(iterable.args) == len(elements):
                return [(element, Each(argument)) for element, argument in zip(elements, iterable.args)]
        return []

    def _add_assign(self, assign: Assign) -> None:
        assign.guards = tuple(self.guards)
        if self.scopes[-1].kind == "class":
            self.classes[-1].body_assigns.append(assign)
        else:
            self.function.assigns.append(assign)
        for loop in self.loops[-1]:
            loop.assigns.append(assign)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_target(node.target)
        self._record_assign(node.target, node.value, self.span(node))

    def visit_For(self, node: cst.For) -> None:
        self.bind_target(node.target)
        loop = Loop(self.span(node), _dotted(node.target) or "", self.value(node.iter))
        self.function.loops.append(loop)
        self.loops[-1].append(loop)
        if isinstance(node.target, (cst.Tuple, cst.List)):
            span = self.span(node.target)
            parts = self._loop_parts(node.target, loop.iterable)
            if parts:
                for element, part in parts:
                    self._bind_part(element, part, span)
            else:
                self._unpack(node.target, Each(loop.iterable), span)

    def leave_For(self, original_node: cst.For) -> None:
        self.loops[-1].pop()

    def visit_While(self, node: cst.While) -> None:
        loop = Loop(self.span(node), "", self.value(node.test), is_while=True)
        self.function.loops.append(loop)
        self.loops[-1].append(loop)

    def leave_While(self, original_node: cst.While) -> None:
        self.loops[-1].pop()

    def _enter_comprehension(self, node: cst.CSTNode) -> None:
        self.comprehensions.append(self.span(node))

    def _leave_comprehension(self, original_node: cst.CSTNode) -> None:
        self.comprehensions.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def visit_CompFor(self, node: cst.CompFor) -> None:
        """A comprehension's target names the elements of what it iterates, as a ``for``
        does; a dict comprehension over classes is how many registries are built. The
        binding is placed where the comprehension starts: its element (``t(image)`` in
        ``[t(image) for t in self.transforms]``) is written before the target but runs after."""
        self.bind_target(node.target)
        iterable = self.value(node.iter)
        start = self.comprehensions[-1] if self.comprehensions else self.span(node.target)
        span = Span(start.line, start.col, start.line, start.col)
        if isinstance(node.target, (cst.Tuple, cst.List)):
            parts = self._loop_parts(node.target, iterable)
            if parts:
                for element, part in parts:
                    self._bind_part(element, part, span)
            else:
                self._unpack(node.target, Each(iterable), span)
        else:
            self._bind_part(node.target, Each(iterable), span)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name)
            entered = Call(Attr(self.value(node.item), "__enter__"), (), (), self.span(node))
            if isinstance(node.asname.name, (cst.Tuple, cst.List)):
                self._unpack(node.asname.name, entered, self.span(node))
            else:
                self._bind_part(node.asname.name, entered, self.span(node))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_target(node.name.name)
        self.except_bodies.add(id(node.body))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.function.attribute_names.add(node.attr.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.function.returns.append(self.value(node.value))
            self.function.return_guards.append(self._guards_at(node))

    def visit_Assert(self, node: cst.Assert) -> None:
        """What follows an ``assert`` in its block runs only where the test holds. An assert
        is no feature check: ``assert torch.cuda.is_available()`` states what the program
        needs, with no other path for the code after it."""
        guard = (self.value(node.test), True)
        self.asserted[id(guard)] = guard
        self.guards.append(guard)
        self.blocks[-1][-1] += 1

    def visit_Yield(self, node: cst.Yield) -> None:
        if isinstance(node.value, cst.From):
            self.function.yield_froms.append(self.value(node.value.item))
        elif node.value is not None:
            self.function.yields.append(self.value(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        call = self.value(node)
        self.function.calls.append(call)
        for loop in self.loops[-1]:
            loop.calls.append(call)

    # ---------------------------------------------------------------- resolution
    def finish(self) -> ModuleFacts:
        for name, chain in self.pending:
            self._resolve(name, chain)
        for name, keywords, guarded in self.api_candidates:
            if guarded or name.qualified is None or name.root in self.fallback_aliases:
                continue
            if keywords == ("=",):
                keys = [name.qualified + "="]
            else:
                keys = [f"{name.qualified}({suffix})" for suffix in keywords] if keywords else [name.qualified]
            for key in filter(None, map(watched, keys)):
                self.facts.api_uses.append((key, name.span.line))
        self.facts.api_uses = sorted(set(self.facts.api_uses))
        self.facts.star_imports = tuple(self.star_imports)
        self.facts.optional_packages = frozenset(self.guarded_packages - self.plain_packages)
        return self.facts

    def _resolve(self, name: Name, chain: Tuple[_Scope, ...]) -> None:
        root, rest = name.root, name.rest
        suffix = f".{rest}" if rest else ""
        for scope in chain:
            binding = scope.bindings.get(root)
            if binding is None:
                continue
            how, target = binding
            if how == _IMPORTED:
                name.qualified = f"{target}{suffix}"
            elif scope.kind == "module":
                prefix = f"{self.module_name}." if self.module_name else ""
                name.qualified = f"{prefix}{root}{suffix}"
            else:
                name.scope = scope.key
            return
        name.qualified = f"builtins.{root}{suffix}"
        if self.star_imports and root not in _BUILTIN_NAMES:
            self.facts.star_names.append(name)
