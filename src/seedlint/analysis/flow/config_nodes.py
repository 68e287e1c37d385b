"""yacs configuration nodes: defaults the code sets, overridden by the YAML files merged in.

A yacs project builds its defaults in code (``_C = CN()``, ``_C.DATASET = CN()``,
``_C.DATASET.FLIP = True``) and a training script merges an experiment file over them
(``cfg.merge_from_file(args.cfg)``, with ``--cfg`` passed by the commands the project
documents). A key of a node is what each merged file sets at the node's path, or the code's
default where a file does not set it. Where no merge of a file is found, or a merged path is
not known, the key may also be anything, as for any configuration dictionary filled from a
file (``library.CONFIG_DICTS``).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from seedlint.analysis import library
from seedlint.analysis.objects import UNKNOWN_SET, DictObj, ExternalInstance, Frame, Values
from seedlint.analysis.flow.shared import union
from seedlint.analysis.flow.attributes import assigned_head
from seedlint.facts.model import Name, Value

MAX_NODE_DEPTH = 16
"""Nesting of ``_C.A.B.C = CN()`` nodes followed up to the root; a guard against cycles."""


class ConfigNodesMixin:
    def config_node_attribute(self, node: ExternalInstance, name: str, from_code: Optional[Values]) -> Optional[Values]:
        """The values ``node.name`` may hold for a yacs node: each merged file's value at the
        node's path, or ``from_code`` (the code's default) where a file does not set the key.
        None when neither the code nor a merged file sets it."""
        if from_code is not None and any(_is_node(obj) for obj in from_code):
            return from_code  # a nested node: its own keys are read from the files at its path
        located = self._node_path(node)
        merges = self._file_merges(located[0]) if located is not None else []
        if located is None or not merges:
            return union([from_code, UNKNOWN_SET]) if from_code is not None else None
        root, path = located
        found: List[Values] = []
        for merged, frame in merges:
            for tree in self._configuration_file(merged, frame):
                if not isinstance(tree, DictObj):
                    found.append(UNKNOWN_SET)
                    continue
                value = self._set_in_file(tree, path + (name,))
                if value is not None:
                    found.append(value)
                elif from_code is not None:
                    found.append(from_code)
        return union(found) if found else from_code

    def _node_path(self, node: ExternalInstance, depth: int = 0) -> Optional[Tuple[ExternalInstance, Tuple[str, ...]]]:
        """(the root node, the keys from it to ``node``): ``_C.DATASET = CN()`` makes the
        node built there ``("DATASET",)`` under the node ``_C`` holds. A node no assignment
        hangs under another is a root."""
        if depth > MAX_NODE_DEPTH:
            return None
        self._attribute_assignments()
        for attribute, places in self._assigned_attributes.items():
            for module, function, assign, head in places:
                if assign.value is not node.site.call:
                    continue
                frame = self.function_frame(module, function)
                parents = [p for p in self.eval(assigned_head(head, assign, module, function), frame) if _is_node(p)]
                if len(parents) != 1:
                    return None
                located = self._node_path(parents[0], depth + 1)
                return None if located is None else (located[0], located[1] + (attribute,))
        return node, ()

    def _file_merges(self, root: ExternalInstance) -> List[Tuple[Value, Frame]]:
        """The paths merged into the root node (``cfg.merge_from_file(args.cfg)`` on any
        name that may hold it), each with the frame it is evaluated in; remembered until
        more modules are analysed."""
        key = (id(root.site.call), len(self.index.modules))
        remembered = self._node_merges.get(key)
        if remembered is None:
            remembered = self._node_merges[key] = self._find_file_merges(root)
        return remembered

    def _find_file_merges(self, root: ExternalInstance) -> List[Tuple[Value, Frame]]:
        found: List[Tuple[Value, Frame]] = []
        for module in list(self.index.modules.values()):
            for function, call in module.all_calls():
                if not (isinstance(call.func, Name) and call.func.dotted.endswith(".merge_from_file") and call.args):
                    continue
                frame = self.function_frame(module, function)
                receiver = Name(call.func.dotted.rsplit(".", 1)[0], call.func.span, None, call.func.scope)
                if any(_is_node(obj) and obj.site.call is root.site.call for obj in self.eval(receiver, frame)):
                    found.append((call.args[0], frame))
        return found

    def _set_in_file(self, tree: DictObj, keys: Tuple[str, ...]) -> Optional[Values]:
        """What a loaded file sets at ``keys``; None when it does not set that key."""
        current: Values = frozenset({tree})
        for key in keys:
            step: List[Values] = []
            for holder in current:
                if not isinstance(holder, DictObj):
                    return UNKNOWN_SET
                entries = [e for e in self.dict_entries(holder) if e.key == key]
                if not entries:
                    return None
                step += [self.eval(e.value, e.frame) for e in entries]
            current = union(step)
        return current


def _is_node(obj) -> bool:
    return isinstance(obj, ExternalInstance) and obj.qualified in library.CONFIG_NODES
