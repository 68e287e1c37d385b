"""DataLoader calls and what they load: the shared questions the rules ask about them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional

from seedlint.dataflow import Dataflow, Instance
from seedlint.facts.model import Call, Const, Function, ModuleFacts, Value

TORCH_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
TORCH_POSITIONS = {
    "dataset": 0, "batch_size": 1, "shuffle": 2, "sampler": 3, "batch_sampler": 4, "num_workers": 5,
    "collate_fn": 6, "pin_memory": 7, "drop_last": 8, "timeout": 9, "worker_init_fn": 10,
    "multiprocessing_context": 11, "generator": 12,
}


@dataclass(frozen=True, eq=False)
class LoaderCall:
    module: ModuleFacts
    function: Function
    call: Call
    positional: bool
    """True when positions follow torch's own DataLoader signature."""

    def argument(self, name: str) -> Optional[Value]:
        position = TORCH_POSITIONS.get(name) if self.positional else None
        return self.call.argument(name, position)

    @property
    def arguments_unknown(self) -> bool:
        """``*args``/``**kwargs`` may pass anything."""
        return self.call.star_args or self.call.star_kwargs


def loader_classes(extra: Iterable[str]) -> frozenset:
    return TORCH_LOADERS | frozenset(extra)


def find_loader_calls(flow: Dataflow, modules: Iterable[ModuleFacts], classes: frozenset) -> Iterator[LoaderCall]:
    """Calls of any of ``classes`` (torch's DataLoader, configured and derived loader classes)."""
    for module in modules:
        for function, call in module.all_calls():
            found = flow.refers_to(module, call.func, classes)
            if found is not None:
                yield LoaderCall(module, function, call, found in TORCH_LOADERS)


def workers_may_be_positive(flow: Dataflow, loader: LoaderCall) -> Optional[bool]:
    """True when ``num_workers`` is not statically zero; None when ``**kwargs`` hide it."""
    value = loader.argument("num_workers")
    if value is None:
        return None if loader.arguments_unknown else False
    constant = flow.const(loader.module, value)
    return not (constant is not None and constant.value in (0, False, None))


def worker_init_value(loader: LoaderCall) -> Optional[Value]:
    """The worker_init_fn passed, or None when absent or literally None."""
    value = loader.argument("worker_init_fn")
    if value is None or (isinstance(value, Const) and value.value is None):
        return None
    return value


def datasets(flow: Dataflow, loader: LoaderCall) -> List[Instance]:
    value = loader.argument("dataset")
    return flow.instances(loader.module, value) if value is not None else []
