"""Loaders a library's training loop builds (``knowledge.library_loaders``: the Hugging Face
``Trainer``): the call that builds the loop stands for the loader, and its arguments, and
those of the settings object it is given (``TrainingArguments(dataloader_num_workers=4)``),
for the loader's."""

from __future__ import annotations

from typing import List, Optional

from seedlint.analysis.index import ClassRef
from seedlint.analysis.objects import (
    UNKNOWN_SET,
    ClassObj,
    Constant,
    External,
    ExternalInstance,
    Frame,
    FromCommandLine,
    ParsedDataclass,
    Values,
)
from seedlint.analysis.flow import union
from seedlint.facts.model import Call, Function, ModuleFacts, Name
from seedlint.knowledge.library_loaders import LibraryLoop, library_loop


def loop_of(flow, module: ModuleFacts, function: Function, call: Call) -> Optional[LibraryLoop]:
    """The library loop ``call`` builds, when every class it may build is one (or a project
    subclass that leaves building the loader to the library)."""
    if not isinstance(call.func, Name):
        return None
    names = {call.func.dotted.rsplit(".", 1)[-1], (call.func.qualified or "").rsplit(".", 1)[-1]}
    if not any(name.endswith("Trainer") for name in names):
        return None
    frame = flow.function_frame(module, function)
    found = set()
    for obj in flow.callee_objects(call, frame):
        loop = None
        if isinstance(obj, External):
            loop = library_loop(obj.qualified)
        elif isinstance(obj, ClassObj):
            loop = _inherited_loop(flow.index, obj.cls)
        if loop is None:
            return None
        found.add(loop)
    return found.pop() if len(found) == 1 else None


def _inherited_loop(index, cls: ClassRef) -> Optional[LibraryLoop]:
    for base in index.external_bases(cls):
        loop = library_loop(base)
        if loop is not None:
            return None if index.method(cls, loop.builder) is not None else loop
    return None


def loop_argument(flow, loop: LibraryLoop, call: Call, name: str, frame: Frame, default: object) -> Values:
    """What the loop passes its DataLoader for ``name``."""
    if name in loop.parameters:
        keyword, position = loop.parameters[name]
        value = call.argument(keyword, position)
        return flow.eval(value, frame) if value is not None else frozenset({Constant(None)})
    if name == "worker_init_fn":
        return frozenset({External(loop.worker_init)})
    if name not in loop.setting_names:
        return frozenset({Constant(default)})
    field, field_default = loop.setting_names[name]
    keyword, position = loop.settings
    value = call.argument(keyword, position)
    if value is None:
        return frozenset({Constant(field_default)})
    found: List[Values] = []
    for obj in flow.eval(value, frame):
        if isinstance(obj, ParsedDataclass) and _settings_class(flow, loop, obj.cls):
            found.append(_parsed_setting(flow, obj, field, field_default))
            continue
        if not (isinstance(obj, ExternalInstance) and obj.qualified in loop.settings_classes):
            found.append(UNKNOWN_SET)
            continue
        written = obj.site.call.argument(field)
        if written is not None:
            found.append(flow.eval(written, obj.site.frame))
        elif obj.site.call.star_kwargs or obj.site.call.star_args:
            found.append(UNKNOWN_SET)
        else:
            found.append(frozenset({Constant(field_default)}))
    return union(found) if found else UNKNOWN_SET


def _settings_class(flow, loop: LibraryLoop, cls) -> bool:
    """The library's settings class, or a project dataclass derived from it."""
    if isinstance(cls, External):
        return cls.qualified in loop.settings_classes
    return isinstance(cls, ClassObj) and bool(set(flow.index.external_bases(cls.cls)) & loop.settings_classes)


def _parsed_setting(flow, parsed: ParsedDataclass, field: str, field_default: object) -> Values:
    """A field of a settings object ``HfArgumentParser`` fills: its default (a project
    subclass may redeclare it), or what the command line passes as ``--field`` (the values
    the project's documented commands pass, when any run the parsing module)."""
    default: Values = frozenset({Constant(field_default)})
    if isinstance(parsed.cls, ClassObj):
        for item in flow.index.mro(parsed.cls.cls):
            declared = [a for a in item.cls.body_assigns if a.target == field]
            if declared:
                default = flow.eval(declared[-1].value, flow.module_frame(item.module))
                break
    flag = f"--{field}"
    site = parsed.parser.site
    documented = flow.documented_option_values([flag], _typed(default), site.frame.module.path)
    return default | frozenset({FromCommandLine(flag)}) | documented


def _typed(default: Values):
    """How a command-line value of the field converts: like its default."""
    kinds = {type(obj.value) for obj in default if isinstance(obj, Constant) and obj.value is not None}
    return kinds.pop() if len(kinds) == 1 and kinds <= {int, float, str} else str
