"""Names as Python's imports bind them: re-exports through star imports that form a cycle
resolve once and end, and ``from pkg import Name`` reads the package's own binding before
its submodule of that name."""

from seedlint.analysis import project as project_module
from seedlint.analysis.index import ClassRef, ModuleRef
from seedlint.config import Settings
from seedlint.engine import Engine


def index_of(tmp_path, files):
    """The project index of a run over ``files`` (path -> text), and its ``train.py``."""
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    captured = []
    original = project_module.Project.__init__

    def keep(self, *args, **kwargs):
        original(self, *args, **kwargs)
        captured.append(self)

    project_module.Project.__init__ = keep
    try:
        result = Engine(Settings(project_root=str(tmp_path))).check([str(tmp_path)])
    finally:
        project_module.Project.__init__ = original
    assert not result.errors
    index = captured[-1].index
    return index, index.load_file(str(tmp_path / "train.py"))


def test_names_re_exported_in_a_cycle_resolve_once(tmp_path):
    """Two packages that star-import each other, a third that star-imports both: every name
    resolves, and the cycle ends."""
    index, train = index_of(tmp_path, {
        "alpha/__init__.py": "from beta import *\nfrom .crops import Crops\n",
        "alpha/crops.py": "class Crops:\n    pass\n",
        "beta/__init__.py": "from alpha import *\nfrom gamma import *\n",
        "gamma/__init__.py": "from beta import *\nfrom alpha import *\n",
        "train.py": "from alpha import Crops\nfrom gamma import Crops as Again\n",
    })
    for qualified in ("alpha.Crops", "gamma.Crops", "beta.Crops", "alpha.crops.Crops"):
        found = index.resolve(qualified, train)
        assert isinstance(found, ClassRef) and found.cls.name == "Crops", qualified


def test_a_package_binding_replaces_its_submodule_of_the_same_name(tmp_path):
    index, train = index_of(tmp_path, {
        "lib/__init__.py": "",
        "lib/data/__init__.py": "from .Meshes import Meshes\n",
        "lib/data/Meshes.py": "class Meshes:\n    pass\n",
        "train.py": "from lib.data import Meshes\n",
    })
    assert isinstance(index.resolve("lib.data.Meshes", train), ClassRef)
    assert isinstance(index.resolve("lib.data.Meshes.Meshes", train), ClassRef)
    assert isinstance(index.resolve("lib.data", train), ModuleRef)
