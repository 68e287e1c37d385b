"""The single codegen walk gives exactly what libcst's metadata wrapper and traversal give.

The facts pass takes node positions and visitor callbacks from one codegen pass
(``seedlint.facts.codegen_walk``) instead of ``PositionProvider`` plus a second traversal.
These tests hold it to the reference: the same range for every node, and the same facts,
on every fixture, on awkward syntax and on hypothesmith's generated programs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from seedlint import legacy_names
from seedlint.facts.codegen_walk import UNPOSITIONED, handlers, positions_from_wrapper, walk
from seedlint.facts.collector import _Collector, collect_facts

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.py"))

AWKWARD = {
    "decorated and parenthesised": (
        "import functools\n\n@functools.lru_cache(maxsize=None)\n@staticmethod\ndef f(a, /, b=(1), *c, d, **e):\n"
        "    return ((a))(b)[c:d, ...]\n\nx = (yield_ := 3); y = lambda q=lambda: 1: (q, (yield_))\n"
    ),
    "crlf, tabs and a BOM-less unicode body": "if True:\r\n\tz = 'é' \\\r\n\t\t+ \"\"\"a\r\nb\"\"\"\r\n\tprint(z)\r\n",
    "comprehensions, walrus, f-strings": (
        "data = [n for row in rows if (n := len(row)) for _ in range(n)]\n"
        "text = f\"{data!r:>{width}} {'nested'}\" 'tail'\nd = {k: v for k, v in zip(a, b)}\n"
    ),
    "classes, async, with, try, match": (
        "class A(B, metaclass=M):\n    x: int = 1\n    async def run(self):\n"
        "        async with open() as (f, g), other as h:\n            async for i in f:\n                await g(i)\n"
        "        try:\n            pass\n        except (E, F) as err:\n            raise X from err\n"
        "        finally:\n            global Q\n\nmatch point:\n    case (0, y) if y > 1:\n        pass\n"
        "    case {'k': [1, *rest]}:\n        pass\n    case _:\n        del point\n"
    ),
    "no trailing newline and comments only": "# only a comment\n\n   # indented comment\nx = 1  # noqa: SDL001",
    "empty module": "",
}


def normalised(value):
    """Facts as comparable plain data (the fact classes compare by identity)."""
    if dataclasses.is_dataclass(value):
        return type(value).__name__, tuple((f.name, normalised(getattr(value, f.name))) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return tuple(sorted((repr(key), normalised(item)) for key, item in value.items()))
    if isinstance(value, (set, frozenset)):
        return "set", tuple(sorted(map(repr, value)))
    if isinstance(value, (list, tuple)):
        return tuple(normalised(item) for item in value)
    return value


class _Recorder(cst.CSTVisitor):
    """Records when libcst's own traversal enters and leaves the node types the facts
    collector handles."""

    def __init__(self, kinds) -> None:
        super().__init__()
        self.kinds = kinds
        self.order = []

    def on_visit(self, node):
        if type(node) in self.kinds:
            self.order.append(("visit", id(node)))
        return True

    def on_leave(self, node):
        if type(node) in self.kinds:
            self.order.append(("leave", id(node)))


def _all_nodes(module: cst.Module):
    class Every(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.nodes = []

        def on_visit(self, node):
            self.nodes.append(node)
            return True

    every = Every()
    module.visit(every)
    return every.nodes


def _assert_same(text: str, name: str = "pkg.mod") -> None:
    module = cst.parse_module(text)
    _, expected_positions = positions_from_wrapper(module)

    class Probe:
        positions = None

    probe = Probe()
    assert walk(module, probe)
    kept = {id(node) for node in _all_nodes(module) if type(node) not in UNPOSITIONED}
    assert set(probe.positions) == kept
    assert probe.positions == {key: expected_positions[key] for key in kept}

    fast = collect_facts(module, name, "mod.py", False, text)
    reference = collect_facts(module, name, "mod.py", False, text, reference=True)
    assert normalised(fast) == normalised(reference)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_fixture_facts_match_the_reference(path):
    text, _ = legacy_names.parseable(path.read_text(encoding="utf-8"))  # Python 3.6's `async=True`
    _assert_same(text)


@pytest.mark.parametrize("text", AWKWARD.values(), ids=AWKWARD.keys())
def test_awkward_syntax_matches_the_reference(text):
    _assert_same(text)


def test_callbacks_come_in_libcst_traversal_order():
    """Every node type the collector handles is entered and left where libcst's own
    visitor would enter and leave it."""
    text = "".join(AWKWARD.values()) + "".join(legacy_names.parseable(p.read_text(encoding="utf-8"))[0] for p in FIXTURES)
    module = cst.parse_module(text)
    collector = _Collector("pkg.mod", "mod.py", False)
    kinds = set(handlers(collector, "visit_")) | set(handlers(collector, "leave_"))
    assert {cst.Call, cst.FunctionDef, cst.For, cst.Lambda} <= kinds
    expected = _Recorder(kinds)
    module.visit(expected)

    class Probe:
        def __init__(self):
            self.order = []

    probe = Probe()
    for kind in kinds:
        setattr(probe, f"visit_{kind.__name__}", lambda node: probe.order.append(("visit", id(node))))
        setattr(probe, f"leave_{kind.__name__}", lambda node: probe.order.append(("leave", id(node))))
    assert walk(module, probe)
    assert len(probe.order) > 1000
    assert probe.order == expected.order


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(hypothesmith.from_grammar())
def test_generated_programs_match_the_reference(text):
    try:
        cst.parse_module(text)
    except Exception:
        return  # hypothesmith's grammar admits a few programs libcst rejects
    _assert_same(text)


def test_code_after_return_or_raise_gives_no_facts_on_either_walk():
    text = (
        "import numpy as np\n"
        "def item(i):\n"
        "    raise NotImplementedError\n"
        "    x = np.random.rand()\n"
        "    def inner():\n"
        "        return np.random.rand()\n"
        "    return x\n"
        "def pick(flag):\n"
        "    if flag:\n"
        "        value = np.random.rand()\n"
        "        return value\n"
        "        print('unreachable')\n"
        "    assert flag is not None\n"
        "    return 0\n"
    )
    _assert_same(text)
    facts = collect_facts(cst.parse_module(text), "pkg.mod", "pkg/mod.py")
    assert facts.functions["item"].calls == [] and "item.<locals>.inner" not in facts.functions
    pick = facts.functions["pick"]
    assert [c.func.dotted for c in pick.calls] == ["np.random.rand"]
    assert len(pick.exits) == 2 and len(pick.return_guards) == len(pick.returns) == 2
    assert len(pick.return_guards[1]) == 2, "after `if flag: return` and `assert`: both guards"
