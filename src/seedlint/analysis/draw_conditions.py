"""What a draw in worker code needs from the command line.

A dataset that draws only under ``if self.dense_sample:`` (a ``store_true`` flag) or
``if args.aug == "strong":`` (one of an option's ``choices``) draws nothing when the program
runs with its defaults. Each ``if`` on the way from the worker's entry to the draw is decided
once more with every command-line option at its default: one that then certainly fails makes
the draw need the options its test reads.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from seedlint.analysis.objects import ClassObj, Constant, Frame, FromCommandLine, Instance, OptionConstant, Values
from seedlint.analysis.flow.shared import _compare_constants, _simple, _truth_of, combined_truth
from seedlint.analysis.workers import Draw, Reached
from seedlint.facts.model import Attr, BoolOp, Call, Compare, Const, Guard, Name, Not, Subscript, Value

AFFIX_TESTS = ("startswith", "endswith")


class Either(str):
    """A requirement any one of several flags meets (``if opt.val_intervals < opt.num_epochs
    or opt.test:`` failing by default): equal to the flags joined by ``|``."""

    alternatives: Tuple[str, ...]

    def __new__(cls, alternatives: Sequence[str]) -> "Either":
        made = super().__new__(cls, "|".join(alternatives))
        made.alternatives = tuple(alternatives)
        return made


def spelled_options(flags: Sequence[str]) -> str:
    """```--a` and `--b```; an ``Either`` is ```--c` or `--d``` alone, ``one of `--c` or
    `--d``` beside other flags."""
    def spelled(flag: str) -> str:
        if not isinstance(flag, Either):
            return f"`{flag}`"
        names = [f"`{each}`" for each in flag.alternatives]
        listed = f"{', '.join(names[:-1])} or {names[-1]}"
        return listed if len(flags) == 1 else f"one of {listed}"
    return " and ".join(spelled(flag) for flag in flags)


def options_needed(flow, draw: Draw) -> Tuple[str, ...]:
    """The flags (``--dense_sample``) without which the draw does not run; () when it runs
    with the program's defaults, or when that is not decided."""
    return options_needed_by(flow, _guards_on_the_way(draw))


def options_needed_by(flow, tests: Sequence[Tuple[Sequence[Guard], Frame]]) -> Tuple[str, ...]:
    """The flags without which one of the ``if`` tests (each with the frame it is decided
    in) fails; () when they all hold with the program's defaults, or that is not decided."""
    needed: List[str] = []
    for guards, frame in tests:
        for test, expected in guards:
            if not expected and any(test is raising for raising in frame.function.function.raising_tests):
                continue  # ``if args.data is None: raise ...``: every run that gets here passes it
            actual = _default_truth(flow, test, frame)
            if actual is not None and actual != expected:
                read = _options_read(flow, test, frame, expected)
                if len(read) > 1 and _any_one_suffices(flow, test, frame, expected):
                    read = [Either(read)]
                for flag in read:
                    if flag not in needed:
                        needed.append(flag)
    valued = {flag.split(" ", 1)[0] for flag in needed if " " in flag}
    return tuple(flag for flag in needed if " " in flag or flag not in valued)


def options_building(flow, holder) -> Tuple[str, ...]:
    """The flags without which a library object held by a dataset is not built (``if
    args.iso_spacing: self.transform = Compose([...])``): the ``if``s around its construction
    and around each call on the way to it; () when the defaults build it."""
    tests = [(holder.site.call.guards, holder.site.frame)]
    frame = holder.site.frame
    while frame.site is not None:
        tests.append((frame.site.call.guards, frame.site.frame))
        frame = frame.site.frame
    found = options_needed_by(flow, tests) + options_choosing(flow, holder)
    if found or frame is not holder.site.frame or not holder.site.call.guards:
        return found
    # Built in a function called from elsewhere (``get_loader(args)``): decided in each of
    # its callers' contexts, and needed only when every caller needs it.
    calls, complete = flow.frames_per_call(frame)
    if not complete or not calls:
        return ()
    per_caller = [options_needed_by(flow, [(holder.site.call.guards, called)]) for _, called in calls]
    shared = [flag for flag in per_caller[0] if all(flag in flags for flags in per_caller[1:])]
    return tuple(shared)


def options_choosing(flow, instance) -> Tuple[str, ...]:
    """The option values without which the program's defaults pick another class where the
    dataset is built by a lookup (``DATASETS[args.dataset.lower()](...)``, or ``Data =
    data_dict[args.data]`` then ``Data(...)``, with the option's default naming another
    key): ``("--dataset Noisy",)``; () when the defaults may pick it, or that is not decided."""
    site = getattr(instance, "site", None)
    if not isinstance(instance, Instance) or site is None:
        return ()
    lookup = _lookup(site.call.func, site.frame)
    if lookup is None:
        return ()
    holder, index = lookup
    keys = flow.eval(index, site.frame)
    if not keys or not all(isinstance(key, Constant) for key in keys) or not any(isinstance(key, OptionConstant) for key in keys):
        return ()
    holders = flow.eval(holder, site.frame)

    def picked(key: Constant) -> set:
        return {obj.cls.key for obj in flow.item(holders, Const(key.value), site.frame) if isinstance(obj, ClassObj)}

    def picks(key: Constant) -> bool:
        return instance.cls.key in picked(key)

    by_default = set().union(*(picked(key) for key in keys if not isinstance(key, OptionConstant)))
    if not by_default or instance.cls.key in by_default:
        return ()  # the defaults pick it, or pick nothing (every run must name one)
    chosen = sorted({f"{key.option} {key.typed}" for key in keys if isinstance(key, OptionConstant) and key.option and picks(key)})
    if not chosen:
        return ()
    return (chosen[0],) if len(chosen) == 1 else (Either(chosen),)


def _lookup(func: Value, frame: Frame) -> Optional[Tuple[Value, Value]]:
    """The container and key of the lookup a callee is: ``DATASETS[key]`` itself, or a local
    name every assignment of which in the function binds to one lookup."""
    if isinstance(func, Subscript):
        return func.value, func.index
    if not isinstance(func, Name) or func.qualified is not None or "." in func.dotted:
        return None
    assigns = [a for a in frame.function.function.assigns if a.target == func.dotted]
    if len(assigns) != 1 or not isinstance(assigns[0].value, Subscript):
        return None
    return assigns[0].value.value, assigns[0].value.index


def _guards_on_the_way(draw: Draw) -> List[Tuple[Sequence[Guard], Frame]]:
    """The ``if``s around the draw, around each call on the way to it, and around the
    construction of each project object whose method runs on the way (a
    ``RandomCropLongEdge()`` built only under ``if augment:``), and around the construction
    of the library object that draws (``steps.append(A.MultiplicativeNoise())`` under
    ``if hard:``)."""
    found = [(draw.call.guards, draw.reached.frame)]
    if draw.held is not None:
        found.append((draw.held.site.call.guards, draw.held.site.frame))
        frame = draw.held.site.frame
        while frame.site is not None:  # ``if augmentation == "hard": augs = hard_color_augmentations()``
            found.append((frame.site.call.guards, frame.site.frame))
            frame = frame.site.frame
    built: List[int] = []
    reached: Optional[Reached] = draw.reached
    while reached is not None:
        if reached.via is not None and reached.call is not None:
            found.append((reached.call.guards, reached.via.frame))
        receiver = reached.frame.receiver
        site = receiver.site if isinstance(receiver, Instance) else None
        if site is not None and id(site.call) not in built:
            built.append(id(site.call))
            found.append((site.call.guards, site.frame))
        reached = reached.via
    return found


def _defaults(values: Values) -> Values:
    return frozenset(obj for obj in values if not isinstance(obj, (OptionConstant, FromCommandLine)))


def _passed_test(flow, test: Value, frame: Frame, hops: int = 0) -> Tuple[Value, Frame]:
    """A parameter tested as it is (``if hard:``) stands for the one expression every call
    passes for it (``hard=args.augmentations == "hard"``), in the caller's frame: a
    comparison whose truth the value flow does not compute, but its operands it can."""
    if hops >= MAX_PASSED_HOPS or not isinstance(test, Name) or "." in test.dotted:
        return test, frame
    if test.dotted not in frame.function.function.params:
        return test, frame
    expressions, complete = flow.parameter_expressions(frame, test.dotted)
    if not complete or len(expressions) != 1:
        return test, frame
    passed, caller = expressions[0]
    if isinstance(passed, (Compare, BoolOp, Not)):
        return passed, caller
    return _passed_test(flow, passed, caller, hops + 1) if isinstance(passed, Name) else (test, frame)


MAX_PASSED_HOPS = 8
"""Parameters followed up through the calls that pass one on (``hard`` -> ``hard`` -> a
comparison); a guard against pathological code, not a limit real code reaches."""


def _default_truth(flow, test: Value, frame: Frame) -> Optional[bool]:
    """The test's truth with every command-line option at its default, when decided."""
    test, frame = _passed_test(flow, test, frame)
    if isinstance(test, Not):
        inner = _default_truth(flow, test.value, frame)
        return None if inner is None else not inner
    if isinstance(test, BoolOp):
        return combined_truth(test.op, [_default_truth(flow, value, frame) for value in test.values])
    if isinstance(test, Compare):
        if not (_simple(test.left) and _simple(test.right)):
            return None
        left, right = _defaults(flow.eval(test.left, frame)), _defaults(flow.eval(test.right, frame))
        if not left or not right or not all(isinstance(obj, Constant) for obj in left | right):
            return None
        outcomes = {_compare_constants(test.op, a.value, b.value) for a in left for b in right}
        return outcomes.pop() if len(outcomes) == 1 and None not in outcomes else None
    affix = _affix_test(test)
    if affix is not None:
        receiver, method, wanted = affix
        values = _defaults(flow.eval(receiver, frame))
        if not values or not all(isinstance(obj, Constant) and isinstance(obj.value, str) for obj in values):
            return None
        outcomes = {getattr(obj.value, method)(wanted) for obj in values}
        return outcomes.pop() if len(outcomes) == 1 else None
    if _simple(test):
        truths = {_truth_of(obj) for obj in _defaults(flow.eval(test, frame))}
        return truths.pop() if len(truths) == 1 else None
    return None


def _affix_test(test: Value) -> Optional[Tuple[Value, str, object]]:
    """``policy.startswith("rand")`` as (the string tested, the method, the constant
    prefix or suffix or tuple of them), else None."""
    if not isinstance(test, Call) or len(test.args) != 1 or test.kwargs or test.star_args or test.star_kwargs:
        return None
    argument = test.args[0]
    if not (isinstance(argument, Const) and isinstance(argument.value, (str, tuple))):
        return None
    func = test.func
    if isinstance(func, Name) and "." in func.dotted:
        root, _, method = func.dotted.rpartition(".")
        receiver: Value = Name(root, func.span, func.qualified.rpartition(".")[0] if func.qualified else None, func.scope)
    elif isinstance(func, Attr):
        receiver, method = func.value, func.attr
    else:
        return None
    if method not in AFFIX_TESTS or not _simple(receiver):
        return None
    return receiver, method, argument.value


def _any_one_suffices(flow, test: Value, frame: Frame, expected: bool) -> bool:
    """The test is made to hold by any one of its parts: an ``or`` that must hold, an ``and``
    that must fail (through ``not``)."""
    test, frame = _passed_test(flow, test, frame)
    while isinstance(test, Not):
        test, expected = test.value, not expected
    return isinstance(test, BoolOp) and test.op == ("or" if expected else "and")


def _options_read(flow, test: Value, frame: Frame, expected: bool = False) -> List[str]:
    """The flags of the options whose command-line values the test reads, with the value an
    ``==`` test that must hold asks for (``--frame_order 2``)."""
    test, frame = _passed_test(flow, test, frame)
    if isinstance(test, Not):
        return _options_read(flow, test.value, frame)
    if isinstance(test, BoolOp):
        return [flag for value in test.values for flag in _options_read(flow, value, frame)]
    affix = _affix_test(test)
    if affix is not None:
        receiver, method, wanted = affix
        shown = f" {wanted}..." if expected and method == "startswith" and isinstance(wanted, str) else ""
        options = [getattr(obj, "option", "") for obj in flow.eval(receiver, frame) if isinstance(obj, (OptionConstant, FromCommandLine))]
        return sorted({option + shown for option in options if option})
    sides = [(test.left, test.right), (test.right, test.left)] if isinstance(test, Compare) else [(test, None)]
    flags: List[str] = []
    for side, other in sides:
        if _simple(side):
            wanted = _asked_value(flow, test, other, frame) if expected else None
            values = flow.eval(side, frame)
            if not isinstance(test, Compare) and not expected:
                wanted = _false_value_typed(values)  # `if args.random_crops:` failing needs `--random_crops 0`
            for obj in values:
                option = getattr(obj, "option", "")
                if isinstance(obj, (OptionConstant, FromCommandLine)) and option:
                    flag = option if wanted is None else f"{option} {wanted}"
                    if flag not in flags:
                        flags.append(flag)
    return sorted(flags)


def _false_value_typed(values: Values) -> Optional[str]:
    """How to type a false value for an option whose default is a true number (``0``);
    None when the flag alone gives one (``store_false``) or the option is not a number."""
    if any(isinstance(obj, OptionConstant) and not obj.value for obj in values):
        return None
    defaults = [obj.value for obj in _defaults(values) if isinstance(obj, Constant)]
    if defaults and all(isinstance(value, (int, float)) and not isinstance(value, bool) and value for value in defaults):
        return "0"
    return None


def _asked_value(flow, test: Value, other: Optional[Value], frame: Frame) -> Optional[str]:
    """The constant an ``option == constant`` test compares with, as it would be typed."""
    if other is None or not isinstance(test, Compare) or test.op != "==" or not _simple(other):
        return None
    values = flow.eval(other, frame)
    if len(values) != 1:
        return None
    (obj,) = values
    if not isinstance(obj, Constant) or isinstance(obj, OptionConstant) or not isinstance(obj.value, (int, float, str)):
        return None
    return str(obj.value)


def exclusive(flow, first: Sequence[Tuple[Sequence[Guard], Frame]], second: Sequence[Tuple[Sequence[Guard], Frame]]) -> bool:
    """Whether no command line passes both sets of ``if`` tests: one needs an option at a
    value the other rules out (``if args.local_rank == -1:`` around a seeding, ``if
    args.local_rank != -1:`` around the process group's start)."""
    wanted = [atom for guards, frame in first for test, expected in guards for atom in _option_atoms(flow, test, expected, frame)]
    if not wanted:
        return False
    for guards, frame in second:
        for test, expected in guards:
            for flag, asked, holds in _option_atoms(flow, test, expected, frame):
                for other_flag, other_asked, other_holds in wanted:
                    if flag != other_flag:
                        continue
                    if asked == other_asked and holds != other_holds:
                        return True
                    if holds and other_holds and asked[0] == other_asked[0] == "equals" and asked != other_asked:
                        return True
    return False


def _option_atoms(flow, test: Value, expected: bool, frame: Frame) -> List[Tuple[str, tuple, bool]]:
    """What a test that must come out ``expected`` says about single options: (flag, what is
    asked, whether it holds), where what is asked is ``("equals", value)`` or ``("truth",)``."""
    if isinstance(test, Not):
        return _option_atoms(flow, test.value, not expected, frame)
    if isinstance(test, BoolOp):
        if (test.op == "and") == expected:
            return [atom for value in test.values for atom in _option_atoms(flow, value, expected, frame)]
        return []
    if isinstance(test, Compare):
        if test.op not in ("==", "!=", "is", "is not"):
            return []
        equal = test.op in ("==", "is")
        for side, other in ((test.left, test.right), (test.right, test.left)):
            flag = _single_option(flow, side, frame)
            value = _plain_constant(flow, other, frame)
            if flag and value is not None:
                return [(flag, ("equals", value), equal == expected)]
        return []
    flag = _single_option(flow, test, frame)
    return [(flag, ("truth",), expected)] if flag else []


def _single_option(flow, value: Value, frame: Frame) -> str:
    """The flag of the one command-line option a name or attribute chain holds (its default
    and the values the command line may give), else ""."""
    if not _simple(value):
        return ""
    flags = set()
    for obj in flow.eval(value, frame):
        if isinstance(obj, (OptionConstant, FromCommandLine)) and obj.option:
            flags.add(obj.option)
        elif not isinstance(obj, Constant):
            return ""
    return flags.pop() if len(flags) == 1 else ""


def _plain_constant(flow, value: Value, frame: Frame) -> Optional[tuple]:
    if not _simple(value):
        return None
    values = flow.eval(value, frame)
    if len(values) != 1:
        return None
    (obj,) = values
    if not isinstance(obj, Constant) or isinstance(obj, OptionConstant):
        return None
    return (type(obj.value).__name__, repr(obj.value))
