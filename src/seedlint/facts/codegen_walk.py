"""One codegen pass that gives both node positions and a visitor's callbacks.

libcst computes ``PositionProvider`` ranges by generating the module's code once and
noting where each node starts and ends. A visitor then walks the tree a second time, and
libcst's traversal rebuilds every node it passes through. Codegen already reaches every
node in source order (the order a visitor sees them), so this pass notes, for the node
types a visitor handles, when each is entered and left, and replays those callbacks once
all positions are known. The positions are the same ranges ``PositionProvider`` gives,
as ``(line, column, end_line, end_column)`` tuples keyed by ``id(node)`` (the module keeps
its nodes alive while they are read), for every node except whitespace, comments and
punctuation: over half of all nodes, and no fact records where they are.

The pass relies on libcst's codegen protocol (``CodegenState``); ``walk`` returns False when
that protocol is not what it expects, and the caller falls back to the metadata wrapper.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

Position = Tuple[int, int, int, int]
_NEWLINES = re.compile(r"\r\n?|\n")

UNPOSITIONED = frozenset({
    cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.TrailingWhitespace, cst.EmptyLine,
    cst.Comment, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
})
"""Node kinds the walk gives no position (unless a visitor handles them)."""


def handlers(visitor: Any, prefix: str) -> Dict[type, Callable[[cst.CSTNode], Any]]:
    """The ``visit_X`` (or ``leave_X``) methods the visitor defines, by node class, the way
    libcst dispatches them: on the exact class name. libcst's base classes define a no-op
    for every node class; those are left out."""
    found = {}
    names = [*_class_handler_names(type(visitor), prefix), *(a for a in getattr(visitor, "__dict__", {}) if a.startswith(prefix))]
    for attribute in names:
        node_class = getattr(cst, attribute[len(prefix):], None)
        method = getattr(visitor, attribute)
        defined_in = getattr(getattr(method, "__func__", method), "__module__", "") or ""
        if isinstance(node_class, type) and issubclass(node_class, cst.CSTNode) and not defined_in.startswith("libcst"):
            found[node_class] = method
    return found


_HANDLER_NAMES: Dict[Tuple[type, str], List[str]] = {}


def _class_handler_names(kind: type, prefix: str) -> List[str]:
    """The attributes of a visitor class spelled like handlers that its own code (not
    libcst's no-op defaults) defines, found once per class."""
    key = (kind, prefix)
    names = _HANDLER_NAMES.get(key)
    if names is None:
        names = []
        for attribute in dir(kind):
            if not attribute.startswith(prefix):
                continue
            function = getattr(kind, attribute)
            if not (getattr(function, "__module__", "") or "").startswith("libcst"):
                names.append(attribute)
        names = _HANDLER_NAMES[key] = names
    return names


try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - a libcst without this protocol
    CodegenState = None


if CodegenState is not None:

    class _RecordingState(CodegenState):  # type: ignore[misc, valid-type]
        """Tracks line and column the way PositionProvidingCodegenState does."""

        __slots__ = ("line", "column", "stack", "positions", "events", "on_enter", "on_leave", "skipped", "prunable", "ends")

        def __init__(self, module: cst.Module, on_enter: Dict, on_leave: Dict, prunable: frozenset = frozenset()) -> None:
            super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
            self.line = 1
            self.column = 0
            self.stack: List[Tuple[int, int]] = []
            self.positions: Dict[int, Position] = {}
            self.events: List[Tuple[Callable, cst.CSTNode]] = []
            self.on_enter = on_enter
            self.on_leave = on_leave
            self.skipped = UNPOSITIONED - set(on_enter) - set(on_leave)
            self.prunable = prunable
            self.ends: Dict[int, int] = {}
            """For a prunable node's entry in ``events``: the index just past its subtree's events."""

        def _advance(self, value: str) -> None:
            if "\n" in value or "\r" in value:
                segments = _NEWLINES.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])
            else:
                self.column += len(value)

        def add_indent_tokens(self) -> None:
            self.tokens.extend(self.indent_tokens)
            for token in self.indent_tokens:
                self._advance(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            if "\n" in value or "\r" in value:
                self._advance(value)
            else:
                self.column += len(value)

        def before_codegen(self, node: cst.CSTNode) -> None:
            kind = type(node)
            if kind in self.skipped:
                return
            self.stack.append((self.line, self.column))
            if kind in self.prunable:
                self.events.append((None, node))
            handler = self.on_enter.get(kind)
            if handler is not None:
                self.events.append((handler, node))

        def after_codegen(self, node: cst.CSTNode) -> None:
            kind = type(node)
            if kind in self.skipped:
                return
            line, column = self.stack.pop()
            key = id(node)
            if key not in self.positions:  # a syntactic position recorded inside wins
                self.positions[key] = (line, column, self.line, self.column)
            handler = self.on_leave.get(kind)
            if handler is not None:
                self.events.append((handler, node))
            if kind in self.prunable:
                self.ends[key] = len(self.events)

        def record_syntactic_position(
            self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None, end_node: Optional[cst.CSTNode] = None
        ) -> Any:
            if type(node) in self.skipped:
                return _UNRECORDED
            return _SyntacticPosition(self, node, start_node, end_node)

    class _SyntacticPosition:
        """``with state.record_syntactic_position(node):``: the range of what is generated
        inside (a plain class: a generator-based context manager costs twice as much)."""

        __slots__ = ("state", "node", "start_node", "end_node", "line", "column")

        def __init__(self, state: _RecordingState, node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                     end_node: Optional[cst.CSTNode]) -> None:
            self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

        def __enter__(self) -> None:
            self.line, self.column = self.state.line, self.state.column

        def __exit__(self, *exc_info: Any) -> None:
            state = self.state
            line, column, end_line, end_column = self.line, self.column, state.line, state.column
            if self.start_node is not None:
                line, column = state.positions[id(self.start_node)][:2]
            if self.end_node is not None:
                end_line, end_column = state.positions[id(self.end_node)][2:]
            state.positions[id(self.node)] = (line, column, end_line, end_column)

    class _Unrecorded:
        __slots__ = ()

        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc_info: Any) -> None:
            return None

    _UNRECORDED = _Unrecorded()


def walk(module: cst.Module, visitor: Any, positions_attribute: str = "positions") -> bool:
    """Give ``visitor`` every node's position (in the attribute named), then call its
    ``visit_X``/``leave_X`` methods in the order libcst's traversal would. Return values
    of ``visit_X`` are ignored. A visitor prunes with ``PRUNABLE`` (node classes) and
    ``prunes(node)``: a prunable node it prunes, asked when the walk reaches it, gets no
    callbacks and nor does anything inside it. False when this libcst's codegen cannot be
    driven this way; nothing has been called on the visitor then."""
    if CodegenState is None:
        return False
    prunable = frozenset(getattr(visitor, "PRUNABLE", ()))
    state = _RecordingState(module, handlers(visitor, "visit_"), handlers(visitor, "leave_"), prunable)
    try:
        module._codegen(state)
    except (TypeError, AttributeError, KeyError):
        return False
    setattr(visitor, positions_attribute, state.positions)
    events, ends = state.events, state.ends
    position, count = 0, len(events)
    while position < count:
        handler, node = events[position]
        if handler is None:
            position = ends[id(node)] if visitor.prunes(node) else position + 1
            continue
        handler(node)
        position += 1
    return True


def positions_from_wrapper(module: cst.Module) -> Tuple[Any, Dict[int, Position]]:
    """libcst's own PositionProvider ranges (the reference the fast pass must match) by
    ``id(node)``, and the wrapper to visit with."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    ranges = wrapper.resolve(PositionProvider)
    return wrapper, {
        id(node): (found.start.line, found.start.column, found.end.line, found.end.column) for node, found in ranges.items()
    }
