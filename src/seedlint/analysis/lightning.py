"""PyTorch Lightning: which Trainer or Fabric runs each DataLoader, and how it is set up.

A loader *reaches* Lightning when a ``*_dataloader`` hook of a ``LightningModule`` or
``LightningDataModule`` returns it (also in a list or dict), when it is passed to
``trainer.fit/validate/test/predict``, or when ``fabric.setup_dataloaders`` wraps it. The
runner is the Trainer whose run call receives that loader or that module's object; a
hook of a class no visible Trainer runs is run by an *unseen* Trainer (a ``LightningCLI``,
or a user of the library), which injects samplers unless every Trainer the project builds
turns injection off. A Trainer's flags are read through ``**trainer_kwargs`` dicts. A
configuration instantiated with a keyword only a Trainer takes
(``hydra.utils.instantiate(cfg.trainer, replace_sampler_ddp=False)``) is a Trainer built
there, with that flag. A ``LightningCLI`` runs once per CLI config file of the project:
the Trainer, model and datamodule its sections build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import Dict, Iterable, List, Optional, Tuple

from seedlint.analysis.config_files import INSTANTIATE, LIGHTNING_CLI, cli_call, cli_configs, cli_section
from seedlint.analysis.index import ClassRef
from seedlint.analysis.loops import LoaderObject
from seedlint.analysis.objects import (
    ClassObj,
    Constant,
    DictObj,
    External,
    ExternalInstance,
    Frame,
    FromCommandLine,
    Instance,
    MethodOf,
    Obj,
    SeqObj,
    Values,
)
from seedlint.facts.model import Call, ConfigConst, Function, ModuleFacts, Name, Span

LIGHTNING_PACKAGES = ("lightning", "pytorch_lightning", "lightning_fabric")
TRAINER_CLASSES = frozenset({
    "lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
    "lightning.pytorch.trainer.trainer.Trainer", "pytorch_lightning.Trainer", "pytorch_lightning.trainer.Trainer",
    "pytorch_lightning.trainer.trainer.Trainer",
})
FABRIC_CLASSES = frozenset({
    "lightning.Fabric", "lightning.fabric.Fabric", "lightning.fabric.fabric.Fabric", "lightning_fabric.Fabric",
    "lightning_fabric.fabric.Fabric", "lightning.fabric.LightningLite", "pytorch_lightning.lite.LightningLite",
    "lightning_lite.LightningLite",
})
MODULE_BASES = ("LightningModule", "LightningDataModule")
HOOKS = ("train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader")
RUN_METHODS = ("fit", "validate", "test", "predict", "tune")
LOADER_KEYWORDS = ("train_dataloaders", "val_dataloaders", "dataloaders", "train_dataloader", "val_dataloader", "test_dataloaders")
INSTANTIATORS_LAST = ("instantiate", "call")
NEW_FLAG = "use_distributed_sampler"
TRAINER_OLD_FLAG = "replace_sampler_ddp"
FABRIC_OLD_FLAG = "replace_sampler"
OLD_ENV_VAR = "PL_TRAINER_REPLACE_SAMPLER_DDP"
NEW_ENV_VAR = "PL_TRAINER_USE_DISTRIBUTED_SAMPLER"
RENAMED_IN = "2.0"
TYPE_ERROR_SINCE = "2.1"
MULTI_PROCESS_STRATEGIES = ("ddp", "fsdp", "deepspeed")
STRATEGY_CLASSES = ("DDPStrategy", "FSDPStrategy", "DeepSpeedStrategy", "DDPSpawnStrategy")
MAX_INSTANCES = 8
SEVERAL, ONE, ON_HOST = "several", "one", "on host"


@dataclass(frozen=True, eq=False)
class Runner:
    """A Trainer, a Fabric, or a Trainer the project does not show, that runs loaders."""

    kind: str
    """"trainer", "fabric" or "unseen"."""
    module: Optional[ModuleFacts]
    function: Optional[Function]
    call: Optional[Call]
    frame: Optional[Frame]
    injects: bool
    """Lightning injects a DistributedSampler into this runner's loaders."""

    @property
    def old_flag(self) -> str:
        return FABRIC_OLD_FLAG if self.kind == "fabric" else TRAINER_OLD_FLAG


@dataclass(frozen=True, eq=False, repr=False)
class FlagSpelling:
    """One spelling of the sampler-injection flag: a keyword, or setting the environment variable."""

    module: ModuleFacts
    span: Span
    spelled: str
    owner: str
    """"Trainer", "LightningCLI" (a Trainer a CLI config builds), "Fabric.setup_dataloaders" or "environment"."""
    place: Optional[Tuple[str, int]] = None
    """Where a configuration file sets it (path, line): the keyword is one of its keys."""


class Lightning:
    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.flow
        self.index = project.index
        self._processes: Dict[Runner, str] = {}
        self._cli_calls: Dict[tuple, Call] = {}

    # ------------------------------------------------------------------ the project
    @cached_property
    def used(self) -> bool:
        """The project declares a Lightning version or imports one of its packages."""
        if self.project.settings.lightning_version.declared:
            return True
        return any(
            target.split(".", 1)[0] in LIGHTNING_PACKAGES
            for module in list(self.index.modules.values()) for target in module.imports.values()
        )

    @cached_property
    def trainers(self) -> List[Runner]:
        """Every ``Trainer(...)`` the checked modules build."""
        found = []
        for module, function, call in self.project.calls_spelled(("Trainer", "from_argparse_args", "LightningCLI", *INSTANTIATORS_LAST)):
            frame = self.flow.function_frame(module, function)
            objects = self.flow.callee_objects(call, frame)
            if any(self._is_trainer_class(o) for o in objects):
                found.append(Runner("trainer", module, function, call, frame, self._injects(call, frame, TRAINER_OLD_FLAG)))
            elif any(getattr(o, "qualified", None) in INSTANTIATE for o in objects):
                found.extend(self._instantiated_trainers(module, function, call, frame))
        found.extend(runner for runner, _ in self._cli_programs)
        return found

    @cached_property
    def _cli_programs(self) -> List[Tuple[Runner, List[Instance]]]:
        """``LightningCLI(Model, DataModule)`` run with each of the project's CLI config files:
        the Trainer its ``trainer:`` section builds, and the model and datamodule its
        ``model:`` and ``data:`` sections build (``class_path`` + ``init_args``, or the
        classes the CLI was given with the section's keys)."""
        found: List[Tuple[Runner, List[Instance]]] = []
        configs: Optional[list] = None
        for module, function, call in self.project.calls_spelled(("LightningCLI", "CLI")):
            frame = self.flow.function_frame(module, function)
            home = self._cli_home(self.flow.callee_objects(call, frame))
            if home is None:
                continue
            if configs is None:
                configs = cli_configs(self.project.settings.project_root or os.path.dirname(module.path))
            for _, content in configs:
                found.append(self._cli_program(module, function, call, frame, home, content))
        return found

    def _cli_home(self, objects: Values) -> Optional[str]:
        """The Lightning package of a LightningCLI class (None: not one)."""
        for obj in objects:
            names = [obj.qualified] if isinstance(obj, External) else (
                self.index.external_bases(obj.cls) if isinstance(obj, ClassObj) else [])
            for name in names:
                if name in LIGHTNING_CLI:
                    return "pytorch_lightning" if name.startswith("pytorch_lightning") else "lightning.pytorch"
        return None

    def _cli_program(self, module: ModuleFacts, function, call: Call, frame: Frame, home: str, content: dict) -> Tuple[Runner, List[Instance]]:
        _, trainer_arguments = cli_section(content, "trainer")
        trainer_call = self._cli_calls.setdefault(
            (id(call), id(content), "trainer"), cli_call(call, Name(f"{home}.Trainer", call.span, f"{home}.Trainer", ""), trainer_arguments))
        runner = Runner("trainer", module, function, trainer_call, frame, self._injects(trainer_call, frame, TRAINER_OLD_FLAG))
        instances: List[Instance] = []
        for section, keyword, position in (("model", "model_class", 0), ("data", "datamodule_class", 1)):
            class_path, arguments = cli_section(content, section)
            given = call.argument(keyword, position)
            func = Name(class_path, call.span, class_path, "") if class_path is not None else given
            if func is None:
                continue
            made = self._cli_calls.setdefault((id(call), id(content), section), cli_call(call, func, arguments))
            instances.extend(v for v in self.flow.eval(made, frame) if isinstance(v, Instance))
        return runner, instances

    def _instantiated_trainers(self, module: ModuleFacts, function, call: Call, frame: Frame) -> List[Runner]:
        """``hydra.utils.instantiate(cfg.trainer, ...)``: a Trainer the configuration's
        ``_target_`` names, built from its keys and the call's keywords; or, where the
        configuration cannot be read, a config instantiated with a keyword only a Trainer
        takes (``replace_sampler_ddp=False``)."""
        found = []
        for value in self.flow.eval(call, frame):
            if isinstance(value, ExternalInstance) and value.qualified in TRAINER_CLASSES:
                made, made_frame = value.site.call, value.site.frame
                found.append(Runner("trainer", module, function, made, made_frame, self._injects(made, made_frame, TRAINER_OLD_FLAG)))
        if not found and any(call.kwarg(flag) is not None for flag in (NEW_FLAG, TRAINER_OLD_FLAG)):
            found.append(Runner("trainer", module, function, call, frame, self._injects(call, frame, TRAINER_OLD_FLAG)))
        return found

    def _is_trainer_class(self, obj: Obj) -> bool:
        if isinstance(obj, ClassObj):
            return any(base in TRAINER_CLASSES for base in self.index.external_bases(obj.cls))
        if not hasattr(obj, "qualified"):
            return False
        qualified = obj.qualified
        if qualified in TRAINER_CLASSES:
            return True
        head, _, last = qualified.rpartition(".")
        return last == "from_argparse_args" and head in TRAINER_CLASSES

    def _injects(self, call: Call, frame: Frame, old_flag: str) -> bool:
        """True when the flag is certainly absent or certainly true."""
        for flag in (NEW_FLAG, old_flag):
            values = self.flow.keyword_values(call, frame, flag)
            if values is None:
                continue
            if not values or not all(isinstance(v, Constant) and bool(v.value) for v in values):
                return False
        return True

    @cached_property
    def unseen(self) -> Runner:
        """The Trainer that runs hooks of classes no visible Trainer runs."""
        injects = not self.trainers or any(t.injects for t in self.trainers)
        return Runner("unseen", None, None, None, None, injects)

    # ------------------------------------------------------------------ what runs what
    @cached_property
    def reached(self) -> Dict[int, List[Tuple[LoaderObject, Runner]]]:
        """Loader objects Lightning runs, by the id of the call that builds them."""
        found: Dict[int, List[Tuple[LoaderObject, Runner]]] = {}

        def add(objects: Iterable[LoaderObject], runner: Runner) -> None:
            for obj in objects:
                found.setdefault(id(obj.loader.call), []).append((obj, runner))

        run_classes = set()
        for runner, instance, loaders in self._run_calls():
            add(loaders, runner)
            if instance is not None:
                run_classes.add(instance.cls.key)
                add(self._hook_loaders(instance), runner)
        for runner, instances in self._cli_programs:
            for instance in instances:
                run_classes.add(instance.cls.key)
                add(self._hook_loaders(instance), runner)
        for cls in self._module_classes():
            if cls.key in run_classes:
                continue
            instances, _ = self.flow.callsites.constructions(cls)
            if not instances or len(instances) > MAX_INSTANCES:
                instances = [Instance(cls, None)]
            for instance in instances:
                add(self._hook_loaders(instance), self.unseen)
        for runner, loaders in self._fabric_setups():
            add(loaders, runner)
        return found

    def runners(self, obj: LoaderObject) -> List[Runner]:
        return [runner for found, runner in self.reached.get(id(obj.loader.call), []) if found.frame.key == obj.frame.key]

    def reached_objects(self) -> List[Tuple[LoaderObject, List[Runner]]]:
        grouped: Dict[tuple, Tuple[LoaderObject, List[Runner]]] = {}
        for entries in self.reached.values():
            for obj, runner in entries:
                key = (id(obj.loader.call), obj.frame.key)
                grouped.setdefault(key, (obj, []))[1].append(runner)
        return list(grouped.values())

    def _module_classes(self) -> List[ClassRef]:
        found = []
        for module in list(self.index.modules.values()):
            for cls in module.classes.values():
                ref = ClassRef(module, cls)
                if any(_is_lightning_module_base(base) for base in self.index.external_bases(ref)):
                    found.append(ref)
        return found

    def _hook_loaders(self, instance: Instance) -> List[LoaderObject]:
        found: List[LoaderObject] = []
        for hook in HOOKS:
            method = self.index.method(instance.cls, hook)
            if method is None or not method.function.returns:
                continue
            frame = self.flow.method_frame(method, instance)
            for value in method.function.returns:
                found.extend(self.project.loops.loader_objects(self._flatten(self.flow.eval(value, frame))))
        return found

    def _flatten(self, values: Values) -> Values:
        """Loaders returned in a list, tuple or dict count one by one."""
        found = set(values)
        for obj in values:
            if isinstance(obj, SeqObj):
                found |= self.flow.elements(frozenset({obj}))
            elif isinstance(obj, DictObj):
                for entry in self.flow.dict_entries(obj):
                    found |= self.flow.eval(entry.value, entry.frame)
        return frozenset(found)

    def _run_calls(self) -> Iterable[Tuple[Runner, Optional[Instance], List[LoaderObject]]]:
        """``trainer.fit(model, ...)`` and friends: the runner, the module object, the loaders passed."""
        by_call = {id(t.call): t for t in self.trainers}
        for module, function, call in self.project.calls_spelled(RUN_METHODS):
            frame = self.flow.function_frame(module, function)
            for callee in self.flow.callee_objects(call, frame):
                receiver = callee.receiver if isinstance(callee, MethodOf) else None
                if not isinstance(receiver, ExternalInstance) or id(receiver.site.call) not in by_call:
                    continue
                runner = by_call[id(receiver.site.call)]
                passed = [*call.args, *(v for k, v in call.kwargs)]
                values = self._flatten(frozenset().union(*(self.flow.eval(v, frame) for v in passed))) if passed else frozenset()
                loaders = self.project.loops.loader_objects(values)
                instances = [v for v in values if isinstance(v, Instance) and self._is_module_class(v.cls)]
                for instance in instances or [None]:
                    yield runner, instance, loaders

    def _is_module_class(self, cls: ClassRef) -> bool:
        return any(_is_lightning_module_base(base) for base in self.index.external_bases(cls))

    def _fabric_setups(self) -> Iterable[Tuple[Runner, List[LoaderObject]]]:
        for module, function, call in self.project.calls_spelled(("setup_dataloaders", "setup_dataloader")):
            frame = self.flow.function_frame(module, function)
            for callee in self.flow.callee_objects(call, frame):
                receiver = callee.receiver if isinstance(callee, MethodOf) else None
                if isinstance(receiver, ExternalInstance) and receiver.qualified in FABRIC_CLASSES:
                    runner = Runner("fabric", module, function, call, frame, self._injects(call, frame, FABRIC_OLD_FLAG))
                    values = frozenset().union(*(self.flow.eval(v, frame) for v in call.args)) if call.args else frozenset()
                    yield runner, self.project.loops.loader_objects(values)
                    break

    # ------------------------------------------------------------------ devices
    def several_processes(self, runner: Runner) -> bool:
        """The Trainer certainly starts several processes (devices > 1, -1 or "auto",
        num_nodes > 1, or a ddp/fsdp/deepspeed strategy on more than one device) when the
        program runs with its defaults (a command-line option at its default value)."""
        if runner.call is None:
            return False
        call, frame = runner.call, runner.frame
        for keyword in ("devices", "gpus"):
            values = _by_default(self.flow.keyword_values(call, frame, keyword))
            if values and all(_many_devices(v) for v in values):
                return True
        nodes = _by_default(self.flow.keyword_values(call, frame, "num_nodes"))
        if nodes and all(isinstance(v, Constant) and isinstance(v.value, int) and v.value > 1 for v in nodes):
            return True
        strategy = _by_default(self.flow.keyword_values(call, frame, "strategy"))
        if not strategy:
            return False
        devices = [_by_default(self.flow.keyword_values(call, frame, k)) for k in ("devices", "gpus")]
        if any(v and all(_one_device(d) for d in v) for v in devices):
            return False  # strategy="ddp" on one device is one process
        for value in strategy:
            if isinstance(value, Constant) and isinstance(value.value, str):
                if not value.value.lower().startswith(MULTI_PROCESS_STRATEGIES):
                    return False
            elif isinstance(value, ExternalInstance):
                if value.qualified.rsplit(".", 1)[-1] not in STRATEGY_CLASSES:
                    return False
            else:
                return False
        return True

    def processes(self, runner: Runner) -> str:
        """How many processes the runner starts when the program runs with its defaults:
        SEVERAL, ONE, or ON_HOST (``devices="auto"``, Lightning's default since 2.0, uses
        every GPU of the machine). A module no visible Trainer runs is judged by the
        project's Trainers when they all agree."""
        if runner not in self._processes:
            self._processes[runner] = self._count_processes(runner)
        return self._processes[runner]

    def _count_processes(self, runner: Runner) -> str:
        if runner.kind == "unseen":
            counts = {self.processes(t) for t in self.trainers}
            return counts.pop() if len(counts) == 1 else ON_HOST
        if runner.call is None or runner.kind != "trainer":
            return ON_HOST
        if self.several_processes(runner):
            return SEVERAL
        call, frame = runner.call, runner.frame
        devices = [self.flow.keyword_values(call, frame, k) for k in ("devices", "gpus")]
        given = [_by_default(v) for v in devices if v is not None]
        if any(v and all(_one_device(d) for d in v) for v in given):
            return ONE
        accelerator = _by_default(self.flow.keyword_values(call, frame, "accelerator"))
        on_cpu = bool(accelerator) and all(isinstance(v, Constant) and v.value == "cpu" for v in accelerator)
        version = self.project.settings_for(runner.module.path).lightning_version
        if not given and (on_cpu or not version.may_be_at_least(RENAMED_IN)):
            return ONE
        return ON_HOST

    # ------------------------------------------------------------------ the renamed flag
    @cached_property
    def flag_spellings(self) -> List[FlagSpelling]:
        found: List[FlagSpelling] = []
        trainers = self.trainers  # building them records the Trainer calls LightningCLI makes
        cli_calls = {id(call) for call in self._cli_calls.values()}
        for runner in trainers:
            owner = "LightningCLI" if id(runner.call) in cli_calls else "Trainer"
            found.extend(self._keyword_spellings(runner.module, runner.call, TRAINER_OLD_FLAG, owner))
        fabric_calls: Dict[str, List[Call]] = {}
        for module, _, call in self.project.calls_spelled(("setup_dataloaders", "setup_dataloader")):
            fabric_calls.setdefault(module.path, []).append(call)
        for module in self.project.modules:
            for call in fabric_calls.get(module.path, ()):
                found.extend(self._keyword_spellings(module, call, FABRIC_OLD_FLAG, "Fabric.setup_dataloaders"))
            found.extend(self._environment_spellings(module))
        return found

    def _environment_spellings(self, module: ModuleFacts) -> List[FlagSpelling]:
        """Code that sets the old environment variable: ``os.environ[NAME] = ...``,
        ``os.environ.setdefault(NAME, ...)``, ``os.putenv(NAME, ...)``."""
        strings = [span for text, span in module.caps_strings if text == OLD_ENV_VAR]
        if not strings:
            return []
        found = []
        for function in module.functions.values():
            frame = self.flow.function_frame(module, function)
            places = [i.span for i in function.item_assigns if self._environ(i.container, frame) and self._is_old(i.key, frame)]
            for call in function.calls:
                names = self.flow.callee_names(call, frame)
                if names & {"os.environ.setdefault", "os.putenv", "os.environ.__setitem__"} and call.args and self._is_old(call.args[0], frame):
                    places.append(call.span)
            for place in places:
                for span in strings:
                    if _within(place, span):
                        found.append(FlagSpelling(module, span, OLD_ENV_VAR, "environment"))
        return found

    def _environ(self, container, frame: Frame) -> bool:
        return any(getattr(o, "qualified", "") == "os.environ" for o in self.flow.eval(container, frame))

    def _is_old(self, key, frame: Frame) -> bool:
        constant = self.flow.constant(key, frame)
        return constant is not None and constant.value == OLD_ENV_VAR

    @staticmethod
    def _keyword_spellings(module: ModuleFacts, call: Call, old_flag: str, owner: str) -> List[FlagSpelling]:
        found = []
        for keyword in (old_flag, NEW_FLAG):
            span = call.keyword_span(keyword)
            if span is not None:
                found.append(FlagSpelling(module, span, keyword, owner))
                continue
            value = call.kwarg(keyword)
            if isinstance(value, ConfigConst):
                found.append(FlagSpelling(module, call.span, keyword, owner, value.place))
        return found


def renamed(spelling: FlagSpelling) -> str:
    """The other side of the Lightning 2.0 rename."""
    pairs = {TRAINER_OLD_FLAG: NEW_FLAG, FABRIC_OLD_FLAG: NEW_FLAG, OLD_ENV_VAR: NEW_ENV_VAR}
    if spelling.spelled in pairs:
        return pairs[spelling.spelled]
    return TRAINER_OLD_FLAG if spelling.owner in ("Trainer", "LightningCLI") else FABRIC_OLD_FLAG


def _is_lightning_module_base(qualified: str) -> bool:
    package = qualified.split(".", 1)[0]
    return package in LIGHTNING_PACKAGES and qualified.rsplit(".", 1)[-1] in MODULE_BASES


def _within(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def _by_default(values: Optional[Values]) -> Optional[Values]:
    """The values a keyword has when every command-line option stays at its default."""
    if not values:
        return values
    kept = frozenset(v for v in values if not isinstance(v, FromCommandLine))
    return kept or values


def _one_device(value: Obj) -> bool:
    """``devices=1``, ``devices=[3]``, ``devices="0,"``: a single device, a single process."""
    if isinstance(value, SeqObj):
        return len(value.entries) == 1
    if not isinstance(value, Constant) or isinstance(value.value, bool):
        return False
    if isinstance(value.value, int):
        return value.value == 1
    if isinstance(value.value, str):
        text = value.value.strip()
        return text == "1" or ("," in text and len([p for p in text.split(",") if p.strip()]) == 1)
    return False


def _many_devices(value: Obj) -> bool:
    if isinstance(value, SeqObj):
        return len(value.entries) > 1
    if not isinstance(value, Constant):
        return False
    if isinstance(value.value, bool):
        return False
    if isinstance(value.value, int):
        return value.value > 1 or value.value == -1
    if isinstance(value.value, str):
        text = value.value.strip()
        if text in ("auto", "-1"):
            return True
        if "," in text:
            return len([p for p in text.split(",") if p.strip()]) > 1
        return text.isdigit() and int(text) > 1
    return False
