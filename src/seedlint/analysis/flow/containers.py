"""Containers: dict entries (with ``**`` spreads, ``dict(zip(...))``, ``dict(pairs)``),
subscripts (of attribute dictionaries too: ``EasyDict(cfg)["data"]``), what iterating a
value gives, ``+`` of sequences.
"""

from __future__ import annotations

from typing import List, Optional, Set

from seedlint.analysis import library
from seedlint.analysis.objects import (
    NOTHING,
    UNKNOWN_SET,
    ArgsObj,
    ClassObj,
    Constant,
    DictObj,
    Entry,
    External,
    ExternalInstance,
    Frame,
    HParams,
    MethodOf,
    ModuleObj,
    ParsedDataclass,
    ParsedDataclasses,
    SeqObj,
    Values,
    hashable,
)
from seedlint.facts.model import BinOp, Const, Seq, Value
from seedlint.knowledge.hf_datasets import from_hf_datasets
from seedlint.analysis.flow.shared import (
    _closed_sequence,
    union,
    MAX_VALUES,
)


class ContainersMixin:
    def dict_entries(self, obj: DictObj, seen: Optional[Set[int]] = None) -> List[Entry]:
        """The dict's items, with ``**other`` spread in (each dict once: ``cfg = {**cfg, ...}``)."""
        seen = set() if seen is None else seen
        seen.add(obj.key)
        entries = list(obj.entries)
        if obj.origin is not None:
            entries += self.registries.stored_items(obj.origin)
        flat: List[Entry] = []
        for entry in entries:
            if entry.spread:
                for inner in self.eval(entry.value, entry.frame):
                    if isinstance(inner, DictObj) and inner.key not in seen and len(seen) < MAX_VALUES:
                        flat.extend(self.dict_entries(inner, seen))
                    elif isinstance(inner, SeqObj) and not inner.open:
                        flat.extend(self._pair_entries(inner, entry))
                    elif not isinstance(inner, DictObj):
                        flat.append(Entry(entry.value, entry.frame, Entry.ANY, spread=True))
            else:
                flat.append(entry)
        return flat

    def _pair_entries(self, pairs: SeqObj, spread: Entry) -> List[Entry]:
        """``dict([("a", A), ("b", B)])``: each two-element sequence is a key and its value."""
        found: List[Entry] = []
        for element in pairs.entries:
            evaluated = self.eval(element.value, element.frame) if not element.spread else UNKNOWN_SET
            for pair in evaluated:
                if _closed_sequence(pair) and len(pair.entries) == 2:
                    key, value = pair.entries
                    found.append(Entry(value.value, value.frame, self._static_key(key.value, key.frame)))
                else:
                    found.append(Entry(spread.value, spread.frame, Entry.ANY, spread=True))
        return found

    def item(self, holders: Values, index: Value, frame: Frame) -> Values:
        key = self.constant(index, frame) if not isinstance(index, Const) else Constant(index.value)
        keys = self._constant_keys(index, frame) if key is None and any(isinstance(h, DictObj) for h in holders) else None
        found: List[Values] = []
        for holder in holders:
            if isinstance(holder, DictObj):
                entries = self.dict_entries(holder)
                if keys is not None:
                    matching = [e for e in entries if e.key is Entry.ANY or (hashable(e.key) and e.key in keys)]
                else:
                    matching = [e for e in entries if key is None or e.key is Entry.ANY or e.key == key.value]
                found += [self.eval(e.value, e.frame) if not e.spread else UNKNOWN_SET for e in matching]
                if holder.open or (not matching and key is None):
                    found.append(UNKNOWN_SET)
            elif isinstance(holder, SeqObj):
                if holder.indexable and key is not None and isinstance(key.value, int) and not holder.open:
                    position = key.value
                    if -len(holder.entries) <= position < len(holder.entries):
                        entry = holder.entries[position]
                        found.append(self.eval(entry.value, entry.frame))
                else:
                    found.append(self.elements(frozenset({holder})))
            elif isinstance(holder, (ClassObj, External)):
                found.append(frozenset({holder}))
            elif isinstance(holder, HParams) and key is not None and isinstance(key.value, str) and holder.holds(key.value):
                found.append(self.param(holder.init_frame, key.value))
            elif isinstance(holder, ArgsObj) and holder.pair and key is not None and key.value == 0:
                found.append(frozenset({ArgsObj(holder.parser)}))
            elif isinstance(holder, ParsedDataclasses) and key is not None and isinstance(key.value, int):
                found.append(self._parsed_dataclass(holder, key.value))
            elif self.registries.is_registry(holder):
                found.append(self.registries.lookup(holder, index, frame))
            elif isinstance(holder, MethodOf) and holder.name == "__dict__" and isinstance(holder.receiver, ModuleObj):
                found.append(self._namespace_item(holder.receiver.module, key))
            elif isinstance(holder, ExternalInstance) and from_hf_datasets(holder.qualified) \
                    and key is not None and isinstance(key.value, str):
                found.append(frozenset({holder}))  # ``dataset["train"]``: a split, with the format set on the whole
            elif isinstance(holder, ExternalInstance) and holder.qualified in library.CONFIG_DICTS and key is not None and isinstance(key.value, str):
                found.append(self._namespace_attribute(holder, key.value) or UNKNOWN_SET)  # ``cfg["data"]`` is ``cfg.data``
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else UNKNOWN_SET

    def _parsed_dataclass(self, parsed: ParsedDataclasses, position: int) -> Values:
        """The object filled for the dataclass at ``position`` of those the parser was given
        (``HfArgumentParser((ModelArguments, TrainingArguments))``, or one class alone)."""
        call = parsed.parser.site.call
        if not call.args:
            return UNKNOWN_SET
        given = self.item(self.eval(call.args[0], parsed.parser.site.frame), Const(position), parsed.parser.site.frame)
        return frozenset(
            ParsedDataclass(cls, parsed.parser) if isinstance(cls, (ClassObj, External)) else cls for cls in given
        )

    def _constant_keys(self, index: Value, frame: Frame) -> Optional[Set[object]]:
        """The keys ``d[index]`` may read when each value ``index`` may have is a constant
        (``REG[spec["name"]]`` over several configuration files); None otherwise."""
        values = self.eval(index, frame)
        if not values or not all(isinstance(v, Constant) and hashable(v.value) for v in values):
            return None
        return {v.value for v in values}

    def elements(self, values: Values, seen: Optional[Set[int]] = None) -> Values:
        """What iterating any of ``values`` may give."""
        seen = set() if seen is None else seen
        found: List[Values] = []
        for obj in values:
            if obj.key in seen or len(seen) > MAX_VALUES:
                continue
            seen.add(obj.key)
            if isinstance(obj, SeqObj):
                for entry in obj.entries:
                    evaluated = self.eval(entry.value, entry.frame)
                    found.append(self.elements(evaluated, seen) if entry.spread else evaluated)
                if obj.open:
                    found.append(UNKNOWN_SET)
            elif isinstance(obj, DictObj):
                found += [frozenset({Constant(e.key)}) for e in obj.entries if e.key is not Entry.ANY and not e.spread]
                found.append(UNKNOWN_SET)
            else:
                found.append(UNKNOWN_SET)
        return union(found) if found else NOTHING

    def _formatted(self, value: BinOp, frame: Frame) -> Optional[Values]:
        """``"%s_root" % name`` with constants on both sides (a tuple display of constants on
        the right): each string it may make."""
        formats = self.eval(value.left, frame)
        if not formats or not all(isinstance(o, Constant) and isinstance(o.value, str) for o in formats):
            return None
        parts = value.right.items if isinstance(value.right, Seq) else (value.right,)
        choices: List[List[object]] = []
        for part in parts:
            values = self.eval(part, frame)
            if not values or not all(isinstance(o, Constant) for o in values):
                return None
            choices.append([o.value for o in values])
        combinations = [()]
        for options in choices:
            combinations = [c + (o,) for c in combinations for o in options]
            if len(combinations) * len(formats) > MAX_VALUES:
                return None
        made = set()
        for fmt in formats:
            for combination in combinations:
                try:
                    made.add(Constant(fmt.value % (combination if isinstance(value.right, Seq) else combination[0])))
                except (TypeError, ValueError, KeyError):
                    return None
        return frozenset(made)

    def _binop(self, value: BinOp, frame: Frame) -> Values:
        if value.op == "Add":
            left, right = self.eval(value.left, frame), self.eval(value.right, frame)
            if left and right and all(isinstance(o, SeqObj) for o in left | right):
                return frozenset(
                    SeqObj(a.entries + b.entries, a.open or b.open, a.indexable and b.indexable) for a in left for b in right
                )
            strings = [o for o in left | right if isinstance(o, Constant) and isinstance(o.value, str)]
            if left and right and len(strings) == len(left | right) and len(left) * len(right) <= MAX_VALUES:
                return frozenset(Constant(a.value + b.value) for a in left for b in right)  # "a" + "b", f"{a}b"
        if value.op == "Multiply":
            # ``[transform] * copies``: the same elements, repeated (so no longer at fixed indices)
            for sequence, count in ((value.left, value.right), (value.right, value.left)):
                sequences = self.eval(sequence, frame)
                if sequences and all(isinstance(o, SeqObj) for o in sequences):
                    counts = self.eval(count, frame)
                    if counts and all(isinstance(c, SeqObj) for c in counts):
                        break
                    return frozenset(SeqObj(o.entries, o.open, False) for o in sequences)
        if value.op == "Modulo":
            formatted = self._formatted(value, frame)
            if formatted is not None:
                return formatted
        if value.op == "BitOr":
            left, right = self.eval(value.left, frame), self.eval(value.right, frame)
            if left and right and all(isinstance(o, DictObj) for o in left | right):
                return frozenset(DictObj(a.entries + b.entries, a.open or b.open) for a in left for b in right)
        return UNKNOWN_SET
